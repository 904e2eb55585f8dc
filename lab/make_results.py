#!/usr/bin/env python3
"""Writes RESULTS.md and l2_sweep.svg from what lab/run_lab.sh collected.

    python3 lab/make_results.py WORKDIR

WORKDIR holds logs/mm_*.log (each ends with lab_matmul_bias's `RESULT {json}` line),
explain/mm_*.json (`whyslow explain --json` of each trace), l2_sweep.csv, gpu.txt and date.txt.
The measured ceilings come from data/peaks/h200_measured.json. No third-party modules: the SVG
is written by hand.
"""
import json
import math
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PEAKS = json.loads((ROOT / "data/peaks/h200_measured.json").read_text())
VARIANT_ORDER = {"cold": 0, "separate": 1, "fused": 2, "graph": 3}
DTYPE_ORDER = {"fp32": 0, "tf32": 1, "bf16": 2}


def fmt_us(us):
    if us is None or (isinstance(us, float) and math.isnan(us)):
        return "–"
    if us >= 1000:
        return f"{us / 1000:.3g} ms" if us < 1e5 else f"{us / 1000:.0f} ms"
    return f"{us:.3g} µs"


def load_runs(work):
    runs = []
    for log in sorted((work / "logs").glob("mm_*.log")):
        result = None
        check = ""
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("RESULT "):
                result = json.loads(line[len("RESULT "):])
            elif line.startswith("check:"):
                check = line
        name = log.stem
        if result is None:
            parts = name.split("_")
            runs.append({"name": name, "failed": True, "size": int(parts[1]), "dtype": parts[2],
                         "variant": parts[3], "log": log.read_text(errors="replace")[-400:]})
            continue
        result["name"] = name
        result["check"] = check
        ex = work / "explain" / f"{name}.json"
        result["explain"] = json.loads(ex.read_text()) if ex.exists() and ex.stat().st_size else None
        runs.append(result)
    runs.sort(key=lambda r: (r["size"], DTYPE_ORDER.get(r["dtype"], 9), VARIANT_ORDER.get(r["variant"], 9)))
    return runs


def per_step(run, key):
    """Median of a whyslow steps[] field over the steady steps (cold: all but the first)."""
    ex = run.get("explain")
    if not ex or not ex.get("steps"):
        return None
    steps = ex["steps"]
    if run["variant"] == "cold" and len(steps) > 1:
        steps = steps[1:]
    return statistics.median(s[key] for s in steps)


