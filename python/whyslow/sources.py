"""What `explain` and `diff` accept as a trace: a path (str or os.PathLike, plain or .gz), a folder
or a glob of traces, a list of those, or a live torch.profiler.profile object, which is exported to
a temporary file that is removed afterwards."""
import contextlib
import os
import shutil
import tempfile

# What a profile object that recorded nothing means, and what to do (torch's own errors say neither).
NOTHING_RECORDED = (
    "the profiler recorded nothing. The usual reasons: a schedule that never reached an active step "
    "(fewer prof.step() calls than wait + warmup + 1), or, with a schedule that repeats, a loop that ended "
    "in a new cycle's wait (give schedule(..., repeat=1)); or an export before the profiler stopped. "
    "Call whyslow.explain(prof) after the `with profile(...)` block, or export in on_trace_ready and pass the file")


def is_profiler(source):
    """A torch.profiler.profile (or torch.autograd.profiler.profile): anything that can export a
    Chrome trace. Checked by behaviour, so whyslow never imports torch itself."""
    return not isinstance(source, (str, bytes, os.PathLike)) and callable(getattr(source, "export_chrome_trace", None))


@contextlib.contextmanager
def profiler_trace(profiler):
    """Yields the path of `profiler`'s trace, exported to a temporary folder removed afterwards.
    Raises ValueError, saying why, for a profiler still recording or one that recorded nothing."""
    tmp = tempfile.mkdtemp(prefix="whyslow_")
    try:
        path = os.path.join(tmp, "trace.json")
        try:
            profiler.export_chrome_trace(path)
        except RuntimeError as e:  # torch: "Profiler didn't finish running"
            raise ValueError("whyslow: the profiler is still recording: call whyslow.explain(prof) after the "
                             "`with profile(...)` block, not inside it") from e
        except AssertionError as e:  # torch asserts on a profile object that never started recording
            raise ValueError("whyslow: " + NOTHING_RECORDED) from e
        yield path
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# What a source may be, for the TypeError that names it.
ACCEPTED = "a trace path (str or os.PathLike), a folder or a glob, a list of paths or a torch.profiler.profile"


def _as_path(item):
    """A path as str; TypeError for text or bytes that are no path the C++ core can open (a NUL, a
    newline, not UTF-8): most often a trace's contents, read and passed in place of its path."""
    if isinstance(item, os.PathLike):
        item = os.fspath(item)
    if not isinstance(item, (str, bytes)):
        raise TypeError(f"whyslow: expected {ACCEPTED}, got {type(item).__name__}")
    try:
        path = item.decode("utf-8") if isinstance(item, bytes) else item
        path.encode("utf-8")  # a str from undecodable bytes holds lone surrogates
    except UnicodeError:
        path = None
    if path is None or "\0" in path or "\n" in path:
        what = f"{len(item)} bytes that are" if isinstance(item, bytes) else f"a str of {len(item)} characters that is"
        raise TypeError(f"whyslow: expected {ACCEPTED}, got {what} no path (a trace's contents? write "
                        "them to a file, e.g. trace.json or trace.json.gz, and pass its path)")
    return path


def named_path(value, name):
    """A path given for the argument `name` (peaks=, save_html's path) as str; TypeError naming the
    argument and what it got, not os.fspath's bare "expected str, bytes or os.PathLike object"."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"whyslow: {name} must be a path (str or os.PathLike), got {type(value).__name__}")
    path = os.fspath(value)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if path == "" or "\0" in path:
        raise ValueError(f"whyslow: {name} must name a file, got {path!r}")
    return path


# The highest step number step= takes, as the CLI's --step (src/cli/options.hpp, kMaxStep): the
# C++ core holds it in an int.
MAX_STEP = 2**31 - 1


def step_number(step):
    """step= as the C++ core takes it: -1 for None (the whole trace), else N of ProfilerStep#N, a
    whole number from 0 to MAX_STEP, as `--step` takes. A negative step was taken for None."""
    if step is None:
        return -1
    if isinstance(step, bool) or not hasattr(step, "__index__"):
        raise TypeError(f"whyslow: step= must be a whole number (the N of ProfilerStep#N) or None, "
                        f"got {type(step).__name__} {step!r}")
    n = step.__index__()
    if not 0 <= n <= MAX_STEP:
        raise ValueError(f"whyslow: step= must be a whole number from 0 to {MAX_STEP} (the N of ProfilerStep#N) "
                         f"or None for the whole trace, got {n}")
    return n


def row_count(rows):
    """rows= of .text(): how many rows per table, 0 for all."""
    if isinstance(rows, bool) or not hasattr(rows, "__index__"):
        raise TypeError(f"whyslow: rows= must be a whole number of rows per table (0: all), got {rows!r}")
    if rows.__index__() < 0:
        raise ValueError(f"whyslow: rows= must be a whole number of rows per table (0: all), got {rows!r}")
    return rows.__index__()


def path_list(source):
    """`source` (a path, or a list or tuple of them) as a list of str."""
    items = list(source) if isinstance(source, (list, tuple)) else [source]
    if not items:
        raise ValueError("whyslow: no trace given (an empty list)")
    return [_as_path(item) for item in items]


@contextlib.contextmanager
def one_trace_path(source):
    """Yields the path of the one trace `source` is: a path, or a live profiler exported."""
    if is_profiler(source):
        with profiler_trace(source) as path:
            yield path
        return
    paths = path_list(source)
    if len(paths) > 1:
        raise ValueError(f"whyslow: {len(paths)} traces given where one is compared; pass one path each")
    yield paths[0]
