"""The Python binding with a real client (issue 17): torch.profiler records a small CPU model with a
schedule and record_function, then whyslow.explain() reads the live profiler and the exported file.
Steps and ops are held to torch's own key_averages(); the text and JSON to the CLI's output for
the same file. Run by tests/python/run_binding_test.sh in a venv where `pip install .` put whyslow.
Usage: binding_test.py WHYSLOW_CLI FIXTURES_DIR. Exit 77 (ctest: skipped) when torch is missing,
after the checks that need no torch."""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import whyslow
from mlp_workload import BATCH, SAMPLE_SECONDS, record  # beside this file

CLI, FIXTURES = sys.argv[1], sys.argv[2]
LEGACY = os.path.join(FIXTURES, "legacy", "mlp_cpu_legacy.json.gz")
SKIP = 77
# The GIL check: explain() calls on the largest fixture, and the slack at both ends of a call in
# which the main thread may still be waking up or not yet see the worker's result.
GIL_CALLS, GIL_MARGIN_S = 5, 0.01
# torch's float µs against whyslow's integer ns (ops_oracle_test.cpp's tolerance).
TOLERANCE_US, TOLERANCE_FRACTION = 1.0, 0.01
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def close(a_us, b_us):
    return abs(a_us - b_us) <= max(TOLERANCE_US, TOLERANCE_FRACTION * abs(a_us))


def rows(table):
    """A table as a list of dicts, whether pandas made it a DataFrame or not."""
    return table.to_dict("records") if hasattr(table, "to_dict") else table


def cli(*args):
    """The CLI's output through a pipe, as the binding's text is: no COLUMNS to fit."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True, env=env).stdout


def check_same_as_cli(report, path, what):
    """The binding runs the CLI's pipeline and renderers: the same file prints the same bytes."""
    check(report.text() == cli("explain", path), f"{what}: text() is `whyslow explain`'s output")
    check(report.json_text() == cli("explain", "--json", path), f"{what}: json_text() is `whyslow explain --json`'s output")


TABLES = ("steps", "ops", "kernels", "annotations", "blocks", "loops", "cpu_time", "memory", "gpu_idle", "iterations",
          "what_if", "critical_path")


def check_report_surface(report, what):
    doc = report.json()
    check(isinstance(doc, dict) and doc == json.loads(report.json_text()), f"{what}: json() is the document as a dict")
    doc["findings"] = None
    check(report.json()["findings"] is not None, f"{what}: json() is the caller's own copy")
    doc = report.json()
    check(report.findings == doc["findings"], f"{what}: findings are the JSON document's")
    for f in report.findings:
        check(isinstance(f, dict) and {"id", "severity", "title"} <= set(f), f"{what}: a finding has id, severity, title")
    try:
        import pandas
        for name in TABLES:
            check(isinstance(getattr(report, name), pandas.DataFrame), f"{what}: .{name} is a DataFrame")
    except ImportError:
        for name in TABLES:
            check(isinstance(getattr(report, name), list), f"{what}: .{name} is a list without pandas")
    for name in TABLES:
        check(getattr(type(report), name).__doc__, f"{what}: .{name} is documented")
    for name in ("steps", "ops", "kernels", "annotations"):
        check(rows(getattr(report, name)) == doc[name], f"{what}: .{name} holds the JSON document's rows")
    # pandas reads a block's null parent and location as NaN: the rows are compared by name and numbers.
    check([(r["name"], r["calls"], r["cpu_total_us"]) for r in rows(report.blocks)] ==
          [(b["name"], b["calls"], b["cpu_total_us"]) for b in doc["blocks"]], f"{what}: .blocks holds the JSON's blocks")
    categories = rows(report.cpu_time)
    check(len(categories) == len(doc["steps"]) and all(
        close(sum(v for k, v in r.items() if k not in ("step", "duration_us")), r["duration_us"]) for r in categories),
        f"{what}: .cpu_time has a row per step, its categories summing to the step")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print(report)
    check(out.getvalue() == report.text() + "\n", f"{what}: print(report) prints text()")
    inline = report._repr_html_()
    check(inline.startswith("<iframe srcdoc=\"") and "&lt;!DOCTYPE html&gt;" in inline[:200],
          f"{what}: _repr_html_ is the page in an iframe's srcdoc")
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "report.html")
        report.save_html(page)
        with open(page, encoding="utf-8") as f:
            html = f.read()
        check(html == report.html(), f"{what}: save_html writes html()")
        check("<script src=" not in html and "<link " not in html, f"{what}: the page loads nothing from outside")


