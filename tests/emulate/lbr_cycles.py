#!/usr/bin/env python3
"""The cycles of qpt decode --lbr's entries against perf's own count of
the CYC packets: perf script --itrace=b -F tid,ip,addr,flags,ipc reports,
now and then on a branch, "IPC: x (INSNS/CYCLES)", the cycles since its
previous report.  Between two reports with no trace end between them
(perf and qpt part there: around a trace gap perf counts from the packet
stream state its decoder restarts with), the entries that stand for those
branches must hold the same cycles: an entry's cycles are those since
the previous entry.

usage: lbr_cycles.py PERF_BRANCHES.txt QPT_LBR.jsonl
"""
import json
import re
import sys


def perf_threads(path):
    out = {}
    for line in open(path):
        m = re.match(r"\s*(-?\d+)\s+(.*?)\s+([0-9a-f]+) =>\s+([0-9a-f]+)"
                     r"(?:.*\((\d+)/(\d+)\))?", line)
        if m:
            out.setdefault(int(m.group(1)), []).append(
                (m.group(2).split(), int(m.group(3), 16), int(m.group(4), 16),
                 int(m.group(6)) if m.group(6) else None))
    return out


def units(lines):
    """perf's lines as the LBR sees them: (line indexes, from, to) per
    entry, trace gaps joined; the lines of a gap that makes no entry go
    with the next one."""
    out, pending, end = [], [], None
    for i, (flags, frm, to, _) in enumerate(lines):
        pending.append(i)
        if flags[:2] == ["tr", "end"]:
            end = (frm, flags[2] if len(flags) > 2 else "async")
            continue
        if flags[:2] == ["tr", "strt"]:
            if end and not ((end[1] == "syscall" and to == end[0] + 2) or
                            (end[1] == "async" and to == end[0])):
                out.append((pending, end[0], to))
                pending = []
            end = None
            continue
        out.append((pending, frm, to))
        pending = []
    return out


def main():
    perf = perf_threads(sys.argv[1])
    recs = {}
    for line in open(sys.argv[2]):
        r = json.loads(line)
        if r["point"] in ("end", "crash"):
            recs[r["tid"]] = r
    if sorted(perf) != sorted(recs):
        print("FAIL: threads %s, want %s" % (sorted(recs), sorted(perf)))
        return 1
    checked = 0
    for tid, lines in perf.items():
        ents = recs[tid]["entries"][::-1]
        us = units(lines)[-len(ents):] if ents else []
        acc_p = acc_q = None  # from the first report inside the window
        gap = False
        for (idx, frm, to), e in zip(us, ents):
            if (frm, to) != (int(e["from"], 16), int(e["to"], 16)):
                print("FAIL: tid %d: entry %s, want %x -> %x"
                      % (tid, e, frm, to))
                return 1
            if acc_q is not None:
                acc_q += e["cycles"]
            for i in idx:
                c = lines[i][3]
                if c is None:
                    continue
                if acc_p is None:
                    if i == idx[-1]:
                        acc_p = acc_q = 0
                    continue
                acc_p += c
            if any(lines[i][0][:1] == ["tr"] for i in idx):
                gap = True
            if acc_p is not None and lines[idx[-1]][3] is not None:
                if not gap and acc_p != acc_q:
                    print("FAIL: tid %d: %d cycles up to %x -> %x, perf "
                          "says %d" % (tid, acc_q, frm, to, acc_p))
                    return 1
                checked += not gap
                acc_p = acc_q = 0
                gap = False
    if not checked:
        print("FAIL: no cycles to compare")
        return 1
    print("ok: cycles agree with perf at %d reports" % checked)
    return 0


sys.exit(main())
