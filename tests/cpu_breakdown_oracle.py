#!/usr/bin/env python3
"""whyslow's CPU time by category against the Python oracle (tools/oracles/cpu_breakdown.py), which
reads the raw JSON a second way: every step's categories (or the stepless window's) must agree to
the nanosecond. Runs on every committed trace fixture, and on the public corpus when it is beside
the checkout (skipped, not failed, when it is absent).

Usage: cpu_breakdown_oracle.py WHYSLOW_BINARY FIXTURES_DIR [PUBLIC_DIR]
"""
import json
import pathlib
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools" / "oracles"))
import cpu_breakdown  # noqa: E402

# Public traces small enough for the pure-Python oracle, chosen for what they hold: DataLoader
# fetches (owlv2, resnet50 workers 0/4, PARAM resnet), Python stacks (vLLM B200), ROCm (MI300),
# a 2021 schema trace, and a stepless one (PARAM linear).
PUBLIC = [
    "AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz",
    "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz",
    "AMD-AGI__TraceLens/tests__traces__mi300__gaunernst_bert-small-uncased__1016001.json.gz",
    "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz",
    "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_4__worker0.1623212756351.pt.trace.json.gz",
    "facebookresearch__param/et_replay__tests__inputs__linear_kineto.json.gz",
]


def ns(us) -> int:
    return int(Decimal(str(us)) * 1000)


def whyslow_rows(binary: str, path: str):
    # Exit code 3: a trace in which the profiler recorded nothing, still reported in full.
    run = subprocess.run([binary, "explain", "--json", path], capture_output=True, text=True)
    if run.returncode not in (0, 3):
        raise subprocess.CalledProcessError(run.returncode, run.args, run.stdout, run.stderr)
    out = run.stdout
    doc = json.loads(out)
    if doc["trace"]["recorded"] == "nothing":
        return None  # nothing_recorded: no breakdown is read there (the oracle splits the profiler's own events)
    if doc["steps"]:
        return [(s["name"], ns(s["duration_us"]), {k: ns(v) for k, v in s["cpu_breakdown_us"].items()})
                for s in doc["steps"]]
    return [("window", ns(doc["trace"]["window_us"]), {k: ns(v) for k, v in doc["trace"]["cpu_breakdown_us"].items()})]


def oracle_rows(path: str):
    r = cpu_breakdown.analyze(path)
    rows = r["steps"] if "steps" in r else [r["window"]]
    return [(x["name"], x["duration_ns"], x["categories"]) for x in rows]


def check(binary: str, path: str) -> list:
    errors = []
    ours = whyslow_rows(binary, path)
    if ours is None:
        return []
    theirs = oracle_rows(path)
    if len(ours) != len(theirs):
        return [f"{path}: whyslow has {len(ours)} steps, the oracle {len(theirs)}"]
    for (name, dur, cats), (oname, odur, ocats) in zip(ours, theirs):
        if sum(cats.values()) != dur:
            errors.append(f"{path} {name}: categories sum to {sum(cats.values())} ns, not the duration {dur} ns")
        for c in cpu_breakdown.CATEGORIES:
            if cats.get(c, 0) != ocats[c]:
                errors.append(f"{path} {name}: {c} = {cats.get(c, 0)} ns, oracle {ocats[c]} ns")
    return errors


def main() -> int:
    binary, fixtures = sys.argv[1], pathlib.Path(sys.argv[2])
    public = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else None
    paths = sorted(str(p) for p in fixtures.rglob("*.json.gz") if "/roofline/" not in str(p))
    if public and public.is_dir():
        paths += [str(public / p) for p in PUBLIC if (public / p).exists()]
    else:
        print(f"public corpus absent ({public}): checking the committed fixtures only")
    errors = []
    for p in paths:
        errors += check(binary, p)
    for e in errors[:50]:
        print(e)
    print(f"{len(paths)} traces, {len(errors)} disagreements")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
