#!/usr/bin/env bash
# Loader / pipeline benchmark: whyslow against Python's json.load on the same files.
#
#   bench/run_bench.sh [FILE...]
#
# 1. builds the Release preset (build/release) if needed;
# 2. makes bench/out/big.json (>= 500 MiB of plain Kineto JSON, git-ignored) with
#    tools/make_big_trace.py if it is missing;
# 3. for the big file and three public corpus traces (or the FILEs given) runs
#      whyslow_bench FILE                              (one process per file: peak RSS is per process)
#      python3 -c 'json.load(open(FILE))'              (gzip.open for .gz; also one process per file)
#    each twice, and reports the second run, when the file is in the page cache;
# 4. prints a markdown table.
#
# MB = 10^6 bytes of uncompressed JSON (what the parser reads; for .gz files the on-disk size is
# smaller). Speeds exclude process start-up: whyslow_bench times run_pipeline(), the Python
# child times open + json.load. Peak RSS is each process's ru_maxrss (interpreter included).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD="$ROOT/build/release"
BENCH="$BUILD/bench/whyslow_bench"
OUT="$ROOT/bench/out"
BIG="$OUT/big.json"
PUBLIC="$ROOT/../shared/traces/public"
[ -d "$PUBLIC" ] || PUBLIC=/work/shared/traces/public

# ---- 1. build ----
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake --preset release
fi
cmake --build --preset release --target whyslow_bench

# ---- 2. the big trace ----
if [ ! -f "$BIG" ]; then
  mkdir -p "$OUT"
  # 530 × 10^6 bytes: at least 500 MiB, at most ~540 MB (one repetition of the 3.8 MB source).
  python3 "$ROOT/tools/make_big_trace.py" "$BIG" --min-mb 530
  # Check that the CLI reads it too (skipped with a warning if the CLI does not build right now).
  if cmake --build --preset release --target whyslow >/dev/null 2>&1; then
    "$BUILD/whyslow" info "$BIG"
  else
    echo "run_bench: warning: the whyslow CLI does not build; skipped 'whyslow info $BIG'" >&2
  fi
fi

if [ $# -gt 0 ]; then
  FILES=("$@")
else
  FILES=(
    "$BIG"
    "$PUBLIC/AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz"
    "$PUBLIC/facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json"
    "$PUBLIC/facebookresearch__HolisticTraceAnalysis/tests__data__mtia_trace_single_rank__mtia_rank_0.json.gz"
  )
fi

# ---- 3 + 4. measure and tabulate ----
python3 - "$BENCH" "${FILES[@]}" <<'PY'
import os
import subprocess
import sys

bench, files = sys.argv[1], sys.argv[2:]

# The baseline child: times open + json.load itself and reports its own peak RSS.
PY_CHILD = r"""
import gzip, json, resource, sys, time
path = sys.argv[1]
t0 = time.perf_counter()
c0 = time.process_time()
with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as f:
    doc = json.load(f)
dt = time.perf_counter() - t0
cpu = time.process_time() - c0
events = len(doc["traceEvents"]) if isinstance(doc, dict) else len(doc)
print(dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6, events, cpu)
"""


def whyslow(path):
    r = subprocess.run([bench, "--repeat", "1", path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"run_bench: whyslow_bench failed on {path}:\n{r.stderr.strip()}")
    row = r.stdout.strip().splitlines()[-1].split("\t")
    # file input_MB disk_MB seconds MB_per_s events peak_rss_MB cpu_seconds
    return dict(input_mb=float(row[1]), disk_mb=float(row[2]), seconds=float(row[3]),
                events=int(row[5]), rss_mb=float(row[6]), cpu=float(row[7]))


def python_json(path):
    out = subprocess.run([sys.executable, "-c", PY_CHILD, path], check=True, capture_output=True,
                         text=True).stdout.split()
    return dict(seconds=float(out[0]), rss_mb=float(out[1]), events=int(out[2]), cpu=float(out[3]))


rows = []
for path in files:
    name = os.path.basename(path)
    print(f"run_bench: {name} ...", file=sys.stderr, flush=True)
    w = [whyslow(path) for _ in range(2)][-1]          # second run: warm page cache
    p = [python_json(path) for _ in range(2)][-1]
    mb = w["input_mb"]
    rows.append((name, w["disk_mb"], mb, mb / w["seconds"], w["rss_mb"], mb / p["seconds"], p["rss_mb"],
                 p["seconds"] / w["seconds"], mb / w["cpu"], mb / p["cpu"]))
    print(f"run_bench:   whyslow {w['seconds']:.3f} s ({w['cpu']:.3f} s CPU), {w['rss_mb']:.0f} MB RSS, "
          f"{w['events']} events; python {p['seconds']:.3f} s ({p['cpu']:.3f} s CPU), {p['rss_mb']:.0f} MB RSS, "
          f"{p['events']} JSON events", file=sys.stderr, flush=True)

print()
print("Loader throughput and peak memory, whyslow (`load_trace`, single thread) vs Python "
      "`json.load`. Each measurement ran twice in a fresh process; the table shows the second "
      "(warm page cache) run. MB = 10^6 bytes of uncompressed JSON; on-disk MB differs for .gz.")
print()
print("| file | on-disk MB | MB | whyslow MB/s | whyslow peak RSS MB | python MB/s | python peak RSS MB | speed ratio | whyslow / python MB/s by CPU time |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, disk, mb, ws, wr, ps, pr, ratio, wc, pc in rows:
    short = name if len(name) <= 60 else name[:28] + "…" + name[-28:]
    print(f"| {short} | {disk:.1f} | {mb:.1f} | {ws:.0f} | {wr:.0f} | {ps:.0f} | {pr:.0f} | {ratio:.1f}× | {wc:.0f} / {pc:.0f} |")
print()
print("MB/s columns use wall-clock time; the last column uses CPU time (user + system), which other "
      "work on the machine disturbs less. Load average when the table was made: "
      + " ".join(open("/proc/loadavg").read().split()[:3]) + ".")
PY
