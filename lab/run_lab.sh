#!/usr/bin/env bash
# The lab on a GPU machine, in one go: builds whyslow and the lab (CUDA, sm_90), runs
# lab_matmul_bias over sizes × dtypes × variants and the cold runs, the L2 sweep, explains every
# trace with `whyslow explain --json`, and writes RESULTS.md (lab/make_results.py). Everything
# lands in $OUT (the device tool's output folder) or build/lab_out; $OUT gets a tarball of the
# traces and logs, RESULTS.md and the SVG (the device tool returns at most 8 files).
#
#   lab/run_lab.sh            # sizes 64 1024 4096
#   LAB_SIZES="64 1024 4096 8192" lab/run_lab.sh
#
# The H200 image has no simdjson: see tools/gpu_machine_env.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
final="${OUT:-build/lab_out}"
work=/tmp/lab_work
rm -rf "$work" && mkdir -p "$work/traces" "$work/logs" "$work/explain" "$final"
source tools/gpu_machine_env.sh  # CUDA on PATH, simdjson from .debs/: sets cmake_extra


bin=build/gpu_lab
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  nvcc --version | tail -2
  cmake -S . -B "$bin" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWHYSLOW_CUDA=ON \
    -DWHYSLOW_TESTS=OFF -DWHYSLOW_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 "${cmake_extra[@]}" &&
    cmake --build "$bin" -j "$(nproc)" --target whyslow lab_matmul_bias lab_l2_sweep
} > "$work/logs/build.log" 2>&1
build_status=$?
tail -3 "$work/logs/build.log"
if [ $build_status -ne 0 ]; then
  grep -E "error|Error" -A5 "$work/logs/build.log" | head -60
  cp "$work/logs/build.log" "$final/"
  exit 1
fi

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$work/gpu.txt"
nvcc --version | tail -1 >> "$work/gpu.txt"
date -u +%Y-%m-%dT%H:%M:%SZ > "$work/date.txt"

run_one() {  # size dtype variant steps
  local name="mm_${1}_${2}_${3}"
  timeout 90 "$bin/lab/lab_matmul_bias" --size "$1" --dtype "$2" --variant "$3" --steps "$4" \
    --out "$work/traces/$name.json.gz" > "$work/logs/$name.log" 2>&1
  local rc=$?
  echo "$name: rc $rc $(grep -E '^check:' "$work/logs/$name.log") $(grep -E '^RESULT' "$work/logs/$name.log" | grep -oE '"gpu_us": [0-9.]+')"
  if [ $rc -eq 0 ]; then
    timeout 60 "$bin/whyslow" explain --json --peaks data/peaks/h200_measured.json \
      "$work/traces/$name.json.gz" > "$work/explain/$name.json" 2> "$work/explain/$name.err"
  fi
}

# Cold runs first, while nothing else has warmed the GPU's clocks (each is its own process anyway).
run_one 64 fp32 cold 5
run_one 4096 fp32 cold 5
for n in ${LAB_SIZES:-64 1024 4096}; do
  for dt in fp32 tf32 bf16; do
    for v in separate fused graph; do
      run_one "$n" "$dt" "$v" 5
    done
  done
done

# 8192 only while the device time allows (the whole run must stay well inside the call's limit).
if [ -z "${LAB_SIZES:-}" ] && [ "$SECONDS" -lt "${LAB_BUDGET_8192:-200}" ]; then
  for dt in fp32 bf16; do for v in separate fused graph; do run_one 8192 "$dt" "$v" 5; done; done
else
  echo "8192: skipped (${SECONDS}s elapsed)"
fi

echo "== l2 sweep"
timeout 120 "$bin/lab/lab_l2_sweep" --csv "$work/l2_sweep.csv" > "$work/logs/l2_sweep.log" 2>&1
cat "$work/logs/l2_sweep.log"

python3 -c 'import matplotlib' > /dev/null 2>&1 && echo "matplotlib: yes (unused: the SVG is written by hand)" || echo "matplotlib: no"
python3 lab/make_results.py "$work" > "$work/logs/make_results.log" 2>&1 || cat "$work/logs/make_results.log"
cp "$work/RESULTS.md" "$work/l2_sweep.svg" "$final/" 2>/dev/null
tar -C "$work" -czf "$final/lab_out.tar.gz" .
ls -la "$final"
