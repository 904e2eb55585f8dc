#!/usr/bin/env python3
"""whyslow's blocks (`blocks[]` in --json) against the Python oracle (tools/oracles/blocks.py), which
reads the raw JSON a second way: every block's path, kind, calls, CPU total and self time, GPU time
(and the part launched on other threads), kernels, launches, threads, repeated calls and backward
(ops linked by sequence number, their time and GPU work) must agree to the nanosecond, every group
(blocks of one code summed) too, and the basis (the steps' CPU time, the GPU work launched in them,
the backward ops' time). Runs on the blocks fixture
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

FIXTURES = ["blocks/blocks_modules_stack.json.gz", "code_groups/gpt_rotary.json.gz",
            "code_groups/gpt_rotary_train.json.gz", "code_groups/mlp_train_blocks.json.gz",
            "code_groups/holdout/holdout_bert_infer.json.gz", "code_groups/holdout/holdout_gpt2_train.json.gz"]
FIELDS = ("kind", "calls", "cpu_ns", "self_cpu_ns", "gpu_ns", "other_gpu_ns", "kernels", "launches", "threads",
          "repeated_calls", "backward_cpu_ns", "backward_ops", "backward_gpu_ns", "backward_kernels")
GROUP_FIELDS = ("places", "instances", "calls", "cpu_ns", "gpu_ns", "backward_cpu_ns", "backward_gpu_ns")
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
               "launches": r["launches"], "threads": r["threads"], "repeated_calls": r["repeated_calls"],
               "backward_cpu_ns": ns(r["backward_cpu_us"]), "backward_ops": r["backward_ops"],
               "backward_gpu_ns": ns(r["backward_gpu_us"]), "backward_kernels": r["backward_kernels"]}
           for p, r in zip(paths, rows)}
    groups = {(g["kind"], g["label"], g["location"]): {
        "places": len(g["rows"]), "instances": g["instances"], "calls": g["calls"], "cpu_ns": ns(g["cpu_total_us"]),
        "gpu_ns": ns(g["gpu_us"]), "backward_cpu_ns": ns(g["backward_cpu_us"]), "backward_gpu_ns": ns(g["backward_gpu_us"])}
        for g in doc["block_groups"]}
    return doc["blocks_basis"], got, groups


def blocks_location(frame_name):
    """"model.py(42): forward" → "model.py:42", as whyslow's JSON writes a location."""
    f = blocks.frame(frame_name) if frame_name else None
    return f"{f[0]}:{f[1]}" if f else None


def check(binary: str, path: str) -> list:
    basis, got, got_groups = whyslow_blocks(binary, path)
    want = blocks.analyze(path)
    errors = []
    for key, mine in (("basis_cpu_ns", ns(basis["cpu_us"])), ("basis_gpu_ns", ns(basis["gpu_us"])),
                      ("basis_backward_ns", ns(basis["backward_us"]))):
        if mine != want[key]:
            errors.append(f"{path}: {key} {mine}, oracle {want[key]}")
    expected = {tuple(b["path"]): b for b in want["blocks"]}
    for p in sorted(set(expected) ^ set(got)):
        errors.append(f"{path}: block {' / '.join(p)} only in {'the oracle' if p in expected else 'whyslow'}")
    for p in sorted(set(expected) & set(got)):
        for k in FIELDS:
            if got[p][k] != expected[p][k]:
                errors.append(f"{path}: {' / '.join(p)}: {k} = {got[p][k]}, oracle {expected[p][k]}")
    # whyslow names a location file:line; the oracle keeps the frame's name
    want_groups = {(g["kind"], g["label"], blocks_location(g["location"])): g for g in want["groups"]}
    for k in sorted(set(want_groups) ^ set(got_groups), key=str):
        errors.append(f"{path}: group {k} only in {'the oracle' if k in want_groups else 'whyslow'}")
    for k in sorted(set(want_groups) & set(got_groups), key=str):
        for f in GROUP_FIELDS:
            if got_groups[k][f] != want_groups[k][f]:
                errors.append(f"{path}: group {k}: {f} = {got_groups[k][f]}, oracle {want_groups[k][f]}")
    print(f"{path}: {len(got)} blocks, {len(got_groups)} groups, {len(errors)} differences")
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
