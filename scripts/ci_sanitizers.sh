#!/usr/bin/env bash
# CI's second half (after scripts/test.sh): the `fuzz` preset, one clang build with ASan, UBSan and
# libFuzzer's coverage: every test that needs no GPU, then the fuzz targets' smoke runs over
# fuzz/corpus*/. (One build for both: the tests under GCC's sanitizers and a separate fuzz build
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
cmake --build build/fuzz -j "$jobs"
echo "ci: sanitizer build (clang, ASan + UBSan + coverage): $((SECONDS - start)) s"

start=$SECONDS
# The *Scaling suites (inputs sized so that a quadratic pass times out) already ran in the release
# job; under ASan they take minutes and check nothing the sanitizers need. python_binding builds
# the module in its own release build (build/python-*), not this one: it ran already. The Python
# oracles (*_oracle) compare numbers, which the release job did, over fixtures that whyslow_tests
# also analyzes here; the browser tests check the page's JavaScript in Chromium. Both ran in the
# release job. readme_examples holds README.md's text to the binary's: the release job's, the same
# text. The fuzz smoke tests (label fuzz) run here.
ctest --test-dir build/fuzz --output-on-failure -j "$jobs" \
  -E 'Scaling\.|^python_binding$|_oracle$|^HtmlReportBrowser\.|^readme_examples$'
echo "ci: sanitizer tests and fuzz smoke runs: $((SECONDS - start)) s"
