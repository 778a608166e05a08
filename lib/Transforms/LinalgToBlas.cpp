//===- LinalgToBlas.cpp - f32 matmuls to calls of the runtime's GEMM ------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// linalg.matmul and linalg.batch_matmul on f32 memrefs become calls of
// remat_cpu_sgemm (lib/Runtime/CpuRuntime.cpp, cblas_sgemm underneath);
// on CUDA also those of f16 or bf16 operands with an f32 result
// (remat_cuda_gemm_f16 / _bf16);
// the convolutions of remat-lower-to-linalg become calls of the runtime's
// im2col + GEMM convolutions (ConvToBlas.cpp). With target=cuda the
// matmuls call remat_cuda_sgemm (lib/Runtime/CudaBlas.cpp, cuBLAS) and,
// with cudnn=1, the convolutions remat_cuda_sconv2d, ...
// (lib/Runtime/CudaConv.cpp, cuDNN), on a stream given as a
// !gpu.async.token.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "ConvToBlas.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace remat {
#define GEN_PASS_DEF_REMATLINALGTOBLAS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

constexpr llvm::StringLiteral kSgemm = "remat_cpu_sgemm";
constexpr llvm::StringLiteral kCudaSgemm = "remat_cuda_sgemm";
constexpr llvm::StringLiteral kCudaGemmF16 = "remat_cuda_gemm_f16";
constexpr llvm::StringLiteral kCudaGemmBF16 = "remat_cuda_gemm_bf16";

/// The GEMM routine for a matmul whose A and B have element type `input`
/// and C `output`: f32 everywhere (both targets), or on CUDA f16 or bf16
/// operands with an f32 result (the f32 accumulators of f16/bf16 steps);
/// empty when there is none.
StringRef gemmFor(Type input, Type output, bool cuda) {
  if (!output.isF32())
    return {};
  if (input.isF32())
    return cuda ? kCudaSgemm : kSgemm;
  if (!cuda)
    return {};
  if (input.isF16())
    return kCudaGemmF16;
  if (input.isBF16())
    return kCudaGemmBF16;
  return {};
}

/// How one operand of a matmul lies in memory: which of its dimensions is
/// the batch (or none: broadcast), and whether its matrix is transposed
/// with respect to the GEMM's (rows, columns) = (m, k) for A, (k, n) for B.
struct OperandLayout {
  Value memref;
  bool hasBatch = false;
  bool transposed = false;
};

/// Matches `map` (an operand's indexing map) against `[batch?] rows cols`
/// or, when `allowTranspose`, `[batch?] cols rows`, on the loop dimensions
/// of `dims`. Checks that the memref has a unit innermost stride.
static std::optional<OperandLayout>
matchOperand(Value memref, AffineMap map, std::optional<unsigned> batch,
             unsigned rows, unsigned cols, bool allowTranspose) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type)
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return std::nullopt;
  SmallVector<unsigned> dims;
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return std::nullopt;
    dims.push_back(dim.getPosition());
  }
  OperandLayout layout;
  layout.memref = memref;
  ArrayRef<unsigned> matrix(dims);
  if (dims.size() == 3) {
    if (!batch || dims[0] != *batch)
      return std::nullopt;
    layout.hasBatch = true;
    matrix = matrix.drop_front();
  } else if (dims.size() != 2) {
    return std::nullopt;
  }
  if (matrix[0] == rows && matrix[1] == cols)
    return layout;
  if (allowTranspose && matrix[0] == cols && matrix[1] == rows) {
    layout.transposed = true;
    return layout;
  }
  return std::nullopt;
}

/// Whether every static size and stride of `type` fits a C int (what
/// cblas_sgemm takes).
static bool fitsBlasInt(MemRefType type) {
  constexpr int64_t maxInt = std::numeric_limits<int>::max();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  auto fits = [&](int64_t v) {
    return ShapedType::isDynamic(v) || v <= maxInt;
  };
  return llvm::all_of(type.getShape(), fits) && llvm::all_of(strides, fits);
}

/// The metadata of one operand as the runtime takes it.
struct OperandValues {
  Value base, offset, ld, batchStride;
  SmallVector<Value> sizes;
};

/// `zero` is the batch stride of an operand without a batch dimension.
static OperandValues extract(OpBuilder &b, Location loc,
                             const OperandLayout &layout, Value zero) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc,
                                                           layout.memref);
  OperandValues values;
  values.base = metadata.getBaseBuffer();
  values.offset = metadata.getOffset();
  auto strides = metadata.getStrides();
  values.ld = strides[strides.size() - 2];
  values.batchStride = layout.hasBatch ? strides.front() : zero;
  for (Value size : metadata.getSizes())
    values.sizes.push_back(size);
  return values;
}

