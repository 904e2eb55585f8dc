#!/usr/bin/env python3
"""whyslow's loops[] against the Python oracle (tools/oracles/loops.py), which reads the raw JSON a
second way: the same loops (step, marker, iteration count) and, per iteration, the same start,
duration, CPU time and GPU busy time to the nanosecond. Runs on every committed trace fixture, and
on a few public traces when the corpus is beside the checkout (skipped, not failed, when absent).

Usage: loops_oracle.py WHYSLOW_BINARY FIXTURES_DIR [PUBLIC_DIR]
"""
import json
import pathlib
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools" / "oracles"))
import loops  # noqa: E402
import oracle_runner  # noqa: E402
from oracle_runner import ns  # noqa: E402

# Public traces with a loop (owlv2: a pipeline's batches) and LLM decode traces without one
# (sglang, vLLM: one decode step per ProfilerStep, or no steps at all).
PUBLIC = [
    "AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz",
    "AMD-AGI__TraceLens/tests__traces__inference__sglang_decode__capture_traces__bs_32_rank0.json.gz",
    "AMD-AGI__TraceLens/tests__traces__inference__vllm_decode_full__graph_execution.json.gz",
    "AMD-AGI__TraceLens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz",
]



def check(binary: str, path: str) -> tuple:
    out = subprocess.run([binary, "explain", "--json", path], check=True, capture_output=True, text=True).stdout
    ours = json.loads(out, parse_float=Decimal)["loops"]
    theirs = loops.analyze(path)["loops"]
    if len(ours) != len(theirs):
        return [f"{path}: whyslow finds {len(ours)} loops, the oracle {len(theirs)}"], 0
    errors = []
    for a, b in zip(ours, theirs):
        where = f"{path} {a['step']}"
        for key in ("step", "block", "marker", "iterations"):
            if key == "block" and b[key] == "(top level)" and a[key].endswith("'s top level"):
                continue  # a stepless trace's main thread, named by the loader
            if a[key] != b[key]:
                errors.append(f"{where}: {key} = {a[key]!r}, oracle {b[key]!r}")
        if a["period_events"] != b["period"]:
            errors.append(f"{where}: period_events = {a['period_events']}, oracle {b['period']}")
        for key in ("first", "median", "cpu_median", "gpu_median"):
            if ns(a[key + "_us"]) != b[key + "_ns"]:
                errors.append(f"{where}: {key}_us = {a[key + '_us']}, oracle {b[key + '_ns']} ns")
        for i, (x, y) in enumerate(zip(a["each"], b["each"])):
            for key in ("start", "duration", "cpu", "gpu_busy"):
                if ns(x[key + "_us"]) != y[key + "_ns"]:
                    errors.append(f"{where} iteration {i + 1}: {key}_us = {x[key + '_us']}, oracle {y[key + '_ns']} ns")
    return errors, len(ours)


def main() -> int:
    return oracle_runner.run(check, ("blocks", "torch", "inference"), PUBLIC, "loops")


if __name__ == "__main__":
    sys.exit(main())
