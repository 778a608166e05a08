//===- CostExternalModels.cpp - costs for upstream ops ----------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Attaches RematCostOpInterface to upstream ops on tensors so that the remat
// analyses and schedulers also work on graphs of arith, math, linalg and
// tensor ops.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace remat;

namespace {

/// One op per result element: elementwise arith and math ops, and the data
/// movement of tensor ops.
template <typename OpTy>
struct ElementwiseCostModel
    : public RematCostOpInterface::ExternalModel<ElementwiseCostModel<OpTy>,
                                                 OpTy> {};

/// Data movement that creates no arithmetic: views and shape changes.
template <typename OpTy>
struct FreeCostModel
    : public RematCostOpInterface::ExternalModel<FreeCostModel<OpTy>, OpTy> {
  double getComputeCost(Operation *) const { return 0; }
};

/// Structured ops: one operation per point of the iteration space times the
/// number of arithmetic ops in the payload (at least one).
template <typename OpTy>
struct LinalgCostModel
    : public RematCostOpInterface::ExternalModel<LinalgCostModel<OpTy>, OpTy> {
  double getComputeCost(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    double points = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return getDefaultComputeCost(op);
      points *= static_cast<double>(range);
    }
    unsigned payload = 0;
    for (Operation &inner : linalgOp.getBlock()->without_terminator())
      if (!isa<linalg::IndexOp>(inner))
        ++payload;
    return points * std::max(1u, payload);
  }
};

template <template <typename> class Model, typename... Ops>
void attach(MLIRContext *ctx) {
  (Ops::template attachInterface<Model<Ops>>(*ctx), ...);
}

} // namespace

void remat::registerCostExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attach<ElementwiseCostModel, arith::AddFOp, arith::SubFOp, arith::MulFOp,
           arith::DivFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp, arith::NegFOp, arith::SelectOp,
           arith::CmpFOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
           arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp>(
        ctx);
    attach<FreeCostModel, arith::ConstantOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attach<ElementwiseCostModel, math::ExpOp, math::LogOp, math::TanhOp,
           math::SqrtOp, math::RsqrtOp, math::ErfOp, math::AbsFOp,
           math::PowFOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attach<LinalgCostModel, linalg::GenericOp, linalg::MatmulOp,
           linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp,
           linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp, linalg::ReduceOp,
           linalg::MapOp, linalg::TransposeOp, linalg::BroadcastOp>(ctx);
    attach<ElementwiseCostModel, linalg::FillOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    attach<FreeCostModel, tensor::EmptyOp, tensor::ExpandShapeOp,
           tensor::CollapseShapeOp, tensor::ReshapeOp, tensor::CastOp>(ctx);
    attach<ElementwiseCostModel, tensor::ExtractSliceOp, tensor::InsertSliceOp,
           tensor::PadOp, tensor::ConcatOp, tensor::GenerateOp>(ctx);
  });
}
