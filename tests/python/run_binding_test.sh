#!/usr/bin/env bash
# The `python_binding` ctest: `pip install .` into a fresh virtualenv made with
# --system-site-packages (Debian's torch and pandas visible, PEP 668 respected), offline, then
# binding_test.py with that venv's python. Exit 77 (skipped) comes from binding_test.py when torch
# is not importable, after the checks that need no torch have passed.
# Usage: run_binding_test.sh PYTHON SOURCE_DIR WORK_DIR WHYSLOW_CLI FIXTURES
set -euo pipefail
python=$1 source_dir=$2 work_dir=$3 cli=$4 fixtures=$5
mkdir -p "$work_dir"
venv="$work_dir/venv"
rm -rf "$venv"
"$python" -m venv --system-site-packages "$venv"
# --no-index: nothing comes from PyPI; the backend (python/build_backend/) needs no package.
# setsid: no controlling terminal, so the backend's progress line (drawn on /dev/tty for a user's
# `pip install .`) stays off the terminal ctest runs in.
setsid -w "$venv/bin/python" -m pip install --no-index --disable-pip-version-check -q "$source_dir"
cd "$work_dir"  # not the source tree: `import whyslow` must find the installed package
exec "$venv/bin/python" "$source_dir/tests/python/binding_test.py" "$cli" "$fixtures"