def check_errors():
    with tempfile.TemporaryDirectory() as tmp:
        cut = os.path.join(tmp, "cut.json")
        with open(cut, "w") as f:
            f.write('{"traceEvents": [{"name": "a", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1}, {"name": "b", "ph"')
        try:
            whyslow.explain(cut)
            check(False, "a truncated trace raises")
        except whyslow.TraceError as e:
            check(isinstance(e, ValueError), "TraceError is a ValueError")
            check(e.kind == "truncated" and e.byte_offset == os.path.getsize(cut), f"truncated at the end: {e.kind} {e.byte_offset}")
            r = subprocess.run([CLI, "explain", cut], capture_output=True, text=True)
            check(str(e) in r.stderr, "the message is the CLI's")
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"traceEvents": [{"name": "a", "ph": "X", "ts": 01}]}')
        try:
            whyslow.explain(bad)
            check(False, "invalid JSON raises")
        except whyslow.TraceError as e:
            check(e.kind == "syntax" and bad in str(e) and f"byte {e.byte_offset}" in str(e), f"syntax error names file and byte: {e}")
        try:
            whyslow.explain(os.path.join(tmp, "missing.json"))
            check(False, "a missing file raises")
        except whyslow.TraceError as e:
            check(e.kind == "io" and "missing.json" in str(e), f"missing file: {e}")
        try:
            # two different traces: the same file twice is refused earlier (each file is read once)
            whyslow.explain([LEGACY, os.path.join(FIXTURES, "torch", "mm_bias_64_fp32.json.gz")])
            check(False, "two runs that are not ranks raise")
        except whyslow.TraceError as e:
            check("2 traces that are not the ranks of one job" in str(e) and "whyslow diff" in str(e), f"two runs: {e}")
        try:
            whyslow.explain(LEGACY, LEGACY)
            check(False, "a second positional argument raises")
        except TypeError as e:
            check("whyslow.diff" in str(e), f"explain(a, b): {e}")
        try:
            whyslow.explain(LEGACY, None, 1)
            check(False, "peaks and step are keyword-only")
        except TypeError:
            pass
        try:
            whyslow.explain(LEGACY, step=99)
            check(False, "a step the trace lacks raises")
        except ValueError as e:
            check("ProfilerStep#99" in str(e) and "#1, #2, #3" in str(e), f"missing step: {e}")


def check_not_a_path():
    """A trace's contents passed for its path (bytes or text), or a type no source is: a TypeError
    that names what is accepted, not pybind11's list of overloads; a bytes path still works."""
    with open(LEGACY, "rb") as f:
        gz = f.read()
    for source, what in ((gz, "gzip bytes"), (b'{"traceEvents": []}\n', "JSON bytes"), ('{"traceEvents": []}\n', "JSON text"),
                         (bytearray(b"trace.json"), "a bytearray"), (3, "an int")):
        for call in (lambda: whyslow.explain(source), lambda: whyslow.diff(LEGACY, source)):
            try:
                call()
                check(False, f"{what} raises")
            except TypeError as e:
                check("a trace path (str or os.PathLike)" in str(e) and "torch.profiler.profile" in str(e)
                      and "incompatible function arguments" not in str(e), f"{what}: {e}")
    check(whyslow.explain(os.fsencode(LEGACY)).json() == whyslow.explain(LEGACY).json(), "a bytes path is a path")


