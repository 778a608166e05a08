//===- LoweringUtils.h - helpers of the remat to linalg lowering -*- C++
//-*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Floating-point work is done in the compute type f32: the builders below
// extend f16/bf16 scalars to f32 on entry of a linalg.generic body and
// truncate the yielded value to the element type of the output.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CONVERSION_REMATTOLINALG_LOWERINGUTILS_H
#define REMAT_CONVERSION_REMATTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace remat {

/// Builds the scalar computation of a linalg.generic body from its block
/// arguments (input scalars, then the output scalar where the caller asks
/// for it; floats already in f32) and returns the value to yield.
using ScalarBodyFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// f32 for float element types, the type itself otherwise.
mlir::Type getComputeType(mlir::Type elementType);

/// Extends an f16/bf16 scalar to f32; other values are returned unchanged.
mlir::Value extendToCompute(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value scalar);

/// Converts a float scalar to the float type `elementType` (truncating,
/// extending, or through f32 between f16 and bf16); no-op when the types
/// agree.
mlir::Value castFromCompute(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value scalar, mlir::Type elementType);

/// An f32 scalar constant.
mlir::Value createF32Constant(mlir::OpBuilder &b, mlir::Location loc,
                              double value);

/// An index scalar constant.
mlir::Value createIndexConstant(mlir::OpBuilder &b, mlir::Location loc,
                                int64_t value);

/// tensor.empty of a static shape.
mlir::Value createEmptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                              llvm::ArrayRef<int64_t> shape,
                              mlir::Type elementType);

/// A tensor filled with the float `value` (linalg.fill).
mlir::Value createFilledTensor(mlir::OpBuilder &b, mlir::Location loc,
                               llvm::ArrayRef<int64_t> shape,
                               mlir::Type elementType, double value);

/// The access map, from a loop nest over `loopShape`, of an operand of shape
/// `operandShape` under numpy broadcasting: shapes are aligned at the
/// trailing dimension, missing leading dimensions are dropped and size-1
/// dimensions that broadcast read index 0 (a constant-0 result).
mlir::AffineMap getBroadcastMap(llvm::ArrayRef<int64_t> operandShape,
                                llvm::ArrayRef<int64_t> loopShape,
                                mlir::MLIRContext *ctx);

/// The projection (d0, ..., dn-1) -> (the di with !reduced[i]).
mlir::AffineMap getKeptDimsMap(llvm::ArrayRef<bool> reduced,
                               mlir::MLIRContext *ctx);

/// `shape` without the dimensions marked in `reduced`.
llvm::SmallVector<int64_t> getKeptShape(llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<bool> reduced);

/// Builds a linalg.generic with one output `init`. `body` receives the
/// input scalars followed, with `readsOutput`, by the output scalar (an
/// accumulator). With `computeInF32`, the float scalars it receives are
/// extended to f32 and its result is cast to the element type of `init`;
/// without, `body` sees and returns the raw element types. Returns the
/// result.
mlir::Value buildGeneric(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::ValueRange inputs,
                         llvm::ArrayRef<mlir::AffineMap> inputMaps,
                         mlir::Value init, mlir::AffineMap outputMap,
                         llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                         ScalarBodyFn body, bool computeInF32 = true,
                         bool readsOutput = true);

/// An all-parallel linalg.generic producing a new tensor of `resultType`;
/// every input is broadcast to the result shape (getBroadcastMap). `body`
/// receives the input scalars only (in f32 with `computeInF32`).
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType,
                             mlir::ValueRange inputs, ScalarBodyFn body,
                             bool computeInF32 = true);

/// Reduces the loop nest over `loopShape` along the dimensions marked in
/// `reduced` into a new f32 tensor of getKeptShape(loopShape, reduced),
/// initialized to `init`. `inputMaps` give the operand accesses (one per
/// input); `combine` receives the input scalars (floats in f32) followed by
/// the accumulator and returns the new accumulator.
mlir::Value buildReduction(mlir::OpBuilder &b, mlir::Location loc,
                           llvm::ArrayRef<int64_t> loopShape,
                           llvm::ArrayRef<bool> reduced,
                           mlir::ValueRange inputs,
                           llvm::ArrayRef<mlir::AffineMap> inputMaps,
                           double init, ScalarBodyFn combine);

/// Converts a tensor of f32 to `elementType` elementwise (arith.truncf); the
/// tensor itself when it already has that element type.
mlir::Value castTensorFromCompute(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value tensor, mlir::Type elementType);

/// Inside a linalg.generic body over a loop nest of `shape`: the row-major
/// linear index (i64) of the current iteration, from linalg.index.
mlir::Value buildLinearIndex(mlir::OpBuilder &b, mlir::Location loc,
                             llvm::ArrayRef<int64_t> shape);

/// Reshapes `value` to `type` (same element count) with
/// tensor.collapse_shape / tensor.expand_shape, which bufferize to views: one
/// of them when the dimensions of one shape group into the other's, else the
/// value is flattened to rank 1 and expanded to the target shape.
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, mlir::RankedTensorType type);

} // namespace remat

#endif // REMAT_CONVERSION_REMATTOLINALG_LOWERINGUTILS_H
