#!/usr/bin/env bash
# Builds the runner for one entry point compiled by remat-compile:
#
#   build.sh --header entry.h --object entry.o -o runner \
#            [--runtime libRematCudaRuntime.a] [--cuda-root /usr/local/cuda] \
#            [--cudnn] [--cpu-runtime libRematCpuRuntime.a] [--cxx c++]
#
# runner.cpp is compiled with `-include entry.h` and linked with the object.
# A header with REMAT_TARGET_CUDA needs the remat CUDA runtime, cuBLAS,
# cuDNN (--cudnn: a runtime built with the cuDNN convolutions) and
# libcuda (the toolkit's link stub is enough to link; running needs the
# driver).
# A CPU entry point is linked with the remat CPU runtime, OpenBLAS (its GEMM
# calls) and LLVM's OpenMP runtime libomp (its parallel loops; --threads).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_root=$(cd "$here/../.." && pwd)
header="" object="" output="" runtime="" cpu_runtime="" cuda_root="/usr/local/cuda"
cudnn=0
cxx="${CXX:-c++}"

usage() {
  sed -n '2,11p' "$0" >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --header) header="$2"; shift 2 ;;
    --object) object="$2"; shift 2 ;;
    -o) output="$2"; shift 2 ;;
    --runtime) runtime="$2"; shift 2 ;;
    --cuda-root) cuda_root="$2"; shift 2 ;;
    --cudnn) cudnn=1; shift ;;
    --cpu-runtime) cpu_runtime="$2"; shift 2 ;;
    --cxx) cxx="$2"; shift 2 ;;
    *) usage ;;
  esac
done
[[ -n "$header" && -n "$object" && -n "$output" ]] || usage
[[ -f "$header" ]] || { echo "error: no header '$header'" >&2; exit 1; }
[[ -f "$object" ]] || { echo "error: no object '$object'" >&2; exit 1; }

# The header names the ABI signature symbol its own remat-compile run put in
# the object (driver::getAbiSymbol); a pair from different runs would link
# (same entry name) and then read and write past its buffers.
abi=$(sed -n 's/^#define REMAT_ABI_SYMBOL \([A-Za-z0-9_]*\)$/\1/p' "$header")
if [[ -z "$abi" ]]; then
  echo "error: '$header' has no REMAT_ABI_SYMBOL: regenerate it with" \
       "remat-compile" >&2
  exit 1
fi
if ! grep -qaF "$abi" "$object"; then
  echo "error: '$header' and '$object' do not belong together: the object" \
       "does not define $abi (they come from different remat-compile runs;" \
       "compile the header and the object together)" >&2
  exit 1
fi

flags=(-std=c++17 -O2 -include "$header" -I"${REMAT_RUNNER_INCLUDE_DIR:-$src_root/include}")
libs=(-lm)
if grep -q '^#define REMAT_TARGET_CUDA 1' "$header"; then
  if [[ -z "$runtime" || ! -f "$runtime" ]]; then
    echo "error: a CUDA entry point needs the remat CUDA runtime" \
         "(--runtime libRematCudaRuntime.a)" >&2
    exit 1
  fi
  # The runtime's GEMM calls cuBLAS (found at run time through the rpath);
  # libcuda comes from the driver at run time, the stub links.
  libs=("$runtime" -L"$cuda_root/lib64" -Wl,-rpath,"$cuda_root/lib64" -lcublas)
  # Its convolutions call cuDNN (lib/Runtime/CudaConv.cpp).
  if [[ $cudnn == 1 ]]; then
    libs+=(-lcudnn)
  fi
  libs+=(-L"$cuda_root/lib64/stubs" -lcuda -lm)
else
  if [[ -z "$cpu_runtime" || ! -f "$cpu_runtime" ]]; then
    echo "error: a CPU entry point needs the remat CPU runtime" \
         "(--cpu-runtime libRematCpuRuntime.a)" >&2
    exit 1
  fi
  libs=("$cpu_runtime" -lopenblas -lomp -lm)
fi

exec "$cxx" "${flags[@]}" "$here/runner.cpp" "$object" "${libs[@]}" -o "$output"
