#!/usr/bin/env bash
# `cmake --install` of a built tree into a fresh prefix, then what a user does with it: the
# installed `whyslow --version`, a project of their own built against find_package(whyslow)
# (tests/install/CMakeLists.txt), its trace explained by the installed command.
#   run_install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 source=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
"$work/prefix/bin/whyslow" --version
cmake -S "$source/tests/install" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix" -DWHYSLOW_EXAMPLE="$source/examples/scopes_demo.cpp" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/scopes_demo" "$work/trace.json"
"$work/prefix/bin/whyslow" explain "$work/trace.json" | grep -F 'ProfilerStep#2'
