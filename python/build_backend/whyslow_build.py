"""The in-tree PEP 517 build backend of `pip install .`: CMake builds the extension module
whyslow._whyslow (src/bindings/python/) and this file zips it with python/whyslow/ into a wheel.
It needs nothing outside the standard library and Debian's build packages (scripts/setup.sh:
cmake, ninja, g++, pybind11-dev, python3-dev), so the install works offline.

The CMake build lives in build/python-<tag>/ in the source tree and is kept between installs, so a
reinstall rebuilds only what changed. Environment: CMAKE_BUILD_PARALLEL_LEVEL (default 2, the
development machine's cores), WHYSLOW_PYTHON_BUILD_DIR to build elsewhere.

pip shows a backend's output only with -v, and a first build takes minutes: the build's progress
("[34/120] Building …") is also written, one line redrawn in place, to the terminal pip runs in
(/dev/tty), when there is one.
"""
import base64
import hashlib
import io
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE_DIR = os.path.join(ROOT, "python", "whyslow")
DEFAULT_JOBS = "2"
DEFAULT_COLUMNS = 80


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _tags():
    """(python, abi, platform) of the interpreter running the build: the module is for it only."""
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return py, py, sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _metadata(project):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project.get('description', '')}", f"Requires-Python: {project.get('requires-python', '')}"]
    return "\n".join(lines) + "\n"


def _terminal():
    """The terminal pip was started from, or None (CI, a pipe, no controlling terminal)."""
    try:
        return open("/dev/tty", "w")
    except OSError:
        return None


def _run_showing_progress(command):
    """Runs `command`; its output goes to stderr (pip's log: shown with -v and when the build
    fails) and its latest line to the terminal, redrawn in place."""
    terminal = _terminal()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as build:
        for line in build.stdout:
            sys.stderr.write(line)
            if terminal:
                width = (os.get_terminal_size(terminal.fileno()).columns or DEFAULT_COLUMNS) - 1  # 0: a pty that never said
                terminal.write("\r\x1b[K" + ("whyslow: " + line.rstrip())[:width])
                terminal.flush()
    if terminal:
        terminal.write("\r\x1b[K")
        terminal.close()
    if build.returncode != 0:
        raise subprocess.CalledProcessError(build.returncode, command)


def _build_module():
    tag = "-".join(_tags())
    build_dir = os.environ.get("WHYSLOW_PYTHON_BUILD_DIR") or os.path.join(ROOT, "build", "python-" + tag)
    configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DWHYSLOW_PYTHON=ON",
                 "-DWHYSLOW_TESTS=OFF", "-DWHYSLOW_BENCH=OFF", "-DWHYSLOW_EXAMPLES=OFF", "-DWHYSLOW_CUDA=OFF",
                 "-DCMAKE_POSITION_INDEPENDENT_CODE=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        subprocess.run(configure, check=True, stdout=sys.stderr)
    else:  # keep the cache; re-run so changed options and new files are seen
        subprocess.run(["cmake", build_dir, f"-DPython3_EXECUTABLE={sys.executable}"], check=True, stdout=sys.stderr)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", DEFAULT_JOBS)
    _run_showing_progress(["cmake", "--build", build_dir, "--target", "_whyslow", "-j", jobs])
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    module = os.path.join(build_dir, "src", "bindings", "python", "_whyslow" + suffix)
    if not os.path.exists(module):
        raise RuntimeError(f"whyslow: the build did not produce {module}")
    return module, "_whyslow" + suffix


class _Wheel:
    """A wheel being written: files, then the RECORD of their hashes."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, name, data):
        self.zip.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append(f"{name},sha256={digest},{len(data)}")

    def close(self, record_name):
        self.record.append(f"{record_name},,")
        self.zip.writestr(zipfile.ZipInfo(record_name, date_time=(1980, 1, 1, 0, 0, 0)), "\n".join(self.record) + "\n")
        self.zip.close()


# ---- PEP 517 hooks ----

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The metadata without compiling: pip asks for it before it builds."""
    project = _project()
    dist_info = f"{project['name']}-{project['version']}.dist-info"
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w") as f:
        f.write(_metadata(project))
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    module_path, module_name = _build_module()
    py, abi, plat = _tags()
    dist = f"{project['name']}-{project['version']}"
    wheel_name = f"{dist}-{py}-{abi}-{plat}.whl"
    wheel = _Wheel(os.path.join(wheel_directory, wheel_name))
    for name in sorted(os.listdir(PACKAGE_DIR)):
        if name.endswith(".py"):
            with open(os.path.join(PACKAGE_DIR, name), "rb") as f:
                wheel.add(f"whyslow/{name}", f.read())
    with open(module_path, "rb") as f:
        wheel.add(f"whyslow/{module_name}", f.read())
    wheel.add(f"{dist}.dist-info/METADATA", _metadata(project).encode())
    wheel.add(f"{dist}.dist-info/WHEEL",
              f"Wheel-Version: 1.0\nGenerator: whyslow_build\nRoot-Is-Purelib: false\nTag: {py}-{abi}-{plat}\n".encode())
    wheel.close(f"{dist}.dist-info/RECORD")
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """The source tree without build outputs and version control."""
    project = _project()
    dist = f"{project['name']}-{project['version']}"
    skip = {".git", "build", "__pycache__", ".debs"}
    name = dist + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for top, dirs, files in os.walk(ROOT):
            dirs[:] = sorted(d for d in dirs if d not in skip)
            for f in sorted(files):
                full = os.path.join(top, f)
                tar.add(full, arcname=os.path.join(dist, os.path.relpath(full, ROOT)), recursive=False)
        info = tarfile.TarInfo(os.path.join(dist, "PKG-INFO"))
        data = _metadata(project).encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
