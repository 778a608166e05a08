//===- Driver.h - remat-compile: training step to object code ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The compilation driver behind `remat-compile`: from a forward model or a
// training step in the remat dialect to MLIR at a chosen stage, LLVM IR, PTX,
// a cubin or a host object, plus a C header describing the entry point.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_DRIVER_H
#define REMAT_DRIVER_DRIVER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace remat::driver {
struct CalibratedTimeModel;
} // namespace remat::driver

namespace mlir {
class PassManager;
} // namespace mlir

namespace remat::driver {

enum class Target { CPU, CUDA };

/// The stage at which compilation stops and what is written.
enum class Emit {
  MlirRemat,   ///< remat IR of the training step (after autodiff/remat).
  MlirLinalg,  ///< linalg on tensors, recompute regions opened.
  MlirBuffers, ///< memref IR with the arena planned.
  MlirLLVM,    ///< LLVM dialect (CUDA: host code with gpu.binary).
  LLVM,        ///< LLVM IR of the host code.
  PTX,         ///< CUDA: PTX of the kernels.
  Obj,         ///< host object file.
  Cubin,       ///< CUDA: cubin of the kernels.
};

/// Parses an `--emit` value; std::nullopt if unknown.
std::optional<Emit> parseEmit(llvm::StringRef name);
/// Returns true if `emit` writes bytes rather than text.
bool isBinaryEmit(Emit emit);

struct CompileOptions {
  Target target = Target::CPU;
  Emit emit = Emit::Obj;
  /// GPU architecture for CUDA, e.g. sm_90.
  std::string chip = "sm_90";
  /// CUDA toolkit root (bin/ptxas, nvvm/libdevice); empty: $CUDA_ROOT,
  /// $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda.
  std::string cudaPath;
  /// Memory budget and strategy for --remat-rematerialize; the pass runs
  /// only when one of them is given.
  std::optional<int64_t> budget;
  std::string strategy;
  /// remat-rematerialize's grad-seed: the op at loc("NAME") seeds the
  /// gradient of a step written without phase marks (needs a budget or a
  /// strategy).
  std::string gradSeed;
  /// Entry function; empty: the single training step of the module.
  std::string entry;
  /// Host CPU for the object: "native" (this machine) or an LLVM CPU name.
  std::string cpu = "native";
  /// LLVM optimization level (0-3) for host and device code.
  unsigned optLevel = 2;
  /// Threads per block of the GPU kernels.
  int64_t gpuBlockSize = 256;
  /// Where remat-plan-arena writes its JSON report (empty: none).
  std::string arenaReport;
  /// CPU only, a testing aid: lower the linalg ops with the loop structure
  /// of the CUDA path (parallel loops first, collapsed, tiled by
  /// gpuBlockSize, single-iteration wrappers) and run it sequentially.
  bool gpuLoopsOnCpu = false;
  /// f32 matmuls (and on the CPU convolutions) call the runtime's GEMM
  /// (cblas_sgemm; CUDA: cuBLAS) and convolutions instead of becoming loops
  /// or kernels (remat-linalg-to-blas).
  bool blas = true;
  /// CUDA, with blas: f32 convolutions call the CUDA runtime's cuDNN
  /// convolutions (remat_cuda_sconv2d, ...); without it they become im2col
  /// and col2im kernels around cuBLAS GEMMs (remat-conv-to-gemm).
  bool cudnn = false;
  /// Host functions with more LLVM instructions than this get their
  /// top-level loops outlined into noinline functions before -O<n> (LLVM's
  /// loop passes and code generation are superlinear in function size);
  /// negative: never.
  int64_t splitInstructions = 20000;
  /// CPU: linalg ops with at least this many loop iterations run their
  /// outermost parallel loop on OpenMP threads (remat-cpu-parallel-loops);
  /// negative: no OpenMP (the object then needs no libomp).
  int64_t parallelThreshold = 32768;
  /// CPU: parallelThreshold counts iteration points times the work of one
  /// point (remat-cpu-parallel-loops' body-work).
  bool parallelBodyWork = false;
  /// CPU: the loops that call no library are vectorised by
  /// remat-cpu-vectorize (upstream linalg tiling and linalg::vectorize, then
  /// vector to LLVM) rather than by LLVM's vectorizers at -O<n> alone
  /// (the default: faster at 1 and 2 threads, same bits; bench/perf-results.md).
  bool upstreamVectorize = true;
  /// CPU, without upstreamVectorize: remat-cpu-vectorize only for the
  /// contractions that call no library (f64/f16/bf16 matmuls).
  bool upstreamContractions = true;
  /// CPU: reductions over the unit-stride dimension (softmax, layer-norm
  /// rows) folded in 8 vector lanes then a fixed lane tree
  /// (remat-cpu-row-reductions) rather than in one scalar chain.
  bool rowReductions = true;
  /// CPU: line tables (DWARF) from the input's locations in the object,
  /// so that profilers and debuggers name the input line (the model op) of
  /// every host loop (`-g`).
  bool debugLines = false;
  /// With a budget or a strategy: the flops and bytes per second of the
  /// step's time estimate (TimeEstimate.h), reported in a remark beside
  /// the plan's.
  double timeGflops = 100, timeGBps = 7.5;
  /// With a budget or a strategy: a calibrated time model (TimeModel.h,
  /// --time-model) whose estimate is reported in a second remark.
  const CalibratedTimeModel *timeModel = nullptr;
  /// Times every stage (its passes under it, MLIR pass timing) in this
  /// scope when set and enabled; the LLVM stages too.
  mlir::TimingScope *timing = nullptr;
  /// Prints each stage and its wall time to stderr as it finishes.
  bool verbose = false;
  /// Applied to every pass manager the driver creates (e.g. MLIR's
  /// command-line options: IR printing, statistics, crash reproducers).
  std::function<mlir::LogicalResult(mlir::PassManager &)> configurePassManager;
};

/// Kind of an argument of the C entry point.
/// What a pointer argument of the C entry point holds: a data input, a
/// trainable parameter (`remat.param`), a result, or non-trainable state the
/// step reads and returns updated (`remat.state`, e.g. batch-norm running
/// statistics).
enum class BufferKind { Input, Param, Result, State };

/// One pointer argument of the C entry point.
struct BufferInfo {
  /// C identifier: the SSA name of the argument in the source (`%x` -> x),
  /// `loss`, `grad_<param>` and `next_<state>` for the results of a training
  /// step, `result<i>` otherwise.
  std::string name;
  BufferKind kind = BufferKind::Input;
  /// MLIR spelling of the element type (f32, i64, ...).
  std::string elementType;
  std::vector<int64_t> shape;
  int64_t elementBytes = 0;
  int64_t bytes = 0;
  /// For integer inputs used as class labels or embedding indices: values
  /// must lie in [0, intRange). 0 if unconstrained.
  int64_t intRange = 0;
  /// For a gradient result: the index of its parameter argument; else -1.
  int64_t gradOf = -1;
  /// For a state result (`remat.state = N`): the index N of the state
  /// argument it holds the next value of; else -1.
  int64_t stateOf = -1;
};

/// What the header describes: the entry point and its arena.
struct EntryInfo {
  std::string function;
  /// Pointer arguments in C ABI order: inputs (source order), then results.
  std::vector<BufferInfo> buffers;
  int64_t numInputs = 0;
  int64_t arenaBytes = 0;
  int64_t arenaLowerBound = 0;
  Target target = Target::CPU;
  /// CPU: the object calls libRematCpuRuntime (link it and -lopenblas).
  bool usesCpuRuntime = false;
  /// CPU: the object calls the OpenMP runtime (libomp).
  bool usesOpenMP = false;
  /// CPU: `<function>_arena(uint8_t *arena, buffers...)`, the entry with a
  /// caller-provided arena of arenaBytes; empty if there is none.
  std::string arenaEntry;
};

/// The source SSA names of the arguments of each function (`%x` -> "x"),
/// by function name.
using ArgumentNames = std::map<std::string, std::vector<std::string>>;

/// Parses `sourceMgr`'s main buffer and records the argument names.
mlir::OwningOpRef<mlir::ModuleOp> parseInput(llvm::SourceMgr &sourceMgr,
                                             mlir::MLIRContext &context,
                                             ArgumentNames &names);

/// Compiles `module` in place up to `options.emit` and writes the result to
/// `os`. Fills `info` for the header when the memref stage is reached.
mlir::LogicalResult compile(mlir::ModuleOp module,
                            const CompileOptions &options,
                            const ArgumentNames &names, llvm::raw_ostream &os,
                            EntryInfo &info);

/// Writes the C header of the entry point.
void writeHeader(const EntryInfo &info, llvm::raw_ostream &os);

/// The name of the ABI signature symbol that binds a header to its object:
/// `remat_abi_<entry>_<hash>`, where the hash covers everything the header
/// describes (entry, target, buffers with shapes and types, arena). The
/// object defines it, the header declares it (`REMAT_ABI_SYMBOL`), and the
/// runner references it, so a header and an object from different
/// remat-compile runs do not link together.
std::string getAbiSymbol(const EntryInfo &info);

/// Checks the options naming things LLVM must know: `--cpu` (unless
/// "native") against the host target's processors, `--chip` against the
/// NVPTX target's. Returns a message for the first unknown name.
std::optional<std::string> checkTargetNames(const CompileOptions &options);

/// Registers the dialects, passes and translations the driver uses.
void registerDriverDependencies(mlir::DialectRegistry &registry);

} // namespace remat::driver

#endif // REMAT_DRIVER_DRIVER_H
