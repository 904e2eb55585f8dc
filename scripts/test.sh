#!/usr/bin/env bash
# The tests: set up, build, run every test that needs no GPU.
# The packages only the tests' runs need (chromium, python3-torch with its ~280 dependencies:
# minutes of download and unpacking on a fresh machine) install while the build compiles: apt is
# bound by the network and the disk, the compiler by the CPU. Their log is build/setup-run-packages.log.
# Prints how long each part took (CI's budget: scripts/test.sh within 12 minutes on an idle machine):
# the build, the C++ tests, the browser tests (label `browser`) and the tests a script drives (label
# `script`: Python, Node.js, bash), each group run by ctest with the preset's jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
parts=()
# part NAME COMMAND…: runs the command, notes its seconds for the summary.
part() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  parts+=("$name: $((SECONDS - start)) s")
  echo "test: $name: $((SECONDS - start)) s"
}
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
part "build" scripts/build.sh
wait_for_packages() {
  if [ -n "$setup_pid" ] && ! wait "$setup_pid"; then
    echo "test: installing the packages the tests run with failed:" >&2
    cat "$log" >&2
    exit 1
  fi
}
part "waiting for the run packages" wait_for_packages
# The release preset's options (output on failure, jobs, timeout), each group its labels: together
# every test the preset runs (all but label `gpu`).
part "C++ tests" ctest --preset release -LE 'gpu|browser|script'
part "browser tests" ctest --preset release -L browser
part "script-driven tests (Python, Node.js, bash)" ctest --preset release -L script
echo "test: times"
printf '  %s\n' "${parts[@]}"
