#!/usr/bin/env bash
# Configures the release preset (build/release) and builds it.
#   scripts/build.sh           everything: the command, the tests, benchmarks and examples (scripts/test.sh)
#   scripts/build.sh whyslow   the `whyslow` command alone (scripts/demo.sh). A build folder that was
#                              never configured is configured without the tests, benchmarks and
#                              examples, so that the packages of `scripts/setup.sh --cli` suffice;
#                              one that was is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "whyslow" ]; then
  if [ ! -f build/release/CMakeCache.txt ]; then
    cmake --preset release -DWHYSLOW_TESTS=OFF -DWHYSLOW_BENCH=OFF -DWHYSLOW_EXAMPLES=OFF >/dev/null
  fi
  cmake --build --preset release -j "$(nproc)" --target whyslow
else
  cmake --preset release -DWHYSLOW_TESTS=ON -DWHYSLOW_BENCH=ON -DWHYSLOW_EXAMPLES=ON >/dev/null
  cmake --build --preset release -j "$(nproc)"
fi