def check_as_the_cli():
    """Issue 45 item 7: what the CLI accepts and refuses, the module does too, with the argument
    named: a truth.json beside a job's ranks is left out with a warning (it failed); step=-5 is an
    error (it was the whole trace); peaks=, step=, rows= and save_html's path of the wrong type say
    which argument, not a bare TypeError from os.fspath or pybind11."""
    ranks = os.path.join(FIXTURES, "ranks")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("dlrm_worker0.json.gz", "dlrm_worker2.json.gz"):
            shutil.copy(os.path.join(ranks, name), tmp)
        truth = os.path.join(tmp, "truth.json")
        with open(truth, "w") as f:
            json.dump({"ranks": 2, "straggler": 1}, f)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            job = whyslow.explain(tmp)
        check(isinstance(job, whyslow.Ranks) and len(job.json()["ranks"]) == 2, f"a folder with truth.json: {job!r}")
        check(any(f"{truth}: neither a trace nor a digest" in str(w.message) for w in caught),
              f"truth.json is left out with a warning: {[str(w.message) for w in caught]}")
        cli_out = subprocess.run([CLI, "explain", tmp, "--json"], capture_output=True, text=True).stdout
        check(job.json() == json.loads(cli_out), "the folder's report is the CLI's")
    report = whyslow.explain(LEGACY)
    calls = [
        (lambda: whyslow.explain(LEGACY, step=-5), ValueError, "step= must be a whole number from 0"),
        (lambda: whyslow.explain(LEGACY, step=2**31), ValueError, "step= must be a whole number from 0"),
        (lambda: whyslow.explain(LEGACY, step="1"), TypeError, "step= must be a whole number"),
        (lambda: whyslow.explain(LEGACY, step=1.5), TypeError, "step= must be a whole number"),
        (lambda: whyslow.explain(LEGACY, step=True), TypeError, "step= must be a whole number"),
        (lambda: whyslow.explain(LEGACY, peaks=3), TypeError, "peaks= must be a path"),
        (lambda: whyslow.explain(LEGACY, peaks=""), ValueError, "peaks= must name a file"),
        (lambda: whyslow.diff(LEGACY, LEGACY, peaks=[1]), TypeError, "peaks= must be a path"),
        (lambda: report.text(rows="all"), TypeError, "rows= must be a whole number"),
        (lambda: report.text(rows=-1), ValueError, "rows= must be a whole number"),
        (lambda: report.save_html(None), TypeError, "save_html's path must be a path"),
    ]
    for call, error, words in calls:
        try:
            call()
            check(False, f"{words}: raises")
        except error as e:
            check(str(e).startswith("whyslow: ") and words in str(e), f"{words}: {e}")
    check(whyslow.explain(LEGACY, step=1).json()["steps"][0]["name"] == "ProfilerStep#1", "step=1 still works")


def check_kineto_fixture():
    """The same workload recorded by a Kineto torch (2.11, tools/record_cpu_fixture.py): the ops and
    steps read from Python match that torch's key_averages() and events, saved with the trace."""
    base = os.path.join(FIXTURES, "torch", "mlp_dataloader_cpu")
    with open(base + ".oracle.json") as f:
        oracle = json.load(f)
    report = whyslow.explain(base + ".json.gz")
    ops = {r["name"]: r for r in rows(report.ops)}
    check(set(ops) == {r["key"] for r in oracle["key_averages"]}, "torch 2.11 fixture: the op rows are torch's")
    for r in oracle["key_averages"]:
        o = ops.get(r["key"], {})
        check(o.get("calls") == r["count"] and close(r["self_cpu_time_total"], o.get("self_cpu_us", -1e9))
              and close(r["cpu_time_total"], o.get("cpu_total_us", -1e9)), f"torch 2.11 fixture: {r['key']}")
    steps = rows(report.steps)
    check(len(steps) == len(oracle["step_durations_us"]) and
          all(close(d, s["duration_us"]) for d, s in zip(oracle["step_durations_us"], steps)),
          "torch 2.11 fixture: the steps are torch's")
    check([f["id"] for f in report.findings if f["severity"] == "critical"] == ["data_loading"],
          "torch 2.11 fixture: data_loading is the critical finding")


def check_gil_released():
    """While C++ loads and analyzes, other Python threads run: a main thread that wakes every ms
    leaves timestamps inside each long explain() call of a worker thread (none, were the GIL held)."""
    import threading
    big = max((os.path.join(d, f) for d, _, fs in os.walk(FIXTURES) for f in fs if f.endswith(".json.gz")),
              key=os.path.getsize)
    calls = []

    def work():
        for _ in range(GIL_CALLS):
            start = time.perf_counter()
            whyslow.explain(big)
            calls.append((start, time.perf_counter()))

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    long_calls = [(s, e) for s, e in calls if e - s >= 2 * GIL_MARGIN_S + 0.01]
    for s, e in long_calls:
        check(any(s + GIL_MARGIN_S <= t <= e - GIL_MARGIN_S for t in ticks),
              f"the main thread ran during a {1e3 * (e - s):.0f} ms explain() of {os.path.basename(big)}")
    if not long_calls:
        print("GIL check: no explain() call lasted long enough to tell", file=sys.stderr)


