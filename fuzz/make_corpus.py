#!/usr/bin/env python3
"""Writes the fuzz seed corpora: fuzz/corpus/ (traces: the reproducers of issues 10 and 32 and
small excerpts of the test fixtures, tests/fixtures/) and fuzz/corpus_digest/ (digests: a valid
one and issue 32's hostile ones). Run from anywhere: python3 fuzz/make_corpus.py
The seeds are small on purpose (libFuzzer mutates small inputs fastest; the corpus stays
< 200 KB in the repository). Rerunning it rewrites the same files."""
import gzip
import json
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")
DIGEST_OUT = os.path.join(ROOT, "fuzz", "corpus_digest")

# Issue 10's reproducers, byte for byte, and a few shapes of input the loader treats specially.
SEEDS = {
    "no_pid_no_tid.json": '{"traceEvents": [{"ph":"X","ts":1,"dur":1}]}',
    "op_without_ids_then_kernel.json":
        '{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":5},\n'
        '{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":2,"dur":1,"args":{"correlation":3}},\n'
        '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":3}}]}',
    "epoch_ts_huge_dur.json":
        '{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":1712195495519689.047,"dur":7600000000000000}]}',
    "ts_int64_edges.json":
        '{"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":9223372036854775,"dur":1},'
        '{"ph":"X","name":"b","pid":1,"tid":1,"ts":-9223372036854775,"dur":1}]}',
    "ts_range_edge.json":
        '{"traceEvents": [{"ph":"X","name":"late","pid":1,"tid":1,"ts":4611686018427387.902,"dur":0.001},'
        '{"ph":"X","name":"early","pid":1,"tid":1,"ts":-4611686018427387.903,"dur":0}]}',
    "bad_escape.json": '{"traceEvents": [{"ph":"X","name":"bad\\x41escape","pid":1,"tid":1,"ts":1,"dur":1}]}',
    "truncated_u_escape.json": '{"traceEvents": [{"ph":"X","name":"truncated\\u00","pid":1,"tid":1,"ts":1,"dur":1}]}',
    "lone_surrogate.json":
        '{"traceEvents": [{"ph":"X","name":"a\\ud800b","pid":1,"tid":1,"ts":1,"dur":1},'
        '{"ph":"X","name":"\\ud83d\\ude00","pid":1,"tid":1,"ts":2,"dur":1}]}',
    "pid_nan.json": '{"traceEvents": [{"ph":"X","name":"a","pid":NaN,"tid":1,"ts":1,"dur":1}]}',
    "tid_hex.json": '{"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":0x10,"ts":1,"dur":1}]}',
    "infinity.json": '{"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":Infinity,"ts":1,"dur":1}]}',
    "leading_zero.json": '{"traceEvents": [{"ph":"X","name":"a","pid":01,"tid":1,"ts":01,"dur":1}]}',
    "args_garbage_literal.json":
        '{"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x": tru}}]}',
    "terminal_escape_key.json": '{"k\\u001b]0;TITLE\\u0007\\u001b[2J" 5, "traceEvents": []}',
    "escaped_keys.json": '{"traceEvents": [{"\\u0070h":"X","name":"\\u0061","pid":1,"tid":1,"ts":1,"dur":1}]}',
    "legacy_array.json": '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"i","s":"t","name":"b","pid":1,"tid":1,"ts":2}]',
    "raw_control_chars.json":
        '{"traceName": "raw\nnewline", "traceEvents": [{"ph":"X","name":"a\tb","pid":1,"tid":1,"ts":1,"dur":1}]}',
    "truncated_mid_event.json": '{"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","na',
    "flows_and_metadata.json":
        '{"schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000, "deviceProperties": '
        '[{"id": 0, "name": "NVIDIA H100", "numSms": 132, "totalGlobalMem": 85000000000, "computeMajor": 9, "computeMinor": 0}],'
        ' "traceEvents": [{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}},'
        '{"ph":"M","name":"process_labels","pid":0,"args":{"labels":"GPU 0"}},'
        '{"ph":"s","id":5,"pid":1,"tid":1,"ts":1,"cat":"ac2g","name":"ac2g"},'
        '{"ph":"f","id":5,"pid":0,"tid":7,"ts":3,"cat":"ac2g","name":"ac2g","bp":"e"},'
        '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":10},'
        '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":5,"External id":9}},'
        '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3,"dur":4,"args":{"correlation":5,"External id":9,'
        '"grid":[1,1,1],"block":[128,1,1],"registers per thread":32,"shared memory":0}}]}',
    # Issue 32's reproducers.
    "begin_end_pairs.json":
        '{"traceEvents": [{"ph":"B","name":"outer","pid":1,"tid":1,"ts":1},{"ph":"B","name":"inner","pid":1,"tid":1,"ts":2},'
        '{"ph":"E","pid":1,"tid":1,"ts":3},{"ph":"E","pid":1,"tid":2,"ts":4},{"ph":"E","pid":1,"tid":1,"ts":5},'
        '{"ph":"B","name":"open","pid":1,"tid":3,"ts":6},{"ph":"C","name":"c","pid":1,"ts":1,"args":{"v":1}}]}',
    "trace_events_twice.json":
        '{"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}], "traceEvents": []}',
    "trace_events_escaped_key.json": '{"trace\\u0045vents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]}',
    "pid_int64_max.json":
        '{"traceEvents": [{"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"GPU 1"}},'
        '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":9223372036854775807,"tid":1,"ts":1,"dur":5}]}',
    "input_dims_hostile.json":
        '{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":20,'
        '"args":{"External id":1,"Input Dims":[[-8,16],[16,9223372036854775807]],"Input type":["float","float"]}},'
        '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,"args":{"correlation":5,"External id":1}},'
        '{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":100,"args":{"correlation":5,"External id":1}}]}',
}

