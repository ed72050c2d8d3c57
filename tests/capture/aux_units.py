#!/usr/bin/env python3
"""The units (sim_unit.h: each numbered by its TSC packet) of each CPU's
AUXTRACE buffers, from perf report -D's dump on stdin, in file order.

Usage: aux_units.py whole N        each of CPUs 0 and 1 holds units 0..N-1
       aux_units.py prefix K N     each holds units 0..M-1, K <= M <= N (K 0:
                                   or none at all)
       aux_units.py newest N SIZE  the one buffer of each CPU holds the
                                   newest min(N, SIZE) units of 0..N-1
Exits 1 saying what each CPU holds when it is not so."""
import re
import sys

cpus, cur = {0: [], 1: []}, None
bufs = {0: 0, 1: 0}
for line in sys.stdin:
    m = re.search(r"PERF_RECORD_AUXTRACE size.* cpu: (-?\d+)", line)
    if m:
        cur = cpus.setdefault(int(m.group(1)), [])
        bufs[int(m.group(1))] = bufs.get(int(m.group(1)), 0) + 1
    elif " TSC 0x" in line and cur is not None:
        cur.append(int(line.split()[-1], 16))


def held(u):
    if not u:
        return "none"
    ok = u == list(range(u[0], u[0] + len(u)))
    return f"{u[0]}..{u[-1]}" + ("" if ok else " with gaps")


what, args = sys.argv[1], [int(a) for a in sys.argv[2:]]
ok = sorted(cpus) == [0, 1]
for c in (0, 1):
    u = cpus.get(c, [])
    if what == "whole":
        ok = ok and u == list(range(args[0]))
    elif what == "prefix":
        k, n = args
        ok = ok and (u == list(range(len(u))) and k <= len(u) <= n)
    else:
        n, size = args
        k = min(n, size)
        ok = ok and bufs[c] == 1 and u == list(range(n - k, n))
if not ok:
    print("; ".join(f"CPU {c}: {held(u)}" for c, u in sorted(cpus.items())))
    sys.exit(1)
