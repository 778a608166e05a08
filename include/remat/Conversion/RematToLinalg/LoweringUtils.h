//===- LoweringUtils.h - helpers of the remat to linalg lowering -*- C++
//-*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The one helper kit of every RematToLinalg pattern file.
//
// Precision policy: every reduction and every arithmetic expression is
// evaluated in the compute type f32. f16/bf16 scalars are extended to f32
// where they are read (on entry of a linalg.generic body, or by the casting
// semantics of the named linalg convolution and pooling ops) and the yielded
// or final value is truncated to the element type of the result; f32 operands
// go through unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CONVERSION_REMATTOLINALG_LOWERINGUTILS_H
#define REMAT_CONVERSION_REMATTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
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

/// A scalar arith.constant of the float type `type` holding `value`.
mlir::Value createFloatConstant(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Type type, double value);

/// A scalar arith.constant of the float type `type` holding -infinity.
mlir::Value createNegInfConstant(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Type type);

/// An index scalar constant.
mlir::Value createIndexConstant(mlir::OpBuilder &b, mlir::Location loc,
                                int64_t value);

/// tensor.empty of a static shape.
mlir::Value createEmptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                              llvm::ArrayRef<int64_t> shape,
                              mlir::Type elementType);

/// A tensor filled with the float `value` (tensor.empty, then the constant,
/// then linalg.fill).
mlir::Value createFilledTensor(mlir::OpBuilder &b, mlir::Location loc,
                               llvm::ArrayRef<int64_t> shape,
                               mlir::Type elementType, double value);

/// A tensor filled with the scalar `fill` (tensor.empty, then linalg.fill).
mlir::Value createFilledTensor(mlir::OpBuilder &b, mlir::Location loc,
                               llvm::ArrayRef<int64_t> shape,
                               mlir::Type elementType, mlir::Value fill);

/// A zero-filled f32 accumulator of `shape` (the constant comes first).
mlir::Value createZeroAccumulator(mlir::OpBuilder &b, mlir::Location loc,
                                  llvm::ArrayRef<int64_t> shape);

/// The access map, from a loop nest over `loopShape`, of an operand of shape
/// `operandShape` under numpy broadcasting: shapes are aligned at the
/// trailing dimension, missing leading dimensions are dropped and size-1
/// dimensions that broadcast read index 0 (a constant-0 result).
mlir::AffineMap getBroadcastMap(llvm::ArrayRef<int64_t> operandShape,
                                llvm::ArrayRef<int64_t> loopShape,
                                mlir::MLIRContext *ctx);

/// The map over `numDims` dims whose results are the dims `dims`, in order.
mlir::AffineMap getDimsMap(mlir::MLIRContext *ctx, unsigned numDims,
                           llvm::ArrayRef<unsigned> dims);

/// `numParallel` parallel iterators followed by `numReduction` reductions.
llvm::SmallVector<mlir::utils::IteratorType>
getIteratorTypes(unsigned numParallel, unsigned numReduction);

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

/// tensor.expand_shape of `t` to `shape` with `reassociation`.
mlir::Value
createExpandShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                  llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<mlir::ReassociationIndices> reassociation);

/// tensor.collapse_shape of `t` with `reassociation`.
mlir::Value
createCollapseShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                    llvm::ArrayRef<mlir::ReassociationIndices> reassociation);

//===----------------------------------------------------------------------===//
// NCHW spatial helpers (convolution and pooling)
//===----------------------------------------------------------------------===//

/// Pads dimensions 2 and 3 of the rank-4 tensor `x` by `pad[i]` on both
/// sides with the scalar `padValue` (tensor.pad); returns `x` if no padding.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       llvm::ArrayRef<int64_t> pad, mlir::Value padValue);

/// padSpatial with zeros of the element type of `x` (the constant is only
/// created when there is padding).
mlir::Value padSpatialWithZeros(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value x, llvm::ArrayRef<int64_t> pad);

/// Builds a rank-4 tensor of spatial size `outSize` filled with `fill` and
/// writes element (n, c, i, j) of the rank-4 tensor `t` at spatial position
/// (low[0] + i * stride[0], low[1] + j * stride[1]), dropping elements that
/// land outside: a "stride dilation" of `t` followed by a low/high padding
/// that may be negative. Implemented with one strided tensor.insert_slice.
mlir::Value dilateAndPad(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                         llvm::ArrayRef<int64_t> stride,
                         llvm::ArrayRef<int64_t> low,
                         llvm::ArrayRef<int64_t> outSize, mlir::Value fill);

} // namespace remat

#endif // REMAT_CONVERSION_REMATTOLINALG_LOWERINGUTILS_H