def check_legacy_fixture():
    """The committed legacy-format trace (Debian's torch 1.13): steps, blocks and ops are read."""
    report = whyslow.explain(LEGACY)
    check(len(rows(report.steps)) == 3, "legacy fixture: 3 steps")
    names = {r["name"] for r in rows(report.annotations)}
    check({"forward", "backward", "optimizer"} <= names, f"legacy fixture: record_function blocks {names}")
    check(any(r["name"] == "aten::addmm" for r in rows(report.ops)), "legacy fixture: ATen ops")
    check(len(rows(whyslow.explain([LEGACY]).steps)) == 3, "a one-element list is that trace")
    with tempfile.TemporaryDirectory() as tmp:  # what tensorboard_trace_handler leaves after one run
        shutil.copy(LEGACY, os.path.join(tmp, "host_1.1700000000.pt.trace.json.gz"))
        check(len(rows(whyslow.explain(tmp).steps)) == 3, "a folder of one trace is that trace")
    ranks = whyslow.explain(os.path.join(FIXTURES, "ranks"))
    check(isinstance(ranks, whyslow.Ranks) and [r["rank"] for r in rows(ranks.ranks)] == [0, 2],
          "a folder of a job's ranks is explained together")
    check(ranks.text() == cli("explain", os.path.join(FIXTURES, "ranks")), "the ranks' text is `whyslow explain DIR`'s")
    check_same_as_cli(report, LEGACY, "legacy fixture")
    check_report_surface(report, "legacy fixture")
    d = whyslow.diff(LEGACY, LEGACY)
    check(d.text() == cli("diff", LEGACY, LEGACY), "diff text is `whyslow diff`'s")
    check(d.json() == json.loads(cli("diff", "--json", LEGACY, LEGACY)), "diff JSON is `whyslow diff --json`'s")
    check(d.verdict == d.json()["verdict"], "Diff.verdict is the JSON's verdict")
    check(d.verdict["window"]["faster"] == "same" and d.verdict["steady"]["faster"] == "same",
          f"a trace against itself: the same over the window and once warm: {d.verdict['window']}, {d.verdict['steady']}")
    # Issue 45 item 5: Diff.save_html(a) wrote the page over trace A.
    with tempfile.TemporaryDirectory() as tmp:
        a, b = (os.path.join(tmp, name + os.path.basename(LEGACY)) for name in ("a_", "b_"))
        shutil.copy(LEGACY, a)
        shutil.copy(LEGACY, b)
        before = open(a, "rb").read()
        d = whyslow.diff(a, b)
        for target in (a, b):
            try:
                d.save_html(target)
                check(False, "Diff.save_html refuses to write over an input trace")
            except Exception as e:
                check("it is the input" in str(e), f"Diff.save_html over an input: {e}")
        check(open(a, "rb").read() == before, "trace A is left as it was")
        d.save_html(os.path.join(tmp, "page.html"))
        check(os.path.exists(os.path.join(tmp, "page.html")), "Diff.save_html writes elsewhere")


def check_memory_fixture():
    """A profile_memory=True trace (tests/fixtures/memory/leak): the steps' memory as a table, equal
    to torch's own counters recorded beside it, and the largest live allocations."""
    path = os.path.join(FIXTURES, "memory", "leak.json.gz")
    with open(os.path.join(FIXTURES, "memory", "leak.truth.json")) as f:
        truth = json.load(f)["profiled_steps"]
    report = whyslow.explain(path)
    memory = rows(report.memory)
    check([m["step"] for m in memory] == [t["profiler_step"] for t in truth], "memory fixture: one row per step")
    check(all(m["peak_allocated_bytes"] == t["max_allocated"] and m["end_allocated_bytes"] == t["allocated_end"]
              for m, t in zip(memory, truth)), "memory fixture: the peaks are torch's max_memory_allocated()")
    top = rows(report.memory_top)
    check(len(top) > 0 and all({"bytes", "role", "op"} <= set(r) for r in top), "memory fixture: live allocations")
    check(rows(whyslow.explain(LEGACY).memory) == [], "a trace without memory records has no memory rows")


