"""Report, Ranks and Diff: what `whyslow.explain` and `whyslow.diff` return. The numbers and words
are the C++ core's: .json() is the `whyslow explain --json` document (docs/JSON.md) as a dict and
.json_text() as text, .text() what the CLI prints, .save_html() the `whyslow report` page; the
tables are read from the JSON document."""
import html
import json
import os

from . import _whyslow
from .sources import (NOTHING_RECORDED, is_profiler, named_path, one_trace_path, path_list, profiler_trace, row_count,
                      step_number)
from .tables import as_table

# Rows per table in .text(), as the CLI prints by default (`--rows`); 0 prints all.
DEFAULT_TEXT_ROWS = 15
# Height of the inline report in a notebook: the page's header, findings and the top of its timeline.
NOTEBOOK_FRAME_HEIGHT_PX = 720
# What the reports call a live profiler's trace (its temporary file is gone once explain returns).
PROFILER_LABEL = "<torch.profiler.profile>"


def _inline_page(page):
    """A whole HTML page shown inside a notebook cell: an iframe keeps its styles and scripts
    apart from the notebook's; srcdoc keeps it self-contained (no file, no network)."""
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" '
            f'style="width:100%;height:{NOTEBOOK_FRAME_HEIGHT_PX}px;border:0" '
            'title="whyslow report"></iframe>')


def _peaks_arg(peaks):
    return "" if peaks is None else named_path(peaks, "peaks=")


class _Document:
    """What Report, Ranks and Diff share: the C++ core's analysis and its JSON document."""

    def __init__(self, analysis):
        self._analysis = analysis
        self._doc = None

    def _document(self):
        """The JSON document, parsed once, for the tables."""
        if self._doc is None:
            self._doc = json.loads(self._analysis.json())
        return self._doc

    def json(self):
        """The `--json` document (schema: docs/JSON.md) as a dict of the caller's own."""
        return json.loads(self.json_text())

    def json_text(self):
        """The `--json` document as the CLI prints it."""
        return self._analysis.json()


class Report(_Document):
    """One trace, analyzed and explained."""

    def __init__(self, analysis, path):
        super().__init__(analysis)
        self.path = path

    def text(self, rows=DEFAULT_TEXT_ROWS):
        """What `whyslow explain` prints; rows per table (0: all)."""
        return self._analysis.text(row_count(rows))

    def html(self):
        """The `whyslow report` page: self-contained HTML (no network)."""
        return self._analysis.html()

    def save_html(self, path):
        """Writes the HTML report to `path`, whole or not at all, never over the trace."""
        _whyslow.write_file(named_path(path, "save_html's path"), self.html(),
                            [self.path] if os.path.exists(self.path) else [])

    @property
    def findings(self):
        """What whyslow concluded, most important first: dicts as in the JSON schema's `findings`."""
        return self._document()["findings"]

    @property
    def steps(self):
        """One row per ProfilerStep: duration, CPU, sync wait, GPU busy, kernels, launches (the JSON
        schema's `steps`; no rows for a trace without steps)."""
        return as_table(self._document()["steps"])

    @property
    def ops(self):
        """torch's key_averages() table."""
        return as_table(self._document()["ops"])

    @property
    def kernels(self):
        """One row per kernel name: calls, total/mean/min/max time, grid, block, registers, shared memory."""
        return as_table(self._document()["kernels"])

    @property
    def annotations(self):
        """One row per record_function block name."""
        return as_table(self._document()["annotations"])

    @property
    def blocks(self):
        """Your code as a tree (record_function blocks, nn.Modules, your Python frames): one row per
        block, parents before children, with calls, CPU total and self, GPU time, kernels, launches
        and file:line (the JSON schema's `blocks`)."""
        return as_table(self._document()["blocks"])

    @property
    def loops(self):
        """The loops inside steps (or a stepless trace): one row per loop, its marker, iterations,
        first and median iteration, tokens/s; each iteration is a row of .iterations."""
        return as_table([{k: v for k, v in l.items() if k != "each"} for l in self._document()["loops"]])

    @property
    def cpu_time(self):
        """The CPU time of each step's thread by category (data_loading, sync_wait, allocator, launch,
        compile, profiler, python, dispatch, cpu_compute, other) in µs: one row per step, the
        categories summing to its duration (docs/JSON.md, "CPU time by category")."""
        return as_table([dict(step=s["name"], duration_us=s["duration_us"], **s["cpu_breakdown_us"])
                         for s in self._document()["steps"]])

    @property
    def memory(self):
        """One row per step: its peak allocated and reserved bytes and what was allocated at its
        start and end, on the trace's main allocator (profile_memory=True; no rows without it)."""
        return as_table([dict(step=s["name"], **s["memory"]) for s in self._document()["steps"] if s.get("memory")])

    @property
    def gpu_idle(self):
        """Why the GPU idles: one row per step (a trace without steps: the whole trace), its time
        split into GPU busy and the idle causes in µs (busy + causes = the window), as in the JSON
        schema's `gpu_idle`."""
        doc = self._document()
        windows = [(s["name"], s["gpu_idle"]) for s in doc["steps"]] or [("whole trace", doc["trace"]["gpu_idle"])]
        return as_table([dict(window=name, **idle) for name, idle in windows])

    @property
    def iterations(self):
        """The loops' iterations (a generate()'s prefill and decode passes, a training loop inside a
        step or a stepless trace): one row per iteration with its loop's step and its number from 1;
        the first 10,000 of a loop (.loops' each_left_out counts the rest)."""
        return as_table([dict(step=l["step"], iteration=i + 1, **{k: v for k, v in it.items() if k != "gpu_idle"})
                         for l in self._document()["loops"] for i, it in enumerate(l["each"])])

    @property
    def what_if(self):
        """What would it take: each fix whyslow models, applied to the trace's dependency graph and
        replayed (docs/GRAPH.md), one row per edit and a last row "all" (them together): edit, param,
        scope, step_us, predicted_step_us, saved_us and what it changed."""
        return as_table(self._document()["what_if"])

    @property
    def critical_path(self):
        """What sets the pace: one row per part of each step's critical path (step, kind, what, us),
        the parts of a step adding up to its replayed length (a trace without steps: its window's)."""
        doc = self._document()
        rows = [dict(step=s["name"], **p) for s in doc["steps"] for p in s["critical_path"]]
        replay = doc.get("replay")
        if not doc["steps"] and replay and replay.get("critical_path"):
            rows = [dict(step="whole trace", **p) for p in replay["critical_path"]]
        return as_table(rows)

    @property
    def memory_top(self):
        """The largest allocations live at the largest step peak, with the op and block that made each."""
        memory = self._document().get("memory")
        return as_table(memory["top"] if memory else [])

    def __str__(self):
        return self.text()

    def __repr__(self):
        doc = self._document()
        return (f"<whyslow.Report {doc['trace']['path']!r}: {len(doc['steps'])} steps, "
                f"{len(doc['findings'])} findings>")

    def _repr_html_(self):
        return _inline_page(self.html())


