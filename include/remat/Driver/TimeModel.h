//===- TimeModel.h - Op times from a calibration table ----------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// A time model calibrated on this machine (bench/calibrate_time.py): each
// op of a training step (remat dialect) falls in a class (GEMM, convolution,
// convolution gradient, grouped convolution, cheap elementwise, elementwise
// with exp/log/erf, elementwise with tanh, reduction or normalisation) and its
// time is its size (flops for the GEMM and convolution classes, tensor bytes
// moved for the others) divided by the throughput the calibration run measured
// for that class at that size. The table is JSON:
//
//   {"format": "remat-time-model-1",
//    "classes": {"gemm": [[flops, flops per second], ...],
//                "conv": [...], "conv_grad": [...], "grouped_conv": [...],
//                "elementwise": [[bytes, bytes per second], ...],
//                "exp_log": [...], "tanh": [...], "reduction": [...]},
//    ...}
//
// Points are sorted by size; between two points the throughput is
// interpolated linearly in log2(size), outside them it is the nearest
// point's. Other keys (the machine, the command) are ignored.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_TIMEMODEL_H
#define REMAT_DRIVER_TIMEMODEL_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace remat::driver {

/// The classes of the calibrated model, in the table's order.
enum class OpClass {
  Gemm,        ///< remat.matmul (by flops)
  Conv,        ///< conv2d, one group (by flops)
  ConvGrad,    ///< conv2d's input and filter gradients, one group (flops)
  GroupedConv, ///< conv2d and gradients, groups > 1, e.g. depthwise (flops)
  Elementwise, ///< cheap elementwise ops, dropout, copies (by bytes)
  ExpLog,      ///< elementwise ops with exp, log or erf (by bytes)
  Tanh,        ///< elementwise ops with tanh: scalar libm calls (by bytes)
  Reduction,   ///< normalisations, softmax, pooling, losses (by bytes)
};
constexpr size_t kNumOpClasses = 8;

/// The table's key of `opClass` ("gemm", "conv", ...).
llvm::StringRef getOpClassName(OpClass opClass);

/// Whether `opClass` is sized by flops (else by tensor bytes).
bool isSizedByFlops(OpClass opClass);

/// The class of `op`, or none for ops that run no loop of their own
/// (views, markers, constants, ops outside the remat dialect).
std::optional<OpClass> classifyOp(mlir::Operation *op);

/// Measured throughput against size for one class.
struct ThroughputCurve {
  /// (size, size per second), sizes strictly increasing, all positive.
  std::vector<std::pair<double, double>> points;
  /// Throughput at `size` (log2-linear between points, clamped outside).
  double rateAt(double size) const;
};

/// The calibrated model: one curve per class.
struct CalibratedTimeModel {
  std::array<ThroughputCurve, kNumOpClasses> curves;
  /// Where the table came from (for the remark).
  std::string source;
  /// Seconds for an op of `opClass` and `size` (0 for a size of 0).
  double seconds(OpClass opClass, double size) const;
};

/// Parses a table; `source` names it in the errors, which say where
/// (JSON line and column, or the path of the bad value, e.g.
/// "classes.gemm[2]") and what is wrong.
llvm::Expected<CalibratedTimeModel> parseTimeModel(llvm::StringRef json,
                                                   llvm::StringRef source);

/// Reads and parses the table at `path`.
llvm::Expected<CalibratedTimeModel> loadTimeModel(llvm::StringRef path);

} // namespace remat::driver

#endif // REMAT_DRIVER_TIMEMODEL_H
