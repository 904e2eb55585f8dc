#!/usr/bin/env python3
"""whyslow's blocks (`blocks[]` in --json) against the Python oracle (tools/oracles/blocks.py), which
reads the raw JSON a second way: every block's path, kind, calls, CPU total and self time, GPU time
(and the part launched on other threads), kernels and launches must agree to the nanosecond, and
the basis (the steps' CPU time and the GPU work launched in them) too. Runs on the blocks fixture
and on public traces when the corpus is beside the checkout (skipped when absent): HTA's DDP step,
whose backward runs on autograd's thread, and TraceLens's TimeSformer and OWLv2 (Python stacks,
a harness of the user's own around transformers, a DataLoader).

Usage: blocks_oracle.py WHYSLOW_BINARY FIXTURES_DIR [PUBLIC_DIR]
"""
import json
import pathlib
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools" / "oracles"))
import blocks  # noqa: E402

FIXTURES = ["blocks/blocks_modules_stack.json.gz"]
PUBLIC = [
    "facebookresearch__HolisticTraceAnalysis/tests__data__ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "AMD-AGI__TraceLens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz",
    "AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz",
]


def ns(us) -> int:
    return int(Decimal(str(us)) * 1000)


def whyslow_blocks(binary: str, path: str):
    doc = json.loads(subprocess.run([binary, "explain", "--json", path], check=True, capture_output=True,
                                    text=True).stdout)
    rows = doc["blocks"]
    paths = []
    for r in rows:
        paths.append((paths[r["parent"]] if r["parent"] is not None else ()) + (r["name"],))
    got = {p: {"kind": r["kind"], "calls": r["calls"], "cpu_ns": ns(r["cpu_total_us"]), "self_cpu_ns": ns(r["self_cpu_us"]),
               "gpu_ns": ns(r["gpu_us"]), "other_gpu_ns": ns(r["other_thread_gpu_us"]), "kernels": r["kernels"],
               "launches": r["launches"]} for p, r in zip(paths, rows)}
    return doc["blocks_basis"], got, doc


def check(binary: str, path: str) -> list:
    basis, got, doc = whyslow_blocks(binary, path)
    want = blocks.analyze(path)
    errors = []
    for key, mine in (("basis_cpu_ns", ns(basis["cpu_us"])), ("basis_gpu_ns", ns(basis["gpu_us"]))):
        if mine != want[key]:
            errors.append(f"{path}: {key} {mine}, oracle {want[key]}")
    expected = {tuple(b["path"]): b for b in want["blocks"]}
    for p in sorted(set(expected) ^ set(got)):
        errors.append(f"{path}: block {' / '.join(p)} only in {'the oracle' if p in expected else 'whyslow'}")
    for p in sorted(set(expected) & set(got)):
        for k in ("kind", "calls", "cpu_ns", "self_cpu_ns", "gpu_ns", "other_gpu_ns", "kernels", "launches"):
            if got[p][k] != expected[p][k]:
                errors.append(f"{path}: {' / '.join(p)}: {k} = {got[p][k]}, oracle {expected[p][k]}")
    print(f"{path}: {len(got)} blocks, {len(errors)} differences")
    return errors


def main() -> int:
    binary, fixtures = sys.argv[1], pathlib.Path(sys.argv[2])
    paths = [str(fixtures / f) for f in FIXTURES]
    public = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
    if public and public.is_dir():
        paths += [str(public / f) for f in PUBLIC if (public / f).exists()]
    else:
        print("public corpus absent: checking the committed fixture only")
    errors = []
    for p in paths:
        errors += check(binary, p)
    for e in errors[:50]:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
