//===- ConvToBlas.cpp - f32 convolutions to runtime calls -----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The convolutions remat-lower-to-linalg writes, once bufferized, become
// calls of the CPU runtime's im2col + GEMM convolutions (ConvToBlas.h):
//
// * forward: linalg.conv_2d_nchw_fchw (one group) and
//   linalg.conv_2d_ngchw_gfchw (groups, depthwise included) on the already
//   padded input;
// * input gradient: a linalg.generic over (n, g, c | kh, kw, f, oh, ow)
//   reading w[g, f, c, kh, kw] and dy[n, g, f, oh, ow], accumulating their
//   product into dx[n, g, c, oh * sh + kh * dh, ow * sw + kw * dw] (the
//   padded input's gradient);
// * filter gradient: a linalg.generic over (g, f, c, kh, kw | n, oh, ow)
//   reading x[n, g, c, oh * sh + kh * dh, ow * sw + kw * dw] and
//   dy[n, g, f, oh, ow], accumulating their product into gw[g, f, c, kh, kw].
//
//===----------------------------------------------------------------------===//

#include "ConvToBlas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

using namespace mlir;
using namespace remat;
using namespace remat::blas;

namespace {

/// An f32 memref of static shape whose elements lie densely in row-major
/// order from its offset (dimensions of size 1 may carry any stride).
bool isDenseF32(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || !type.getElementType().isF32() || !type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    int64_t size = type.getDimSize(dim);
    if (size != 1 && strides[dim] != expected)
      return false;
    expected *= size;
  }
  return true;
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<MemRefType>(value.getType()).getShape();
}

/// The runtime can compute the convolution: its GEMM dimensions (f,
/// c kh kw, oh ow) fit cblas_sgemm's int, and every window lies inside the
/// (padded) input, so the runtime reads nothing outside it (an empty output
/// reads nothing).
bool runtimeCanCompute(const std::array<int64_t, 14> &s) {
  auto [n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw] = s;
  (void)n, (void)g;
  constexpr int64_t maxInt = std::numeric_limits<int>::max();
  if (f > maxInt || c * kh * kw > maxInt || oh * ow > maxInt)
    return false;
  if (oh == 0 || ow == 0)
    return true;
  return sh >= 1 && sw >= 1 && dh >= 1 && dw >= 1 &&
         (oh - 1) * sh + (kh - 1) * dh < h && (ow - 1) * sw + (kw - 1) * dw < w;
}

/// Reads a pair (height, width) from a named convolution's strides or
/// dilations.
std::optional<std::array<int64_t, 2>> pairOf(DenseIntElementsAttr attr) {
  if (!attr || attr.getNumElements() != 2)
    return std::nullopt;
  auto values = attr.getValues<int64_t>();
  return std::array<int64_t, 2>{values[0], values[1]};
}

/// The named forward convolutions. `xShape`, `wShape`, `yShape` are viewed
/// as [N, G, C, H, W], [G, F, C, KH, KW], [N, G, F, OH, OW] (G = 1 and the
/// group dimension absent for conv_2d_nchw_fchw).
template <typename ConvOp>
std::optional<ConvMatch> matchNamed(ConvOp op, bool grouped) {
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
        y = op.getDpsInits()[0];
  if (!isDenseF32(x) || !isDenseF32(w) || !isDenseF32(y))
    return std::nullopt;
  auto strides = pairOf(op.getStrides());
  auto dilations = pairOf(op.getDilations());
  if (!strides || !dilations)
    return std::nullopt;
  SmallVector<int64_t> xs(shapeOf(x)), ws(shapeOf(w)), ys(shapeOf(y));
  if (!grouped) {
    xs.insert(xs.begin() + 1, 1);
    ws.insert(ws.begin(), 1);
    ys.insert(ys.begin() + 1, 1);
  }
  if (xs.size() != 5 || ws.size() != 5 || ys.size() != 5)
    return std::nullopt;
  // x [N, G, C, H, W], w [G, F, C, KH, KW], y [N, G, F, OH, OW].
  if (xs[0] != ys[0] || xs[1] != ws[0] || ys[1] != ws[0] || ys[2] != ws[1] ||
      xs[2] != ws[2])
    return std::nullopt;
  ConvMatch match{op,
                  kSconv2d,
                  {x, w, y},
                  {xs[0], xs[1], xs[2], xs[3], xs[4], ws[1], ws[3], ws[4],
                   ys[3], ys[4], (*strides)[0], (*strides)[1], (*dilations)[0],
                   (*dilations)[1]}};
  if (!runtimeCanCompute(match.sizes))
    return std::nullopt;
  return match;
}

