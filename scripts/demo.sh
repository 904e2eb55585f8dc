#!/usr/bin/env bash
# The demo: set up, build, and explain a bundled real trace recorded on an H200.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec build/release/whyslow explain tests/fixtures/torch/mm_bias_64_fp32_cold.json.gz "$@"
