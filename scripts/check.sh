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
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
