#!/usr/bin/python3
"""stats_derive.py INSN.json BRANCHES.json STATS.json: the counts of
qpt decode --stats --json equal those derived from the full decode
(--insn --json and --branches --json of the same input): per thread the
instructions, taken branches (not trace starts and ends), errors (error
and lost events) and overflows; per function name the instructions and
the calls into it (functions without a symbol: one "None" entry)."""
import collections
import json
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def name(sym):
    return sym.rsplit("+0x", 1)[0] if sym else None


def main():
    insn, br, stats = (load(p) for p in sys.argv[1:4])
    want_th = collections.defaultdict(lambda: [0, 0, 0, 0])
    want_fn = collections.defaultdict(lambda: [0, 0])
    for o in insn:
        t = o.get("tid", -1)
        if "event" in o:
            if o["event"] in ("error", "lost"):
                want_th[t][2] += 1
            elif o["event"] == "overflow":
                want_th[t][3] += 1
            continue
        want_th[t][0] += 1
        want_fn[name(o.get("sym"))][0] += 1
    for o in br:
        if "event" in o or o["kind"] in ("trace_begin", "trace_end"):
            continue
        want_th[o.get("tid", -1)][1] += 1
        if o["kind"] in ("call", "ind_call"):
            want_fn[name(o.get("to_sym"))][1] += 1
    got_th = collections.defaultdict(lambda: [0, 0, 0, 0])
    got_fn = collections.defaultdict(lambda: [0, 0])
    for o in stats:
        if o["stats"] == "thread":
            g = got_th[o["tid"]]
            for i, k in enumerate(("insns", "branches", "errors",
                                   "overflows")):
                g[i] += o[k]
        elif o["stats"] == "function":
            g = got_fn[o.get("name")]
            g[0] += o["insns"]
            g[1] += o["calls"]
    want_th = {k: v for k, v in want_th.items() if any(v)}
    got_th = {k: v for k, v in got_th.items() if any(v)}
    want_fn = {k: v for k, v in want_fn.items() if any(v)}
    got_fn = {k: v for k, v in got_fn.items() if any(v)}
    ok = True
    if want_th != got_th:
        print("threads: derived", want_th, "--stats", got_th)
        ok = False
    if want_fn != got_fn:
        for k in sorted(set(want_fn) | set(got_fn), key=str):
            if want_fn.get(k) != got_fn.get(k):
                print("function", k, "derived", want_fn.get(k),
                      "--stats", got_fn.get(k))
        ok = False
    n = sum(v[0] for v in want_th.values())
    print("   --stats: %d threads, %d functions, %d instructions: %s" %
          (len(want_th), len(want_fn), n, "equal" if ok else "DIFFER"))
    return 0 if ok else 1


sys.exit(main())
