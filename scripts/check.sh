#!/usr/bin/env bash
# Install the dependencies, build with ASan/UBSan and warnings as errors, and
# run every test.  This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${QPT_CHECK_BUILD:-build-check}
cmake -S . -B "$build" -DQPT_WERROR=ON -DQPT_SANITIZE=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
# The README's first command, on this build: record and decode the demo.
QPT_DEMO_BUILD="$build" bash scripts/demo.sh
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
# The fuzz targets built with clang (libFuzzer, ASan, UBSan) and their
# corpora replayed: clang's UBSan sees what gcc's does not (arithmetic on a
# null pointer).  About a minute.
cbuild=${QPT_CHECK_CLANG_BUILD:-build-check-clang}
CC=clang cmake -S . -B "$cbuild" -DQPT_FUZZ=ON -DQPT_SANITIZE=ON \
	-DQPT_WERROR=ON -DQPT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$cbuild" -j"$(nproc)" --target fuzz_all
ctest --test-dir "$cbuild" --output-on-failure -j"$(nproc)" -L fuzz