def check_inference_fixture():
    """generate() under a bare profile() (tests/fixtures/inference/generate_bare): one iteration per
    forward the recorder's hooks counted, and each window's idle split summing to its duration."""
    path = os.path.join(FIXTURES, "inference", "generate_bare.json.gz")
    with open(os.path.join(FIXTURES, "inference", "generate_bare.truth.json")) as f:
        truth = json.load(f)["truth"]
    report = whyslow.explain(path)
    iterations = rows(report.iterations)
    check(len(iterations) == truth["forwards"], f"inference fixture: {len(iterations)} iterations, one per forward")
    idle = rows(report.gpu_idle)
    check(len(idle) == 1 and idle[0]["window"] == "whole trace", "inference fixture: the stepless window's idle row")
    doc = report.json()
    parts = sum(v for k, v in idle[0].items() if k.endswith("_us"))
    check(close(parts, doc["trace"]["window_us"]), "inference fixture: busy + idle causes = the window")
    check(report.findings[0]["id"] == "overhead_bound", "inference fixture: overhead-bound per decode pass")


def check_what_if_fixture():
    """A DataLoader-bound training step (tests/fixtures/cpu/dataloader_workers0): the workers edit
    replayed as a table row, and each step's critical path adding up to its replayed length."""
    report = whyslow.explain(os.path.join(FIXTURES, "cpu", "dataloader_workers0.json.gz"))
    doc = report.json()
    what_if = rows(report.what_if)
    check(any(w["edit"] == "workers" and w["predicted_step_us"] < w["step_us"] for w in what_if),
          "what-if fixture: the workers edit predicts a shorter step")
    check(what_if[-1]["edit"] == "all", "what-if fixture: the last row is all the edits together")
    path = rows(report.critical_path)
    for s in doc["steps"]:
        parts = sum(p["us"] for p in path if p["step"] == s["name"])
        check(close(parts, s["replay_us"]), f"what-if fixture: {s['name']}'s critical path adds up to its replay")


def check_empty_profiler(torch):
    """torch keeps only the latest cycle: with repeat=0, 6 step() calls end in a new cycle's wait
    and the profile object exports nothing. whyslow says so instead of explaining an empty trace."""
    from torch.profiler import ProfilerActivity, profile, schedule
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3)) as prof:
        for _ in range(6):
            torch.randn(8).sum()
            prof.step()
    with tempfile.TemporaryDirectory() as tmp:
        prof.export_chrome_trace(os.path.join(tmp, "t.json"))
        with open(os.path.join(tmp, "t.json")) as f:
            exported = json.load(f)
    events = exported if isinstance(exported, list) else exported.get("traceEvents", [])
    if any(e.get("ph") == "X" for e in events):
        return  # a torch that keeps the finished cycle: nothing to say
    try:
        whyslow.explain(prof)
        check(False, "a profiler that exported no events raises")
    except ValueError as e:
        check("exported no events" in str(e) and "repeat=1" in str(e), f"empty profiler: {e}")


def check_profiler_misuse(torch):
    """explain() inside the `with profile()` block, and on a schedule that never reached an active
    step: a ValueError that says what happened, not torch's bare RuntimeError or AssertionError."""
    from torch.profiler import ProfilerActivity, profile, schedule
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        torch.randn(8).sum()
        try:
            whyslow.explain(prof)
            check(False, "explain() inside the with block raises")
        except ValueError as e:
            check("still recording" in str(e) and "after the `with profile(...)` block" in str(e), f"inside: {e}")
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=5, warmup=1, active=1, repeat=1)) as prof:
        for _ in range(2):
            torch.randn(8).sum()
            prof.step()
    try:
        whyslow.explain(prof)
        check(False, "a schedule that never reached an active step raises")
    except ValueError as e:
        check(not isinstance(e, AssertionError) and "recorded nothing" in str(e) and "active step" in str(e),
              f"never active: {e}")


