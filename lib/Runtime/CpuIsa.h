//===- CpuIsa.h - the instruction set of the runtime's loops ----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Which of the runtime's loops a process runs: the AVX-512F loops of
// SmallGemm.cpp and Depthwise.cpp, SmallGemm.cpp's AVX2 + FMA loops for
// narrow products, or OpenBLAS and the scalar loops of CpuRuntime.cpp
// ("generic"). Chosen once per process, so that every call
// of a shape takes the same path: the CPU's (AVX-512F or not) unless
// $REMAT_CPU_ISA says otherwise (docs/Compile.md). Internal to lib/Runtime;
// plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_RUNTIME_CPUISA_H
#define REMAT_LIB_RUNTIME_CPUISA_H

namespace remat::runtime {

/// The instruction sets the runtime's own loops exist for, each one a
/// superset of the one before.
enum class CpuIsa { Generic, Avx2, Avx512 };

/// The set this process uses, decided at the first call: $REMAT_CPU_ISA
/// `generic` forces OpenBLAS and the scalar loops; `avx2` the AVX2 + FMA
/// loops, `avx512` the AVX-512F loops (on a CPU without them: what `auto`
/// gives, with a message on stderr); unset, empty or `auto` take the best
/// the CPU has (AVX-512F, else AVX2 + FMA, else generic). Any other value
/// gets a message on stderr and is taken as `auto`.
CpuIsa cpuIsa();

/// Whether this process runs the AVX-512F loops (cpuIsa() is Avx512).
bool haveAvx512();

/// "generic", "avx2" or "avx512".
const char *cpuIsaName(CpuIsa isa);

} // namespace remat::runtime

#endif // REMAT_LIB_RUNTIME_CPUISA_H
