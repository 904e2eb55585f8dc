"""whyslow.profile: record a trace with the options whyslow reads best, and explain it, in one line.

    with whyslow.profile(steps=3) as p:
        for inputs, targets in loader:
            train_step(inputs, targets)
            p.step()                 # prof.step(): one ProfilerStep per iteration
    p.report                         # the whyslow.Report, printed when the block ends

torch is imported when the block starts, never by `import whyslow`.
"""
import os

from .report import explain

# Where the trace is written unless `path` is given: kept, so `whyslow report` and `whyslow diff`
# can read it after the program ends.
DEFAULT_PATH = "whyslow_trace.json"
# The schedule's steps before the recorded ones. The first step pays one-off costs (CUDA context,
# cuDNN and cuBLAS handles, the allocator's first blocks, torch.compile) that would swamp a steady
# step; the warm-up step runs the profiler without keeping its events (torch's own advice: its
# first active step carries the profiler's start-up).
WAIT_STEPS = 1
WARMUP_STEPS = 1


def recommended_options(torch, steps, wait=WAIT_STEPS, warmup=WARMUP_STEPS):
    """The torch.profiler.profile keyword arguments the README recommends: the CPU, and CUDA when
    a GPU is there (without it no kernel is recorded and whyslow says nothing of the GPU); a schedule
    that records `steps` steps once (repeat=1: a repeating schedule's last cycle is exported empty);
    shapes (FLOPs, the roofline, diff's same-work check), Python stacks (your code's blocks with
    file:line), modules (which nn.Module holds the time) and memory (each step's peak)."""
    profiler = torch.profiler
    activities = [profiler.ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(profiler.ProfilerActivity.CUDA)
    return dict(activities=activities,
                schedule=profiler.schedule(wait=wait, warmup=warmup, active=steps, repeat=1),
                record_shapes=True, with_stack=True, with_modules=True, profile_memory=True)


def _count(name, value, least):
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"whyslow.profile: {name} must be a whole number ≥ {least}, got {value!r}")
    return value


class profile:
    """Records the steps of a `with` block with torch.profiler and the recommended options
    (recommended_options), writes the trace to `path` when the block ends and explains it.

    steps: how many steps to record, after `wait` skipped and `warmup` warm-up steps.
    path: where the trace is written (plain JSON, or gzip for a name ending in .gz), kept afterwards.
    show: print the explanation when the block ends (the text `whyslow explain` prints).
    peaks: a measured-ceilings file, as whyslow.explain's.

    Call p.step() once per step. After the block: p.report (a whyslow.Report), p.path (the trace),
    p.profiler (the torch.profiler.profile, for its key_averages()). A block that raises is not
    explained: its exception goes on, the trace is not written.
    """

    def __init__(self, steps=3, *, path=DEFAULT_PATH, wait=WAIT_STEPS, warmup=WARMUP_STEPS, show=True, peaks=None):
        self.steps = _count("steps", steps, 1)
        self.wait = _count("wait", wait, 0)
        self.warmup = _count("warmup", warmup, 0)
        self.path = os.path.abspath(os.fspath(path))
        self.show = show
        self.peaks = peaks
        self.profiler = None
        self.report = None
        self.steps_taken = 0

    def __enter__(self):
        import torch  # only here: `import whyslow` works without torch
        self.profiler = torch.profiler.profile(**recommended_options(torch, self.steps, self.wait, self.warmup))
        self.profiler.__enter__()
        return self

    def step(self):
        """Ends a step: call it once per iteration, after the iteration's work."""
        self.profiler.step()
        self.steps_taken += 1

    def __exit__(self, exc_type, exc, tb):
        self.profiler.__exit__(exc_type, exc, tb)
        if exc_type is not None:
            return False
        # Before wait + warmup step() calls the schedule never reached a recorded step.
        needed = self.wait + self.warmup + 1
        if self.steps_taken < self.wait + self.warmup:
            raise ValueError(
                f"whyslow.profile: p.step() was called {self.steps_taken} time{'' if self.steps_taken == 1 else 's'}, "
                f"and the schedule skips {self.wait} step{'' if self.wait == 1 else 's'} and warms up {self.warmup} "
                "before it records, so nothing was recorded: call p.step() once per step, for "
                f"{self.wait + self.warmup + self.steps} steps to record all {self.steps} (at least {needed} steps "
                "record one), or give wait=0, warmup=0")
        self.profiler.export_chrome_trace(self.path)
        self.report = explain(self.path, peaks=self.peaks)
        if self.show:
            print(self.report.text())
            print(f"whyslow: the trace is {self.path} (`whyslow report {self.path}` draws it)")
        return False
