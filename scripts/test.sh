#!/usr/bin/env bash
# The tests: set up, build, run every test that needs no GPU.
# The packages only the tests' runs need (chromium, python3-torch with its ~280 dependencies:
# minutes of download and unpacking on a fresh machine) install while the build compiles: apt is
# bound by the network and the disk, the compiler by the CPU. Their log is build/setup-run-packages.log.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --build
mkdir -p build
log=build/setup-run-packages.log
# In the background only where it cannot stop to ask for a password (root, or sudo without one).
if [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; then
  scripts/setup.sh >"$log" 2>&1 &
  setup_pid=$!
  # A failed build must not leave apt half-way through an install: wait for it on any exit.
  trap 'wait "$setup_pid" 2>/dev/null || true' EXIT
else
  scripts/setup.sh
  setup_pid=
fi
scripts/build.sh
if [ -n "$setup_pid" ] && ! wait "$setup_pid"; then
  echo "test: installing the packages the tests run with failed:" >&2
  cat "$log" >&2
  exit 1
fi
ctest --preset release
