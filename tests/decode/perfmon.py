#!/usr/bin/env python3
"""Perfmon buffers written by hand from the format's published layout
(Fuchsia perfmon.h, PERFMON_BUFFER_VERSION 0: little-endian, packed to 4
bytes), independent of qpt's codec.

  perfmon.py build DUMP.jsonl OUT        the buffer qpt dump --json
                                         describes, re-encoded
  perfmon.py every OUT                   a buffer with every record type
  perfmon.py check-every DUMP.jsonl      qpt dump --json of that buffer
                                         has every field it was given
  perfmon.py check-lbr PM_DUMP.jsonl LBR.jsonl
                                         the LAST_BRANCH records are qpt
                                         decode --lbr's records (32 newest
                                         entries, cycles and time)
  perfmon.py corrupt IN OUT KIND         IN spoilt: KIND is capture_end,
                                         type, branches, version or cut
"""
import json
import struct
import sys

HDR = struct.Struct("<HHIqQ")


def rec(t, event=0, flags=0, body=b""):
    return struct.pack("<BBH", t, flags, event) + body


def lbr(aspace, branches, event=0):
    body = struct.pack("<IQ", len(branches), aspace)
    for f, t, i in branches:
        body += struct.pack("<QQQ", f, t, i)
    return rec(6, event, 0, body)


def buffer(arch, flags, tps, records):
    data = b"".join(records)
    return HDR.pack(0, arch, flags, tps, HDR.size + len(data)) + data


def h(v):
    return int(v, 16)


def build(dump, out):
    lines = [json.loads(x) for x in open(dump)]
    head, records = lines[0], []
    for r in lines[1:]:
        t, ev, fl = r["type"], h(r["event"]), r["reserved_flags"]
        if t == "TIME":
            records.append(rec(1, ev, fl, struct.pack("<q", r["time"])))
        elif t == "TICK":
            records.append(rec(2, ev, fl))
        elif t in ("COUNT", "VALUE"):
            v = r["count"] if t == "COUNT" else r["value"]
            records.append(rec(3 if t == "COUNT" else 4, ev, fl,
                               struct.pack("<Q", v)))
        elif t == "PC":
            records.append(rec(5, ev, fl, struct.pack("<QQ", h(r["aspace"]),
                                                      h(r["pc"]))))
        else:
            records.append(lbr(h(r["aspace"]),
                               [(h(b["from"]), h(b["to"]), h(b["info"]))
                                for b in r["branches"]], ev))
    data = buffer(head["arch"], head["flags"], head["ticks_per_second"],
                  records)
    assert len(data) == h(head["capture_end"])
    open(out, "wb").write(data)


EVERY = [("TIME", 0x0801, 3, {"time": -5}), ("TICK", 0x0802, 0, {}),
         ("COUNT", 0x0c03, 0, {"count": 1 << 40}),
         ("VALUE", 0x1004, 0, {"value": 0xdeadbeef}),
         ("PC", 0x0805, 0, {"aspace": "0x12345000", "pc": "0x401000"})]


def every(out):
    records = [rec(1, 0x0801, 3, struct.pack("<q", -5)), rec(2, 0x0802),
               rec(3, 0x0c03, 0, struct.pack("<Q", 1 << 40)),
               rec(4, 0x1004, 0, struct.pack("<Q", 0xdeadbeef)),
               rec(5, 0x0805, 0, struct.pack("<QQ", 0x12345000, 0x401000)),
               lbr(0x12345000, [(0x401020, 0x401100, 7 | 1 << 16),
                                (0x401005, 0x401020, 0)])]
    open(out, "wb").write(buffer(2, 1, 19200000, records))


def check_every(dump):
    lines = [json.loads(x) for x in open(dump)]
    head = lines[0]
    assert (head["arch"], head["flags"], head["ticks_per_second"]) == \
        (2, 1, 19200000), head
    for (t, ev, fl, fields), r in zip(EVERY, lines[1:]):
        assert r["type"] == t and h(r["event"]) == ev, r
        assert r["reserved_flags"] == fl, r
        for k, v in fields.items():
            assert r[k] == v, (r, k, v)
    b = lines[6]["branches"]
    assert lines[6]["type"] == "LAST_BRANCH" and len(b) == 2, lines[6]
    assert (h(b[0]["from"]), h(b[0]["to"]), h(b[0]["info"])) == \
        (0x401020, 0x401100, 0x10007), b
    print("ok: every record type, every field")


def check_lbr(pm_dump, lbr_json):
    pm = [json.loads(x) for x in open(pm_dump)][1:]
    recs = [json.loads(x) for x in open(lbr_json)]
    assert len(pm) == 2 * len(recs), (len(pm), len(recs))
    for i, r in enumerate(recs):
        t, b = pm[2 * i], pm[2 * i + 1]
        assert t["type"] == "TIME" and t["time"] == r.get("time", 0), (t, r)
        want = [(h(e["from"]), h(e["to"]), min(e["cycles"], 0xffff))
                for e in r["entries"][:32]]
        got = [(h(x["from"]), h(x["to"]), h(x["info"]))
               for x in b["branches"]]
        assert got == want, (i, got[:2], want[:2])
    print("ok: %d LAST_BRANCH records are the LBR records" % len(recs))


def corrupt(src, out, kind):
    b = bytearray(open(src, "rb").read())
    if kind == "capture_end":
        struct.pack_into("<Q", b, 16, len(b) + 8)
    elif kind == "type":
        b[24] = 9
    elif kind == "branches":
        struct.pack_into("<I", b, 24 + 12 + 4, 33)
    elif kind == "version":
        struct.pack_into("<H", b, 0, 1)
    elif kind == "cut":
        end = len(b) - 5
        b = b[:end]
        struct.pack_into("<Q", b, 16, end)
    open(out, "wb").write(b)


cmd = sys.argv[1]
if cmd == "build":
    build(sys.argv[2], sys.argv[3])
elif cmd == "every":
    every(sys.argv[2])
elif cmd == "check-every":
    check_every(sys.argv[2])
elif cmd == "check-lbr":
    check_lbr(sys.argv[2], sys.argv[3])
else:
    corrupt(sys.argv[2], sys.argv[3], sys.argv[4])
