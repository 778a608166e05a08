//===- CpuIsa.cpp - the instruction set of the runtime's own loops --------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "CpuIsa.h"

#include "remat/Runtime/CpuRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace remat::runtime {

namespace {

/// Whether the CPU has AVX-512F and this build has loops for it.
bool cpuHasAvx512() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") != 0;
#else
  return false;
#endif
}

/// Reads $REMAT_CPU_ISA (see CpuIsa.h).
CpuIsa chooseIsa() {
  bool avx512 = cpuHasAvx512();
  CpuIsa best = avx512 ? CpuIsa::Avx512 : CpuIsa::Generic;
  const char *value = std::getenv("REMAT_CPU_ISA");
  if (!value || !*value || std::strcmp(value, "auto") == 0)
    return best;
  if (std::strcmp(value, "generic") == 0)
    return CpuIsa::Generic;
  if (std::strcmp(value, "avx512") == 0) {
    if (!avx512)
      std::fprintf(stderr, "remat runtime: REMAT_CPU_ISA=avx512, but this CPU "
                           "has no AVX-512F: using generic\n");
    return best;
  }
  std::fprintf(stderr,
               "remat runtime: unknown REMAT_CPU_ISA value '%s' (expected "
               "auto, generic or avx512): using auto (%s)\n",
               value, cpuIsaName(best));
  return best;
}

} // namespace

CpuIsa cpuIsa() {
  static const CpuIsa isa = chooseIsa();
  return isa;
}

bool haveAvx512() { return cpuIsa() == CpuIsa::Avx512; }

const char *cpuIsaName(CpuIsa isa) {
  return isa == CpuIsa::Avx512 ? "avx512" : "generic";
}

} // namespace remat::runtime

extern "C" const char *remat_cpu_isa(void) {
  return remat::runtime::cpuIsaName(remat::runtime::cpuIsa());
}
