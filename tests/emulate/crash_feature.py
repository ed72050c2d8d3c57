#!/usr/bin/env python3
"""The crash facts of a perf.data (qpt/crash.h's layout), read here from
the file header without qpt: one line per entry,
"KIND SIGNO CODE PID TID ADDR IP" (kind 1: signal, 2: trigger; hex ADDR
and IP).  Prints nothing when the feature is absent.

usage: crash_feature.py FILE
"""
import struct
import sys

FEAT = 192


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:8] != b"PERFILE2":
        print("not a little-endian perf.data file")
        return 1
    data_off, data_size = struct.unpack_from("<QQ", data, 40)
    bits = struct.unpack_from("<4Q", data, 72)
    if not (bits[FEAT // 64] >> (FEAT % 64)) & 1:
        return 0
    # the section table: one (offset, size) per set bit, in bit order
    nth = sum((bits[i // 64] >> (i % 64)) & 1 for i in range(FEAT))
    off, size = struct.unpack_from("<QQ", data, data_off + data_size +
                                   16 * nth)
    sec = data[off:off + size]
    version, nr = struct.unpack_from("<II", sec, 0)
    if version != 1:
        print("version %d" % version)
        return 1
    p = 8
    for _ in range(nr):
        kind, esize, signo, code, _err, pid, tid, _nregs = \
            struct.unpack_from("<IIiiiiiI", sec, p)
        addr, ip = struct.unpack_from("<QQ", sec, p + 32)
        print("%d %d %d %d %d %x %x" % (kind, signo, code, pid, tid, addr,
                                         ip))
        p += esize
    return 0


if __name__ == "__main__":
    sys.exit(main())
