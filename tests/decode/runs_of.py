#!/usr/bin/env python3
"""Whether GOT is WANT with pieces left out where trace was lost.  WANT:
an instruction address a line (hex).  GOT: the same, with a line "--"
where the decoder said trace was lost; each piece between those lines
must be a contiguous run of WANT, the pieces in WANT's order.  What the
decode of a trace with losses must give against the decode of the same
trace without them.  Prints the pieces; exit 1 when GOT is not such a
sequence, or holds less than MINFRAC of WANT (a decode that drops
everything after a loss is not right either).
Usage: runs_of.py WANT GOT [MINFRAC]"""
import struct
import sys


def load(path):
    pieces, cur = [], bytearray()
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line == '--':
                pieces.append(bytes(cur))
                cur = bytearray()
            elif line:
                cur += struct.pack('<Q', int(line, 16))
    pieces.append(bytes(cur))
    return pieces


def find_aligned(hay, needle, start):
    k = start
    while True:
        k = hay.find(needle, k)
        if k < 0 or k % 8 == 0:
            return k
        k += 1


def main():
    want = b''.join(load(sys.argv[1]))
    got = load(sys.argv[2])
    minfrac = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    j = total = 0
    for n, piece in enumerate(got):
        if not piece:
            continue
        k = find_aligned(want, piece, j)
        if k < 0:
            print('piece %d (%d instructions from 0x%x): not a run of the '
                  'rest of want' % (n, len(piece) // 8,
                                    struct.unpack_from('<Q', piece)[0]))
            return 1
        print('piece %d: want[%d:%d]' % (n, k // 8, (k + len(piece)) // 8))
        j = k + len(piece)
        total += len(piece)
    if total < minfrac * len(want):
        print('%d of %d instructions: less than %.2f' %
              (total // 8, len(want) // 8, minfrac))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
