//===- LowerToLinalg.cpp - the --remat-lower-to-linalg pass -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"
#include "remat/Conversion/RematToLinalg/RematToLinalg.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace remat {
#define GEN_PASS_DEF_REMATLOWERTOLINALG
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// remat.keep is a scheduling hint without runtime meaning.
struct KeepLowering : OpConversionPattern<KeepOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(KeepOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerToLinalgPass
    : public remat::impl::RematLowerToLinalgBase<LowerToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool opaque = false;
    func.walk([&](OpaqueOp op) {
      op.emitError() << "remat.opaque '" << op.getName()
                     << "' has no semantics and cannot be lowered";
      opaque = true;
    });
    if (opaque)
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect>();
    target.addIllegalDialect<RematDialect>();
    // The recompute region stays closed; its body is lowered in place.
    target.addLegalOp<RecomputeOp, YieldOp>();
    RewritePatternSet patterns(ctx);
    populateRematToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(func, target, std::move(patterns))))
      return signalPassFailure();

    // Phases, parameter and state marks describe remat ops and tensor
    // arguments and results; none survives the lowering (remat.param and
    // remat.state would also be rejected on the memref arguments that
    // bufferization creates).
    StringRef phase = RematDialect::getPhaseAttrName();
    StringRef param = RematDialect::getParamAttrName();
    StringRef state = RematDialect::getStateAttrName();
    func.walk([&](Operation *op) {
      op->removeAttr(phase);
      if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
        for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
          fn.removeArgAttr(i, param);
          fn.removeArgAttr(i, state);
        }
        for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
          fn.removeResultAttr(i, StringAttr::get(fn.getContext(), state));
      }
    });
  }
};

} // namespace

void remat::populateRematToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<KeepLowering>(patterns.getContext());
  populateRematMatmulToLinalgPatterns(patterns);
  populateRematElementwiseToLinalgPatterns(patterns);
  populateRematSoftmaxToLinalgPatterns(patterns);
  populateRematShapeToLinalgPatterns(patterns);
  populateRematEmbeddingDropoutToLinalgPatterns(patterns);
  populateRematLossToLinalgPatterns(patterns);
  populateRematConvToLinalgPatterns(patterns);
  populateRematPoolToLinalgPatterns(patterns);
  populateRematNormToLinalgPatterns(patterns);
}
