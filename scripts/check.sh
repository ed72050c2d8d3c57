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
