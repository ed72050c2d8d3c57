#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write the seeds of the fuzz targets into fuzz/seeds/NAME.

Usage: /usr/bin/python3 fuzz/mkseeds.py BUILD   (BUILD/cli/qpt is used)

The perf.data seeds are recordings of fuzz/sysroot/code (fuzz/seeds/code.c,
built here when it is absent) by qpt record --emulate in several modes,
with the program's path rewritten to /code, where the fuzz targets' decoders
find it (fuzz/sysroot); the others are taken from those recordings (their
trace bytes, feature sections, branches) or generated from a fixed seed.
The seeds are small: together well under 100 KB.
"""
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(SRC, "seeds")
CC = ["gcc", "-O1", "-nostdlib", "-fno-asynchronous-unwind-tables",
      "-Wl,--build-id", "-Wl,--no-warn-rwx-segments"]
BRANCH_KINDS = ["jcc", "jmp", "ind_jmp", "call", "ind_call", "ret", "syscall",
                "sysret", "int", "iret", "far", "async", "tx_abort",
                "trace_begin", "trace_end"]


def put(target, name, data):
    d = os.path.join(SEEDS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def record(qpt, tmp, name, args, stdout=None):
    """qpt record ARGS -- ./code in @tmp (the program dies of SIGSEGV)."""
    out = os.path.join(tmp, name)
    cmd = [qpt, "record", "-N"] + args
    if stdout:
        with open(out, "wb") as f:
            subprocess.run(cmd + ["-o", "-", "--", "./code"], cwd=tmp,
                           stdout=f, stderr=subprocess.DEVNULL)
    else:
        subprocess.run(cmd + ["-o", out, "--", "./code"], cwd=tmp,
                       stderr=subprocess.DEVNULL)
    return out


def renamed(path, tmp):
    """The file's bytes with the program's path replaced by /code."""
    data = open(path, "rb").read()
    old = (tmp + "/code").encode()
    return data.replace(old + b"\0", b"/code" + b"\0" * (len(old) - 4))


def records(data):
    """(type, offset, bytes) of each record of a file-mode perf.data."""
    off, size = struct.unpack_from("<QQ", data, 40)
    at, end = off, off + size
    while at + 8 <= end:
        typ, _, sz = struct.unpack_from("<IHH", data, at)
        unit = sz
        if typ == 71:  # AUXTRACE: its trace bytes follow
            unit += struct.unpack_from("<Q", data, at + 8)[0]
        yield typ, at, data[at:at + unit]
        at += unit


def features(data):
    """{bit: section bytes} of a file-mode perf.data."""
    off, size = struct.unpack_from("<QQ", data, 40)
    words = struct.unpack_from("<4Q", data, 72)
    table, out = off + size, {}
    for bit in range(256):
        if words[bit // 64] >> (bit % 64) & 1:
            o, s = struct.unpack_from("<QQ", data, table)
            out[bit] = data[o:o + s]
            table += 16
    return out


def perf_seeds(qpt, tmp):
    files = {
        "plain.data": record(qpt, tmp, "plain.data", ["--emulate"]),
        "timed.data": record(qpt, tmp, "timed.data",
                             ["--emulate", "-e", "intel_pt/tsc,mtc,cyc/u"]),
        "step.data": record(qpt, tmp, "step.data", ["--emulate=step"]),
        "snap.data": record(qpt, tmp, "snap.data",
                            ["--emulate", "--snapshot"]),
        "pipe.data": record(qpt, tmp, "pipe.data",
                            ["--emulate", "-e", "intel_pt/tsc/u"], True),
    }
    out = {k: renamed(v, tmp) for k, v in files.items()}
    for k, v in out.items():
        with open(os.path.join(tmp, "r-" + k), "wb") as f:
            f.write(v)
    z = os.path.join(tmp, "z.data")
    subprocess.run([qpt, "convert", "-i", os.path.join(tmp, "r-timed.data"),
                    "-o", z, "-z"], check=True)
    out["z.data"] = open(z, "rb").read()
    lbr = os.path.join(tmp, "lbr.data")
    subprocess.run([qpt, "inject", "--lbr-callstack=20", "--lbr-depth", "4",
                    "-i", os.path.join(tmp, "r-timed.data"), "-o", lbr],
                   check=True)
    out["lbr.data"] = open(lbr, "rb").read()
    return out


def decode_seeds(perf):
    for k in ("plain.data", "timed.data", "step.data", "snap.data",
              "pipe.data", "z.data"):
        put("fuzz_decode", k, perf[k])
    for k in ("plain.data", "timed.data"):  # the bare trace bytes
        pt = b"".join(r[48:] for t, _, r in records(perf[k]) if t == 71)
        put("fuzz_decode", k.replace(".data", ".pt"), pt)
        put("fuzz_fastpt", k.replace(".data", ".pt"), pt)
    for k in ("lbr.data", "timed.data", "snap.data"):
        put("fuzz_lbr", k, perf[k])


def feature_seeds(perf):
    for k in ("timed.data", "snap.data"):
        secs = features(perf[k])
        seed = bytes([0]) + b"".join(struct.pack("<BH", b, len(s)) + s
                                     for b, s in sorted(secs.items()))
        put("fuzz_features", k.replace(".data", ".feat"), seed)
    crash = features(perf["snap.data"]).get(192)
    if crash:
        put("fuzz_features", "crash.feat",
            bytes([0]) + struct.pack("<BH", 192, len(crash)) + crash)


def addr16(a):
    return 0xfff0 if a == 0 else (a - 0x400100) & 0xffff


def item(typ, kind, ip, to, size=2):
    """16 bytes of fuzz_items.c: an item of thread 0 with a time and tid."""
    return struct.pack("<BBBBHHbBB5s", typ | 3 << 2, kind, 4, size | 3 << 4,
                       addr16(ip), addr16(to), 1, 0, len(BRANCH_KINDS),
                       b"\x90" * 5)


def item_seeds(qpt, tmp):
    out = subprocess.run([qpt, "decode", "-i",
                          os.path.join(tmp, "r-timed.data"), "--branches",
                          "--json", "--sysroot", SRC + "/sysroot"],
                         capture_output=True, text=True).stdout
    items = b""
    for line in out.splitlines():
        b = json.loads(line)
        if "kind" not in b or b["kind"] not in BRANCH_KINDS:
            continue
        src, dst = int(b["from"], 16), int(b["to"], 16)
        if src:
            items += item(0, 0, src, 0)  # the branch instruction itself
        items += item(1, BRANCH_KINDS.index(b["kind"]), src, dst)
    put("fuzz_items", "any.items", bytes([7, 50, 16, 16]) + items)
    put("fuzz_items", "callstack.items", bytes([0x23, 0, 4, 0x48]) + items)


def stitch_seeds():
    rnd = random.Random(20)
    for depth, name in ((4, "deep"), (8, "shallow")):
        seed, stack, slot = bytes([depth - 1, 0]), [], 0
        for _ in range(40):
            if stack and rnd.random() < 0.45:
                stack.pop()
            else:
                stack.append((0x10 * len(stack) + 5, 0x10 * len(stack) + 0x10))
            top = stack[-depth:][::-1]
            seed += bytes([0, len(top), (len(stack) - 1) % depth])
            for site, entry in top:
                seed += struct.pack("<HHBB", site, entry, 0, 4)
        put("fuzz_stitch", name + ".lbr", seed)


def ring_seed(sizes, ops, fail, words, steps, data, aux):
    return (bytes([sizes, ops, fail]) + b"\0" * 5 +
            struct.pack("<5Q", *words) + struct.pack("<4Q", *steps) +
            data + aux)


def ring_seeds():
    recs = b""
    for typ, payload in ((3, b"\1\0\0\0\1\0\0\0code\0\0\0\0"),  # COMM
                         (10, b"\1" * 56),  # MMAP2
                         (68, b""),  # FINISHED_ROUND
                         (2, b"\2" * 24)):  # LOST
        recs += struct.pack("<IHH", typ, 0, 8 + len(payload)) + payload
    aux = bytes(range(256))
    d = 5 | 5 << 3  # 256-byte ring and AUX area
    put("fuzz_ring", "drain", ring_seed(d, 0, 0, (len(recs), 0, 200, 0, 0),
                                        (0, 0, 0, 0), recs, aux))
    # the records from 216 on: the ring's end splits the second one
    wrapped = recs[40:].ljust(216, b"\0") + recs[:40]
    put("fuzz_ring", "wrap",
        ring_seed(d, 0x01, 0, (216 + len(recs), 216, 300, 100, 0),
                  (0, 0, 0, 0), wrapped, aux))
    put("fuzz_ring", "snapshot",
        ring_seed(d | 0x40, 0xff, 0, (0, 0, 700, 0, 64), (0, 0, 0, 0),
                  b"", aux))
    put("fuzz_ring", "moving",
        ring_seed(3 | 3 << 3, 0x24, 0x80, (32, 0, 40, 8, 0), (8, 16, 0, 64),
                  recs[:64], aux[:64]))
    put("fuzz_ring", "failing",
        ring_seed(d, 0xe4, 3, (len(recs), 0, 300, 0, 16), (0, 0, 0, 0), recs,
                  aux))


def x86_seeds(qpt):
    """Each distinct instruction of the program and of qpt itself."""
    seen = set()
    for path in (os.path.join(SRC, "sysroot", "code"), qpt):
        out = subprocess.run(["objdump", "-d", path], capture_output=True,
                             text=True).stdout
        for m in re.finditer(r"^\s+[0-9a-f]+:\t((?:[0-9a-f]{2} )+)\s*\t(\S+)",
                             out, re.M):
            b, mnem = bytes.fromhex(m.group(1).replace(" ", "")), m.group(2)
            key = (mnem, len(b), b[0])
            if key in seen or len(b) > 15:
                continue
            seen.add(key)
            put("fuzz_x86", "%03d-%s" % (len(seen), mnem), b)
            if len(seen) >= 120:
                return


def elf_seeds(tmp):
    put("fuzz_elf", "code", open(os.path.join(SRC, "sysroot", "code"),
                                 "rb").read())
    lib = os.path.join(tmp, "lib.so")
    subprocess.run(CC + ["-shared", "-fPIC", "-Wl,-z,max-page-size=0x200",
                         "-Wl,-z,norelro", "-o", lib,
                         os.path.join(SEEDS, "lib.c")], check=True)
    put("fuzz_elf", "lib.so", open(lib, "rb").read())
    subprocess.run(["strip", "--strip-all", lib], check=True)
    put("fuzz_elf", "lib-stripped.so", open(lib, "rb").read())
    put("fuzz_elf", "maps", b"".join([
        b"00400000-00401000 r-xp 00000000 08:01 1234 /code\n",
        b"7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0 [vdso]\n",
        b"7f0000000000-7f0000010000 rwxs 00001000 fd:00 99 /dev/shm/x y\n",
        b"7f0000010000-7f0000020000 --xp 00000000 00:00 0 \n",
        b"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
        b" [vsyscall]\n"]))


def main():
    build = os.path.abspath(sys.argv[1])
    qpt = os.path.join(build, "cli", "qpt")
    code = os.path.join(SRC, "sysroot", "code")
    if not os.path.exists(code):
        subprocess.run(CC + ["-static", "-no-pie", "-fno-pie", "-Wl,-n",
                             "-o", code, os.path.join(SEEDS, "code.c")],
                       check=True)
    for d in os.listdir(SEEDS):
        if os.path.isdir(os.path.join(SEEDS, d)):
            shutil.rmtree(os.path.join(SEEDS, d))
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(code, os.path.join(tmp, "code"))
        perf = perf_seeds(qpt, tmp)
        decode_seeds(perf)
        feature_seeds(perf)
        item_seeds(qpt, tmp)
        elf_seeds(tmp)
    stitch_seeds()
    ring_seeds()
    x86_seeds(qpt)


if __name__ == "__main__":
    main()
