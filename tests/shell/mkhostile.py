#!/usr/bin/env python3
"""Hand-made perf.data files that stress the reader's tables, written field
by field as perf.data-file-format.txt and perf_event.h lay them out (never
by qpt's writer).  Every attr is a software event (type 1) with config
attr_index % 10 (cpu-clock, task-clock, page-faults, ...) and
sample_period attr_index + 1 (perf report -D and qpt dump print it for
each sample: it tells which attr a sample's id matched), sample_type
IP|TID|ID, no sample_id_all.

  mkhostile.py file ATTRS IDS OUT   file mode: ATTRS attrs whose ids
                                    sections all point at one block of IDS
                                    ids (ids 1000..), then one SAMPLE per
                                    id (at most 64)
  mkhostile.py pipe ATTRS IDS OUT   pipe mode: ATTRS HEADER_ATTR records,
                                    attr i with the IDS ids
                                    1000 + i * IDS ..., then one SAMPLE
                                    per attr (at most 64)
"""
import struct
import sys

PERF_TYPE_SOFTWARE = 1
SAMPLE_TYPE = 0x1 | 0x2 | 0x40  # IP | TID | ID
ATTR_SIZE = 128  # PERF_ATTR_SIZE_VER7, perf 6.1's struct
FIRST_ID = 1000


def attr(i):
    """struct perf_event_attr, 128 bytes, little-endian."""
    b = struct.pack('<IIQQQQQ', PERF_TYPE_SOFTWARE, ATTR_SIZE, i % 10,
                    i + 1, SAMPLE_TYPE, 0, 0)
    return b + bytes(ATTR_SIZE - len(b))


def sample(ip, pid, ident):
    """PERF_RECORD_SAMPLE (9), misc USER (2): ip, pid/tid, id."""
    return struct.pack('<IHHQIIQ', 9, 2, 32, ip, pid, pid, ident)


def file_mode(nattrs, nids, out):
    hdr_size = 104
    ids_off = hdr_size
    ids = b''.join(struct.pack('<Q', FIRST_ID + k) for k in range(nids))
    attrs_off = ids_off + len(ids)
    attrs = b''.join(attr(i) + struct.pack('<QQ', ids_off, len(ids))
                     for i in range(nattrs))
    data_off = attrs_off + len(attrs)
    data = b''.join(sample(0x400000 + k, 42, FIRST_ID + k)
                    for k in range(min(nids, 64)))
    hdr = struct.pack('<8sQQQQQQQQ4Q', b'PERFILE2', hdr_size,
                      ATTR_SIZE + 16, attrs_off, len(attrs), data_off,
                      len(data), 0, 0, 0, 0, 0, 0)
    out.write(hdr + ids + attrs + data)


def pipe_mode(nattrs, nids, out):
    out.write(struct.pack('<8sQ', b'PERFILE2', 16))
    for i in range(nattrs):
        body = attr(i) + b''.join(struct.pack('<Q', FIRST_ID + i * nids + k)
                                  for k in range(nids))
        out.write(struct.pack('<IHH', 64, 0, 8 + len(body)) + body)
    for i in range(min(nattrs, 64)):
        out.write(sample(0x400000 + i, 42, FIRST_ID + i * nids))


def main():
    mode, nattrs, nids, path = sys.argv[1], int(sys.argv[2]), \
        int(sys.argv[3]), sys.argv[4]
    with open(path, 'wb') as out:
        {'file': file_mode, 'pipe': pipe_mode}[mode](nattrs, nids, out)


main()
