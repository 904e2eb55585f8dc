#!/usr/bin/env python3
"""whyslow's communication numbers against the Python oracle (tools/oracles/comm_overlap.py), which
reads the raw JSON a second way: compute, comm and exposed comm of the whole trace and of every
step must agree to the nanosecond, and across ranks each collective's arrival skew and the clock
offsets. Runs on the committed DLRM ranks (tests/fixtures/ranks/) and on the public corpus when it
is beside the checkout (skipped, not failed, when it is absent).

Usage: comm_oracle.py WHYSLOW_BINARY FIXTURES_DIR [PUBLIC_DIR]
"""
import json
import pathlib
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools" / "oracles"))
import comm_overlap  # noqa: E402

PUBLIC = [
    "AMD-AGI__TraceLens/tests__traces__mi300__resnet_act_checkpoint.json.gz",
    "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz",
    "facebookresearch__HolisticTraceAnalysis/tests__data__nccl_parser_config__nccl_data.json.gz",
    "facebookresearch__HolisticTraceAnalysis/tests__data__ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz",
    "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-1.json.gz",
]
KEYS = ("compute_ns", "comm_ns", "exposed_comm_ns")


def ns(us) -> int:
    return int(Decimal(str(us)) * 1000)


def run(binary, args):
    return json.loads(subprocess.run([binary, "explain", "--json", *args], check=True, capture_output=True,
                                     text=True).stdout)


def check_one(binary, path):
    doc, oracle = run(binary, [path]), comm_overlap.analyze(path)
    errors = []
    ours = {"window": {k: ns(doc["trace"][k[:-3] + "_us"]) for k in KEYS}}
    for k in KEYS:
        if ours["window"][k] != oracle["window"][k]:
            errors.append(f"{path} window: {k} = {ours['window'][k]}, oracle {oracle['window'][k]}")
    if len(doc["steps"]) != len(oracle["steps"]):
        return errors + [f"{path}: whyslow has {len(doc['steps'])} steps, the oracle {len(oracle['steps'])}"]
    for s, o in zip(doc["steps"], oracle["steps"]):
        for k in KEYS:
            if ns(s[k[:-3] + "_us"]) != o[k]:
                errors.append(f"{path} {s['name']}: {k} = {ns(s[k[:-3] + '_us'])}, oracle {o[k]}")
    return errors


def check_ranks(binary, paths):
    """The oracle matches by order: valid where the traces carry no Seq (the DLRM ranks)."""
    doc, oracle = run(binary, paths), comm_overlap.skew(paths)
    errors = []
    offsets = [ns(r["clock_offset_us"]) for r in doc["ranks"]]
    if offsets != oracle["offsets_ns"]:
        errors.append(f"clock offsets {offsets}, oracle {oracle['offsets_ns']}")
    if doc["collectives"]["matched"] != len(oracle["collectives"]):
        errors.append(f"{doc['collectives']['matched']} collectives matched, oracle {len(oracle['collectives'])}")
    skews = sorted(c["skew_ns"] for c in oracle["collectives"])
    if skews and ns(doc["collectives"]["max_skew_us"]) != skews[-1]:
        errors.append(f"max skew {doc['collectives']['max_skew_us']} µs, oracle {skews[-1]} ns")
    if skews and ns(doc["collectives"]["median_skew_us"]) != skews[len(skews) // 2]:
        errors.append(f"median skew {doc['collectives']['median_skew_us']} µs, oracle {skews[len(skews) // 2]} ns")
    last = [0] * len(paths)
    for c in oracle["collectives"]:
        if c["last"] is not None:
            last[c["last"]] += 1
    if [r["times_last"] for r in doc["ranks"]] != last:
        errors.append(f"times last {[r['times_last'] for r in doc['ranks']]}, oracle {last}")
    return errors


def main():
    binary, fixtures = sys.argv[1], pathlib.Path(sys.argv[2])
    public = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
    ranks = sorted(str(p) for p in (fixtures / "ranks").glob("dlrm_worker*.json.gz"))
    errors, checked = [], 0
    for p in ranks:
        errors += check_one(binary, p)
        checked += 1
    errors += check_ranks(binary, ranks)
    if public and public.is_dir():
        for rel in PUBLIC:
            if (public / rel).exists():
                errors += check_one(binary, str(public / rel))
                checked += 1
        dlrm = sorted(str(p) for p in (public / "facebookresearch__param").glob("*dlrm_kineto__worker*"))
        if len(dlrm) == 8:
            errors += check_ranks(binary, dlrm)
    else:
        print("public corpus absent: only the committed ranks checked")
    for e in errors:
        print(e)
    print(f"{checked} traces checked, {len(errors)} disagreements")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
