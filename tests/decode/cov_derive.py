#!/usr/bin/python3
"""cov_derive.py INSN.json BRANCHES.json COV.drcov EDGES.json

qpt decode --coverage's outputs against what the full decode says
(--insn --json and --branches --json of the same input):

- COV.drcov is read with a reader of its own, written from the format's
  documentation (DynamoRIO's drcov log, version 2: text header, module
  table "id, base, end, entry, path", "BB Table: N bbs", then N entries
  of 8 bytes: uint32 offset from the module's base, uint16 size, uint16
  module id, little-endian); every entry lies in its module's range, and
  the set of blocks (module base + offset, size) equals the basic blocks
  derived from the instructions: a block starts at the first instruction
  after a branch (any jump, call, return, loop, system call, interrupt;
  by its mnemonic), after a gap (the next instruction is not the one
  that follows in memory) or after an event (enabled, disabled, error,
  lost, overflow), and ends before the next start.

- EDGES.json (--coverage=edges --json) equals the taken branches of
  --branches (not trace starts and ends, nor those with an end at 0)
  counted by (from, to), plus the fall-throughs of the conditional
  branches in --insn (a jcc, loop or jrcxz followed by the instruction
  after it, or by a disabled event there: an interrupt stopped the
  trace at it)."""
import collections
import json
import struct
import sys

PREFIXES = ("bnd", "notrack", "rep", "repe", "repz", "repne", "repnz",
            "lock", "data16")
BRANCH = {"jmp", "call", "ret", "syscall", "sysenter", "sysret",
          "sysexit", "int", "int1", "int3", "into", "iret", "iretd",
          "iretq", "loop", "loope", "loopne", "ljmp", "lcall", "lret",
          "retf"}


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def mnemonic(asm):
    words = asm.split()
    while len(words) > 1 and words[0] in PREFIXES:
        words = words[1:]
    return words[0] if words else ""


def is_branch(m):
    return m in BRANCH or m.startswith("j")


def is_cond(m):
    return (m.startswith("j") and m != "jmp") or m.startswith("loop")


def derive(insn, blocks, falls):
    """The blocks (ip, size) and the fall-through edges of the --insn
    items of one thread, into @blocks and @falls."""
    start = prev = None  # the open block's first and last (ip, size, m)

    def close():
        nonlocal start, prev
        if start is not None:
            blocks.add((start, prev[0] + prev[1] - start))
        start = prev = None

    for o in insn:
        if "event" in o:
            # an interrupt (async disable) after a conditional branch not
            # taken stops the trace at the next instruction: it ran there
            if (o["event"] == "disabled" and prev is not None and
                    is_cond(prev[2]) and "ip" in o and
                    int(o["ip"], 16) == prev[0] + prev[1]):
                falls[(prev[0], prev[0] + prev[1])] += 1
            close()
            continue
        ip, size = int(o["ip"], 16), len(o["bytes"]) // 2
        m = mnemonic(o["asm"])
        if prev is not None and prev[0] + prev[1] != ip:
            close()
        elif prev is not None and is_cond(prev[2]):
            falls[(prev[0], ip)] += 1
        if prev is not None and is_branch(prev[2]):
            close()
        if start is None:
            start = ip
        prev = (ip, size, m)
    close()


def read_drcov(path):
    """The modules {id: (base, end, path)} and the entries of a drcov log
    (none when there is no log: qpt writes none when nothing decodes)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return {}, []
    pos = 0

    def line():
        nonlocal pos
        end = data.index(b"\n", pos)
        s = data[pos:end].decode()
        pos = end + 1
        return s

    assert line() == "DRCOV VERSION: 2", "not a drcov version 2 log"
    assert line().startswith("DRCOV FLAVOR: "), "no flavor line"
    head, rest = line().split(": ", 1)
    assert head == "Module Table", head
    ver, count = rest.split(", ")
    assert ver == "version 2" and count.startswith("count "), rest
    nmod = int(count.split()[1])
    cols = line()
    assert cols == "Columns: id, base, end, entry, path", cols
    mods = {}
    for _ in range(nmod):
        f = line().split(", ", 4)
        mods[int(f[0])] = (int(f[1], 16), int(f[2], 16), f[4])
    head = line()
    assert head.startswith("BB Table: ") and head.endswith(" bbs"), head
    nbb = int(head.split()[2])
    assert len(data) - pos == 8 * nbb, \
        "%d bytes of entries for %d blocks" % (len(data) - pos, nbb)
    return mods, [struct.unpack_from("<IHH", data, pos + 8 * i)
                  for i in range(nbb)]


def main():
    insn, br, edges = (load(sys.argv[i]) for i in (1, 2, 4))
    want_blocks, falls = set(), collections.Counter()
    threads = collections.defaultdict(list)  # in time order, or queues'
    for o in insn:
        threads[o.get("tid", -1)].append(o)
    for items in threads.values():
        derive(items, want_blocks, falls)
    mods, entries = read_drcov(sys.argv[3])
    got_blocks = set()
    ok = True
    for off, size, mid in entries:
        base, end, path = mods[mid]
        ip = base + off
        if not base <= ip < end or ip + size > end:
            print("block 0x%x+%d outside module %d (%s)" %
                  (ip, size, mid, path))
            ok = False
        got_blocks.add((ip, size))
    if len(set(entries)) != len(entries):
        print("drcov: %d entries for %d blocks" %
              (len(entries), len(set(entries))))
        ok = False
    if got_blocks != want_blocks:
        for b in sorted(want_blocks - got_blocks)[:5]:
            print("block 0x%x+%d derived, not in the drcov log" % b)
        for b in sorted(got_blocks - want_blocks)[:5]:
            print("block 0x%x+%d in the drcov log, not derived" % b)
        ok = False
    want_edges = collections.Counter(falls)
    for o in br:
        if "event" in o or o["kind"] in ("trace_begin", "trace_end"):
            continue
        f, t = int(o["from"], 16), int(o["to"], 16)
        if f and t:
            want_edges[(f, t)] += 1
    got_edges = {(int(o["from"], 16), int(o["to"], 16)): o["count"]
                 for o in edges}
    if len(got_edges) != len(edges):
        print("edges: an edge is told twice")
        ok = False
    if dict(want_edges) != got_edges:
        keys = set(want_edges) | set(got_edges)
        for k in sorted(k for k in keys
                        if want_edges.get(k) != got_edges.get(k))[:5]:
            print("edge 0x%x -> 0x%x: derived %s, --coverage %s" %
                  (k[0], k[1], want_edges.get(k), got_edges.get(k)))
        ok = False
    print("   --coverage: %d blocks in %d modules, %d edges: %s" %
          (len(got_blocks), len(mods), len(got_edges),
           "equal" if ok else "DIFFER"))
    return 0 if ok else 1


sys.exit(main())
