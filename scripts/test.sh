#!/usr/bin/env bash
# The tests: set up, build, run every test that needs no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --preset release
