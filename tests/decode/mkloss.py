#!/usr/bin/env python3
"""Make trace losses on purpose in a file-mode perf.data, as the kernel
records them when an AUX area fills: at CUTS random places of the AUX
stream, a run of bytes never reaches the file, and the PERF_RECORD_AUX of
the ring whose data stopped there says TRUNCATED (its size ending at the
cut); later offsets of that ring close up over the hole, as the kernel's
aux_head does.

MODE "psb": the bytes after a cut resume at a PSB (hardware starts a new
PSB+ when the event is enabled again); MODE "any": they resume at a random
byte, in the middle of a packet (what an emulated source that keeps
writing while disabled made).

Usage: mkloss.py IN OUT SEED CUTS MODE
The HEADER_AUXTRACE index is dropped (readers then find the AUXTRACE
records in the data); everything else is kept.  Prints the cuts made."""
import random
import struct
import sys

PERF_RECORD_AUX, PERF_RECORD_AUXTRACE = 11, 71
TRUNCATED = 1
HEADER_AUXTRACE = 18
PSB = bytes([0x02, 0x82] * 8)
# sample_id trailer fields, in their order: (bit, size)
SID = [(1 << 1, 8), (1 << 2, 8), (1 << 6, 8), (1 << 9, 8), (1 << 7, 8),
       (1 << 16, 8)]


def attr_sample_type(b):
    attrs_off, attrs_size = struct.unpack_from('<QQ', b, 24)
    attr_size = struct.unpack_from('<Q', b, 8)[0]
    if not attrs_size:
        sys.exit('mkloss: no attrs')
    # perf_event_attr: type u32, size u32, config u64, period u64,
    # sample_type u64
    return struct.unpack_from('<Q', b, attrs_off + 24)[0], attr_size


def ring_of(rec, sample_type):
    """(tid, cpu) from a record's sample_id trailer (None where absent)."""
    n = sum(8 for bit, _ in SID if sample_type & bit)
    pos = len(rec) - n
    tid = cpu = None
    for bit, size in SID:
        if not sample_type & bit:
            continue
        if bit == 1 << 1:
            tid = struct.unpack_from('<i', rec, pos + 4)[0]
        if bit == 1 << 7:
            cpu = struct.unpack_from('<i', rec, pos)[0]
        pos += size
    return tid, cpu


def main():
    src, dst = sys.argv[1], sys.argv[2]
    seed, ncuts, mode = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    rnd = random.Random(seed)
    b = bytearray(open(src, 'rb').read())
    if b[:8] != b'PERFILE2' or struct.unpack_from('<Q', b, 8)[0] != 104:
        sys.exit('mkloss: %s: not a file-mode perf.data' % src)
    sample_type, _ = attr_sample_type(b)
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    end = data_off + data_size
    recs = []   # [type, bytes, payload]
    pos = data_off
    while pos < end:
        typ, _, size = struct.unpack_from('<IHH', b, pos)
        rec = bytes(b[pos:pos + size])
        payload = b''
        if typ == PERF_RECORD_AUXTRACE:
            psize = struct.unpack_from('<Q', rec, 8)[0]
            payload = bytes(b[pos + size:pos + size + psize])
            pos += psize
        recs.append([typ, rec, payload])
        pos += size
    made = []
    for _ in range(ncuts):
        cands = [j for j, r in enumerate(recs)
                 if r[0] == PERF_RECORD_AUXTRACE and len(r[2]) > 64]
        if not cands:
            sys.exit('mkloss: no AUX data to cut')
        i = rnd.choice(cands)
        typ, rec, payload = recs[i]
        psize, off = struct.unpack_from('<QQ', rec, 8)
        tid, cpu = struct.unpack_from('<ii', rec, 36)
        c = rnd.randrange(16, len(payload) - 16)
        if mode == 'psb':
            nxt = payload.find(PSB, c + 1)
            if nxt < 0:
                continue
            gone = nxt - c
        else:
            gone = rnd.randrange(1, min(4096, len(payload) - c))
        at = off + c
        payload = payload[:c] + payload[c + gone:]
        pad = (-len(payload)) % 8
        payload += b'\0' * pad
        rec = bytearray(rec)
        struct.pack_into('<Q', rec, 8, len(payload))
        recs[i] = [typ, bytes(rec), payload]
        close_up(recs, i, at, gone, tid, cpu, sample_type)
        made.append((tid if cpu < 0 else cpu, at, gone))
    write(b, dst, recs, data_off, end)
    for ring, at, gone in made:
        print('cut ring %d at 0x%x: %d bytes' % (ring, at, gone))


