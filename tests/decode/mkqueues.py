#!/usr/bin/env python3
"""Write a file-mode perf.data with N AUXTRACE records of distinct idx (N
queues) of one thread, each a short Intel PT stream (PSB+, TIP.PGE at
0x1000, TIP.PGD) over CODE, which the file maps at 0x1000 (nop; nop;
syscall): every queue decodes to the instructions 0x1000, 0x1001, 0x1002.
With EXECS, the process first execs EXECS times, mapping CODE each time.
Usage: mkqueues.py OUT CODE N [EXECS]"""
import struct
import sys

out, code, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
execs = int(sys.argv[4]) if len(sys.argv) > 4 else 0
PID = 4242
ST = 0x1 | 0x2 | 0x4 | 0x80 | 0x10000  # IP TID TIME CPU IDENTIFIER
open(code, 'wb').write(bytes([0x90, 0x90, 0x0f, 0x05]))


def rec(typ, misc, body):
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def trailer(time):
    return struct.pack('<IIQIIQ', PID, PID, time, 0xffffffff, 0, 1)


def cstr(s):
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)


attr = struct.pack('<IIQQQQQ', 8, 112, 1, 1, ST, 0,
                   (1 << 5) | (1 << 18) | (1 << 23) | (1 << 24))
attr += b'\0' * (112 - len(attr))
priv = [0] * 17
priv[0] = 8          # PMU type
priv[2] = 1          # time_mult
priv[4] = 1          # cap_user_time_zero
priv[5] = 1 << 10    # TSC bit
priv[6] = 1 << 11    # noretcomp bit
data = rec(70, 0, struct.pack('<II', 1, 0) + struct.pack('<17Q', *priv))


def mmap2(addr, path, time):
    return rec(10, 2, struct.pack('<IIQQQIIQQII', PID, PID, addr, 0x1000, 0,
                                  8, 1, 1, 0, 5, 2) + cstr(path) + trailer(time))


data += rec(3, 0, struct.pack('<II', PID, PID) + cstr('prog') + trailer(1))
side = []
for i in range(execs):  # COMM with PERF_RECORD_MISC_COMM_EXEC, new maps
    side.append(rec(3, 0x2000, struct.pack('<II', PID, PID) + cstr('prog') +
                    trailer(2 + i)))
    side.append(mmap2(0x1000, code, 2 + i))
if not execs:
    side.append(mmap2(0x1000, code, 2))
data += b''.join(side)
pt = (b'\x02\x82' * 8 + b'\x99\x01' + b'\x02\x23' +
      b'\x71' + struct.pack('<Q', 0x1000)[:6] + b'\x01')
pt += b'\0' * (-len(pt) % 8)
chunks = []
for i in range(n):
    chunks.append(rec(71, 0, struct.pack('<QQQIIII', len(pt), 0, 0, i, PID,
                                         0xffffffff, 0)) + pt)
data += b''.join(chunks)
attrs_at = 104
data_at = attrs_at + 112 + 16 + 8
hdr = struct.pack('<QQQ', 0x32454c4946524550, 104, 112 + 16)
hdr += struct.pack('<QQQQQQ', attrs_at, 112 + 16, data_at, len(data), 0, 0)
hdr += b'\0' * 32  # no features
ids = struct.pack('<Q', 1)
body = attr + struct.pack('<QQ', attrs_at + 112 + 16, 8) + ids
with open(out, 'wb') as f:
    f.write(hdr + body + data)
