#!/usr/bin/env python3
"""Rewrite a file-mode perf.data (no HEADER_AUXTRACE index, one AUXTRACE
record) as overlapping snapshots: the payload becomes several AUXTRACE
records whose contents overlap the previous one by OVERLAP bytes, with
unrelated offsets (as snapshot mode's do).  Usage: mksnap.py IN OUT
PIECES OVERLAP"""
import struct
import sys

src, dst, pieces, overlap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = bytearray(open(src, 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', b, 40)
feat_bits = struct.unpack_from('<4Q', b, 72)
pos, end = data_off, data_off + data_size
out = bytearray(b[:data_off])
delta = 0
while pos < end:
    typ, misc, size = struct.unpack_from('<IHH', b, pos)
    rec = bytes(b[pos:pos + size])
    if typ == 71:  # AUXTRACE: size, offset, reference, idx, tid, cpu
        psize = struct.unpack_from('<Q', rec, 8)[0]
        payload = bytes(b[pos + size:pos + size + psize])
        step = psize // pieces
        new = bytearray()
        for i in range(pieces):
            lo = max(0, i * step - (overlap if i else 0))
            hi = psize if i == pieces - 1 else (i + 1) * step
            chunk = payload[lo:hi]
            pad = (-len(chunk)) % 8
            r = bytearray(rec)
            struct.pack_into('<QQ', r, 8, len(chunk) + pad, 0x100000 * (i + 1))
            # PAD packets (0x00) keep the stream valid
            new += r + chunk + b'\0' * pad
        out += new
        delta += len(new) - size - psize
        pos += size + psize
        continue
    out += rec
    pos += size
nfeat = sum(bin(w).count('1') for w in feat_bits)
table = bytearray(b[end:end + 16 * nfeat])
for i in range(nfeat):
    off, sz = struct.unpack_from('<QQ', table, 16 * i)
    struct.pack_into('<QQ', table, 16 * i, off + delta, sz)
out += table + b[end + 16 * nfeat:]
struct.pack_into('<QQ', out, 40, data_off, data_size + delta)
open(dst, 'wb').write(out)
