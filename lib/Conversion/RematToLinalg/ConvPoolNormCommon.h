//===- ConvPoolNormCommon.h - conv/pool/norm lowering helpers -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Private helpers shared by ConvToLinalg.cpp, PoolToLinalg.cpp and
// NormToLinalg.cpp. Everything lives in namespace remat::cpn so that it can
// not collide with the helpers of the other RematToLinalg files.
//
// Precision policy: every reduction and every arithmetic expression is
// evaluated in f32 (the "compute type"). Operands of type f16/bf16 are widened
// with arith.extf where they are read (inside linalg bodies, or by the casting
// semantics of the named linalg convolution/pooling ops), and the final result
// is narrowed with arith.truncf. f32 operands go through unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_CONVERSION_REMATTOLINALG_CONVPOOLNORMCOMMON_H
#define REMAT_LIB_CONVERSION_REMATTOLINALG_CONVPOOLNORMCOMMON_H

#include "remat/Conversion/RematToLinalg/LoweringUtils.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"

namespace remat::cpn {

/// The type every accumulation and arithmetic expression is evaluated in.
mlir::FloatType computeType(mlir::MLIRContext *ctx);

/// An arith.constant of float type `type` holding `value`.
mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                       double value);

/// An arith.constant of `type` holding negative infinity.
mlir::Value negInfConst(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Type type);

/// tensor.empty of `shape` x `elemType` filled (linalg.fill) with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Type elemType,
                         mlir::Value value);

/// Zero-filled tensor of `shape` in the compute type.
mlir::Value zeroAccumulator(mlir::OpBuilder &b, mlir::Location loc,
                            llvm::ArrayRef<int64_t> shape);

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

/// tensor.expand_shape of `t` to `shape` with `reassociation`.
mlir::Value expand(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                   llvm::ArrayRef<int64_t> shape,
                   llvm::ArrayRef<mlir::ReassociationIndices> reassociation);

/// tensor.collapse_shape of `t` with `reassociation`.
mlir::Value collapse(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                     llvm::ArrayRef<mlir::ReassociationIndices> reassociation);

/// `numParallel` parallel iterators followed by `numReduction` reductions.
llvm::SmallVector<mlir::utils::IteratorType> iterators(unsigned numParallel,
                                                       unsigned numReduction);

/// An affine map over `numDims` dims whose results are the dims `dims`.
mlir::AffineMap dimsMap(mlir::MLIRContext *ctx, unsigned numDims,
                        llvm::ArrayRef<unsigned> dims);

/// Dense i64 tensor attribute of two values (linalg strides/dilations).
mlir::Attribute pairAttr(mlir::OpBuilder &b, llvm::ArrayRef<int64_t> values);

/// Registration entry points of the three op families.
void populateConvPatterns(mlir::RewritePatternSet &patterns);
void populatePoolPatterns(mlir::RewritePatternSet &patterns);
void populateNormPatterns(mlir::RewritePatternSet &patterns);

} // namespace remat::cpn

#endif // REMAT_LIB_CONVERSION_REMATTOLINALG_CONVPOOLNORMCOMMON_H
