#!/usr/bin/env bash
# Configures (once) and builds the sanitizer and fuzzer tree of remat into
# ${REMAT_SAN_BUILD_DIR:-build-san}: clang-22, every remat target built with
# -fsanitize=${REMAT_SANITIZE:-address,undefined} and libFuzzer coverage, and
# the fuzz targets of tools/remat-fuzz. With CBC where it is installed, so that
# the milp code (Milp.cpp and its windows) runs under the sanitizers too (the
# fuzz targets give milp only small graphs); without the mlir-opt plugin (an
# instrumented library cannot be loaded into the uninstrumented mlir-opt). See
# docs/Testing.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REMAT_SAN_BUILD_DIR:-$root/build-san}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DREMAT_SANITIZE="${REMAT_SANITIZE:-address,undefined}" \
    -DREMAT_BUILD_FUZZERS=ON -DREMAT_BUILD_PLUGIN=OFF
fi
jobs="${REMAT_JOBS:-$(nproc)}"
ninja -C "$build" -j "$jobs" all
