#!/usr/bin/env bash
# CI's second half (after scripts/test.sh): the `fuzz` preset, one clang build with ASan, UBSan and
# libFuzzer's coverage, of what the sanitizers guard: the tests of the readers, hostile input, the
# dependency graph and the op models (tests/CMakeLists.txt, WHYSLOW_SANITIZER_TEST_SOURCES, says
# which and why), the `whyslow` command those tests run, and the fuzz targets with their smoke runs
# over fuzz/corpus*/. (One build for both: the tests under GCC's sanitizers and a separate fuzz build
# compiled the library twice and took CI to 2,800 s on 2026-12-02, over its 30 minutes.)
# Installs clang and libclang-rt (libFuzzer) when missing: CI needs them, a user's setup does not.
# Prints how long each part took.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh clang libclang-rt-14-dev

jobs=$(nproc)
# A UBSan report stops the test that triggers it, with its stack.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

start=$SECONDS
cmake --preset fuzz "${launcher[@]}" >/dev/null
cmake --build build/fuzz -j "$jobs" --target whyslow whyslow_tests fuzz_trace fuzz_digest fuzz_annotate fuzz_op_models fuzz_memory fuzz_nesting
echo "ci: sanitizer build (clang, ASan + UBSan + coverage): $((SECONDS - start)) s"

start=$SECONDS
# Every test the sanitizer build registers: the guarded tests and the fuzz smoke runs (label fuzz).
ctest --test-dir build/fuzz --output-on-failure -j "$jobs"
echo "ci: sanitizer tests and fuzz smoke runs: $((SECONDS - start)) s"
