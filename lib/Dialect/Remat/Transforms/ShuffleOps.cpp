//===- ShuffleOps.cpp - re-sequence a training step's ops -------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Dialect/Remat/Transforms/TrainingGraph.h"
#include "remat/Scheduling/Phases.h"

namespace remat {
#define GEN_PASS_DEF_REMATSHUFFLEOPS
#include "remat/Dialect/Remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
struct ShuffleOpsPass
    : public remat::impl::RematShuffleOpsBase<ShuffleOpsPass> {
  using Base::Base;

  sched::OrderShuffle how = sched::OrderShuffle::Interleave;

  /// Checks the options once per pipeline run; errors have no location.
  LogicalResult initialize(MLIRContext *context) override {
    if (mode == "interleave")
      how = sched::OrderShuffle::Interleave;
    else if (mode == "topological")
      how = sched::OrderShuffle::Topological;
    else if (mode == "forward-first")
      how = sched::OrderShuffle::ForwardFirst;
    else
      return emitError(UnknownLoc::get(context))
             << "unknown mode '" << mode
             << "'; expected interleave, topological or forward-first";
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    // The split as the planning passes find it.
    FailureOr<std::optional<PhaseSplit>> seeded =
        getGradSeedSplit(func, gradSeed, lossResult);
    if (failed(seeded))
      return signalPassFailure();
    std::optional<PhaseSplit> split = std::move(*seeded);
    if (!split && !isTrainingStep(func) && !isForwardOnlyGraph(func)) {
      std::string why;
      FailureOr<PhaseSplit> inferred = inferPhaseSplit(func, lossResult, why);
      if (failed(inferred))
        return markAllAnalysesPreserved();
      split = std::move(*inferred);
    }
    FailureOr<TrainingGraph> tg =
        TrainingGraph::build(func, split ? &split->backward : nullptr);
    if (failed(tg))
      return signalPassFailure();
    std::vector<unsigned> order = sched::shuffledOrder(tg->graph, how, seed);
    unsigned moved = 0;
    for (auto [i, node] : llvm::enumerate(order))
      moved += node != i;
    reorderOps(*tg, order);
    mlir::emitRemark(func.getLoc())
        << "ops shuffled (" << mode << ", seed " << static_cast<unsigned>(seed)
        << "): " << moved << " of " << order.size() << " ops moved";
  }
};
} // namespace
