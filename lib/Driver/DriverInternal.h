//===- DriverInternal.h - pieces of the remat-compile driver ----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_DRIVER_DRIVERINTERNAL_H
#define REMAT_LIB_DRIVER_DRIVERINTERNAL_H

#include "remat/Driver/Driver.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/Timer.h"

#include <memory>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace remat::driver {

/// One stage of the driver: a nested timing scope (when timing is on) and,
/// with `verbose`, a line on stderr with its wall and CPU time when it ends.
class Stage {
public:
  Stage(const CompileOptions &options, llvm::StringRef name);
  ~Stage();
  /// The stage's timing scope (a no-op scope when timing is off).
  mlir::TimingScope &timing() { return scope; }

private:
  std::string name;
  bool verbose;
  mlir::TimingScope scope;
  llvm::TimeRecord start;
};

//===- Input.cpp ----------------------------------------------------------===//

/// The function to compile: `name`, or the single training step, or the
/// single public function.
mlir::FailureOr<mlir::func::FuncOp> findEntry(mlir::ModuleOp module,
                                              llvm::StringRef name);
/// Describes the arguments and results of `func` (tensor level, after
/// autodiff) as the pointer arguments of the C entry point.
mlir::LogicalResult describeEntry(mlir::func::FuncOp func,
                                  const ArgumentNames &names, EntryInfo &info);
/// Checks that the memref-level `func` takes exactly the buffers of `info`.
mlir::LogicalResult checkEntrySignature(mlir::func::FuncOp func,
                                        const EntryInfo &info);

//===- Pipeline.cpp -------------------------------------------------------===//

/// Autodiff (for a forward model) and, with a budget or strategy,
/// --remat-rematerialize.
mlir::LogicalResult runRematStage(mlir::ModuleOp module,
                                  const CompileOptions &options);
/// remat -> linalg on tensors, recompute regions opened.
mlir::LogicalResult runLinalgStage(mlir::ModuleOp module,
                                   const CompileOptions &options);
/// Bufferization, out-params, arena planning (and the CUDA memory setup).
mlir::LogicalResult runBufferStage(mlir::ModuleOp module,
                                   const CompileOptions &options);
/// Memref IR to the LLVM dialect for the host CPU.
mlir::LogicalResult runCpuLLVMStage(mlir::ModuleOp module,
                                    const CompileOptions &options);
/// Memref IR to host LLVM dialect plus `gpu.binary` kernels; `format` is
/// the gpu-module-to-binary format (isa, bin).
mlir::LogicalResult runCudaLLVMStage(mlir::ModuleOp module,
                                     const CompileOptions &options,
                                     llvm::StringRef format);
/// The CUDA toolkit root the driver uses.
std::string cudaToolkitPath(const CompileOptions &options);

//===- ArenaEntry.cpp -----------------------------------------------------===//

/// Adds `<entry>_arena(arena, buffers...)`, the entry with its arena passed
/// in, and makes `<entry>` allocate the arena and call it. Sets
/// `arenaEntry` to the new name, or leaves it empty when the entry has no
/// arena (or its arena escapes).
mlir::LogicalResult addArenaEntry(mlir::ModuleOp module,
                                  llvm::StringRef entryName,
                                  std::string &arenaEntry);

//===- CodeGen.cpp --------------------------------------------------------===//

/// Translates the LLVM-dialect module to LLVM IR for the host and runs the
/// -O<optLevel> pipeline.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &context,
                                                const CompileOptions &options);
/// Emits a host object file for `module`.
mlir::LogicalResult emitObject(llvm::Module &module,
                               const CompileOptions &options,
                               llvm::raw_ostream &os);
/// Writes the objects of the module's gpu.binary ops (PTX text or cubin).
mlir::LogicalResult writeGpuBinaries(mlir::ModuleOp module,
                                     llvm::raw_ostream &os);

} // namespace remat::driver

#endif // REMAT_LIB_DRIVER_DRIVERINTERNAL_H
