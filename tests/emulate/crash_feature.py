#!/usr/bin/env python3
"""The crash facts of a perf.data, read without qpt: one line per fact,
"KIND SIGNO CODE PID TID ADDR IP" (kind 1: signal, 2: trigger; hex ADDR
and IP).  Prints nothing when the file has none.

The facts are samples of qpt's crash event (qpt/crash.h): their bytes
come from perf's own dump (perf report -D prints each record's raw
bytes; it reads compressed and pipe-mode files too) and are parsed here
by qpt/crash.h's layout.  Files of qpt 0.1 hold them in a header feature
(bit 192) instead, read here from the file.

With --stack, after each fact: "stack ADDR LEN" and the stack's 8-byte
words, one a line in hex ("-": of the feature form, which has none).

usage: crash_feature.py [--stack] FILE|-   (-: a pipe-mode stream on stdin)
"""
import struct
import subprocess
import sys

FEAT = 192
EVENT_ID = 0x7170745f63726173
NR_REGS = 20
SP = 7  # PERF_REG_X86_SP


def feature(data):
    if data[:8] != b"PERFILE2":
        return []
    data_off, data_size = struct.unpack_from("<QQ", data, 40)
    bits = struct.unpack_from("<4Q", data, 72)
    if not (bits[FEAT // 64] >> (FEAT % 64)) & 1:
        return []
    # the section table: one (offset, size) per set bit, in bit order
    nth = sum((bits[i // 64] >> (i % 64)) & 1 for i in range(FEAT))
    off, size = struct.unpack_from("<QQ", data, data_off + data_size +
                                   16 * nth)
    sec = data[off:off + size]
    version, nr = struct.unpack_from("<II", sec, 0)
    assert version == 1, "version %d" % version
    out, p = [], 8
    for _ in range(nr):
        kind, esize, signo, code, _err, pid, tid, _nregs = \
            struct.unpack_from("<IIiiiiiI", sec, p)
        addr, ip = struct.unpack_from("<QQ", sec, p + 32)
        out.append(((kind, signo, code, pid, tid, addr, ip), None))
        p += esize
    return out


def dumped_records(path, stdin):
    """Each record's raw bytes as perf report -D prints them."""
    args = ["perf", "report", "-D", "-i", path]
    res = subprocess.run(args, stdin=stdin, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=False)
    rec = None
    for line in res.stdout.decode("latin-1").splitlines():
        if line.startswith(". ... raw event:"):
            if rec:
                yield bytes(rec)
            rec = bytearray()
        elif rec is not None and line.startswith(".  ") and ":" in line:
            hexpart = line.split(":", 1)[1][:50]
            rec += bytes(int(b, 16) for b in hexpart.split())
        elif rec is not None and not line.startswith("."):
            yield bytes(rec)
            rec = None
    if rec:
        yield bytes(rec)


def sample(rec):
    """A crash event sample's fact and its stack (qpt/crash.h)."""
    typ, _misc, size = struct.unpack_from("<IHH", rec, 0)
    if typ != 9 or len(rec) < 16 or \
            struct.unpack_from("<Q", rec, 8)[0] != EVENT_ID:
        return None
    ip, pid, tid, _time, addr, _period = \
        struct.unpack_from("<QIIQQQ", rec, 16)
    p = 56
    raw_size = struct.unpack_from("<I", rec, p)[0]
    raw = rec[p + 4:p + 4 + raw_size]
    p += 4 + raw_size
    version, kind, signo, code = struct.unpack_from("<IIii", raw, 0)
    assert version == 1, "raw version %d" % version
    abi = struct.unpack_from("<Q", rec, p)[0]
    regs = struct.unpack_from("<%dQ" % NR_REGS, rec, p + 8)
    assert abi == 2, "regs abi %d" % abi
    p += 8 + 8 * NR_REGS
    ssize = struct.unpack_from("<Q", rec, p)[0]
    stack = rec[p + 8:p + 8 + ssize]
    dyn = struct.unpack_from("<Q", rec, p + 8 + ssize)[0] if ssize else 0
    assert p + 16 + ssize == size, "sample size %d, fields %d" % (
        size, p + 16 + ssize)
    return ((kind, signo, code, pid, tid, addr, ip),
            (regs[SP], stack[:dyn]))


def main():
    args = sys.argv[1:]
    show_stack = args[:1] == ["--stack"]
    if show_stack:
        args = args[1:]
    path = args[0]
    facts = []
    if path != "-":
        facts = feature(open(path, "rb").read())
    stdin = sys.stdin if path == "-" else subprocess.DEVNULL
    for rec in dumped_records(path, stdin):
        s = sample(rec)
        if s:
            facts.append(s)
    for f, st in facts:
        print("%d %d %d %d %d %x %x" % f)
        if not show_stack:
            continue
        if st is None:
            print("stack -")
            continue
        print("stack %x %d" % (st[0], len(st[1])))
        for i in range(0, len(st[1]) - 7, 8):
            print("%x" % struct.unpack_from("<Q", st[1], i))
    return 0


if __name__ == "__main__":
    sys.exit(main())
