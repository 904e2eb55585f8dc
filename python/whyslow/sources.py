"""What `explain` and `diff` accept as a trace: a path (str or os.PathLike, plain or .gz), a list of
paths, or a live torch.profiler.profile object, which is exported to a temporary file that is
removed afterwards."""
import contextlib
import os
import shutil
import tempfile


def is_profiler(source):
    """A torch.profiler.profile (or torch.autograd.profiler.profile): anything that can export a
    Chrome trace. Checked by behaviour, so whyslow never imports torch itself."""
    return not isinstance(source, (str, bytes, os.PathLike)) and callable(getattr(source, "export_chrome_trace", None))


@contextlib.contextmanager
def trace_path(source):
    """Yields the path of one trace file for `source`."""
    if is_profiler(source):
        tmp = tempfile.mkdtemp(prefix="whyslow_")
        try:
            path = os.path.join(tmp, "trace.json")
            source.export_chrome_trace(path)
            yield path
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    if isinstance(source, (list, tuple)):
        if len(source) == 0:
            raise ValueError("whyslow: no trace given (an empty list)")
        if len(source) > 1:
            raise NotImplementedError(
                f"whyslow: {len(source)} traces given; analyzing several ranks of one job together is not "
                "in this build yet: pass one trace at a time")
        source = source[0]
    if isinstance(source, bytes):
        source = os.fsdecode(source)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError("whyslow: expected a trace path (str or os.PathLike), a list of paths or a "
                        f"torch.profiler.profile, got {type(source).__name__}")
    yield os.fspath(source)
