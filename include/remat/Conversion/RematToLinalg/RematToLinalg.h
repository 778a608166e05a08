//===- RematToLinalg.h - remat to linalg lowering patterns ------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Pattern sets of `--remat-lower-to-linalg`, one per op family, each defined
// in its own file of lib/Conversion/RematToLinalg/. Every pattern is an
// OpConversionPattern that reads its operands from the adaptor and replaces
// one remat op by linalg / tensor / arith / math / scf ops on tensors. The
// shared helpers (f32 compute type, broadcasting generics, reductions,
// padding and reshapes) are in LoweringUtils.h.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CONVERSION_REMATTOLINALG_REMATTOLINALG_H
#define REMAT_CONVERSION_REMATTOLINALG_REMATTOLINALG_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace remat {

/// remat.matmul (batched, transposed operands, shared 2-D rhs) to
/// linalg.matmul / linalg.batch_matmul with indexing maps.
void populateRematMatmulToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Broadcasting binary ops, unary activations and their gradients to
/// linalg.generic.
void populateRematElementwiseToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// softmax, log_softmax and their gradients (max-subtracted reductions).
void populateRematSoftmaxToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// reshape, transpose, concat, slice, slice_grad, broadcast_to, sum_to.
void populateRematShapeToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// embedding, embedding_grad and dropout.
void populateRematEmbeddingDropoutToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// softmax_cross_entropy, mse and their gradients.
void populateRematLossToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// conv2d and its gradients (named linalg convolutions, a transposed
/// convolution for the input gradient).
void populateRematConvToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// max/avg/global pooling and their gradients.
void populateRematPoolToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// layer_norm, batch_norm (training mode) and their gradients.
void populateRematNormToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// remat.keep (erased); every family above.
void populateRematToLinalgPatterns(mlir::RewritePatternSet &patterns);

} // namespace remat

#endif // REMAT_CONVERSION_REMATTOLINALG_REMATTOLINALG_H