def main():
    work = pathlib.Path(sys.argv[1])
    runs = load_runs(work)
    gpu = (work / "gpu.txt").read_text().strip().splitlines() if (work / "gpu.txt").exists() else ["?"]
    date = (work / "date.txt").read_text().strip() if (work / "date.txt").exists() else "?"
    mem_peak = PEAKS["memory_bytes_per_s"]
    out = []
    w = out.append
    w("# The lab: matmul + bias add and the L2 sweep on the GPU, measured\n")
    w(f"Recorded {date} by `lab/run_lab.sh` (one process per row; written by `lab/make_results.py`).  ")
    w(f"GPU, driver, memory: `{gpu[0]}`; {gpu[1] if len(gpu) > 1 else ''}  ")
    w(f"Ceilings (measured, `data/peaks/h200_measured.json`): fp32 {PEAKS['peak_flop_per_s']['fp32'] / 1e12:.1f}, "
      f"tf32 {PEAKS['peak_flop_per_s']['tf32'] / 1e12:.0f}, bf16 {PEAKS['peak_flop_per_s']['bf16'] / 1e12:.0f} TFLOP/s; "
      f"memory {mem_peak / 1e12:.2f} TB/s.\n")
    w("Each run: `lab_matmul_bias --size N --dtype D --variant V --steps 5`; C = A·B + bias, n × n, "
      "row-major. Warm variants: one untimed checked step, then the schedule wait 1, warm-up 1, "
      "active 5; numbers are the median of the 5 recorded steps. Cold: recorded from the first call "
      "(schedule wait 0, warm-up 0, active 5, the cuBLAS handle created inside step 0); its numbers "
      "are step 0 and, in brackets, the median of steps 1–4.\n")
    w("- **GPU/step**: CUDA events around the step's work. **CPU/step**: host time issuing the step "
      "(no wait for the GPU). **wall/step**: issue + wait for the step's last event.")
    w("- **launches/step**, **kernels/step**: `whyslow explain --json`'s `steps[]` (median over the "
      "recorded steps); a graph replay is one launch.")
    w("- **TFLOP/s** = 2·n³ / GPU time; **TB/s** = compulsory bytes (A, B read, C written, bias "
      "read once: 3·n²·e + n·e) / GPU time, both against the measured ceilings.")
    w("- **findings**: the ids `whyslow explain --peaks data/peaks/h200_measured.json` gives, most "
      "important first; headline titles below the table.\n")
    w("| n | dtype | variant | GPU/step | CPU/step | wall/step | launches/step | kernels/step | TFLOP/s | % of measured | TB/s | % of 4.23 | findings |")
    w("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    headlines = []
    for r in runs:
        if r.get("failed"):
            w(f"| {r['size']} | {r['dtype']} | {r['variant']} | FAILED | | | | | | | | | see log |")
            continue
        n, es = r["size"], r["element_bytes"]
        peak = PEAKS["peak_flop_per_s"][r["dtype"]]
        gpu_s = r["gpu_us"] * 1e-6
        flops = 2.0 * n ** 3 / gpu_s
        nbytes = (3 * n * n + n) * es / gpu_s
        launches, kernels = per_step(r, "launches"), per_step(r, "kernels")
        ex = r.get("explain")
        ids = [f["id"] for f in ex["findings"]] if ex else ["(no explain)"]
        if r["variant"] == "cold":
            g = f"{fmt_us(r['first_gpu_us'])} ({fmt_us(r['gpu_us'])})"
            c = f"{fmt_us(r['first_cpu_us'])} ({fmt_us(r['cpu_us'])})"
            wl = f"{fmt_us(r['first_wall_us'])} ({fmt_us(r['wall_us'])})"
        else:
            g, c, wl = fmt_us(r["gpu_us"]), fmt_us(r["cpu_us"]), fmt_us(r["wall_us"])
        fmt_n = lambda v: "–" if v is None else f"{v:g}"
        w(f"| {n} | {r['dtype']} | {r['variant']} | {g} | {c} | {wl} | {fmt_n(launches)} | {fmt_n(kernels)} | "
          f"{flops / 1e12:.3g} | {100 * flops / peak:.2g} % | {nbytes / 1e12:.3g} | {100 * nbytes / mem_peak:.2g} % | "
          f"{', '.join(ids) if ids else '(none)'} |")
        if ex and ex["findings"]:
            headlines.append((r["name"], ex["findings"][:2]))
    w("")

    # What fusion and the graph saved, per size and dtype.
    by = {(r["size"], r["dtype"], r["variant"]): r for r in runs if not r.get("failed")}
    w("## What the epilogue fusion and the CUDA graph saved (against `separate`)\n")
    w("| n | dtype | separate GPU / wall | fused GPU / wall | graph GPU / wall |")
    w("|---:|---|---:|---:|---:|")
    for (n, dt, v), r in sorted(by.items(), key=lambda kv: (kv[0][0], DTYPE_ORDER.get(kv[0][1], 9))):
        if v != "separate":
            continue
        cells = [f"{fmt_us(r['gpu_us'])} / {fmt_us(r['wall_us'])}"]
        for other in ("fused", "graph"):
            o = by.get((n, dt, other))
            cells.append("–" if not o else
                         f"{fmt_us(o['gpu_us'])} ({100 * (o['gpu_us'] / r['gpu_us'] - 1):+.0f} %) / "
                         f"{fmt_us(o['wall_us'])} ({100 * (o['wall_us'] / r['wall_us'] - 1):+.0f} %)")
        w(f"| {n} | {dt} | " + " | ".join(cells) + " |")
    w("")

    w("## Headline findings of `whyslow explain` per run\n")
    for name, fs in headlines:
        w(f"- `{name}`: " + "; ".join(f"**[{f['id']}]** {f['title']}" for f in fs))
    w("")

    failed = [r for r in runs if r.get("failed")]
    if failed:
        w("## Failed runs\n")
        for r in failed:
            w(f"- `{r['name']}`: " + " ".join(r["log"].split())[-300:])
        w("")

    checks = [f"`{r['name']}`: {r['check'].replace('check: ', '')}" for r in runs if not r.get("failed") and r.get("check")]
    w("## Result checks (before anything was timed; cold: after its profiled steps)\n")
    for c in checks:
        w(f"- {c}")
    w("")

    csv = work / "l2_sweep.csv"
    if csv.exists():
        rows = []
        for line in csv.read_text().splitlines()[1:]:
            b, launches, us, bps = line.split(",")
            rows.append((int(b), int(launches), float(us), float(bps)))
        w("## L2 sweep: in-place bias add on one buffer, working set 1 MiB → 2 GiB\n")
        w("`lab_l2_sweep`: x += bias (float4), the same buffer every launch; bandwidth = 2 × working "
          "set / time per launch (median of 7 reps of back-to-back launches). The H200's L2 is 60 MiB.\n")
        w("![L2 sweep](l2_sweep.svg)\n")
        w("| working set | launches/rep | µs/launch | TB/s | vs measured memory (4.23 TB/s) |")
        w("|---:|---:|---:|---:|---:|")
        for b, launches, us, bps in rows:
            w(f"| {b >> 20} MiB | {launches} | {us:.2f} | {bps / 1e12:.2f} | {100 * bps / mem_peak:.0f} % |")
        w("")
        write_svg(work / "l2_sweep.svg", rows, mem_peak)
    w("Kept in the repository: `tests/fixtures/lab/` holds the small traces (64 fp32 separate, fused, "
      "graph and cold; 4096 fp32 separate and cold; 4096 bf16 fused), whose findings "
      "`tests/lab_traces_test.cpp` checks against the numbers above. What surprised us: `lab/README.md`.")
    (work / "RESULTS.md").write_text("\n".join(out) + "\n")
    print("\n".join(out))


def write_svg(path, rows, mem_peak):
    W, H, L, R, T, B = 640, 380, 60, 20, 30, 50
    xs = [math.log2(b / 2 ** 20) for b, *_ in rows]
    ys = [bps / 1e12 for *_, bps in rows]
    xmax = max(xs) if xs else 11
    ymax = max(max(ys, default=1), mem_peak / 1e12) * 1.1
    px = lambda x: L + (W - L - R) * x / max(xmax, 1)
    py = lambda y: H - B - (H - T - B) * y / ymax
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="13">In-place bias add: achieved bandwidth vs working set</text>',
         f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>',
         f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>']
    for i in range(int(xmax) + 1):
        label = f"{2 ** i} MiB" if 2 ** i < 1024 else f"{2 ** i // 1024} GiB"
        s.append(f'<line x1="{px(i):.1f}" y1="{H - B}" x2="{px(i):.1f}" y2="{H - B + 4}" stroke="black"/>')
        s.append(f'<text x="{px(i):.1f}" y="{H - B + 16}" text-anchor="middle">{label}</text>')
    t = 0
    while t <= ymax:
        s.append(f'<line x1="{L - 4}" y1="{py(t):.1f}" x2="{W - R}" y2="{py(t):.1f}" stroke="#ddd"/>')
        s.append(f'<text x="{L - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
        t += 1
    s.append(f'<text x="16" y="{(T + H - B) / 2}" transform="rotate(-90 16 {(T + H - B) / 2})" text-anchor="middle">TB/s (read + written)</text>')
    s.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">working set (log scale)</text>')
    l2x = px(math.log2(60))
    s.append(f'<line x1="{l2x:.1f}" y1="{T}" x2="{l2x:.1f}" y2="{H - B}" stroke="#c33" stroke-dasharray="4 3"/>')
    s.append(f'<text x="{l2x + 4:.1f}" y="{T + 12}" fill="#c33">L2 60 MiB</text>')
    my = py(mem_peak / 1e12)
    s.append(f'<line x1="{L}" y1="{my:.1f}" x2="{W - R}" y2="{my:.1f}" stroke="#36c" stroke-dasharray="4 3"/>')
    s.append(f'<text x="{W - R - 4}" y="{my - 4:.1f}" text-anchor="end" fill="#36c">measured copy {mem_peak / 1e12:.2f} TB/s</text>')
    pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
    s.append(f'<polyline points="{pts}" fill="none" stroke="black" stroke-width="2"/>')
    for x, y in zip(xs, ys):
        s.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3"/>')
    s.append("</svg>")
    path.write_text("\n".join(s) + "\n")


if __name__ == "__main__":
    main()
