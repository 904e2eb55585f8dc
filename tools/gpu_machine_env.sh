# Sourced by the scripts that build on the GPU machine (tools/gpu_check_profiler.sh,
# lab/run_lab.sh). That image has the CUDA toolkit but no simdjson: Debian's packages travel in
# .debs/ (git-ignored; made here with
#   mkdir -p .debs && (cd .debs && apt-get download libsimdjson-dev libsimdjson14 libisal-dev libisal2))
# and are unpacked into /tmp/sj. Sets PATH, LD_LIBRARY_PATH and the array `cmake_extra` of CMake
# arguments that find them.
export PATH="/usr/local/cuda/bin:$PATH" PYTHONUNBUFFERED=1
cmake_extra=()
if [ -d .debs ] && [ ! -f /usr/include/simdjson.h ]; then
  rm -rf /tmp/sj && mkdir -p /tmp/sj
  for f in .debs/*.deb; do dpkg -x "$f" /tmp/sj; done
  # pkg-config files (ISA-L's libisal.pc) name /usr: point them at the unpacked tree.
  for pc in /tmp/sj/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc; do
    [ -f "$pc" ] && sed -i 's|^prefix=/usr$|prefix=/tmp/sj/usr|' "$pc"
  done
  export PKG_CONFIG_PATH="/tmp/sj/usr/lib/x86_64-linux-gnu/pkgconfig:${PKG_CONFIG_PATH:-}"
  cmake_extra+=(-DCMAKE_PREFIX_PATH=/tmp/sj/usr -Dsimdjson_DIR=/tmp/sj/usr/lib/x86_64-linux-gnu/cmake/simdjson)
  export LD_LIBRARY_PATH="/tmp/sj/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
fi