/// Adds `scale` times the linear form of `expr` (a sum of dimensions times
/// constants, plus a constant) to `coefficients` (one per dimension, then
/// the constant). False for anything not linear.
bool addLinear(AffineExpr expr, int64_t scale,
               SmallVectorImpl<int64_t> &coefficients) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    coefficients[dim.getPosition()] += scale;
    return true;
  }
  if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
    coefficients.back() += scale * constant.getValue();
    return true;
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return false;
  if (expr.getKind() == AffineExprKind::Add)
    return addLinear(binary.getLHS(), scale, coefficients) &&
           addLinear(binary.getRHS(), scale, coefficients);
  if (expr.getKind() == AffineExprKind::Mul) {
    if (auto constant = dyn_cast<AffineConstantExpr>(binary.getRHS()))
      return addLinear(binary.getLHS(), scale * constant.getValue(),
                       coefficients);
    if (auto constant = dyn_cast<AffineConstantExpr>(binary.getLHS()))
      return addLinear(binary.getRHS(), scale * constant.getValue(),
                       coefficients);
  }
  return false;
}

/// The stride and dilation of a window coordinate `expr` =
/// out * stride + kernel * dilation (dimensions `out` and `kernel` of
/// `numDims` loops), both at least 1.
std::optional<std::array<int64_t, 2>>
windowStep(AffineExpr expr, unsigned numDims, unsigned out, unsigned kernel) {
  SmallVector<int64_t> coefficients(numDims + 1, 0);
  if (!addLinear(expr, 1, coefficients))
    return std::nullopt;
  for (unsigned i = 0; i <= numDims; ++i)
    if (i != out && i != kernel && coefficients[i] != 0)
      return std::nullopt;
  if (coefficients[out] < 1 || coefficients[kernel] < 1)
    return std::nullopt;
  return std::array<int64_t, 2>{coefficients[out], coefficients[kernel]};
}

/// The body `yield acc + a * b` with {a, b} the two inputs (either order).
bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getNumArguments() != 3 || body.getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&body.front());
  auto add = mul ? dyn_cast<arith::AddFOp>(mul->getNextNode()) : nullptr;
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!mul || !add || !yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != add.getResult())
    return false;
  Value x = body.getArgument(0), dy = body.getArgument(1),
        acc = body.getArgument(2);
  bool products = (mul.getLhs() == x && mul.getRhs() == dy) ||
                  (mul.getLhs() == dy && mul.getRhs() == x);
  bool sum = (add.getLhs() == acc && add.getRhs() == mul.getResult()) ||
             (add.getLhs() == mul.getResult() && add.getRhs() == acc);
  return products && sum;
}

