#!/usr/bin/env python3
"""How long a job's ranks take to explain together (`whyslow explain r0 r1 …`: loaded in parallel,
one thread per file up to the cores) against one rank alone and against the ranks explained one
after another, each also as MB/s of JSON (a .gz counted uncompressed): best wall time of N runs
(time.perf_counter around each process), and the peak RSS of one more run (/usr/bin/time -f %M).
Default traces: the 8 public DLRM ranks (PARAM).

Usage: ranks_load.py [--runs N] [--whyslow BIN] [TRACE …]
"""
import argparse
import gzip
import os
import pathlib
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def best_ms(commands, runs):
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        for c in commands:
            subprocess.run(c, stdout=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def json_mb(path):
    """Megabytes (10^6 bytes) of JSON the loader reads: a .gz file's uncompressed size."""
    if path.endswith(".gz"):
        with gzip.open(path, "rb") as f:
            return sum(len(chunk) for chunk in iter(lambda: f.read(1 << 20), b"")) / 1e6
    return os.path.getsize(path) / 1e6


def peak_rss_kb(command):
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *command], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, check=True).stderr
    return int(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--whyslow", default=str(ROOT / "build/release/whyslow"))
    ap.add_argument("traces", nargs="*")
    a = ap.parse_args()
    traces = a.traces or sorted(str(p) for p in (ROOT.parent / "shared/traces/public/facebookresearch__param")
                                .glob("*dlrm_kineto__worker*"))
    if not traces:
        raise SystemExit("no traces given and the public DLRM ranks are absent")
    one = [a.whyslow, "explain", traces[0]]
    together = [a.whyslow, "explain", *traces]
    print(f"{os.cpu_count()} cores, {len(traces)} ranks, best of {a.runs} runs")
    t1 = best_ms([one], a.runs)
    ts = best_ms([[a.whyslow, "explain", t] for t in traces], a.runs)
    tt = best_ms([together], a.runs)
    mb_one = json_mb(traces[0])
    mb_all = sum(json_mb(t) for t in traces)
    print(f"one rank:          {t1:7.1f} ms   {mb_one / t1 * 1e3:6.0f} MB/s  peak RSS {peak_rss_kb(one)} kB")
    print(f"one after another: {ts:7.1f} ms   {mb_all / ts * 1e3:6.0f} MB/s  ({ts / len(traces):.1f} ms a rank)")
    print(f"together:          {tt:7.1f} ms   {mb_all / tt * 1e3:6.0f} MB/s  peak RSS {peak_rss_kb(together)} kB "
          f"({ts / tt:.1f}x faster than one after another, {tt / t1:.1f}x one rank; {mb_all:.1f} MB of JSON)")


if __name__ == "__main__":
    main()
