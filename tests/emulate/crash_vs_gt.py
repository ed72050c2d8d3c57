#!/usr/bin/env python3
"""qpt crash --json against the single-step ground truth of the same
program (another run of it, ASLR off, so the same addresses).

The crashing thread is the K-th thread of the ground truth (by tid, in the
order the kernel gave them out: they wrap at pid_max).  From
its instructions ("TID IP" hex, the retired ones), with the lengths and the
branch classes from perf's own decoder (perf script -F
tid,ip,insnlen,flags on the recording; nothing from qpt's classifier):
  - the faulting ip: after the last retired instruction a, a + len(a)
    (a is not a jump, call or return in these programs);
  - the call stack: calls push their site, returns pop; innermost first,
    the faulting ip then the call sites;
  - the last N taken branches (lbr_vs_gt.py's rule) and the last K
    instructions;
  - the window: qpt's "window_insns" instructions end at the fault, so the
    ground truth's instruction that many from the end is "window_start".
A window that begins mid-stack (a snapshot smaller than the history)
holds the innermost frames of the ground truth's stack.

PERF_ILEN.txt must cover the whole run (perf on a recording without a
snapshot when the crash's has one).

usage: crash_vs_gt.py GT.txt PERF_ILEN.txt CRASH.json K SIGNAME CODE
       [SYM,SYM,...]   (the names the innermost frames must start with)
"""
import json
import sys

from lbr_vs_gt import compare, read_ilen, tid_order


def frames_of(ips, ilen, calls, rets):
    stack = []
    for a in ips:
        if a in calls:
            stack.append(a)
        elif a in rets and stack:
            stack.pop()
    return stack[::-1]


def main():
    gt_path, ilen_path, js_path, k, signame, code = sys.argv[1:7]
    syms = sys.argv[7].split(",") if len(sys.argv) > 7 and sys.argv[7] \
        else []
    threads = {}
    for line in open(gt_path):
        f = line.split()
        if len(f) >= 2:
            threads.setdefault(int(f[0]), []).append(int(f[1], 16))
    ips = threads[tid_order(threads)[int(k)]]
    ilen, uncond = read_ilen(ilen_path)
    calls, rets = set(), set()
    for line in open(ilen_path):
        f = line.split()
        if len(f) >= 4 and f[-2] == "ilen:":
            fl = set(f[1:-3])
            if "call" in fl and "syscall" not in fl:
                calls.add(int(f[-3], 16))
            if "return" in fl:
                rets.add(int(f[-3], 16))
    j = json.load(open(js_path))
    bad = []
    if j.get("signame") != signame or j.get("code_name") != code:
        bad.append("signal %s %s, want %s %s" % (j.get("signame"),
                                                 j.get("code_name"),
                                                 signame, code))
    last = ips[-1]
    fault = last + ilen[last]
    if int(j["ip"], 16) != fault:
        bad.append("ip %s, want 0x%x" % (j["ip"], fault))
    want = [fault] + frames_of(ips, ilen, calls, rets)
    got = [int(f["ip"], 16) for f in j["stack"]]
    if j["window_mid_stack"]:
        if got != want[:len(got)]:
            bad.append("stack %s is not the innermost of %s"
                       % ([hex(x) for x in got[:8]],
                          [hex(x) for x in want[:8]]))
    elif got != want:
        bad.append("stack %s, want %s" % ([hex(x) for x in got[:8]],
                                          [hex(x) for x in want[:8]]))
    for i, s in enumerate(syms):
        if i >= len(j["stack"]) or \
                not j["stack"][i].get("sym", "").startswith(s + "+"):
            bad.append("frame %d is not in %s" % (i, s))
    taken = []
    tail = ips[-j["window_insns"] - 1:]
    for a, b in zip(tail, tail[1:]):
        if b != a + ilen[a] or a in uncond:
            taken.append((a, b, a + ilen[a]))
    n = len(j["branches"])
    if not compare(int(k), "crash", j["branches"],
                   taken[len(taken) - n:][::-1]):
        bad.append("branches")
    got = [int(i["ip"], 16) for i in j["insns"]]
    if got != ips[len(ips) - len(got):]:
        bad.append("insns")
    w = j["window_insns"]
    if w > len(ips) or ips[-w] != int(j["window_start"], 16):
        bad.append("window of %d from %s; the ground truth has %d" %
                   (w, j["window_start"], len(ips)))
    if j["window_mid_stack"] == (w == len(ips)):
        bad.append("window_mid_stack %s with %d of %d instructions"
                   % (j["window_mid_stack"], w, len(ips)))
    for b in bad:
        print("FAIL: " + b)
    if not bad:
        print("ok: %s %s at %s, %d frames%s, %d branches, window %d of %d"
              % (signame, code, j["ip"], len(j["stack"]),
                 " (mid-stack%s)" % (", deeper than the window"
                                     if j["deeper_than_window"] else "")
                 if j["window_mid_stack"] else "", n, w, len(ips)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