# A valid digest (the keys render_digest_json writes), then issue 32's hostile ones: each is one
# edit of it.
DIGEST = ('{"whyslow_digest": 1, "rank": 0, "world_size": 2, "path": "rank0.json", "steps": 1, "trace_steps": 1, '
          '"step_ns": 1000, "compute_ns": 0, "comm_ns": 0, "exposed_comm_ns": 0, "first_step_start_ns": 100, '
          '"cpu_ns": {"data_loading": 0, "sync_wait": 0, "allocator": 0, "launch": 0, "compile": 0, "profiler": 0, '
          '"python": 0, "dispatch": 0, "cpu_compute": 0, "other": 0}, '
          '"collectives": [["0", 0, "all_reduce", 100, 200], ["0", 1, "all_reduce", 300, 400]], '
          '"blocks": [["## forward ##", 500], ["gpu:compute", 100]], '
          '"findings": [["exposed_comm", "warning", "a title"]]}')
DIGEST_SEEDS = {
    "valid.digest.json": DIGEST,
    "trace_steps_zero.digest.json": DIGEST.replace('"trace_steps": 1', '"trace_steps": 0'),
    "negative_step.digest.json": DIGEST.replace('"step_ns": 1000', '"step_ns": -5'),
    "time_int64_max.digest.json": DIGEST.replace("300, 400]", "300, 9223372036854775807]"),
    "unsorted_blocks.digest.json": DIGEST.replace('["## forward ##", 500]', '["zz", 500]'),
    "key_twice.digest.json": DIGEST.replace('"rank": 0,', '"rank": 0, "rank": 1,'),
    "rank_above_world.digest.json": DIGEST.replace('"rank": 0,', '"rank": 9,'),
}


def excerpt(fixture, events, max_bytes):
    """The fixture's top-level keys and its first `events` trace events, as compact JSON."""
    with gzip.open(os.path.join(ROOT, "tests", "fixtures", fixture)) as f:
        trace = json.load(f)
    meta = [e for e in trace["traceEvents"] if e.get("ph") == "M"]
    rest = [e for e in trace["traceEvents"] if e.get("ph") != "M"]
    while True:
        trace_out = dict(trace, traceEvents=meta + rest[:events])
        text = json.dumps(trace_out, separators=(",", ":"))
        if len(text) <= max_bytes or events <= 1:
            return text
        events -= 5


def write_seeds(folder, seeds):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for name, text in seeds.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8", newline="") as f:
            f.write(text)


def main():
    write_seeds(DIGEST_OUT, DIGEST_SEEDS)
    write_seeds(OUT, SEEDS)
    # One value larger than the fuzz target's 1 MiB limit, in a few kB of gzip (issue 10 item 12).
    big = '{"traceEvents": [{"ph":"X","name":"' + "x" * (2 << 20) + '","pid":1,"tid":1,"ts":1,"dur":1}]}'
    with gzip.GzipFile(os.path.join(OUT, "big_value.json.gz"), "wb", mtime=0) as f:
        f.write(big.encode())
    for fixture in ["torch/mm_bias_64_fp32.json.gz", "torch/mlp_bf16_compiled.json.gz",
                    "torch/item_pageable.json.gz", "torch/kernel_contention.json.gz",
                    "torch/mm_bias_4096_fp32_cold.json.gz"]:
        name = os.path.basename(fixture).replace(".json.gz", "_excerpt.json")
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            f.write(excerpt(fixture, 80, 12000))
    # One real excerpt gzip-compressed, so the decoder path starts from a valid stream.
    with open(os.path.join(OUT, "mm_bias_64_fp32_excerpt.json"), "rb") as src:
        with gzip.GzipFile(os.path.join(OUT, "mm_bias_64_fp32_excerpt.json.gz"), "wb", mtime=0) as f:
            f.write(src.read())


if __name__ == "__main__":
    main()
