#!/usr/bin/env bash
# How long a job's ranks take to explain together (loaded in parallel, one thread per file up to
# the cores) against one rank alone and against the ranks one after another: wall time and peak
# RSS, best of N runs. Default: the 8 public DLRM ranks (PARAM).
#   bench/ranks_load.sh [WHYSLOW] [RUNS] [TRACE…]
set -euo pipefail
bin=${1:-build/release/whyslow}
runs=${2:-5}
shift $(( $# > 2 ? 2 : $# )) || true
if [ $# -eq 0 ]; then
  set -- ../shared/traces/public/facebookresearch__param/*dlrm_kineto__worker*
fi
best() {  # best wall time (s) and its peak RSS (kB) over $runs runs of "$@"
  local best_t=999999 best_m=0
  for _ in $(seq "$runs"); do
    read -r t m < <( { /usr/bin/time -f "%e %M" "$@" >/dev/null; } 2>&1 | tail -1)
    if awk "BEGIN{exit !($t < $best_t)}"; then best_t=$t; best_m=$m; fi
  done
  echo "$best_t s, peak RSS $best_m kB"
}
echo "cores: $(nproc); ranks: $#"
echo "one rank:               $(best "$bin" explain "$1")"
serial() { for f in "$@"; do "$bin" explain "$f" >/dev/null; done; }
export -f serial; export bin
echo "ranks one by one:       $(best bash -c 'serial "$@"' _ "$@")"
echo "ranks together (explain $#): $(best "$bin" explain "$@")"
