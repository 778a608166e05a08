//===- CompareStrategies.cpp - every strategy on every step -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Dialect/Remat/Transforms/Reports.h"
#include "remat/Dialect/Remat/Transforms/TrainingGraph.h"
#include "remat/Scheduling/PlanReport.h"
#include "remat/Scheduling/Planner.h"

#include "remat/Scheduling/Strategies.h"

#include "llvm/Support/JSON.h"

namespace remat {
#define GEN_PASS_DEF_REMATCOMPARESTRATEGIES
#include "remat/Dialect/Remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;
using namespace remat::sched;

namespace {
struct CompareStrategiesPass
    : public remat::impl::RematCompareStrategiesBase<CompareStrategiesPass> {
  using Base::Base;

  /// Writes the frontier of `graph` (function `name`) as one JSON object;
  /// the chosen plan is the least peak within `limit` percent recompute.
  void writeFrontier(llvm::json::OStream &j, llvm::StringRef name,
                     const sched::Graph &graph, int64_t storeAllPeak,
                     double limit) {
    std::vector<std::string> notes;
    std::vector<sched::PlanResult> frontier =
        planFrontier(graph, notes, dpSlots);
    double fwd = graph.forwardCost();
    std::optional<size_t> chosen;
    for (auto [i, p] : llvm::enumerate(frontier))
      if (p.sim.recomputeCost <= limit / 100 * fwd * (1 + 1e-12) &&
          (!chosen || p.sim.peakBytes < frontier[*chosen].sim.peakBytes))
        chosen = i;
    j.object([&] {
      j.attribute("function", name);
      j.attribute("store_all_peak_bytes", storeAllPeak);
      j.attribute("forward_cost", fwd);
      j.attribute("max_recompute_percent", limit);
      if (chosen)
        j.attribute("chosen", static_cast<int64_t>(*chosen));
      j.attributeArray("frontier", [&] {
        for (const sched::PlanResult &p : frontier)
          writePlanJSON(j, p, graph, storeAllPeak);
      });
    });
  }

  /// The parsed `max-recompute`.
  double limit = 0;

  /// Checks the options once per pipeline run; errors have no location.
  LogicalResult initialize(MLIRContext *context) override {
    std::optional<double> parsed = parseRecomputeLimit(maxRecompute);
    if (!parsed || *parsed < 0)
      return emitError(UnknownLoc::get(context))
             << "max-recompute must be a non-negative percentage such as "
                "30%, got '"
             << maxRecompute << "'";
    limit = *parsed;
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    markAllAnalysesPreserved();
    if (func.isExternal())
      return;
    // Every function asks for the files it was given, so that they are
    // written (empty) even when nothing is planned.
    std::string table, json, frontier;
    auto finish = [&] {
      if (!this->table.empty())
        addFunctionReport(func, "remat-compare-strategies table", this->table,
                          ReportFormat::Text, table);
      if (!this->json.empty())
        addFunctionReport(func, "remat-compare-strategies json", this->json,
                          ReportFormat::Json, json);
      if (!pareto.empty())
        addFunctionReport(func, "remat-compare-strategies pareto", pareto,
                          ReportFormat::Json, frontier);
    };
    // Without backward annotations, the split inferred from the loss.
    FailureOr<std::optional<PhaseSplit>> seeded =
        getGradSeedSplit(func, gradSeed, lossResult);
    if (failed(seeded))
      return signalPassFailure();
    std::optional<PhaseSplit> split = std::move(*seeded);
    if (split)
      mlir::emitRemark(func.getLoc()) << describePhaseSplit(func, *split);
    else if (!isTrainingStep(func) && !isForwardOnlyGraph(func)) {
      std::string why;
      FailureOr<PhaseSplit> inferred = inferPhaseSplit(func, lossResult, why);
      if (failed(inferred)) {
        if (lossResult < 0)
          return finish();
        func.emitError() << "loss-result=" << static_cast<int64_t>(lossResult)
                         << " on @" << func.getSymName() << ": " << why;
        return signalPassFailure();
      }
      mlir::emitRemark(func.getLoc()) << describePhaseSplit(func, *inferred);
      split = std::move(*inferred);
    }
    FailureOr<TrainingGraph> tg =
        TrainingGraph::build(func, split ? &split->backward : nullptr);
    if (failed(tg))
      return signalPassFailure();
    std::vector<std::string> notes;
    std::vector<sched::PlanResult> plans =
        planAllStrategies(tg->graph, notes, dpSlots);
    ++numCompared;
    numPlans += plans.size();
    // The baseline is store-all in the input order (a strategy's plan may
    // be for the forward-first re-sequencing).
    sched::SimResult storeAllSim;
    sched::simulate(tg->graph, sched::storeAll(tg->graph), storeAllSim);
    int64_t storeAll = storeAllSim.peakBytes;
    for (const sched::PlanResult &p : plans)
      mlir::emitRemark(func.getLoc()) << describePlan(p, tg->graph, storeAll);
    auto label = [](llvm::StringRef note) {
      return note.starts_with(kOrderNotePrefix) ? "" : "declined: ";
    };
    for (const std::string &n : notes)
      mlir::emitRemark(func.getLoc()) << label(n) << n;
    if (!pareto.empty()) {
      llvm::raw_string_ostream os(frontier);
      llvm::json::OStream pj(os, 2);
      writeFrontier(pj, func.getSymName(), tg->graph, storeAll, limit);
    }
    table += formatPlanTable(func.getSymName(), plans, tg->graph, storeAll);
    for (const std::string &n : notes)
      table += "  " + (label(n) + n) + "\n";
    table += "\n";
    if (!this->json.empty()) {
      llvm::raw_string_ostream os(json);
      llvm::json::OStream j(os, 2);
      j.object([&] {
        j.attribute("function", func.getSymName());
        j.attributeArray("plans", [&] {
          for (const sched::PlanResult &p : plans)
            writePlanJSON(j, p, tg->graph, storeAll);
        });
        j.attributeArray("declined", [&] {
          for (const std::string &n : notes)
            j.value(n);
        });
      });
    }
    finish();
  }
};
} // namespace