/// The GEMM routine `op` (a named matmul) calls (gemmFor), or empty.
static StringRef gemmOf(linalg::LinalgOp op, bool cuda) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return {};
  Type a = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type b = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  if (a != b)
    return {};
  return gemmFor(a, getElementTypeOrSelf(op.getDpsInits()[0].getType()),
                 cuda);
}

/// Rewrites `op` into a call of `sgemm` (remat_cpu_sgemm, or with `cuda`
/// remat_cuda_sgemm or its f16/bf16 form on a stream of its own that is
/// waited for after the call); returns false (and leaves the op) when it
/// does not match.
static bool rewriteMatmul(linalg::LinalgOp op, func::FuncOp sgemm,
                          bool cuda) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return false;
  // The loops: C's map names the batch (if any), m and n; k is the one
  // reduction loop. Named matmuls guarantee the multiply-add body.
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (llvm::count(iterators, utils::IteratorType::reduction) != 1)
    return false;
  unsigned k = llvm::find(iterators, utils::IteratorType::reduction) -
               iterators.begin();
  AffineMap outMap = op.getIndexingMapsArray()[2];
  if (!outMap.isProjectedPermutation() || outMap.getNumResults() < 2 ||
      outMap.getNumResults() > 3 ||
      outMap.getNumResults() + 1 != outMap.getNumDims())
    return false;
  unsigned outRank = outMap.getNumResults();
  std::optional<unsigned> batch;
  if (outRank == 3)
    batch = outMap.getDimPosition(0);
  unsigned m = outMap.getDimPosition(outRank - 2);
  unsigned n = outMap.getDimPosition(outRank - 1);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  std::optional<OperandLayout> a =
      matchOperand(op.getDpsInputs()[0], maps[0], batch, m, k, true);
  std::optional<OperandLayout> b =
      matchOperand(op.getDpsInputs()[1], maps[1], batch, k, n, true);
  std::optional<OperandLayout> c =
      matchOperand(op.getDpsInits()[0], maps[2], batch, m, n, false);
  if (!a || !b || !c)
    return false;
  // cblas_sgemm takes int sizes and leading dimensions: a matmul whose static
  // sizes or strides exceed them stays loops (the runtime guards the dynamic
  // ones).
  for (const OperandLayout *layout : {&*a, &*b, &*c})
    if (!fitsBlasInt(cast<MemRefType>(layout->memref.getType())))
      return false;

  OpBuilder builder(op);
  Location loc = op.getLoc();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto flag = [&](bool value) { return value ? one : zero; };
  OperandValues av = extract(builder, loc, *a, zero);
  OperandValues bv = extract(builder, loc, *b, zero);
  OperandValues cv = extract(builder, loc, *c, zero);
  size_t cRank = cv.sizes.size();
  Value batchCount = c->hasBatch ? cv.sizes.front() : one;
  Value rows = cv.sizes[cRank - 2], columns = cv.sizes[cRank - 1];
  // k: the columns of A, or its rows when A is transposed.
  Value depth = av.sizes[av.sizes.size() - (a->transposed ? 2 : 1)];
  SmallVector<Value> operands = {batchCount,
                                 rows,
                                 columns,
                                 depth,
                                 flag(a->transposed),
                                 av.base,
                                 av.offset,
                                 av.ld,
                                 av.batchStride,
                                 flag(b->transposed),
                                 bv.base,
                                 bv.offset,
                                 bv.ld,
                                 bv.batchStride,
                                 cv.base,
                                 cv.offset,
                                 cv.ld,
                                 cv.batchStride};
  if (!cuda) {
    func::CallOp::create(builder, loc, sgemm, operands);
    op->erase();
    return true;
  }
  Type token = gpu::AsyncTokenType::get(builder.getContext());
  Value stream =
      gpu::WaitOp::create(builder, loc, token, ValueRange{}).getAsyncToken();
  operands.insert(operands.begin(), stream);
  func::CallOp::create(builder, loc, sgemm, operands);
  gpu::WaitOp::create(builder, loc, Type(), ValueRange{stream});
  op->erase();
  return true;
}

/// The type of remat_cpu_sgemm: batch, m, n, k, then per operand
/// (transposed,) base, offset, leading dimension, batch stride. With `cuda`
/// (remat_cuda_sgemm) the stream comes first, as an async token. `name`'s
/// A and B are memrefs of f16 or bf16 for remat_cuda_gemm_f16 / _bf16, C
/// always of f32.
static FunctionType declaredType(MLIRContext *ctx, StringRef name,
                                 bool cuda) {
  Type idx = IndexType::get(ctx);
  Type f32 = Float32Type::get(ctx);
  Type input = name == kCudaGemmF16    ? Float16Type::get(ctx)
               : name == kCudaGemmBF16 ? BFloat16Type::get(ctx)
                                       : f32;
  SmallVector<Type> inputs;
  if (cuda)
    inputs.push_back(gpu::AsyncTokenType::get(ctx));
  inputs.append(4, idx);
  for (int operand = 0; operand < 3; ++operand) {
    if (operand < 2)
      inputs.push_back(idx); // transposed
    inputs.append(
        {MemRefType::get({}, operand < 2 ? input : f32), idx, idx, idx});
  }
  return FunctionType::get(ctx, inputs, {});
}