/// The filter gradient as remat-lower-to-linalg writes it. Loops:
/// d0 g, d1 f, d2 c, d3 kh, d4 kw (parallel), d5 n, d6 oh, d7 ow
/// (reductions); maps x (d5, d0, d2, d6 sh + d3 dh, d7 sw + d4 dw),
/// dy (d5, d0, d1, d6, d7), gw (d0, d1, d2, d3, d4) or, for one group,
/// (d1, d2, d3, d4).
std::optional<ConvMatch> matchFilterGrad(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 8)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned i = 0; i < 8; ++i)
    if (iterators[i] != (i < 5 ? utils::IteratorType::parallel
                               : utils::IteratorType::reduction))
      return std::nullopt;
  Value x = op.getDpsInputs()[0], dy = op.getDpsInputs()[1],
        gw = op.getDpsInits()[0];
  if (!isDenseF32(x) || !isDenseF32(dy) || !isDenseF32(gw) ||
      !isMultiplyAccumulate(op))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  auto dims = [&](ArrayRef<unsigned> positions) {
    SmallVector<AffineExpr> exprs;
    for (unsigned p : positions)
      exprs.push_back(getAffineDimExpr(p, ctx));
    return AffineMap::get(8, 0, exprs, ctx);
  };
  // gw is [G, F, C, KH, KW], or [F, C, KH, KW] for one group.
  bool grouped = maps[2] == dims({0, 1, 2, 3, 4});
  if (maps[1] != dims({5, 0, 1, 6, 7}) ||
      (!grouped && maps[2] != dims({1, 2, 3, 4})))
    return std::nullopt;
  AffineMap xMap = maps[0];
  if (xMap.getNumResults() != 5 ||
      xMap.getResult(0) != getAffineDimExpr(5, ctx) ||
      xMap.getResult(1) != getAffineDimExpr(0, ctx) ||
      xMap.getResult(2) != getAffineDimExpr(2, ctx))
    return std::nullopt;
  auto height = windowStep(xMap.getResult(3), 8, 6, 3);
  auto width = windowStep(xMap.getResult(4), 8, 7, 4);
  if (!height || !width)
    return std::nullopt;
  ArrayRef<int64_t> xs = shapeOf(x), ds = shapeOf(dy);
  SmallVector<int64_t> gs(shapeOf(gw));
  if (!grouped)
    gs.insert(gs.begin(), 1);
  // x [N, G, C, H, W], dy [N, G, F, OH, OW], gw [G, F, C, KH, KW].
  if (xs[0] != ds[0] || xs[1] != ds[1] || gs[0] != xs[1] || gs[1] != ds[2] ||
      gs[2] != xs[2])
    return std::nullopt;
  ConvMatch match{op,
                  kSconv2dFilterGrad,
                  {x, dy, gw},
                  {xs[0], xs[1], xs[2], xs[3], xs[4], gs[1], gs[3], gs[4],
                   ds[3], ds[4], (*height)[0], (*width)[0], (*height)[1],
                   (*width)[1]}};
  if (!runtimeCanCompute(match.sizes))
    return std::nullopt;
  return match;
}

/// The input gradient as remat-lower-to-linalg writes it (a scatter). Loops:
/// d0 n, d1 g, d2 c (parallel), d3 kh, d4 kw, d5 f, d6 oh, d7 ow
/// (reductions); maps w (d1, d5, d2, d3, d4), dy (d0, d1, d5, d6, d7),
/// dx (d0, d1, d2, d6 sh + d3 dh, d7 sw + d4 dw).
std::optional<ConvMatch> matchInputGrad(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 8)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned i = 0; i < 8; ++i)
    if (iterators[i] != (i < 3 ? utils::IteratorType::parallel
                               : utils::IteratorType::reduction))
      return std::nullopt;
  Value w = op.getDpsInputs()[0], dy = op.getDpsInputs()[1],
        dx = op.getDpsInits()[0];
  if (!isDenseF32(w) || !isDenseF32(dy) || !isDenseF32(dx) ||
      !isMultiplyAccumulate(op))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  auto dim = [&](unsigned p) { return getAffineDimExpr(p, ctx); };
  if (maps[0] != AffineMap::get(8, 0,
                                {dim(1), dim(5), dim(2), dim(3), dim(4)},
                                ctx) ||
      maps[1] != AffineMap::get(8, 0,
                                {dim(0), dim(1), dim(5), dim(6), dim(7)}, ctx))
    return std::nullopt;
  AffineMap dxMap = maps[2];
  if (dxMap.getNumResults() != 5 || dxMap.getResult(0) != dim(0) ||
      dxMap.getResult(1) != dim(1) || dxMap.getResult(2) != dim(2))
    return std::nullopt;
  auto height = windowStep(dxMap.getResult(3), 8, 6, 3);
  auto width = windowStep(dxMap.getResult(4), 8, 7, 4);
  if (!height || !width)
    return std::nullopt;
  ArrayRef<int64_t> ws = shapeOf(w), ds = shapeOf(dy), xs = shapeOf(dx);
  // w [G, F, C, KH, KW], dy [N, G, F, OH, OW], dx [N, G, C, H, W].
  if (xs[0] != ds[0] || xs[1] != ds[1] || ws[0] != xs[1] || ws[1] != ds[2] ||
      ws[2] != xs[2])
    return std::nullopt;
  ConvMatch match{op,
                  kSconv2dInputGrad,
                  {w, dy, dx},
                  {xs[0], xs[1], xs[2], xs[3], xs[4], ws[1], ws[3], ws[4],
                   ds[3], ds[4], (*height)[0], (*width)[0], (*height)[1],
                   (*width)[1]}};
  if (!runtimeCanCompute(match.sizes))
    return std::nullopt;
  return match;
}

