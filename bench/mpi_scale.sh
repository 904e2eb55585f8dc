#!/usr/bin/env bash
# whyslow-mpi at scale (issue 16): N generated rank traces (tools/make_rank_traces.py from the two
# committed DLRM ranks, one injected straggler), explained by `mpirun -n K whyslow-mpi` for each K,
# and by `whyslow explain` alone as the baseline in the same run.
#
#   bench/mpi_scale.sh [N ...]        (default: 64 256; K = 1 2 4)
#
# Prints a markdown table: ranks, processes, wall time, the largest peak RSS of one process
# (/usr/bin/time's %M around each process), the ranks' total trace bytes (uncompressed JSON) and
# the mean digest size per rank. On a machine with fewer cores than K, processes share cores
# (--oversubscribe): the times then show the split's overhead, not its speed-up.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD="$ROOT/build/release"
OUT="$ROOT/bench/out/mpi"
FIX="$ROOT/tests/fixtures/ranks"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cmake --build --preset release --target whyslow whyslow-mpi >/dev/null
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(64 256)
echo "| ranks | processes | wall s | peak RSS per process MB | traces MB (JSON) | digest per rank kB |"
echo "|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  dir="$OUT/ranks_$n"
  if [ ! -f "$OUT/truth_$n.json" ]; then
    python3 tools/make_rank_traces.py "$dir" "$n" "$FIX/dlrm_worker0.json.gz" "$FIX/dlrm_worker2.json.gz" --straggler $((n / 3)) 2>/dev/null
  fi
  # The truth stays beside the ranks' folder, not in it: `explain DIR` reads every *.json there.
  [ -f "$dir/truth.json" ] && mv "$dir/truth.json" "$OUT/truth_$n.json"
  json_mb=$(python3 - "$dir" <<'PY'
import gzip, os, sys
d = sys.argv[1]
print(f"{sum(len(gzip.open(os.path.join(d, f)).read()) for f in os.listdir(d) if f.endswith('.gz')) / 1e6:.0f}")
PY
)
  digests="$OUT/digests_$n"; rm -rf "$digests"; mkdir -p "$digests"
  "$BUILD/whyslow" digest "$dir/rank-0000.pt.trace.json.gz" -o "$digests/one.json" 2>/dev/null
  digest_kb=$(python3 -c "import os; print(f'{os.path.getsize(\"$digests/one.json\") / 1e3:.1f}')")
  run() {  # label, command…: wall seconds and the largest %M of the processes it ran
    local log="$OUT/time.log"; rm -f "$log"
    local t0 t1; t0=$(date +%s.%N)
    "$@" > "$OUT/out.txt"
    t1=$(date +%s.%N)
    local rss; rss=$(sort -n "$log" | tail -1)
    echo "$(python3 -c "print(f'{$t1 - $t0:.2f}')") $(python3 -c "print(f'{$rss / 1024:.0f}')")"
  }
  read -r wall rss < <(run /usr/bin/time -a -o "$OUT/time.log" -f %M "$BUILD/whyslow" explain "$dir")
  echo "| $n | whyslow alone | $wall | $rss | $json_mb | $digest_kb |"
  for k in 1 2 4; do
    read -r wall rss < <(run mpirun -n "$k" /usr/bin/time -a -o "$OUT/time.log" -f %M "$BUILD/whyslow-mpi" explain "$dir")
    echo "| $n | $k | $wall | $rss | $json_mb | $digest_kb |"
  done
done