def check_profile_options(torch):
    """whyslow.profile's options: the CPU, CUDA only where a GPU is, a schedule that skips one step,
    warms up one and records `steps` once, shapes, stacks, modules and memory."""
    from torch.profiler import ProfilerAction, ProfilerActivity
    opts = whyslow.recommended_options(torch, 3)
    gpu = torch.cuda.is_available()
    check(opts["activities"] == [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else []),
          f"CUDA activity only with a GPU (this machine: {gpu}): {opts['activities']}")

    class TorchWithGpu:  # the same torch, on a machine with a GPU
        profiler = torch.profiler

        class cuda:
            is_available = staticmethod(lambda: True)

    check(whyslow.recommended_options(TorchWithGpu, 3)["activities"] == [ProfilerActivity.CPU, ProfilerActivity.CUDA],
          "CUDA activity when a GPU exists")
    A = ProfilerAction
    check([opts["schedule"](i) for i in range(7)] == [A.NONE, A.WARMUP, A.RECORD, A.RECORD, A.RECORD_AND_SAVE, A.NONE, A.NONE],
          "wait 1, warm-up 1, 3 recorded, once")
    check(all(opts[k] is True for k in ("record_shapes", "with_stack", "with_modules", "profile_memory")),
          f"shapes, stacks, modules, memory: {opts}")
    for bad in (0, -1, 2.5, True):
        try:
            whyslow.profile(steps=bad)
            check(False, f"steps={bad!r} raises")
        except ValueError as e:
            check("steps must be a whole number" in str(e), f"steps={bad!r}: {e}")


def check_profile_helper(torch):
    """`with whyslow.profile(steps=3) as p:` records, writes the trace where asked, explains it and
    prints the explanation; too few steps and an exception in the block say what happened."""
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "steps.json")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            with whyslow.profile(steps=3, path=path) as p:
                for _ in range(6):
                    model(torch.randn(32, 64)).sum().backward()
                    p.step()
        if not os.path.exists(path) or p.report.json()["trace"]["events"] == 0:
            print(f"whyslow.profile's recording is not checked: torch {torch.__version__}'s profiler wrote no trace "
                  "(its options are)", file=sys.stderr)
            return
        check(p.steps_taken == 6 and p.path == path, f"whyslow.profile: {p.steps_taken} steps, {p.path}")
        check(len(rows(p.report.steps)) == 3, f"whyslow.profile: 3 steps recorded: {rows(p.report.steps)}")
        check(p.report.text() in printed.getvalue() and path in printed.getvalue(),
              "whyslow.profile prints the explanation and the trace's path")
        check_same_as_cli(p.report, path, "whyslow.profile")
        check(hasattr(p.profiler, "key_averages"), "whyslow.profile keeps the torch profiler")
        few = os.path.join(tmp, "few.json")
        try:
            with whyslow.profile(steps=2, path=few, show=False) as q:
                q.step()
            check(False, "too few steps raise")
        except ValueError as e:
            check("called 1 time" in str(e) and "at least 3 steps" in str(e), f"too few steps: {e}")
        check(not os.path.exists(few), "nothing written for too few steps")
        failed = os.path.join(tmp, "failed.json")
        try:
            with whyslow.profile(path=failed) as q:
                raise KeyError("the program's own error")
        except KeyError:
            pass
        check(not os.path.exists(failed) and q.report is None, "a block that raises is not explained")


def check_data_loading(report, prof, what):
    """The loop waits for the DataLoader (32 ms of sleep per batch against a model step of a few
    ms): whyslow's data_loading finding, its numbers within the range of torch's own events."""
    events = list(prof.events())
    steps = [e for e in events if e.name.startswith("ProfilerStep")]  # torch renames them ProfilerStep*
    loading = [sum(e.time_range.elapsed_us() for e in events if e.name.startswith("enumerate(DataLoader)#")
                   and s.time_range.start <= e.time_range.start and e.time_range.end <= s.time_range.end)
               for s in steps]
    found = [f for f in report.findings if f["id"] == "data_loading"]
    check(len(found) == 1, f"{what}: one data_loading finding, got {[f['id'] for f in report.findings]}")
    if not found:
        return
    f = found[0]
    check(f["severity"] == "critical", f"{what}: data_loading is critical (over half the step): {f['severity']}")
    ev = {k: v["value"] for k, v in f["evidence"].items()}
    check(min(loading) - TOLERANCE_US <= ev["data_loading_us"] <= max(loading) + TOLERANCE_US,
          f"{what}: data_loading_us {ev['data_loading_us']} within torch's per-step DataLoader time {loading}")
    durations = [s.time_range.elapsed_us() for s in steps]
    check(min(durations) - TOLERANCE_US <= ev["step_us"] <= max(durations) + TOLERANCE_US,
          f"{what}: step_us {ev['step_us']} within torch's step durations {durations}")
    check(ev["data_loading_us"] >= BATCH * SAMPLE_SECONDS * 1e6, f"{what}: the DataLoader span holds the samples' sleep")