/// The match on the CUDA path: the CUDA runtime's callee, and only when
/// every operand has fewer than 2^31 elements (cuDNN's descriptors take int
/// sizes and strides).
std::optional<ConvMatch> forCuda(ConvMatch match) {
  constexpr int64_t maxInt = std::numeric_limits<int>::max();
  for (Value operand : match.operands)
    if (cast<MemRefType>(operand.getType()).getNumElements() > maxInt)
      return std::nullopt;
  if (match.callee == kSconv2d)
    match.callee = kCudaSconv2d;
  else if (match.callee == kSconv2dInputGrad)
    match.callee = kCudaSconv2dInputGrad;
  else
    match.callee = kCudaSconv2dFilterGrad;
  return match;
}

std::optional<ConvMatch> matchAny(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation()))
    return matchNamed(conv, /*grouped=*/false);
  if (auto conv = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op.getOperation()))
    return matchNamed(conv, /*grouped=*/true);
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
    if (std::optional<ConvMatch> match = matchFilterGrad(generic))
      return match;
    return matchInputGrad(generic);
  }
  return std::nullopt;
}

} // namespace

std::optional<ConvMatch> remat::blas::matchConvolution(linalg::LinalgOp op,
                                                       bool cuda) {
  std::optional<ConvMatch> match = matchAny(op);
  if (!match || !cuda)
    return match;
  return forCuda(*match);
}

linalg::FillOp remat::blas::zeroFillBefore(const ConvMatch &match) {
  if (match.callee != kSconv2dFilterGrad)
    return nullptr;
  // The filter gradient's output, or the memref it is a reshaped view of (a
  // one-group gradient may be expanded to [G, F, C, KH, KW]): the fill must
  // zero exactly the elements the runtime then writes.
  Value gw = match.operands[2];
  SmallVector<Value, 2> outputs{gw};
  if (auto expand = gw.getDefiningOp<memref::ExpandShapeOp>())
    outputs.push_back(expand.getSrc());
  else if (auto collapse = gw.getDefiningOp<memref::CollapseShapeOp>())
    outputs.push_back(collapse.getSrc());
  for (Operation *op = match.op->getPrevNode(); op; op = op->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(op);
    if (!fill) {
      // Constants, views, metadata: nothing that reads or writes memory.
      if (isMemoryEffectFree(op) && op->getNumRegions() == 0)
        continue;
      return nullptr;
    }
    if (!fill.hasPureBufferSemantics() ||
        !llvm::is_contained(outputs, fill.getDpsInits()[0]))
      return nullptr;
    auto zero = fill.getDpsInputs()[0].getDefiningOp<arith::ConstantOp>();
    auto value = zero ? dyn_cast<FloatAttr>(zero.getValue()) : nullptr;
    // +0.0 only: a fill of -0.0 would give other bits where the sum is 0.
    if (!value || !value.getValue().isPosZero())
      return nullptr;
    return fill;
  }
  return nullptr;
}

FunctionType remat::blas::convolutionType(MLIRContext *ctx, bool cuda) {
  SmallVector<Type> inputs(14 + 2 * 3, IndexType::get(ctx));
  if (cuda)
    inputs.insert(inputs.begin(), gpu::AsyncTokenType::get(ctx));
  return FunctionType::get(ctx, inputs, {});
}

void remat::blas::rewriteConvolution(const ConvMatch &match,
                                     func::FuncOp callee, bool cuda) {
  Operation *op = match.op;
  OpBuilder builder(op);
  Location loc = op->getLoc();
  SmallVector<Value> operands;
  for (int64_t size : match.sizes)
    operands.push_back(arith::ConstantIndexOp::create(builder, loc, size));
  // Addresses as integers: the call's signature does not depend on how
  // memrefs cross function boundaries (bare pointers in remat-compile,
  // descriptors under mlir-runner).
  for (Value memref : match.operands) {
    operands.push_back(
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref));
    operands.push_back(
        memref::ExtractStridedMetadataOp::create(builder, loc, memref)
            .getOffset());
  }
  if (!cuda) {
    func::CallOp::create(builder, loc, callee, operands);
    op->erase();
    return;
  }
  Type token = gpu::AsyncTokenType::get(builder.getContext());
  Value stream =
      gpu::WaitOp::create(builder, loc, token, ValueRange{}).getAsyncToken();
  operands.insert(operands.begin(), stream);
  func::CallOp::create(builder, loc, callee, operands);
  gpu::WaitOp::create(builder, loc, Type(), ValueRange{stream});
  op->erase();
}