def close_up(recs, i, at, gone, tid, cpu, sample_type):
    """Offsets of the ring past the hole [at, at + gone) close up over it;
    the PERF_RECORD_AUX whose data covered @at ends there, TRUNCATED."""
    idx = struct.unpack_from('<I', recs[i][1], 32)[0]
    out = []
    for j, (typ, rec, payload) in enumerate(recs):
        if typ == PERF_RECORD_AUXTRACE and j != i:
            q = struct.unpack_from('<I', rec, 32)[0]
            off = struct.unpack_from('<Q', rec, 16)[0]
            if q == idx and off > at:
                rec = bytearray(rec)
                struct.pack_into('<Q', rec, 16, max(at, off - gone))
                rec = bytes(rec)
        if typ == PERF_RECORD_AUX:
            rtid, rcpu = ring_of(rec, sample_type)
            mine = rcpu == cpu if cpu >= 0 else rtid == tid
            if mine:
                for piece in split_aux(rec, at, gone):
                    out.append([typ, piece, b''])
                continue
        out.append([typ, rec, payload])
    recs[:] = out


def split_aux(rec, at, gone):
    """A ring's PERF_RECORD_AUX [off, off + size) once [at, at + gone) is
    cut from its stream: unchanged, moved, ended at the cut (TRUNCATED: one
    that ends where the cut starts too, its data stopped there), or
    gone."""
    off, size, flags = struct.unpack_from('<QQQ', rec, 8)
    hi = off + size

    def make(o, s, f):
        r = bytearray(rec)
        struct.pack_into('<QQQ', r, 8, o, s, f)
        return bytes(r)
    if hi < at or (hi == at and off == hi):
        return [rec]
    if hi == at:  # its data stopped right at the cut
        return [make(off, size, flags | TRUNCATED)]
    if off >= at + gone:
        return [make(off - gone, size, flags)]
    pieces = []
    if off < at:
        pieces.append(make(off, at - off, flags | TRUNCATED))
    if hi > at + gone:
        pieces.append(make(at, hi - at - gone, flags))
    elif off >= at:
        pass  # all of it fell in the hole
    return pieces


def write(b, dst, recs, data_off, end):
    feat = list(struct.unpack_from('<4Q', b, 72))
    bits = [n for n in range(256) if feat[n // 64] >> (n % 64) & 1]
    table = [struct.unpack_from('<QQ', b, end + 16 * k)
             for k in range(len(bits))]
    data = bytearray()
    for typ, rec, payload in recs:
        data += rec + payload
    delta = len(data) - (end - data_off)
    out = bytearray(b[:data_off]) + data
    kept = [(n, e) for n, e in zip(bits, table) if n != HEADER_AUXTRACE]
    shrink = 16 * (len(bits) - len(kept))
    for _, (o, s) in kept:
        out += struct.pack('<QQ', o + delta - shrink, s)
    out += b[end + 16 * len(bits):]
    struct.pack_into('<QQ', out, 40, data_off, len(data))
    if HEADER_AUXTRACE in bits:
        feat[HEADER_AUXTRACE // 64] &= ~(1 << (HEADER_AUXTRACE % 64))
        struct.pack_into('<4Q', out, 72, *feat)
    open(dst, 'wb').write(out)


if __name__ == '__main__':
    main()
