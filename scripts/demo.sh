#!/usr/bin/env bash
# The demo: install what building the `whyslow` command needs, build that target alone, and explain
# a bundled real trace recorded on an H200. (scripts/test.sh installs and builds the rest.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --cli
scripts/build.sh whyslow
exec build/release/whyslow explain tests/fixtures/torch/mm_bias_64_fp32_cold.json.gz "$@"
