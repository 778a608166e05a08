//===- Rematerialize.cpp - plan and rewrite a training step -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Dialect/Remat/IR/Diagnostics.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Dialect/Remat/Transforms/PlanAttr.h"
#include "remat/Dialect/Remat/Transforms/Reports.h"
#include "remat/Dialect/Remat/Transforms/TrainingGraph.h"
#include "remat/Dialect/Remat/Transforms/VerifySchedule.h"
#include "remat/Scheduling/PlanReport.h"
#include "remat/Scheduling/Planner.h"

#include "llvm/Support/JSON.h"

namespace remat {
#define GEN_PASS_DEF_REMATREMATERIALIZE
#include "remat/Dialect/Remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;
using namespace remat::sched;

namespace {
struct RematerializePass
    : public remat::impl::RematRematerializeBase<RematerializePass> {
  using Base::Base;

  /// The parsed `max-recompute` (-1: none).
  double maxRecomputePercent = -1;

  /// Checks the options once per pipeline run; errors have no location.
  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    if (!llvm::is_contained(getStrategyNames(), StringRef(strategy)))
      return emitError(loc) << "unknown strategy '" << strategy
                            << "'; expected one of: "
                            << llvm::join(getStrategyNames(), ", ");
    std::optional<double> limit = parseRecomputeLimit(maxRecompute);
    if (!limit)
      return emitError(loc)
             << "max-recompute must be a non-negative percentage such as "
                "30%, got '"
             << maxRecompute << "'";
    maxRecomputePercent = *limit;
    if (budget < 0)
      return emitError(loc) << "budget must be >= 0 bytes";
    if (!(timeLimit > 0))
      return emitError(loc) << "time-limit must be positive, got "
                            << timeLimit;
    if (!(lowerBound >= 0))
      return emitError(loc) << "lower-bound must be >= 0 seconds, got "
                            << lowerBound;
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    // With report-json=, every function asks for the file, so that it is
    // written (as an empty array) even when nothing is planned.
    std::string json;
    auto finish = [&](LogicalResult result) {
      if (failed(result))
        return signalPassFailure();
      if (!reportJson.empty())
        addFunctionReport(func, "remat-rematerialize report-json", reportJson,
                          ReportFormat::Json, json);
    };
    // A gradient seed: phases from the dependences on it.
    FailureOr<std::optional<PhaseSplit>> seeded =
        getGradSeedSplit(func, gradSeed, lossResult);
    if (failed(seeded))
      return signalPassFailure();
    if (*seeded) {
      mlir::emitRemark(func.getLoc()) << describePhaseSplit(func, **seeded);
      return finish(runOnFunction(func, json, &**seeded));
    }
    if (isTrainingStep(func) || isForwardOnlyGraph(func))
      return finish(runOnFunction(func, json, nullptr));
    // No backward annotations: infer the split from the loss.
    std::string why;
    FailureOr<PhaseSplit> split = inferPhaseSplit(func, lossResult, why);
    if (failed(split)) {
      if (budget <= 0 && lossResult < 0) {
        // Nothing was asked of this function.
        markAllAnalysesPreserved();
        return finish(success());
      }
      InFlightDiagnostic diag = func.emitError();
      if (budget > 0)
        diag << "budget of " << static_cast<int64_t>(budget) << " bytes on @"
             << func.getSymName() << ", ";
      else
        diag << "loss-result=" << static_cast<int64_t>(lossResult) << " on @"
             << func.getSymName() << ", ";
      diag << "which has no backward ops (#remat.phase<backward>), no "
              "gradient seed (remat.grad_seed, grad-seed=) and is not a "
              "forward-only graph (remat.forward_only): cannot infer its "
              "forward/backward split: "
           << why;
      return signalPassFailure();
    }
    mlir::emitRemark(func.getLoc()) << describePhaseSplit(func, *split);
    finish(runOnFunction(func, json, &*split));
  }

  /// Plans and rewrites `func`; with `split`, its inferred phases are the
  /// split and are written on the ops before the rewrite.
  /// Renders the function's report into `json`.
  LogicalResult runOnFunction(func::FuncOp func, std::string &json,
                              const PhaseSplit *split) {
    FailureOr<TrainingGraph> tg =
        TrainingGraph::build(func, split ? &split->backward : nullptr);
    if (failed(tg))
      return failure();
    // The rewritten IR is measured by the memory analysis: refuse up front
    // what it cannot measure (ops with regions), instead of naming a
    // smallest budget that every rewrite then fails on.
    if (MemoryAnalysis before(func); !before.isValid())
      return emitCompactError(before.getErrorOp()) << before.getError();
    PlannerOptions options;
    options.strategy = strategy;
    options.budget = budget;
    options.slots = slots;
    options.threshold = threshold;
    options.dpSlots = dpSlots;
    options.timeLimitSeconds = timeLimit;
    options.maxRecomputePercent = maxRecomputePercent;
    options.boundSeconds = lowerBound;
    llvm::Expected<PlannerResult> planned =
        planRematerialization(tg->graph, options);
    if (!planned)
      return emitCompactError(func) << llvm::toString(planned.takeError());
    const PlannerResult &result = *planned;
    const sched::PlanResult &plan = result.plan;
    if (!plan.order.empty()) {
      // The plan is for the forward-first re-sequencing of the ops (the
      // input placed forward ops among the backward ones): move them.
      reorderOps(*tg, plan.order);
      tg = TrainingGraph::build(func, split ? &split->backward : nullptr);
      if (failed(tg))
        return failure();
    }
    if (split)
      annotatePhases(*split);
    // With verify=true, a detached copy of the function before the rewrite
    // for the independent verifier.
    OwningOpRef<func::FuncOp> original;
    if (verify)
      original = func.clone();
    FailureOr<unsigned> recomputed = applySchedule(*tg, plan.schedule);
    if (failed(recomputed))
      return failure();
    // The rewrite invalidated the ops of `tg`, not its scheduling graph: the
    // reports below describe the plan with `graph`.
    const sched::Graph &graph = tg->graph;
    std::string summary = describePlan(plan, graph, result.storeAllPeak);
    if (!plan.order.empty())
      summary += "; ops re-sequenced forward-first";
    // The peak of the rewritten IR, by the independent liveness analysis.
    MemoryAnalysis analysis(func);
    if (!analysis.isValid())
      return analysis.getErrorOp()->emitError() << analysis.getError();
    mlir::emitRemark(func.getLoc()) << summary << "; peak in the rewritten IR "
                      << analysis.getPeakBytes() << " bytes";
    for (const std::string &note : result.notes)
      mlir::emitRemark(func.getLoc()) << "note: " << note;
    if (verify && failed(verifySchedule(func, *original, budget)))
      return failure();
    DictionaryAttr planAttr =
        buildPlanAttr(func.getContext(), plan, graph, result.storeAllPeak);
    if (annotate)
      func->setAttr(RematDialect::getPlanAttrName(), planAttr);
    ++numPlanned;
    numRecomputedOps += *recomputed;
    numBytesSaved +=
        std::max<int64_t>(0, result.storeAllPeak - plan.sim.peakBytes);
    numValuesKept += cast<ArrayAttr>(planAttr.get("kept")).size();
    if (reportJson.empty())
      return success();
    llvm::raw_string_ostream os(json);
    llvm::json::OStream j(os, 2);
    j.object([&] {
      j.attribute("function", func.getSymName());
      j.attribute("ir_peak_activation_bytes", analysis.getPeakBytes());
      j.attributeBegin("plan");
      writePlanJSON(j, plan, graph, result.storeAllPeak);
      j.attributeEnd();
    });
    return success();
  }
};
} // namespace
