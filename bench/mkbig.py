#!/usr/bin/env python3
"""Write a perf.data whose AUX trace is N copies of the one in IN (a
file-mode perf.data without HEADER_AUXTRACE index, one AUXTRACE record),
for benchmarks: every copy starts with a PSB, so decoders resync at each.

Usage: mkbig.py IN OUT N [--pad BYTES] [--split BYTES] [--tail HEX]
                 [--payload FILE]

--pad BYTES puts that many PT PAD bytes (zeros) after each copy: a large
file that decodes fast.  --split BYTES writes the trace as AUXTRACE
records of at most that many bytes (offsets following on), each followed
by a FINISHED_ROUND record, as perf record writes a long recording: a
queue's bytes are then not contiguous in the file.  Without them: one
AUXTRACE record.  --tail HEX: these bytes after the last copy (a PSB cut
short, say).  --payload FILE: that file's bytes are the trace copied
instead of IN's (a hand-made trace in IN's recording).  The output is
written as it is made (any size)."""
import argparse
import struct

ap = argparse.ArgumentParser()
ap.add_argument('src')
ap.add_argument('dst')
ap.add_argument('n', type=int)
ap.add_argument('--pad', type=int, default=0)
ap.add_argument('--split', type=int, default=0)
ap.add_argument('--tail', default='')
ap.add_argument('--payload')
a = ap.parse_args()

b = bytes(open(a.src, 'rb').read())
magic, hsize, attr_size = struct.unpack_from('<QQQ', b, 0)
data_off, data_size = struct.unpack_from('<QQ', b, 40)
feat_bits = struct.unpack_from('<4Q', b, 72)
pos, end = data_off, data_off + data_size
out = open(a.dst, 'wb')
out.write(b[:data_off])
written = data_off
ROUND = struct.pack('<IHH', 68, 0, 8)  # PERF_RECORD_FINISHED_ROUND


def trace(payload):
    """The trace's bytes, in pieces."""
    copy = payload + bytes(a.pad)
    for _ in range(a.n):
        yield copy
    if a.tail:
        yield bytes.fromhex(a.tail)


while pos < end:
    typ, misc, size = struct.unpack_from('<IHH', b, pos)
    rec = b[pos:pos + size]
    if typ != 71:  # not AUXTRACE
        out.write(rec)
        written += len(rec)
        pos += size
        continue
    psize, offset = struct.unpack_from('<QQ', rec, 8)
    payload = b[pos + size:pos + size + psize]
    if a.payload:
        payload = open(a.payload, 'rb').read()
    total = (len(payload) + a.pad) * a.n + len(bytes.fromhex(a.tail))
    last = offset + total
    chunk = a.split or total
    buf = bytearray()
    for piece in trace(payload):
        buf += piece
        while len(buf) >= chunk or (buf and offset + len(buf) == last):
            part, buf = bytes(buf[:chunk]), buf[chunk:]
            hdr = bytearray(rec)
            struct.pack_into('<QQ', hdr, 8, len(part), offset)
            offset += len(part)
            out.write(hdr + part)
            written += len(hdr) + len(part)
            if a.split:
                out.write(ROUND)
                written += len(ROUND)
    pos += size + psize
# feature section table: one (offset, size) per set bit, shifted
delta = written - end
nfeat = sum(bin(w).count('1') for w in feat_bits)
table = bytearray(b[end:end + 16 * nfeat])
for i in range(nfeat):
    off, sz = struct.unpack_from('<QQ', table, 16 * i)
    struct.pack_into('<QQ', table, 16 * i, off + delta, sz)
out.write(table + b[end + 16 * nfeat:])
out.seek(40)
out.write(struct.pack('<QQ', data_off, written - data_off))
out.close()