class Diff(_Document):
    """Two traces compared (`whyslow diff A B`): did the change pay?"""

    def __init__(self, analysis, paths):
        super().__init__(analysis)
        self.paths = paths  # A's and B's trace files: save_html never writes over them

    @property
    def verdict(self):
        """The verdict as in the JSON (docs/JSON.md): `faster`, `basis`, `cause`, and the two answers —
        `window` (over what was profiled), `one_off` (each side's one-off costs by kind), `steady`
        (once warm), `break_even` — with `per_unit`, `mechanism` and `caveats`."""
        return self._document()["verdict"]

    def text(self, rows=DEFAULT_TEXT_ROWS):
        """What `whyslow diff` prints; rows per kernel table (0: all)."""
        return self._analysis.text(row_count(rows))

    def html(self):
        """The `whyslow report A B` comparison page: self-contained HTML."""
        return self._analysis.html()

    def save_html(self, path):
        """Writes the comparison page to `path`, whole or not at all, never over trace A or B."""
        _whyslow.write_file(named_path(path, "save_html's path"), self.html(), [p for p in self.paths if os.path.exists(p)])

    def __str__(self):
        return self.text()

    def __repr__(self):
        return "<whyslow.Diff>"

    def _repr_html_(self):
        return _inline_page(self.html())


class Ranks(_Document):
    """A job's ranks explained together (`whyslow explain R0 R1 …`): per-rank step, compute,
    communication and CPU, the collectives lined up across ranks, the straggler."""

    def text(self):
        """What `whyslow explain R0 R1 …` prints."""
        return self._analysis.text()

    @property
    def findings(self):
        """The cross-rank findings (the straggler), most important first: dicts as in the JSON."""
        return self._document()["findings"]

    @property
    def ranks(self):
        """One row per rank, in rank order: its path, steps, median step, compute, communication,
        exposed communication, clock offset, lateness; its own findings are in .json()."""
        return as_table([{k: v for k, v in r.items() if k not in ("findings", "cpu_breakdown_us")}
                         for r in self._document()["ranks"]])

    def __str__(self):
        return self.text()

    def __repr__(self):
        doc = self._document()
        return f"<whyslow.Ranks: {len(doc['ranks'])} ranks, {len(doc['findings'])} findings>"


def explain(source, *more, peaks=None, step=None):
    """Analyzes a trace and explains it, as `whyslow explain` does.

    source: a trace file (plain or .gz); a folder or a glob: one trace in it is explained, several
        ranks of one job are explained together (a Ranks), several runs that are not ranks raise
        TraceError naming whyslow.diff; a list of paths (the same); or a live torch.profiler.profile,
        called after its `with` block (exported to a temporary file, removed afterwards).
    peaks: a measured-ceilings file (`--peaks`), or None for the datasheet's. Keyword only.
    step: analyze only ProfilerStep#step (`--step`: a whole number from 0), or None for the whole
        trace. Keyword only.
    Returns a Report (one trace) or a Ranks. Raises whyslow.TraceError (a ValueError with .kind and
    .byte_offset) for a trace it cannot read, ValueError for a profiler still recording or one that
    recorded nothing.
    """
    if more:
        raise TypeError("whyslow.explain takes one source (a trace, a folder, a list of a job's ranks or a "
                        f"profiler), got {1 + len(more)}; to compare two runs use whyslow.diff(a, b), and give "
                        "peaks= and step= by name")
    step_arg = step_number(step)
    if is_profiler(source):
        with profiler_trace(source) as path:
            report = Report(_whyslow.analyze(path, _peaks_arg(peaks), step_arg, PROFILER_LABEL), path)
        if report._document()["trace"]["events"] == 0:
            raise ValueError("whyslow: the torch.profiler.profile exported no events: " + NOTHING_RECORDED)
        return report
    paths, one_trace = _whyslow.trace_paths(path_list(source))
    if one_trace:
        return Report(_whyslow.analyze(paths[0], _peaks_arg(peaks), step_arg, ""), paths[0])
    return Ranks(_whyslow.analyze_ranks(paths, _peaks_arg(peaks), step_arg))


def diff(a, b, *, peaks=None):
    """Compares trace A (the baseline) with trace B (the change), each a path or a profiler, as
    `whyslow diff A B` does. peaks: a measured-ceilings file, keyword only."""
    with one_trace_path(a) as path_a, one_trace_path(b) as path_b:
        return Diff(_whyslow.compare(path_a, path_b, _peaks_arg(peaks)), [path_a, path_b])
