#!/usr/bin/env bash
# The fuzz smoke test: fuzz/smoke.sh FUZZER CORPUS RUNS
# Runs every seed of CORPUS, then mutations of them, RUNS executions in all (at most 5 minutes).
# libFuzzer writes the inputs it finds into its first corpus folder: a scratch one, so the
# committed corpus stays as it is. A crash leaves its reproducer in the current folder.
set -euo pipefail
fuzzer=$1 corpus=$2 runs=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
"$fuzzer" -runs="$runs" -max_total_time=300 -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 "$scratch" "$corpus"
