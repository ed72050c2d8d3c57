#!/usr/bin/env python3
"""qpt decode --lbr's end record against perf's own branch list of a real
Intel PT trace (perf script -F ip,addr,flags: "FLAGS FROM => TO").

perf lists a trace end ("tr end  syscall|async FROM => 0") and the next
trace start ("tr strt 0 => TO") apart; an LBR sees them as one branch
from FROM to TO, except where the trace resumes where it stopped (after a
two-byte syscall instruction, at the interrupted instruction), which is
no branch.  The expected entries are the last N of that list, newest
first: from, to and kind (perf's flags word, which does not tell
indirect jumps and calls from direct ones) must agree.

usage: lbr_perf.py PERF_BRANCHES.txt QPT_LBR.jsonl N
"""
import json
import sys

KINDS = {"jcc": "jcc", "jmp": "jmp", "call": "call", "return": "ret",
         "syscall": "syscall", "async": "async"}


def expected(path):
    out, end = [], None
    for line in open(path):
        f = line.split()
        if len(f) < 4 or f[-2] != "=>":
            continue
        frm, to, flags = int(f[-3], 16), int(f[-1], 16), f[:-3]
        if flags[:2] == ["tr", "end"]:
            end = (frm, flags[2] if len(flags) > 2 else "async")
        elif flags[:2] == ["tr", "strt"]:
            if end and not ((end[1] == "syscall" and to == end[0] + 2) or
                            (end[1] == "async" and to == end[0])):
                out.append((end[0], to, KINDS.get(end[1], end[1])))
            end = None
        else:
            out.append((frm, to, KINDS.get(flags[0], flags[0])))
    return out


def main():
    want = expected(sys.argv[1])
    n = int(sys.argv[3])
    recs = [json.loads(line) for line in open(sys.argv[2])]
    ends = [r for r in recs if r["point"] in ("end", "crash")]
    if len(ends) != 1:
        print("FAIL: %d end records" % len(ends))
        return 1
    perf_kind = {"ind_call": "call", "ind_jmp": "jmp"}
    got = [(int(e["from"], 16), int(e["to"], 16),
            perf_kind.get(e["kind"], e["kind"]))
           for e in ends[0]["entries"]]
    want = want[-n:][::-1]
    if got != want:
        print("FAIL: %d entries, want %d" % (len(got), len(want)))
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                print("entry %d: %x -> %x %s, want %x -> %x %s"
                      % ((i,) + g + w))
                break
        return 1
    print("ok: %d entries (%s)" % (len(got),
                                   " ".join(sorted(set(k for _, _, k in got)))))
    return 0


sys.exit(main())
