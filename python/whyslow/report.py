"""Report and Diff: what `whyslow.explain` and `whyslow.diff` return. The numbers and words are the
C++ core's: .json() is the `whyslow explain --json` document (docs/JSON.md), .text() what the CLI
prints, .save_html() the `whyslow report` page; the tables are read from the JSON document."""
import html
import json
import os

from . import _whyslow
from .sources import is_profiler, trace_path
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
    return "" if peaks is None else os.fspath(peaks)


class Report:
    """One trace, analyzed and explained."""

    def __init__(self, analysis, path):
        self._analysis = analysis
        self.path = path
        self._doc = None

    def _document(self):
        if self._doc is None:
            self._doc = json.loads(self._analysis.json())
        return self._doc

    def json(self):
        """The `whyslow explain --json` document (schema: docs/JSON.md), as text."""
        return self._analysis.json()

    def text(self, rows=DEFAULT_TEXT_ROWS):
        """What `whyslow explain` prints; rows per table (0: all)."""
        return self._analysis.text(rows)

    def html(self):
        """The `whyslow report` page: self-contained HTML (no network)."""
        return self._analysis.html()

    def save_html(self, path):
        """Writes the HTML report to `path`, whole or not at all, never over the trace."""
        _whyslow.write_file(os.fspath(path), self.html(), [self.path] if os.path.exists(self.path) else [])

    @property
    def findings(self):
        """What whyslow concluded, most important first: dicts as in the JSON schema's `findings`."""
        return self._document()["findings"]

    @property
    def steps(self):
        return as_table(self._document()["steps"])

    @property
    def ops(self):
        """torch's key_averages() table."""
        return as_table(self._document()["ops"])

    @property
    def kernels(self):
        return as_table(self._document()["kernels"])

    @property
    def annotations(self):
        """One row per record_function block name."""
        return as_table(self._document()["annotations"])

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
        step or a stepless trace): one row per iteration with its loop's step and its number from 1."""
        return as_table([dict(step=l["step"], iteration=i + 1, **{k: v for k, v in it.items() if k != "gpu_idle"})
                         for l in self._document()["loops"] for i, it in enumerate(l["each"])])

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


class Diff:
    """Two traces compared (`whyslow diff A B`): did the change pay?"""

    def __init__(self, comparison):
        self._comparison = comparison

    def json(self):
        return self._comparison.json()

    def text(self, rows=DEFAULT_TEXT_ROWS):
        return self._comparison.text(rows)

    def html(self):
        return self._comparison.html()

    def save_html(self, path):
        _whyslow.write_file(os.fspath(path), self.html(), [])

    def __str__(self):
        return self.text()

    def __repr__(self):
        return "<whyslow.Diff>"

    def _repr_html_(self):
        return _inline_page(self.html())


def explain(source, peaks=None, step=None):
    """Analyzes one trace and explains it.

    source: a trace file path (plain or .gz), a one-element list of paths, or a live
        torch.profiler.profile (exported to a temporary file, removed afterwards).
    peaks: a measured-ceilings file (`--peaks`), or None for the datasheet's.
    step: analyze only ProfilerStep#step (`--step`), or None for the whole trace.
    Raises whyslow.TraceError (a ValueError with .kind and .byte_offset) for a trace it cannot read.
    """
    with trace_path(source) as path:
        label = PROFILER_LABEL if is_profiler(source) else ""
        analysis = _whyslow.analyze(path, _peaks_arg(peaks), -1 if step is None else int(step), label)
    report = Report(analysis, path)
    if is_profiler(source) and report._document()["trace"]["events"] == 0:
        raise ValueError(
            "whyslow: the torch.profiler.profile exported no events. With a schedule it holds only what "
            "its latest cycle recorded, nothing when the loop ended in a new cycle's wait: give "
            "schedule(..., repeat=1), or export in on_trace_ready and pass the file")
    return report


def diff(a, b, peaks=None):
    """Compares trace A (the baseline) with trace B (the change), each a path or a profiler."""
    with trace_path(a) as path_a, trace_path(b) as path_b:
        return Diff(_whyslow.compare(path_a, path_b, _peaks_arg(peaks)))
