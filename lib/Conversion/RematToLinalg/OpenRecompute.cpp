//===- OpenRecompute.cpp - the --remat-open-recompute pass ------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/PatternMatch.h"

namespace remat {
#define GEN_PASS_DEF_REMATOPENRECOMPUTE
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// Moves the body of `op` in front of it and replaces its results by the
/// yielded values.
void openRecompute(RewriterBase &rewriter, RecomputeOp op) {
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  // A yielded block argument stands for the matching input.
  SmallVector<Value> yielded;
  for (Value v : yield.getValues()) {
    auto arg = dyn_cast<BlockArgument>(v);
    yielded.push_back(arg && arg.getOwner() == &body
                          ? op.getInputs()[arg.getArgNumber()]
                          : v);
  }
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&body, op, op.getInputs());
  rewriter.replaceOp(op, yielded);
}

struct OpenRecomputePass
    : public remat::impl::RematOpenRecomputeBase<OpenRecomputePass> {
  using Base::Base;

  void runOnOperation() override {
    // Post-order: nested recompute ops are opened before their parents.
    SmallVector<RecomputeOp> ops;
    getOperation().walk([&](RecomputeOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (RecomputeOp op : ops) {
      rewriter.setInsertionPoint(op);
      openRecompute(rewriter, op);
      ++numOpened;
    }
  }
};

} // namespace
