#!/usr/bin/env bash
# Two builds of whyslow_bench on the same files, alternating, so that both meet the same machine:
#
#   bench/compare_builds.sh OLD_BENCH NEW_BENCH FILE... [-- RUNS]
#
# Runs OLD then NEW on each file RUNS times (default 5; the first round also warms the page cache)
# and prints, per file and build, the median and best wall seconds, MB/s of JSON (10^6 bytes) at
# the median, CPU seconds per GB, the median parse CPU seconds (summed over the threads that
# parse) and peak RSS. To measure two cores of a bigger machine: taskset -c 0,1 bench/compare_builds.sh …
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: bench/compare_builds.sh OLD_BENCH NEW_BENCH FILE... [-- RUNS]" >&2; exit 2; }
old=$1 new=$2
shift 2
files=() runs=5
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then runs=$2; break; fi
  files+=("$1")
  shift
done
for f in "${files[@]}"; do
  for i in $(seq "$runs"); do
    for b in "$old" "$new"; do
      printf '%s\t%s\t' "$b" "$i"
      "$b" "$f" 2>/dev/null | tail -1
    done
  done
done | python3 -c '
import sys, statistics
rows = {}
for line in sys.stdin:
    b, i, file, mb, disk, sec, mbs, events, rss, cpu, read, infl, wait, frame, parse, *rest = line.rstrip("\n").split("\t")
    rows.setdefault((file, b), []).append((float(sec), float(cpu), float(parse), float(rss), float(mb)))
print("| file | build | median s | best s | MB/s (median) | CPU s per GB | parse CPU s | peak RSS MB |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for (file, b), r in rows.items():
    sec = statistics.median(x[0] for x in r)
    mb = r[0][4]
    name, build = file.rsplit("/", 1)[-1], b.rsplit("/", 1)[-1]
    print(f"| {name} | {build} | {sec:.3f} | {min(x[0] for x in r):.3f} | {mb / sec:.0f} | "
          f"{statistics.median(x[1] for x in r) / mb * 1000:.2f} | {statistics.median(x[2] for x in r):.3f} | {statistics.median(x[3] for x in r):.0f} |")
'
