#!/usr/bin/env bash
# CI's second half (after scripts/test.sh): the sanitizer build and the fuzz smoke test.
#   1. the `debug` preset (ASan + UBSan, GCC): build, run every test that needs no GPU;
#   2. the `fuzz` preset (libFuzzer, clang): build fuzz_trace, run its smoke test over fuzz/corpus.
# Installs clang and libclang-rt (libFuzzer) when missing: CI needs them, a user's setup does not.
# Prints how long each part took.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh clang libclang-rt-14-dev

jobs=$(nproc)
# A UBSan report fails the test that triggers it, instead of only printing.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

start=$SECONDS
# No CUDA, examples or benchmarks: the sanitizers check the analyzer and the CPU profiler.
cmake --preset debug "${launcher[@]}" -DWHYSLOW_CUDA=OFF -DWHYSLOW_EXAMPLES=OFF -DWHYSLOW_BENCH=OFF >/dev/null
cmake --build build/debug -j "$jobs"
# The *Scaling suites (inputs sized so that a quadratic pass times out) already ran in the release
# job; at -O0 under ASan they take minutes and check nothing the sanitizers need. python_binding
# builds the module in its own release build (build/python-*), not this one: it ran already. The
# Python oracles (*_oracle) compare numbers, which the release job did, over fixtures that
# whyslow_tests also analyzes here; the browser tests check the page's JavaScript in Chromium. Both
# ran in the release job and are not run again at -O0: CI took 2,337 s on 2026-12-01, over its 30
# minutes. readme_examples holds README.md's text to the binary's: the release job's, the same text.
ctest --preset debug -j "$jobs" -E 'Scaling\.|^python_binding$|_oracle$|^HtmlReportBrowser\.|^readme_examples$'

echo "ci: debug (ASan + UBSan) build and tests: $((SECONDS - start)) s"

start=$SECONDS
cmake --preset fuzz "${launcher[@]}" >/dev/null
cmake --build --preset fuzz -j "$jobs"
ctest --preset fuzz
echo "ci: fuzz build and smoke test: $((SECONDS - start)) s"
