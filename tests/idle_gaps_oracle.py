#!/usr/bin/env python3
"""whyslow's gpu_idle split (analysis/gpu/idle_gaps.cpp) against the Python oracle
(tools/oracles/idle_gaps.py), which reads the raw JSON a second way: per step (or the whole trace
of a stepless one) the same GPU busy time, the same time in each idle cause, the same gap and
stream-wait counts, to the nanosecond. Runs on every committed trace fixture with GPU work, and on
the public traces whose verdicts hang on the split when the corpus is beside the checkout
(skipped, not failed, when absent).

Usage: idle_gaps_oracle.py WHYSLOW_BINARY FIXTURES_DIR [PUBLIC_DIR]
"""
import json
import pathlib
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools" / "oracles"))
import idle_gaps  # noqa: E402
import oracle_runner  # noqa: E402
from oracle_runner import ns  # noqa: E402

# SGLang (queued work held back by an event), SD3.5 (launch-bound at 60 % busy), vLLM graph
# replays (work queued behind the trace's start), TimeSformer (a CPU prefix).
PUBLIC = [
    "AMD-AGI__TraceLens/tests__traces__inference__sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz",
    "AMD-AGI__TraceLens/tests__traces__inference__sglang_decode__sglang_Qwen3-8B_decode.json.gz",
    "AMD-AGI__TraceLens/tests__traces__inference__xdit_sd_3.5__profile_trace_rank_0.json.gz",
    "AMD-AGI__TraceLens/tests__traces__inference__vllm_decode_full__graph_execution.json.gz",
    "AMD-AGI__TraceLens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz",
]



def check(binary: str, path: str) -> tuple:
    out = subprocess.run([binary, "explain", "--json", path], check=True, capture_output=True, text=True).stdout
    doc = json.loads(out, parse_float=Decimal)
    ours = [(s["name"], s["gpu_idle"]) for s in doc["steps"]] or [("whole trace", doc["trace"]["gpu_idle"])]
    theirs = idle_gaps.analyze(path)["windows"]
    if len(ours) != len(theirs):
        return [f"{path}: whyslow has {len(ours)} windows, the oracle {len(theirs)}"], 0
    errors = []
    for (name, a), b in zip(ours, theirs):
        where = f"{path} {name}"
        if name != b["name"]:
            errors.append(f"{where}: oracle's window is {b['name']}")
        for cause in ["busy"] + idle_gaps.CLASSES:
            if ns(a[cause + "_us"]) != b[cause + "_ns"]:
                errors.append(f"{where}: {cause}_us = {a[cause + '_us']}, oracle {b[cause + '_ns']} ns")
        for key in ("gaps", "stream_waits", "submitted_at_wait"):
            if a[key] != b[key]:
                errors.append(f"{where}: {key} = {a[key]}, oracle {b[key]}")
    return errors, len(ours)


def main() -> int:
    return oracle_runner.run(check, ("blocks", "torch", "compile", "memory", "inference", "truth_round3"), PUBLIC, "windows")


if __name__ == "__main__":
    sys.exit(main())
