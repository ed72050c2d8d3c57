#!/usr/bin/env python3
"""How many samples' whole call stacks qpt lbr --stitch and perf script
--stitch-lbr give back, against the truth qpt inject --truth wrote (the
call stack the Intel PT flow has at each sample).

Inputs: the truth, qpt lbr --json (without stitching) and qpt lbr --stitch
--json (JSON Lines), perf script --stitch-lbr's text, and qpt dump --json
of the injected file (its MMAP2 records: perf prints an address in a
mapped file as map-relative, which the load bias of its file undoes).
Samples are matched per thread in time order (the truth comes in decode
order, thread after thread) and checked by time.  Prints the counts; exit status 1 when the lists do
not line up, or with --check when qpt does not recover more than perf or
claims a stack that is not the truth.

usage: lbr_stitch.py [--check] TRUTH PLAIN STITCHED PERF DUMP
"""
import json
import sys


def jsonl(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def biases(dump):
    out = {}
    for rec in jsonl(dump):
        if rec.get("type") == "MMAP2" and rec.get("prot", 0) & 4:
            name = rec["filename"]
            out.setdefault(name, int(rec["addr"], 16) - int(rec["pgoff"], 16))
    return out


def perf_samples(path, bias):
    out, cur = [], None
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        if not line.startswith("\t"):
            head = line.split(":")[0].split()
            sec, usec = head[-1].split(".")
            cur = {"tid": int(head[-2]), "frames": [],
                   "usec": int(sec) * 1000000 + int(usec)}
            out.append(cur)
            continue
        addr, rest = line.strip().split(" ", 1)
        dso = rest.rpartition(" (")[2].rstrip(")")
        cur["frames"].append(int(addr, 16) + bias.get(dso, 0))
    return out


def by_thread(samples, time):
    """The samples per thread, each thread's in time order."""
    out = {}
    for s in samples:
        out.setdefault(s["tid"], []).append(s)
    return [sorted(out[t], key=time) for t in sorted(out)]


def flat(samples, time):
    return [s for t in by_thread(samples, time) for s in t]


def main():
    args = sys.argv[1:]
    check = args[0] == "--check"
    if check:
        args = args[1:]
    ns = lambda s: s["time"]
    truth = flat(jsonl(args[0]), ns)
    plain, stitched = flat(jsonl(args[1]), ns), flat(jsonl(args[2]), ns)
    perf = flat(perf_samples(args[3], biases(args[4])), lambda s: s["usec"])
    n = len(truth)
    if not (n == len(plain) == len(stitched) == len(perf)) or not n:
        print("samples: %d truth, %d qpt, %d qpt --stitch, %d perf"
              % (n, len(plain), len(stitched), len(perf)))
        return 1
    lost = qpt_ok = perf_ok = plain_ok = wrong = 0
    for t, p, s, f in zip(truth, plain, stitched, perf):
        if not (t["time"] // 1000 == f["usec"] and t["ip"] == s["ip"] and
                t["tid"] == s["tid"] == f["tid"]):
            print("samples out of line at time %d" % t["time"])
            return 1
        want = t["callchain"]
        pc = ["0x%x" % a for a in f["frames"][1:]]
        lost += len(p["callchain"]) < len(want)
        plain_ok += p["callchain"] == want
        qpt_ok += s["callchain"] == want
        perf_ok += pc == want
        wrong += s["stitched"] > 0 and s["callchain"] != want
    print("%d samples, %d whose LBR lost frames" % (n, lost))
    print("whole call stack given back: qpt lbr --stitch %d, "
          "perf script --stitch-lbr %d, no stitching %d" %
          (qpt_ok, perf_ok, plain_ok))
    print("qpt lbr --stitch stacks stitched wrong: %d" % wrong)
    if check and (qpt_ok <= perf_ok or wrong):
        return 1
    return 0


sys.exit(main())