/// Declares the runtime function `name` of type `type` in `module` (once).
static func::FuncOp declareRuntime(ModuleOp module, StringRef name,
                                   FunctionType type) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto func = func::FuncOp::create(builder, module.getLoc(), name, type);
  func.setPrivate();
  return func;
}

/// Fails with an error on the symbol that already holds the runtime's
/// `name` when it is not a function of `type`; `what` says which routine.
static LogicalResult checkReserved(ModuleOp module, StringRef name,
                                   FunctionType type, StringRef what) {
  Operation *existing = module.lookupSymbol(name);
  if (!existing || (isa<func::FuncOp>(existing) &&
                    cast<func::FuncOp>(existing).getFunctionType() == type))
    return success();
  return existing->emitError() << "'" << name << "' is reserved for the "
                               << (name.starts_with("remat_cuda_") ? "CUDA"
                                                                   : "CPU")
                               << " runtime's " << what;
}

struct LinalgToBlasPass
    : public remat::impl::RematLinalgToBlasBase<LinalgToBlasPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    if (target != "cpu" && target != "cuda") {
      module.emitError() << "remat-linalg-to-blas: unknown target '"
                         << target << "' (expected 'cpu' or 'cuda')";
      return signalPassFailure();
    }
    bool cuda = target == "cuda";
    SmallVector<std::pair<linalg::LinalgOp, StringRef>> matmuls;
    SmallVector<blas::ConvMatch> convolutions;
    module.walk([&](linalg::LinalgOp op) {
      // Host code only: never inside a GPU kernel.
      if (op->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
        if (StringRef gemm = gemmOf(op, cuda); !gemm.empty())
          matmuls.emplace_back(op, gemm);
      } else if (cuda && !cudnn)
        return; // Without cuDNN convolutions stay kernels.
      else if (std::optional<blas::ConvMatch> conv =
                   blas::matchConvolution(op, cuda))
        convolutions.push_back(*conv);
    });
    // A filter gradient on a just zero-filled output writes it instead
    // (remat_cpu_sconv2d_filter_grad_set): the fill's pass over the
    // gradient, often the step's largest buffers, goes away.
    SmallVector<Operation *> droppedFills;
    if (!cuda)
      for (blas::ConvMatch &conv : convolutions)
        if (linalg::FillOp fill = blas::zeroFillBefore(conv)) {
          conv.callee = blas::kSconv2dFilterGradSet;
          droppedFills.push_back(fill);
        }
    auto calls = [&](StringRef callee) {
      return llvm::any_of(convolutions, [&](const blas::ConvMatch &m) {
        return m.callee == callee;
      });
    };
    StringRef forward = cuda ? blas::kCudaSconv2d : blas::kSconv2d;
    StringRef filterGrad =
        cuda ? blas::kCudaSconv2dFilterGrad : blas::kSconv2dFilterGrad;
    StringRef inputGrad =
        cuda ? blas::kCudaSconv2dInputGrad : blas::kSconv2dInputGrad;
    llvm::SmallSetVector<StringRef, 3> gemms;
    for (auto &[op, gemm] : matmuls)
      gemms.insert(gemm);
    for (StringRef gemm : gemms)
      if (failed(checkReserved(module, gemm, declaredType(ctx, gemm, cuda),
                               "GEMM")))
        return signalPassFailure();
    FunctionType convType = blas::convolutionType(ctx, cuda);
    if ((calls(forward) &&
         failed(checkReserved(module, forward, convType, "convolution"))) ||
        (calls(filterGrad) &&
         failed(checkReserved(module, filterGrad, convType,
                              "convolution filter gradient"))) ||
        (calls(inputGrad) &&
         failed(checkReserved(module, inputGrad, convType,
                              "convolution input gradient"))) ||
        (calls(blas::kSconv2dFilterGradSet) &&
         failed(checkReserved(module, blas::kSconv2dFilterGradSet, convType,
                              "convolution filter gradient"))))
      return signalPassFailure();

    for (StringRef gemm : gemms) {
      func::FuncOp routine =
          declareRuntime(module, gemm, declaredType(ctx, gemm, cuda));
      for (auto &[op, name] : matmuls)
        if (name == gemm)
          rewriteMatmul(op, routine, cuda);
      if (routine.symbolKnownUseEmpty(module))
        routine.erase();
    }
    for (Operation *fill : droppedFills)
      fill->erase();
    for (const blas::ConvMatch &conv : convolutions)
      blas::rewriteConvolution(
          conv, declareRuntime(module, conv.callee, convType), cuda);
  }
};

} // namespace
