#!/usr/bin/env bash
# The fuzz smoke test: fuzz/smoke.sh FUZZER CORPUS RUNS [SECONDS [MAX_LEN]]
# Runs every seed of CORPUS, then mutations of them: RUNS executions in all (-1: no limit), for at
# most SECONDS (default 300), inputs up to MAX_LEN bytes (default 65536). CORPUS "none": no seeds,
# for the structured targets, which make a valid trace of any bytes; their inputs start at full
# length (-len_control=0: libFuzzer otherwise grows them from 4 bytes, and a minute ends with traces
# of one or two events). libFuzzer writes the inputs it finds into its first corpus folder: a
# scratch one, so the committed corpus stays as it is. A crash leaves its reproducer in the current
# folder.
set -euo pipefail
fuzzer=$1 corpus=$2 runs=$3 seconds=${4:-300} max_len=${5:-65536}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
seeds=("$corpus")
length=()
if [[ $corpus == none ]]; then
  seeds=()
  length=(-len_control=0)
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
"$fuzzer" -runs="$runs" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len="$max_len" \
  "${length[@]}" -print_final_stats=1 "$scratch" "${seeds[@]}"
