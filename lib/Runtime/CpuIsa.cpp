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
#include <initializer_list>

namespace remat::runtime {

namespace {

/// The best set the CPU has that this build has loops for.
CpuIsa cpuBest() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return CpuIsa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return CpuIsa::Avx2;
#endif
  return CpuIsa::Generic;
}

/// Reads $REMAT_CPU_ISA (see CpuIsa.h).
CpuIsa chooseIsa() {
  CpuIsa best = cpuBest();
  const char *value = std::getenv("REMAT_CPU_ISA");
  if (!value || !*value || std::strcmp(value, "auto") == 0)
    return best;
  if (std::strcmp(value, "generic") == 0)
    return CpuIsa::Generic;
  for (CpuIsa isa : {CpuIsa::Avx2, CpuIsa::Avx512}) {
    if (std::strcmp(value, cpuIsaName(isa)) != 0)
      continue;
    if (best >= isa)
      return isa;
    std::fprintf(stderr,
                 "remat runtime: REMAT_CPU_ISA=%s, but this CPU does not "
                 "have it: using auto (%s)\n",
                 value, cpuIsaName(best));
    return best;
  }
  std::fprintf(stderr,
               "remat runtime: unknown REMAT_CPU_ISA value '%s' (expected "
               "auto, generic, avx2 or avx512): using auto (%s)\n",
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
  switch (isa) {
  case CpuIsa::Avx512:
    return "avx512";
  case CpuIsa::Avx2:
    return "avx2";
  case CpuIsa::Generic:
    break;
  }
  return "generic";
}

} // namespace remat::runtime

extern "C" const char *remat_cpu_isa(void) {
  return remat::runtime::cpuIsaName(remat::runtime::cpuIsa());
}
