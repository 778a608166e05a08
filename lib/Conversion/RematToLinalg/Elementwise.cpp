//===- Elementwise.cpp - elementwise remat ops to linalg --------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Binary ops with numpy broadcasting (constant-0 indexing for size-1
// dimensions that broadcast), unary activations and the activation
// gradients, each to one all-parallel linalg.generic computing in f32.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/RematToLinalg/LoweringUtils.h"
#include "remat/Conversion/RematToLinalg/RematToLinalg.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace remat;

namespace {

using ScalarFn = Value (*)(OpBuilder &, Location, ValueRange);

/// Replaces an op by one elementwise generic over its result whose body is
/// `Fn` applied to the (broadcast) operand scalars.
template <typename OpTy, ScalarFn Fn>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value result = buildElementwise(rewriter, op.getLoc(), resultType,
                                    adaptor.getOperands(), Fn);
    rewriter.replaceOp(op, result);
    return success();
  }
};

Value cst(OpBuilder &b, Location loc, double v) {
  return createF32Constant(b, loc, v);
}

Value addFn(OpBuilder &b, Location loc, ValueRange a) {
  return arith::AddFOp::create(b, loc, a[0], a[1]);
}
Value subFn(OpBuilder &b, Location loc, ValueRange a) {
  return arith::SubFOp::create(b, loc, a[0], a[1]);
}
Value mulFn(OpBuilder &b, Location loc, ValueRange a) {
  return arith::MulFOp::create(b, loc, a[0], a[1]);
}
Value divFn(OpBuilder &b, Location loc, ValueRange a) {
  return arith::DivFOp::create(b, loc, a[0], a[1]);
}

Value reluFn(OpBuilder &b, Location loc, ValueRange a) {
  return arith::MaximumFOp::create(b, loc, a[0], cst(b, loc, 0.0));
}

/// min(max(x, 0), 6).
Value relu6Fn(OpBuilder &b, Location loc, ValueRange a) {
  Value r = arith::MaximumFOp::create(b, loc, a[0], cst(b, loc, 0.0));
  return arith::MinimumFOp::create(b, loc, r, cst(b, loc, 6.0));
}

/// sqrt(2 / pi) and the cubic coefficient of the tanh approximation of gelu.
constexpr double kGeluScale = 0.7978845608028654;
constexpr double kGeluCubic = 0.044715;

/// tanh(sqrt(2/pi) (x + 0.044715 x^3)).
Value geluTanh(OpBuilder &b, Location loc, Value x) {
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value x3 = arith::MulFOp::create(b, loc, x2, x);
  Value inner = arith::AddFOp::create(
      b, loc, x, arith::MulFOp::create(b, loc, cst(b, loc, kGeluCubic), x3));
  Value u = arith::MulFOp::create(b, loc, cst(b, loc, kGeluScale), inner);
  return math::TanhOp::create(b, loc, u);
}

/// 0.5 x (1 + t).
Value geluFn(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Value t = geluTanh(b, loc, x);
  Value onePlusT = arith::AddFOp::create(b, loc, cst(b, loc, 1.0), t);
  Value halfX = arith::MulFOp::create(b, loc, cst(b, loc, 0.5), x);
  return arith::MulFOp::create(b, loc, halfX, onePlusT);
}

/// 1 / sqrt(2) and 1 / sqrt(2 pi), for the exact GELU.
constexpr double kRsqrt2 = 0.70710678118654752440;
constexpr double kRsqrt2Pi = 0.39894228040143267794;

/// Phi(x) = 0.5 (1 + erf(x / sqrt(2))), the standard normal distribution
/// function (math.erf: erff from libm on the host, __nv_erff in kernels).
/// Ops are created one statement at a time: the order of nested calls'
/// arguments is unspecified in C++, and gcc and clang builds would print the
/// body in different orders.
Value normalCdf(OpBuilder &b, Location loc, Value x) {
  Value rsqrt2 = cst(b, loc, kRsqrt2);
  Value e = math::ErfOp::create(b, loc,
                                arith::MulFOp::create(b, loc, rsqrt2, x));
  Value one = cst(b, loc, 1.0);
  Value sum = arith::AddFOp::create(b, loc, one, e);
  Value half = cst(b, loc, 0.5);
  return arith::MulFOp::create(b, loc, half, sum);
}

/// x Phi(x).
Value geluErfFn(OpBuilder &b, Location loc, ValueRange a) {
  return arith::MulFOp::create(b, loc, a[0], normalCdf(b, loc, a[0]));
}

Value tanhFn(OpBuilder &b, Location loc, ValueRange a) {
  return math::TanhOp::create(b, loc, a[0]);
}

/// 1 / (1 + exp(-x)).
Value sigmoidFn(OpBuilder &b, Location loc, ValueRange a) {
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
  Value den = arith::AddFOp::create(b, loc, cst(b, loc, 1.0), e);
  return arith::DivFOp::create(b, loc, cst(b, loc, 1.0), den);
}

