#!/usr/bin/env bash
# The profiler on a GPU machine, in one go (device time is scarce): builds with CUDA for sm_90,
# runs the profiler's GPU tests (label `gpu`) and CPU tests, the two examples (each trace then
# explained by whyslow), and the overhead benchmarks, ours and torch.profiler's. Logs go to
# $OUT (the device tool's output folder) or build/gpu_check.
#
# The H200 image has no simdjson: see tools/gpu_machine_env.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-build/gpu_check}"
mkdir -p "$out"
source tools/gpu_machine_env.sh  # CUDA on PATH, simdjson from .debs/: sets cmake_extra


bin=build/gpu
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  nvcc --version | tail -2
  cmake -S . -B "$bin" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWHYSLOW_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 "${cmake_extra[@]}" &&
    cmake --build "$bin" -j "$(nproc)" --target whyslow whyslow_profiler_tests \
      whyslow_profiler_gpu_tests scopes_demo cublas_bias_demo profiler_scope_bench profiler_launch_bench
} > "$out/build.log" 2>&1
build_status=$?
tail -5 "$out/build.log"
if [ $build_status -ne 0 ]; then
  grep -E "error|Error" -A5 "$out/build.log" | head -60
  exit 1
fi

{
  echo "== GPU tests (label gpu), the binary's own report"
  timeout 180 "$bin/tests/whyslow_profiler_gpu_tests"
  echo "== ctest -L gpu"
  timeout 180 ctest --test-dir "$bin" -L gpu --output-on-failure
  echo "== the profiler's CPU tests"
  timeout 180 ctest --test-dir "$bin" -R '^Profiler' -LE gpu --output-on-failure -j 8
} > "$out/tests.log" 2>&1
grep -E "PASSED|FAILED|tests passed|Failure|SKIPPED" "$out/tests.log"

{
  echo "== scopes_demo"
  timeout 60 "$bin/examples/scopes_demo" "$out/scopes_demo.json" && timeout 60 "$bin/whyslow" explain "$out/scopes_demo.json"
  echo "== cublas_bias_demo"
  timeout 120 "$bin/examples/cublas_bias_demo" "$out/cublas_bias_demo.json.gz" 4096 &&
    timeout 60 "$bin/whyslow" explain "$out/cublas_bias_demo.json.gz"
} > "$out/examples.log" 2>&1
grep -E "wrote|steps|GPU busy" "$out/examples.log" | head -8

{
  nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv
  echo "clock source: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" \
    "(available: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource))"
  timeout 120 "$bin/bench/profiler_scope_bench"
  timeout 180 "$bin/bench/profiler_launch_bench"
} > "$out/bench.log" 2>&1
cat "$out/bench.log"
timeout 240 python3 bench/torch_profiler_overhead.py > "$out/torch_bench.log" 2>&1
cat "$out/torch_bench.log" | grep -v Warning
