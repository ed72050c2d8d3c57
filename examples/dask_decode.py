#!/usr/bin/python3
"""Decode the shards of `qpt split` on a Dask cluster, in shard order.

    qpt split -n 64 -i big.data -o shards
    /usr/bin/python3 examples/dask_decode.py [--scheduler ADDR] \
        [--workers 2] OUT shards/shard-*.data -- --insn --no-sort

Each shard is decoded by `qpt decode -i SHARD ARGS...` on a worker (a
subprocess); the outputs are gathered in the order the shards were given
and written to OUT ("-": standard output).  Without --scheduler a local
cluster runs on the loopback interface (its worker processes are started
and closed with it).  QPT names the qpt binary (default: qpt on PATH).
Needs Dask distributed (Debian: python3-distributed).
"""
import argparse
import os
import subprocess
import sys

from distributed import Client, LocalCluster


def decode(qpt, shard, args):
    """One shard's decode: its output bytes (the worker raises on failure)."""
    p = subprocess.run([qpt, "decode", "-i", shard] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       check=False)
    if p.returncode:
        raise RuntimeError(p.stderr.decode(errors="replace").strip())
    return p.stdout


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scheduler", help="a running scheduler's address")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("out")
    ap.add_argument("shards", nargs="+")
    a = ap.parse_args(argv)
    qpt = os.environ.get("QPT", "qpt")
    if a.scheduler:
        cluster = None
        client = Client(a.scheduler, timeout=120)
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1,
                               processes=True, host="127.0.0.1",
                               dashboard_address=None)
        client = Client(cluster, timeout=120)
    try:
        futures = client.map(decode, [qpt] * len(a.shards), a.shards,
                             [extra] * len(a.shards), pure=False)
        outs = client.gather(futures)
    finally:
        client.close()
        if cluster:
            cluster.close()
    f = sys.stdout.buffer if a.out == "-" else open(a.out, "wb")
    with f:
        for o in outs:
            f.write(o)
    return 0


if __name__ == "__main__":
    sys.exit(main())
