//===- ConvToBlas.h - f32 convolutions to runtime calls ---------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The convolution half of --remat-linalg-to-blas (internal to
// lib/Transforms): which convolutions on memrefs become calls of
// remat_cpu_sconv2d, remat_cpu_sconv2d_input_grad and
// remat_cpu_sconv2d_filter_grad (lib/Runtime/CpuRuntime.cpp) or, on the
// CUDA path, of their cuDNN counterparts remat_cuda_sconv2d, ...
// (lib/Runtime/CudaConv.cpp), and the calls themselves.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TRANSFORMS_CONVTOBLAS_H
#define REMAT_LIB_TRANSFORMS_CONVTOBLAS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <array>
#include <optional>

namespace remat::blas {

/// The runtime's forward convolution.
constexpr llvm::StringLiteral kSconv2d = "remat_cpu_sconv2d";
/// The runtime's input gradient (GEMM, then col2im).
constexpr llvm::StringLiteral kSconv2dInputGrad =
    "remat_cpu_sconv2d_input_grad";
/// The runtime's filter gradient.
constexpr llvm::StringLiteral kSconv2dFilterGrad =
    "remat_cpu_sconv2d_filter_grad";
/// The runtime's filter gradient written over its output (no zero fill).
constexpr llvm::StringLiteral kSconv2dFilterGradSet =
    "remat_cpu_sconv2d_filter_grad_set";
/// The CUDA runtime's three (cuDNN), same sizes and operands, stream first.
constexpr llvm::StringLiteral kCudaSconv2d = "remat_cuda_sconv2d";
constexpr llvm::StringLiteral kCudaSconv2dInputGrad =
    "remat_cuda_sconv2d_input_grad";
constexpr llvm::StringLiteral kCudaSconv2dFilterGrad =
    "remat_cuda_sconv2d_filter_grad";

/// A convolution the runtime computes: the op, which function computes it,
/// its three dense f32 memrefs and its sizes in the runtime's argument
/// order (n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw).
struct ConvMatch {
  mlir::Operation *op;
  llvm::StringLiteral callee;
  /// Forward: input, filter, output. Input gradient: filter, output
  /// gradient, input gradient. Filter gradient: input, output gradient,
  /// filter gradient.
  std::array<mlir::Value, 3> operands;
  std::array<int64_t, 14> sizes;
};

/// Matches linalg.conv_2d_nchw_fchw, linalg.conv_2d_ngchw_gfchw and the
/// input- and filter-gradient linalg.generics that remat-lower-to-linalg
/// writes (loops n, g, c | kh, kw, f, oh, ow: dx += w * dy; loops
/// g, f, c, kh, kw | n, oh, ow: gw += x * dy) on dense (row-major,
/// any offset) f32 memrefs of static shape whose windows stay inside the
/// input and whose GEMM dimensions fit an int. Anything else: std::nullopt.
/// With `cuda` the callee is the CUDA runtime's (kCudaSconv2d, ...) and every
/// operand must also have fewer than 2^31 elements (cuDNN's int sizes and
/// strides).
std::optional<ConvMatch> matchConvolution(mlir::linalg::LinalgOp op,
                                          bool cuda = false);

/// The type the three runtime functions are declared with: 14 sizes, then the
/// aligned pointer (`memref.extract_aligned_pointer_as_index`) and the offset
/// of each operand, all `index`. With `cuda` the stream (a
/// `!gpu.async.token`) comes first.
mlir::FunctionType convolutionType(mlir::MLIRContext *ctx, bool cuda = false);

/// For a CPU filter gradient (kSconv2dFilterGrad) whose output a
/// `linalg.fill` of +0.0 zeroes with nothing but memory-effect-free ops
/// (constants, views) between them: that fill, which the runtime's
/// kSconv2dFilterGradSet makes redundant (it writes the same bits over the
/// output). Else null.
mlir::linalg::FillOp zeroFillBefore(const ConvMatch &match);

/// Replaces the matched op by a call of `callee` (declared with
/// convolutionType). With `cuda` the call takes the stream of a
/// `gpu.wait async` before it and is waited for by a `gpu.wait` after it
/// (as remat_cuda_sgemm).
void rewriteConvolution(const ConvMatch &match, mlir::func::FuncOp callee,
                        bool cuda = false);

} // namespace remat::blas

#endif // REMAT_LIB_TRANSFORMS_CONVTOBLAS_H
