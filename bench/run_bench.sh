#!/usr/bin/env bash
# Loader / pipeline benchmark: whyslow against Python's json.load on the same files.
#
#   bench/run_bench.sh [FILE...]
#
# 1. builds the Release preset (build/release) if needed (WHYSLOW_BENCH=path/to/whyslow_bench
#    skips the build and times that binary instead);
# 2. makes bench/out/big.json (>= 500 MiB), bench/out/big2g.json (>= 2 GiB) and
#    bench/out/memory500.json (a profile_memory=True recording, >= 500 MB) of plain Kineto JSON
#    (git-ignored) with tools/make_big_trace.py if they are missing;
# 3. for the big files and three public corpus traces (or the FILEs given) runs
#      whyslow_bench FILE                              (one process per file: peak RSS is per process)
#      python3 -c 'json.load(open(FILE))'              (gzip.open for .gz; also one process per file)
#    each three times, and reports the fastest (the first run warms the page cache). Python skips
#    files over 1 GB unless BENCH_PYTHON_BIG=1 (then it runs once): json.load of 2 GB takes
#    minutes and more memory (~8x the JSON) than a shared 2-core machine may have;
# 4. prints three markdown tables: throughput and memory against json.load; where whyslow's
#    time goes, stage by stage; and each stage's MB/s per core against the floor byte_limits
#    measures on the same file (read(), inflate, memcpy, simdjson's index, its On-Demand walk;
#    files up to 1 GB).
#
# whyslow plans its threads for the cores its CPU affinity gives it (inflating, parsing, framing
# and building, then the analyses); to measure it on two cores of a bigger machine:
# taskset -c 0,1 bench/run_bench.sh
#
# MB = 10^6 bytes of uncompressed JSON (what the parser reads; for .gz files the on-disk size is
# smaller). Speeds exclude process start-up: whyslow_bench times run_pipeline(), the Python
# child times open + json.load. Peak RSS is each process's ru_maxrss (interpreter included).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD="$ROOT/build/release"
BENCH="${WHYSLOW_BENCH:-$BUILD/bench/whyslow_bench}"
OUT="$ROOT/bench/out"
BIG="$OUT/big.json"
BIG2G="$OUT/big2g.json"
MEMORY="$OUT/memory500.json"
LIMITS="${BYTE_LIMITS:-$(dirname "$BENCH")/byte_limits}"
PUBLIC="$ROOT/../shared/traces/public"
[ -d "$PUBLIC" ] || PUBLIC=/work/shared/traces/public

# ---- 1. build ----
if [ -z "${WHYSLOW_BENCH:-}" ]; then
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake --preset release
  fi
  cmake --build --preset release --target whyslow_bench byte_limits
fi

# ---- 2. the big trace ----
if [ ! -f "$BIG" ]; then
  mkdir -p "$OUT"
  # 530 × 10^6 bytes: at least 500 MiB, at most ~540 MB (one repetition of the 3.8 MB source).
  python3 "$ROOT/tools/make_big_trace.py" "$BIG" --min-mb 530
  # Check that the CLI reads it too (skipped with a warning if the CLI does not build right now).
  if [ -z "${WHYSLOW_BENCH:-}" ] && cmake --build --preset release --target whyslow >/dev/null 2>&1; then
    "$BUILD/whyslow" info "$BIG"
  else
    echo "run_bench: warning: the whyslow CLI does not build; skipped 'whyslow info $BIG'" >&2
  fi
fi
if [ ! -f "$MEMORY" ]; then
  # A profile_memory=True recording (tests/fixtures/memory/fragment.json.gz: a quarter of its
  # events are [memory] instants) repeated to 500 MB: the memory budget must hold with them too.
  python3 "$ROOT/tools/make_big_trace.py" "$ROOT/tests/fixtures/memory/fragment.json.gz" "$MEMORY" --min-mb 500
fi
if [ ! -f "$BIG2G" ]; then
  # 2150 × 10^6 bytes: over 2 GiB (2147.5 × 10^6), to show time and memory growing linearly.
  python3 "$ROOT/tools/make_big_trace.py" "$BIG2G" --min-mb 2150
fi

