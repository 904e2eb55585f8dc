"""whyslow: why is this PyTorch program slow? The analysis of a torch.profiler trace, from Python.

    import whyslow
    with whyslow.profile(steps=3) as p:   # torch.profiler with the recommended options; the trace is
        for batch in loader:              # written and explained when the block ends
            train_step(batch)
            p.step()
    report = p.report
    report = whyslow.explain(prof)        # or: your own torch.profiler.profile (after its `with` block),
                                          # a trace file (plain or .gz) or a folder of them
    print(report)                         # the text `whyslow explain` prints
    report.findings                       # what whyslow concluded: dicts of the JSON schema (docs/JSON.md)
    report.ops                            # torch's key_averages() table; also .steps, .kernels, .blocks,
                                          # .loops, .cpu_time, .memory, ... (DataFrames with pandas)
    report.json()                         # the `whyslow explain --json` document as a dict
    report                                # last in a notebook cell: the HTML report, inline

The C++ core (the same pipeline and renderers as the `whyslow` command) does the work, with the
GIL released.
"""
from ._whyslow import TraceError
from .record import profile, recommended_options
from .report import Diff, Ranks, Report, diff, explain

__all__ = ["explain", "diff", "profile", "recommended_options", "Report", "Ranks", "Diff", "TraceError"]
__version__ = "0.1.0"
