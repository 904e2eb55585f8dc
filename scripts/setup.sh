#!/usr/bin/env bash
# Installs the Debian packages whyslow builds with, only those that are missing.
#   scripts/setup.sh --cli    what building the `whyslow` command needs, nothing more (scripts/demo.sh)
#   scripts/setup.sh --build  what building everything (tests, whyslow-mpi) needs: scripts/test.sh
#                             installs these first and the rest while it compiles
#   scripts/setup.sh [PKG…]   everything the tests need too (scripts/test.sh), and the packages named
#                             (CI's sanitizer job adds its compiler: scripts/ci_sanitizers.sh), and the
#                             MCP client test's npm packages (tests/mcp/)
set -euo pipefail
# The command: a compiler, CMake, Ninja, and the libraries it links (ISA-L: gzip traces inflate
# about 3x faster than through zlib).
cli_packages=(build-essential cmake ninja-build pkg-config
              libsimdjson-dev libcli11-dev libfmt-dev zlib1g-dev libisal-dev)
# Building the tests, on top of those: libgtest-dev (the C++ tests); python3 (CMake adds the
# Python oracles and test drivers only when it finds it); libopenmpi-dev, openmpi-bin (whyslow-mpi
# and its test, mpirun); ccache (the binding test's `pip install .` then reuses the release build's
# objects instead of compiling the library a second time: CMakeLists.txt).
build_packages=(python3 libgtest-dev libopenmpi-dev openmpi-bin ccache)
# Running them, on top of those: chromium (the HTML report's browser tests open it headless: an
# 80 MB download, 350 MB installed, ~15 s); python3-dev, python3-venv, pybind11-dev (`pip install .`
# of the Python module, python/); python3-torch (1.13, CPU-only; with its dependencies ~280
# packages) and python3-pandas (the python_binding test's real client).
run_packages=(chromium python3-dev python3-venv pybind11-dev python3-torch python3-pandas)
# nodejs and npm: the MCP client test (tests/mcp/) runs the official TypeScript SDK. Only where no
# npm is on the PATH: a Node.js from elsewhere (NodeSource's nodejs carries its own npm) conflicts
# with Debian's npm package.
command -v npm >/dev/null || run_packages+=(nodejs npm)
case "${1:-}" in
  --cli) packages=("${cli_packages[@]}") ;;
  --build) packages=("${cli_packages[@]}" "${build_packages[@]}") ;;
  *) packages=("${cli_packages[@]}" "${build_packages[@]}" "${run_packages[@]}" "$@") ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The MCP client test's SDK (@modelcontextprotocol/sdk), at the version tests/mcp/package-lock.json
# pins, into tests/mcp/node_modules (git-ignored): again only when the lock file is newer than the
# install npm recorded.
if [ "${1:-}" != "--cli" ] && [ "${1:-}" != "--build" ]; then
  mcp_tests="$(cd "$(dirname "$0")/../tests/mcp" && pwd)"
  if [ ! -f "$mcp_tests/node_modules/.package-lock.json" ] ||
     [ "$mcp_tests/package-lock.json" -nt "$mcp_tests/node_modules/.package-lock.json" ]; then
    echo "setup: installing the MCP client test's SDK (npm ci in tests/mcp)"
    (cd "$mcp_tests" && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