if [ $# -gt 0 ]; then
  FILES=("$@")
else
  FILES=("$BIG" "$BIG2G" "$MEMORY")
  # The public corpus sits beside the project's checkout; a plain clone has none: its rows are
  # left out, said so.
  for f in \
    "$PUBLIC/AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz" \
    "$PUBLIC/facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json" \
    "$PUBLIC/facebookresearch__HolisticTraceAnalysis/tests__data__mtia_trace_single_rank__mtia_rank_0.json.gz"; do
    if [ -f "$f" ]; then
      FILES+=("$f")
    else
      echo "run_bench: $f is missing (no public corpus beside this checkout): its row is left out" >&2
    fi
  done
fi

# ---- 3 + 4. measure and tabulate ----
python3 - "$BENCH" "$LIMITS" "${FILES[@]}" <<'PY'
import os
import subprocess
import sys

bench, limits, files = sys.argv[1], sys.argv[2], sys.argv[3:]

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


STAGES = ("read", "inflate", "wait", "frame", "parse", "build", "analyze", "explain", "render", "load")


def whyslow(path):
    r = subprocess.run([bench, "--repeat", "1", path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"run_bench: whyslow_bench failed on {path}:\n{r.stderr.strip()}")
    row = r.stdout.strip().splitlines()[-1].split("\t")
    # file input_MB disk_MB seconds MB_per_s events peak_rss_MB cpu_seconds, then the stages
    # (absent from whyslow_bench builds older than the stage split)
    stages = dict(zip(STAGES, map(float, row[8:18]))) if len(row) >= 18 else None
    return dict(input_mb=float(row[1]), disk_mb=float(row[2]), seconds=float(row[3]),
                events=int(row[5]), rss_mb=float(row[6]), cpu=float(row[7]), stages=stages)


def byte_limits(path):
    """One core's read, inflate, memcpy, simdjson-index and On-Demand-walk MB/s on this file (bench/byte_limits.cpp)."""
    if not os.path.exists(limits):
        return None
    r = subprocess.run([limits, path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"run_bench: byte_limits failed on {path}:\n{r.stderr.strip()}")
    row = r.stdout.strip().splitlines()[-1].split("\t")
    return dict(read=float(row[3]), inflate=float(row[4]), memcpy=float(row[5]), index=float(row[6]),
                walk=float(row[7]))


def python_json(path):
    out = subprocess.run([sys.executable, "-c", PY_CHILD, path], check=True, capture_output=True,
                         text=True).stdout.split()
    return dict(seconds=float(out[0]), rss_mb=float(out[1]), events=int(out[2]), cpu=float(out[3]))


rows = []
for path in files:
    name = os.path.basename(path)
    print(f"run_bench: {name} ...", file=sys.stderr, flush=True)
    # Best of three runs each (the first also warms the page cache): this shared 2-core machine
    # varies by ±10 % from one run to the next.
    w = min((whyslow(path) for _ in range(3)), key=lambda r: r["seconds"])
    big = w["input_mb"] > 1000
    p = None
    if not big or os.environ.get("BENCH_PYTHON_BIG") == "1":
        p = min((python_json(path) for _ in range(1 if big else 3)), key=lambda r: r["seconds"])
    mb = w["input_mb"]
    # The floor under the stages: skipped over 1 GB (it holds the JSON three times over in memory).
    lim = byte_limits(path) if mb <= 1000 else None
    rows.append(dict(name=name, disk=w["disk_mb"], mb=mb, w=w, p=p, lim=lim))
    print(f"run_bench:   whyslow {w['seconds']:.3f} s ({w['cpu']:.3f} s CPU), {w['rss_mb']:.0f} MB RSS, "
          f"{w['events']} events" + (f"; python {p['seconds']:.3f} s ({p['cpu']:.3f} s CPU), {p['rss_mb']:.0f} MB RSS, "
          f"{p['events']} JSON events" if p else ""), file=sys.stderr, flush=True)


def short(name):
    return name if len(name) <= 60 else name[:28] + "…" + name[-28:]


print()
print("Whole `explain` pipeline (load, analyze, explain, render the text report) of whyslow vs "
      "Python's `json.load` of the same file (`gzip.open` + `json.load` for .gz). Each "
      "measurement ran in a fresh process, three times; the table shows the fastest run (the first "
      "warms the page cache). "
      f"{len(os.sched_getaffinity(0))} CPUs available. MB = 10^6 bytes of uncompressed JSON; "
      "on-disk MB differs for .gz.")
print()
print("| file | on-disk MB | MB | whyslow MB/s | python MB/s | speed ratio | whyslow peak RSS MB | RSS / JSON size | python peak RSS MB | whyslow / python MB/s by CPU time |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    w, p, mb = r["w"], r["p"], r["mb"]
    if p is None:  # no baseline: json.load was skipped
        p = dict(seconds=float("nan"), rss_mb=float("nan"), cpu=float("nan"))
    print(f"| {short(r['name'])} | {r['disk']:.1f} | {mb:.1f} | {mb / w['seconds']:.0f} | {mb / p['seconds']:.0f} | "
          f"{p['seconds'] / w['seconds']:.1f}× | {w['rss_mb']:.0f} | {w['rss_mb'] / mb:.2f} | {p['rss_mb']:.0f} | "
          f"{mb / w['cpu']:.0f} / {mb / p['cpu']:.0f} |".replace("nan×", "–").replace("nan", "–"))
print()
print("MB/s columns use wall-clock time; the last column uses CPU time (user + system, all threads), "
      "which other work on the machine disturbs less. Load average when the table was made: "
      + " ".join(open("/proc/loadavg").read().split()[:3]) + ".")

if any(r["w"]["stages"] for r in rows):
    print()
    print("Where whyslow's time goes (seconds). read: a plain file's read() calls, on the framer's "
          "thread; inflate (gzip, and read for a pipe) runs on a thread of its own. parse is the CPU time of parsing summed over the threads that parse (a parser thread "
          "per core but one, and the calling thread whenever the batch it must build next is not "
          "parsed yet); frame (framing, copying batches, handing them over), wait (for input) and "
          "build (strings, columns, then nesting and linking on two threads) are the calling "
          "thread's (from four cores on, frame and wait are a framer thread's). load = the loader's "
          "wall-clock time; analyze (its passes on up to two threads here), explain and render follow it.")
    print()
    print("| file | total s | read | inflate | parse | frame | wait | build | load | analyze | explain | render |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        st = r["w"]["stages"]
        if not st:
            continue
        load = st["load"]
        cells = [st["read"], st["inflate"], st["parse"], st["frame"], st["wait"], st["build"], load,
                 st["analyze"], st["explain"], st["render"]]
        print(f"| {short(r['name'])} | {r['w']['seconds']:.3f} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    big = [r for r in rows if r["mb"] > 400]
    if len(big) >= 2:
        print()
        print("Scaling (files over 400 MB): " + "; ".join(
            f"{r['mb']:.0f} MB: {r['w']['seconds'] / r['mb'] * 1000:.2f} s/GB, "
            f"{r['w']['rss_mb'] / r['mb'] * 1000:.0f} MB RSS per GB" for r in big) + ".")
if any(r["lim"] and r["w"]["stages"] for r in rows):
    print()
    print("Each stage per core against the machine's floor (MB/s of uncompressed JSON per second of "
          "one core's time in that stage; read per byte on disk). The floor, one core, same file "
          "(bench/byte_limits): a read() out of the page cache, the loader's own inflate, a memcpy "
          "of the JSON, simdjson's structural index of it (its stage 1, which any parse with "
          "simdjson pays first), and that index with On-Demand's walk over every field of every "
          "event and its args, taking each key and value text as written (what any On-Demand "
          "reader of the events pays; the parse's excess over it is whyslow's own work).")
    print()
    print("| file | read | floor: read() | inflate | floor: inflate | frame | parse | floor: simdjson index | floor: index + walk | build | analyze | floor: memcpy |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        st, lim, mb = r["w"]["stages"], r["lim"], r["mb"]
        if not st or not lim:
            continue
        rate = lambda seconds, nbytes=mb: f"{nbytes / seconds:.0f}" if seconds > 0 else "–"
        cells = [rate(st["read"], r["disk"]), f"{lim['read']:.0f}", rate(st["inflate"]),
                 f"{lim['inflate']:.0f}" if lim["inflate"] else "–", rate(st["frame"]), rate(st["parse"]),
                 f"{lim['index']:.0f}", f"{lim['walk']:.0f}", rate(st["build"]), rate(st["analyze"]), f"{lim['memcpy']:.0f}"]
        print(f"| {short(r['name'])} | " + " | ".join(cells) + " |")
    print()
    print("(analyze is wall-clock time on the cores there are; the others are one thread's.)")
PY
