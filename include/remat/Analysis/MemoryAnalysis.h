//===- MemoryAnalysis.h - liveness and memory peak --------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Liveness over the op order of a function and the live bytes at every op.
///
/// The function body is one block. Ops are executed in order; the ops inside
/// a `remat.recompute` are executed in place of the region op (its block
/// arguments alias its inputs, its results alias the yielded values). Any
/// other op with regions (`linalg.generic`, `linalg.matmul`, ...) is one step:
/// its regions belong to it, and values its regions read from outside are
/// uses at that step. Destination-passing code is accounted as bufferization
/// will see it (`getActivationBytes`, `getInPlaceResult`). A value
/// is live from the op that defines it to its last use; `remat.keep` is not a
/// use; returned values live to the end. While an op runs, its operands and
/// its results are live together. Function arguments (inputs and parameters)
/// are resident for the whole function and are counted apart, and so are the
/// values the function returns (the loss and the parameter gradients, like
/// preallocated gradient buffers): the peak is a peak of activations. An op's
/// workspace (`RematCostOpInterface::getWorkspaceBytes`: padded copies and
/// accumulators its lowering allocates and frees while it runs) is live
/// during its step only: the bytes at a step are the live values plus that
/// op's workspace.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_MEMORYANALYSIS_H
#define REMAT_ANALYSIS_MEMORYANALYSIS_H

#include "remat/Dialect/Remat/IR/RematInterfaces.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace remat {

/// The destination-passing rule of the memory accounting
/// (docs/Conventions.md): if `value` is the only result of an op that is not
/// a constant, has exactly one use, and that use is an init ("outs") operand of
/// a destination-style op with pure tensor semantics, bufferization writes the
/// tied result of that op into `value`'s buffer; returns that tied result. Null
/// otherwise.
mlir::OpResult getInPlaceResult(mlir::Value value);

/// The bytes of storage an op result takes under the memory accounting: 0 for
/// `tensor.empty` (its buffer belongs to the op that writes it) and for
/// values that are not shaped (scalars live in registers), `getValueBytes`
/// otherwise. std::nullopt when a shaped value has no static size or its size
/// overflows 64 bits.
std::optional<int64_t> getActivationBytes(mlir::Value value);

/// True if `op` has regions, every value defined in them (block arguments
/// and nested results) is a scalar and their terminators yield scalars: a
/// structured op whose regions are its payload (`linalg.generic`,
/// `linalg.matmul`, `linalg.fill`, `tensor.generate`, ...). Such an op is one
/// step, one schedulable unit. Ops whose regions carry tensors (control flow
/// such as `scf.for`) are not.
bool hasScalarPayloadRegions(mlir::Operation *op);

/// Calls `fn` on every value `op` reads: its operands, then the values defined
/// outside `op` that ops nested in its regions use (each once, in walk
/// order).
void forEachUsedValue(mlir::Operation *op,
                      llvm::function_ref<void(mlir::Value)> fn);

class MemoryAnalysis {
public:
  /// One executed op (leaf op, in execution order).
  struct Step {
    mlir::Operation *op;
    /// Bytes of activations live while the op runs (arguments excluded),
    /// not counting `workspaceBytes`.
    int64_t liveBytes;
    /// Scratch bytes of the op, live during this step only.
    int64_t workspaceBytes = 0;
  };

  /// Analyzes `op`, which must be a function-like op with a single-block
  /// body (func.func).
  explicit MemoryAnalysis(mlir::Operation *op);

  /// False if the analysis failed; `getError()` says why and `getErrorOp()`
  /// where.
  bool isValid() const { return !error.has_value(); }
  const std::string &getError() const { return *error; }
  mlir::Operation *getErrorOp() const { return errorOp; }

  llvm::ArrayRef<Step> getSteps() const { return steps; }
  /// The largest `liveBytes + workspaceBytes` over the steps.
  int64_t getPeakBytes() const { return peakBytes; }
  /// The workspace bytes of the op at the peak (part of `getPeakBytes`).
  int64_t getPeakWorkspaceBytes() const { return peakWorkspaceBytes; }
  /// Peak including the arguments and the returned values.
  int64_t getPeakTotalBytes() const { return peakTotalBytes; }
  /// Bytes of the values the function returns (defined by its ops).
  int64_t getOutputBytes() const { return outputBytes; }
  /// The op at which the peak is first reached (null for an empty function).
  mlir::Operation *getPeakOp() const { return peakOp; }
  int64_t getArgumentBytes() const { return argumentBytes; }
  /// Bytes of the arguments marked `remat.param`.
  int64_t getParameterBytes() const { return parameterBytes; }
  /// Sum of the bytes of all values defined by ops (each counted once).
  int64_t getTotalActivationBytes() const { return totalActivationBytes; }

  /// Writes the report as JSON.
  void writeJSON(llvm::raw_ostream &os, llvm::StringRef functionName) const;

private:
  void fail(mlir::Operation *where, const llvm::Twine &message);

  std::vector<Step> steps;
  int64_t peakBytes = 0;
  int64_t peakWorkspaceBytes = 0;
  int64_t peakTotalBytes = 0;
  mlir::Operation *peakOp = nullptr;
  int64_t argumentBytes = 0;
  int64_t outputBytes = 0;
  int64_t parameterBytes = 0;
  int64_t totalActivationBytes = 0;
  std::optional<std::string> error;
  mlir::Operation *errorOp = nullptr;
};

} // namespace remat

#endif // REMAT_ANALYSIS_MEMORYANALYSIS_H
