#!/usr/bin/python3
# qpt decode's progress line on a terminal, against perf report -D's
# AUXTRACE sizes (the total) and the decode's own output (unchanged by
# it); nothing on stderr when it is no terminal.  The reader of the
# decode's output stops after its first bytes until the decode has run
# for more than a second (the pipe is full: qpt waits in write), the time
# after which progress is shown; once a line shows it stops again for a
# second, so that a terminal sees at least two progress lines, each
# overwriting the last.
# Args: QPT FILE SYSROOT TOTAL (the AUXTRACE bytes perf report -D lists)
import os
import pty
import re
import subprocess
import sys
import threading
import time

qpt, path, sysroot, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
LINE = re.compile(rb"\rqpt decode: (\d+) of (\d+) trace bytes \((\d+)%\), "
                  rb"\d+\.\d (?:K|M)iB/s\x1b\[K")


def drain(fd, into):
    while True:
        try:
            b = os.read(fd, 65536)
        except OSError:  # EIO: the terminal's last writer is gone
            return
        if not b:
            return
        into.append(b)


def run(tty):
    """qpt decode with stderr a terminal (tty) or a pipe: (rc, out, err)."""
    err = []
    if tty:
        rfd, wfd = pty.openpty()
    else:
        rfd, wfd = os.pipe()
    t0 = time.monotonic()
    # -j1: the serial decode tells its progress every 4096 blocks; the
    # parallel one as each part (4 KiB of trace or more) is written, and
    # this small trace is a part or two
    p = subprocess.Popen([qpt, "decode", "--insn", "-j1", "--sysroot", sysroot,
                          "-i", path], stdout=subprocess.PIPE, stderr=wfd)
    os.close(wfd)
    th = threading.Thread(target=drain, args=(rfd, err))
    th.start()
    out = p.stdout.read(4096)
    # the decode is blocked on its full pipe: let its clock pass a second
    time.sleep(max(0.0, t0 + 1.3 - time.monotonic()))
    if tty:
        # read until the first progress line shows, then block the decode
        # for another second, so that the next one is due as it goes on
        while not LINE.search(b"".join(err)):
            b = p.stdout.read1(65536)
            if not b:
                break
            out += b
        time.sleep(1.1)
    out += p.stdout.read()
    p.wait()
    th.join()
    os.close(rfd)
    return p.returncode, out, b"".join(err)


fail = False
rc, out, err = run(False)
if rc != 0 or not out or err:
    print("FAIL: no terminal: exit %d, %d bytes out, stderr %r" %
          (rc, len(out), err[:200]))
    fail = True
rc2, out2, err2 = run(True)
if rc2 != 0 or out2 != out:
    print("FAIL: on a terminal: exit %d, output %s" %
          (rc2, "the same" if out2 == out else "differs"))
    fail = True
if not err2.endswith(b"\r\x1b[K"):
    print("FAIL: the progress line is not cleared at the end: %r" % err2[-80:])
    fail = True
lines = list(LINE.finditer(err2))
rest = LINE.sub(b"", err2)
if len(lines) < 2 or rest != b"\r\x1b[K":
    print("FAIL: progress on a terminal: %d lines, other text %r" %
          (len(lines), rest[:200]))
    fail = True
last = 0
for m in lines:
    done, tot, pct = (int(x) for x in m.groups())
    if tot != total or not last <= done <= tot or pct != done * 100 // tot:
        print("FAIL: %r: perf report -D's AUXTRACE bytes %d, before %d" %
              (m.group(0), total, last))
        fail = True
    last = done
print("%s: %d progress lines, last %d of %d bytes" %
      (path, len(lines), last, total))
sys.exit(1 if fail else 0)
