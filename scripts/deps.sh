#!/usr/bin/env bash
# Install what qpt needs to build and test on Debian 12 (run as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
pkgs="build-essential cmake pkg-config libipt-dev libelf-dev libzstd-dev
      libcmocka-dev linux-perf clang libclang-rt-14-dev llvm-14 zstd libc6-dbg
      python3 libzydis-dev libdw-dev libiberty-dev libdebuginfod-dev csmith
      libcsmith-dev gdb chromium python3-jsonschema python3-pil scdoc man-db
      qemu-user parallel python3-distributed"
missing=""
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing
fi