def check_against_key_averages(report, prof, what):
    averages = {e.key: e for e in prof.key_averages()}
    ops = {r["name"]: r for r in rows(report.ops) if not r.get("device_row")}
    check("ProfilerStep*" in averages, f"{what}: torch recorded steps")
    steps = rows(report.steps)
    check(len(steps) == averages["ProfilerStep*"].count, f"{what}: {len(steps)} steps, torch {averages['ProfilerStep*'].count}")
    check(close(averages["ProfilerStep*"].cpu_time_total, sum(s["duration_us"] for s in steps)),
          f"{what}: the steps' time is torch's ProfilerStep* CPU total")
    check(set(ops) == set(averages), f"{what}: the op rows are torch's: only whyslow {set(ops) - set(averages)}, "
                                     f"only torch {set(averages) - set(ops)}")
    for key, e in averages.items():
        r = ops.get(key)
        if r is None:
            continue
        check(r["calls"] == e.count, f"{what}: {key} calls {r['calls']} vs torch {e.count}")
        check(close(e.self_cpu_time_total, r["self_cpu_us"]), f"{what}: {key} self CPU {r['self_cpu_us']} vs torch {e.self_cpu_time_total}")
        check(close(e.cpu_time_total, r["cpu_total_us"]), f"{what}: {key} CPU total {r['cpu_total_us']} vs torch {e.cpu_time_total}")
    blocks = {r["name"]: r for r in rows(report.annotations)}
    for block in ("forward", "backward", "optimizer"):
        check(block in blocks and blocks[block]["calls"] == averages[block].count, f"{what}: record_function {block!r}")
    # A CPU-only run launches nothing: whyslow must not claim GPU work.
    check(all(s["kernels"] == 0 and s["gpu_busy_us"] == 0 for s in steps), f"{what}: no GPU work in the steps")
    check(not any("kernel" in f["id"] for f in report.findings), f"{what}: no kernel finding on a CPU-only run")


def main():
    check_errors()
    check_not_a_path()
    check_as_the_cli()
    check_legacy_fixture()
    check_memory_fixture()
    check_inference_fixture()
    check_what_if_fixture()
    check_kineto_fixture()
    check_gil_released()
    try:
        import torch
    except ImportError:
        print("torch is not importable: the live-profiler checks are skipped", file=sys.stderr)
        return SKIP if not failures else 1
    print(f"torch {torch.__version__}, kineto {torch.autograd.kineto_available()}", file=sys.stderr)
    prof = record(torch)
    before = set(os.listdir(tempfile.gettempdir()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a sane trace loads without notes
        live = whyslow.explain(prof)
    check(set(os.listdir(tempfile.gettempdir())) <= before, "the live profiler's export is removed")
    check_against_key_averages(live, prof, "live profiler")
    check_report_surface(live, "live profiler")
    check_data_loading(live, prof, "live profiler")
    # The README's own example is this workload: data_loading leads and the CPU verdict defers to it.
    check([f["id"] for f in live.findings] == ["data_loading", "cpu_bound"],
          f"the README example's findings: {[f['id'] for f in live.findings]}")
    check_empty_profiler(torch)
    check_profiler_misuse(torch)
    check_profile_options(torch)
    check_profile_helper(torch)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        exported = whyslow.explain(path)
        check_against_key_averages(exported, prof, "exported file")
        check_same_as_cli(exported, path, "exported file")
        a, b = live.json(), exported.json()
        check(a["trace"]["path"] == "<torch.profiler.profile>", "a live profiler's report names it, not a temporary file")
        a["trace"].pop("path"), b["trace"].pop("path")
        check(a == b, "the live profiler and its exported file give the same report")
    print(f"{checks} checks, {len(failures)} failures", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
