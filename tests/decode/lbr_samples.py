#!/usr/bin/env python3
"""qpt lbr against perf script on a real `perf record --call-graph lbr`
file: per sample, the same frames (address, symbol, file), and qpt lbr
--json's call sites equal to perf's frames after the leaf.

perf prints an address inside a mapped file as its offset in the mapping
(here the static binary mapped at MAP_START from offset 0): the JSON
addresses are compared with that added back.  Symbols are compared where
both are plain names: perf demangles C++ (qpt does not) and names the
unnamed PLT entries of a static binary after the symbol before them.

Samples whose branch stack is empty are where perf reads past the end of
the sample (its LBR code takes entry 0 of an empty stack: the bytes of
the next record); there qpt's frames must equal perf's but for that
last one, which qpt takes from the callchain's user part.

usage: lbr_samples.py PERF_SCRIPT.txt QPT_LBR.txt QPT_LBR.jsonl MAP_START
"""
import json
import sys


def blocks(path):
    out, cur = [], None
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            if cur is not None:
                out.append(cur)
            cur = None
        elif not line.startswith("\t"):
            cur = [line, []]
        else:
            f = line.strip().split(" ", 1)
            sym, _, dso = f[1].rpartition(" (")
            cur[1].append((int(f[0], 16), sym, dso.rstrip(")")))
    if cur is not None:
        out.append(cur)
    return out


def plain(sym):
    return "::" not in sym and not sym.startswith("_Z") and "@plt" not in sym


def main():
    perf, qpt = blocks(sys.argv[1]), blocks(sys.argv[2])
    js = [json.loads(l) for l in open(sys.argv[3])]
    base = int(sys.argv[4], 0)
    if not (len(perf) == len(qpt) == len(js)):
        print("FAIL: %d perf samples, %d qpt, %d json"
              % (len(perf), len(qpt), len(js)))
        return 1
    bad = empty = frames = 0
    for i, ((ph, pf), (qh, qf), j) in enumerate(zip(perf, qpt, js)):
        if ph != qh:
            print("FAIL: sample %d: %r, want %r" % (i, qh, ph))
            bad += 1
        if not j["callchain"]:
            empty += 1
            pf, qf = pf[:-1], qf[:-1]
        if len(pf) != len(qf):
            print("FAIL: sample %d: %d frames, want %d"
                  % (i, len(qf), len(pf)))
            bad += 1
            continue
        for (pa, ps, pd), (qa, qs, qd) in zip(pf, qf):
            if pa != qa or pd != qd or (plain(ps) and plain(qs) and
                                        ps != qs):
                print("FAIL: sample %d: %x %s (%s), want %x %s (%s)"
                      % (i, qa, qs, qd, pa, ps, pd))
                bad += 1
                break
        frames += len(qf)
        if j["callchain"]:
            user = [a + base for a, _, d in pf if not d.startswith("[")]
            want = ["0x%x" % a for a in user[1:]]
            if j["callchain"] != want:
                print("FAIL: sample %d: json %s, want %s"
                      % (i, j["callchain"], want))
                bad += 1
    print("%d samples (%d with an empty branch stack), %d frames"
          % (len(qpt), empty, frames))
    return 1 if bad else 0


sys.exit(main())
