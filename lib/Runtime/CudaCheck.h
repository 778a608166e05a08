//===- CudaCheck.h - fatal error checks of the CUDA runtime -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The one error path of CudaRuntime.cpp, CudaBlas.cpp and CudaConv.cpp:
// a failed call prints "remat cuda runtime: CALL failed: ERROR" and aborts
// (a compiled step has no way to report an error to its caller). Each file
// adds a `check` overload for its library's status type that calls `fail`.
// Internal to lib/Runtime; plain C++ over cuda.h.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_RUNTIME_CUDACHECK_H
#define REMAT_LIB_RUNTIME_CUDACHECK_H

#include <cuda.h>

#include <cstdio>
#include <cstdlib>

namespace remat::cuda {

/// Prints which call failed and why, then aborts.
[[noreturn]] inline void fail(const char *call, const char *error) {
  std::fprintf(stderr, "remat cuda runtime: %s failed: %s\n", call, error);
  std::abort();
}

/// Fails unless a driver API call succeeded; names the error and its code.
inline void check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "unknown error";
  char error[128];
  std::snprintf(error, sizeof(error), "%s (%d)", name,
                static_cast<int>(result));
  fail(call, error);
}

} // namespace remat::cuda

/// Checks `expr` with the `check` overload for its type, naming the call.
#define REMAT_CHECK(expr) check((expr), #expr)

#endif // REMAT_LIB_RUNTIME_CUDACHECK_H
