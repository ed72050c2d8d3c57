#!/usr/bin/env python3
"""Write a perf.data whose single AUXTRACE payload is N copies of the one in
IN (a file-mode perf.data without HEADER_AUXTRACE index, one AUXTRACE
record), for benchmarks: every copy starts with a PSB, so decoders resync
at each.  Usage: mkbig.py IN OUT N"""
import struct
import sys

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
magic, hsize, attr_size = struct.unpack_from('<QQQ', b, 0)
data_off, data_size = struct.unpack_from('<QQ', b, 40)
feat_bits = struct.unpack_from('<4Q', b, 72)
pos, end = data_off, data_off + data_size
out = bytearray(b[:data_off])
delta = 0
while pos < end:
    typ, misc, size = struct.unpack_from('<IHH', b, pos)
    rec = b[pos:pos + size]
    if typ == 71:  # AUXTRACE
        psize = struct.unpack_from('<Q', rec, 8)[0]
        payload = bytes(b[pos + size:pos + size + psize])
        rec = bytearray(rec)
        struct.pack_into('<Q', rec, 8, psize * n)
        out += rec + payload * n
        delta += psize * (n - 1)
        pos += size + psize
        continue
    out += rec
    pos += size
# feature section table: one (offset, size) per set bit, shifted by delta
nfeat = sum(bin(w).count('1') for w in feat_bits)
table = bytearray(b[end:end + 16 * nfeat])
for i in range(nfeat):
    off, sz = struct.unpack_from('<QQ', table, 16 * i)
    struct.pack_into('<QQ', table, 16 * i, off + delta, sz)
out += table + b[end + 16 * nfeat:]
struct.pack_into('<QQ', out, 40, data_off, data_size + delta)
open(dst, 'wb').write(out)
