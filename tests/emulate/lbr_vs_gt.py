#!/usr/bin/env python3
"""The last LBR record of each thread (qpt decode --lbr=N --json) against
the last N taken branches of the single-step ground truth.

The ground truth lists every instruction a thread retires ("TID IP" hex);
a taken branch is a pair of consecutive instructions a, b where b is not
a + len(a), or where a is a jump, call or return (a jump to the next
instruction is taken too), with the lengths and the branch classes from
perf's own instruction decoder (perf script -F ip,insnlen,flags on the
recording), so nothing here uses qpt's classifier.  One difference of views is allowed: where a fault passes
control to a signal handler, the faulting instruction never retires (the
ground truth goes from the instruction before it, a, to the handler),
while an LBR names the faulting instruction, a + len(a), as the source;
qpt marks such branches "async".

With a period P (qpt decode --lbr-period P), the j-th "period" record of
a thread is taken before its instruction number j * P (from 0) retires:
its ip must be that instruction and its entries the last N taken branches
before it.

usage: lbr_vs_gt.py GT.txt PERF_ILEN.txt QPT_LBR.jsonl N [P]
"""
import json
import sys


def tid_order(tids):
    """Tids in the order the kernel allocated them: they wrap at pid_max,
    so the order starts after the largest gap in their circle."""
    try:
        pid_max = int(open("/proc/sys/kernel/pid_max").read())
    except (OSError, ValueError):
        pid_max = 4194304
    u = sorted(tids)
    if not u:
        return u
    gaps = [u[0] + pid_max - u[-1]] + [b - a for a, b in zip(u, u[1:])]
    best = max(range(len(u)), key=lambda i: (gaps[i], -i))
    return u[best:] + u[:best]


def by_thread(lines):
    threads = {}
    for line in lines:
        f = line.split()
        if len(f) >= 2:
            threads.setdefault(int(f[0]), []).append(int(f[1], 16))
    return [threads[t] for t in tid_order(threads)]


def compare(k, what, ents, want):
    """Entries (newest first) against (a, b, a + len(a)) ground truth."""
    if len(ents) != len(want):
        print("FAIL: thread %d %s: %d entries, want %d"
              % (k, what, len(ents), len(want)))
        return False
    for i, (e, (a, b, nxt)) in enumerate(zip(ents, want)):
        frm, to = int(e["from"], 16), int(e["to"], 16)
        if not (to == b and (frm == a or (e["kind"] == "async"
                                          and frm == nxt))):
            print("FAIL: thread %d %s entry %d: %s -> %s %s, want "
                  "0x%x -> 0x%x" % (k, what, i, e["from"], e["to"],
                                     e["kind"], a, b))
            return False
    return True


def read_ilen(path):
    """Lengths and the unconditional branches (jmp, call, return) by ip,
    from perf script -F tid,ip,insnlen,flags."""
    ilen, uncond = {}, set()
    for line in open(path):
        f = line.split()
        if len(f) >= 4 and f[-2] == "ilen:":
            ip = int(f[-3], 16)
            ilen[ip] = int(f[-1])
            if set(f[1:-3]) & {"jmp", "call", "return"}:
                uncond.add(ip)
    return ilen, uncond


def main():
    gt_path, ilen_path, lbr_path, n = sys.argv[1:5]
    n = int(n)
    period = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    ilen, uncond = read_ilen(ilen_path)
    gt = by_thread(open(gt_path))
    recs = {}
    for line in open(lbr_path):
        rec = json.loads(line)
        recs.setdefault(rec["tid"], []).append(rec)
    got = [recs[t] for t in tid_order(recs)]
    if len(got) != len(gt):
        print("FAIL: %d threads in the ground truth, %d in the records"
              % (len(gt), len(got)))
        return 1
    bad = 0
    for k, (ips, rl) in enumerate(zip(gt, got)):
        taken = []  # (index of b, (a, b, a + len(a)))
        for i, (a, b) in enumerate(zip(ips, ips[1:])):
            if a not in ilen:
                print("FAIL: thread %d: no length for 0x%x" % (k, a))
                return 1
            if b != a + ilen[a] or a in uncond:
                taken.append((i + 1, (a, b, a + ilen[a])))
        last = rl[-1]
        if last["point"] not in ("end", "crash"):
            print("FAIL: thread %d: the last record is at a %s"
                  % (k, last["point"]))
            bad += 1
            continue
        want = [t for _, t in taken[-n:]][::-1]
        if not compare(k, last["point"], last["entries"], want):
            bad += 1
            continue
        periods = [r for r in rl if r["point"] == "period"]
        if period and len(periods) != (len(ips) - 1) // period:
            print("FAIL: thread %d: %d period records for %d instructions"
                  % (k, len(periods), len(ips)))
            bad += 1
            continue
        pos = 0
        for j, r in enumerate(periods, 1):
            at = j * period
            while pos < len(taken) and taken[pos][0] <= at:
                pos += 1
            want = [t for _, t in taken[max(0, pos - n):pos]][::-1]
            if int(r["ip"], 16) != ips[at]:
                print("FAIL: thread %d period %d: ip %s, want 0x%x"
                      % (k, j, r["ip"], ips[at]))
                bad += 1
                break
            if not compare(k, "period %d" % j, r["entries"], want):
                bad += 1
                break
        else:
            kinds = sorted(set(e["kind"] for e in last["entries"]))
            print("ok thread %d: %d entries (%s) at its %s; %d period "
                  "records" % (k, len(last["entries"]), " ".join(kinds),
                               last["point"], len(periods)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