Value expFn(OpBuilder &b, Location loc, ValueRange a) {
  return math::ExpOp::create(b, loc, a[0]);
}
Value logFn(OpBuilder &b, Location loc, ValueRange a) {
  return math::LogOp::create(b, loc, a[0]);
}
Value negFn(OpBuilder &b, Location loc, ValueRange a) {
  return arith::NegFOp::create(b, loc, a[0]);
}

/// dy if x > 0 else 0.
Value reluGradFn(OpBuilder &b, Location loc, ValueRange a) {
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a[1],
                                    cst(b, loc, 0.0));
  return arith::SelectOp::create(b, loc, pos, a[0], cst(b, loc, 0.0));
}

/// dy if 0 < x < 6 else 0.
Value relu6GradFn(OpBuilder &b, Location loc, ValueRange a) {
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a[1],
                                    cst(b, loc, 0.0));
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a[1],
                                      cst(b, loc, 6.0));
  Value inside = arith::AndIOp::create(b, loc, pos, below);
  return arith::SelectOp::create(b, loc, inside, a[0], cst(b, loc, 0.0));
}

/// dy * (0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)),
/// the derivative of the tanh approximation.
Value geluGradFn(OpBuilder &b, Location loc, ValueRange a) {
  Value dy = a[0], x = a[1];
  Value t = geluTanh(b, loc, x);
  Value half = cst(b, loc, 0.5), one = cst(b, loc, 1.0);
  Value left = arith::MulFOp::create(b, loc, half,
                                     arith::AddFOp::create(b, loc, one, t));
  Value sech2 =
      arith::SubFOp::create(b, loc, one, arith::MulFOp::create(b, loc, t, t));
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value du = arith::MulFOp::create(
      b, loc, cst(b, loc, kGeluScale),
      arith::AddFOp::create(
          b, loc, one,
          arith::MulFOp::create(b, loc, cst(b, loc, 3.0 * kGeluCubic), x2)));
  Value sech2Du = arith::MulFOp::create(b, loc, sech2, du);
  Value halfX = arith::MulFOp::create(b, loc, half, x);
  Value right = arith::MulFOp::create(b, loc, halfX, sech2Du);
  Value d = arith::AddFOp::create(b, loc, left, right);
  return arith::MulFOp::create(b, loc, dy, d);
}

/// dy * (Phi(x) + x phi(x)) with phi(x) = exp(-x^2 / 2) / sqrt(2 pi), the
/// derivative of x Phi(x).
Value geluErfGradFn(OpBuilder &b, Location loc, ValueRange a) {
  Value dy = a[0], x = a[1];
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value minusHalf = cst(b, loc, -0.5);
  Value e = math::ExpOp::create(b, loc,
                                arith::MulFOp::create(b, loc, minusHalf, x2));
  Value rsqrt2Pi = cst(b, loc, kRsqrt2Pi);
  Value density = arith::MulFOp::create(b, loc, rsqrt2Pi, e);
  Value xDensity = arith::MulFOp::create(b, loc, x, density);
  Value d =
      arith::AddFOp::create(b, loc, normalCdf(b, loc, x), xDensity);
  return arith::MulFOp::create(b, loc, dy, d);
}

/// dy * (1 - y^2).
Value tanhGradFn(OpBuilder &b, Location loc, ValueRange a) {
  Value y2 = arith::MulFOp::create(b, loc, a[1], a[1]);
  Value d = arith::SubFOp::create(b, loc, cst(b, loc, 1.0), y2);
  return arith::MulFOp::create(b, loc, a[0], d);
}

/// dy * y * (1 - y).
Value sigmoidGradFn(OpBuilder &b, Location loc, ValueRange a) {
  Value oneMinusY = arith::SubFOp::create(b, loc, cst(b, loc, 1.0), a[1]);
  Value d = arith::MulFOp::create(b, loc, a[1], oneMinusY);
  return arith::MulFOp::create(b, loc, a[0], d);
}

} // namespace

void remat::populateRematElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<
      ElementwiseLowering<AddOp, addFn>, ElementwiseLowering<SubOp, subFn>,
      ElementwiseLowering<MulOp, mulFn>, ElementwiseLowering<DivOp, divFn>,
      ElementwiseLowering<ReluOp, reluFn>,
      ElementwiseLowering<Relu6Op, relu6Fn>, ElementwiseLowering<GeluOp, geluFn>,
      ElementwiseLowering<GeluErfOp, geluErfFn>,
      ElementwiseLowering<TanhOp, tanhFn>,
      ElementwiseLowering<SigmoidOp, sigmoidFn>,
      ElementwiseLowering<ExpOp, expFn>, ElementwiseLowering<LogOp, logFn>,
      ElementwiseLowering<NegOp, negFn>,
      ElementwiseLowering<ReluGradOp, reluGradFn>,
      ElementwiseLowering<Relu6GradOp, relu6GradFn>,
      ElementwiseLowering<GeluGradOp, geluGradFn>,
      ElementwiseLowering<GeluErfGradOp, geluErfGradFn>,
      ElementwiseLowering<TanhGradOp, tanhGradFn>,
      ElementwiseLowering<SigmoidGradOp, sigmoidGradFn>>(patterns.getContext());
}
