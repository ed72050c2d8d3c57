#!/usr/bin/env python3
"""seeded_bytes.py SEED COUNT: COUNT pseudo-random bytes on stdout, the same
for the same SEED on every run and machine (tests draw random input from a
fixed seed, never from /dev/urandom)."""
import random
import sys

if len(sys.argv) != 3:
    sys.exit("usage: seeded_bytes.py SEED COUNT")
rng = random.Random(int(sys.argv[1]))
sys.stdout.buffer.write(rng.randbytes(int(sys.argv[2])))
