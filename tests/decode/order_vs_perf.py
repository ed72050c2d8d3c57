#!/usr/bin/env python3
"""order_vs_perf.py PERF QPT [MAX%]: two interleavings of the same threads'
items ("TID ..." lines: each thread's lines must be the same, in the same
order, in both; else exit 1).  Prints the share of the pairs of items of
different threads that QPT orders otherwise than PERF (inversions), and
exits 1 when it is above MAX% (default: no limit)."""
import sys


def load(path):
    seen, keys = {}, []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        k = seen.get(f[0], 0)
        seen[f[0]] = k + 1
        keys.append((f[0], k, tuple(f[1:])))
    return keys, seen


perf, pn = load(sys.argv[1])
qpt, qn = load(sys.argv[2])
if sorted(perf) != sorted(qpt):
    print("the threads' items differ")
    sys.exit(1)
pos = {k[:2]: i for i, k in enumerate(perf)}
seq = [pos[k[:2]] for k in qpt]
# inversions of seq, by a Fenwick tree
n = len(seq)
tree = [0] * (n + 1)
inv = 0
for done, p in enumerate(seq):
    i, less = p + 1, 0
    while i:
        less += tree[i]
        i -= i & -i
    inv += done - less
    i = p + 1
    while i <= n:
        tree[i] += 1
        i += i & -i
total = n * (n - 1) // 2 - sum(c * (c - 1) // 2 for c in pn.values())
share = 100.0 * inv / total if total else 0.0
print(f"{inv} of {total} pairs of items of different threads in another "
      f"order ({share:.3f}%)")
if len(sys.argv) > 3 and share > float(sys.argv[3]):
    sys.exit(1)
