//===- CompareStrategies.cpp - every strategy on every step -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/Passes.h"
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

  void runOnOperation() override {
    std::optional<double> limit = parseRecomputeLimit(maxRecompute);
    if (!limit || *limit < 0) {
      getOperation().emitError()
          << "max-recompute must be a non-negative percentage such as 30%, "
             "got '"
          << maxRecompute << "'";
      return signalPassFailure();
    }
    std::string paretoText;
    llvm::raw_string_ostream paretoOs(paretoText);
    llvm::json::OStream pj(paretoOs, 2);
    pj.arrayBegin();
    std::string table, json;
    llvm::raw_string_ostream jsonOs(json);
    llvm::json::OStream j(jsonOs, 2);
    j.arrayBegin();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // Without backward annotations, the split inferred from the loss.
      std::optional<PhaseSplit> split;
      if (!isTrainingStep(func) && !isForwardOnlyGraph(func)) {
        std::string why;
        FailureOr<PhaseSplit> inferred = inferPhaseSplit(func, lossResult, why);
        if (failed(inferred)) {
          if (lossResult < 0)
            continue;
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
      if (!pareto.empty())
        writeFrontier(pj, func.getSymName(), tg->graph, storeAll, *limit);
      table += formatPlanTable(func.getSymName(), plans, tg->graph, storeAll);
      for (const std::string &n : notes)
        table += "  " + (label(n) + n) + "\n";
      table += "\n";
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
    j.arrayEnd();
    jsonOs << "\n";
    markAllAnalysesPreserved();
    if (!this->table.empty() &&
        failed(writeReportFile(getOperation(), this->table, table)))
      return signalPassFailure();
    if (!this->json.empty() && failed(writeReportFile(getOperation(), this->json, json)))
      return signalPassFailure();
    pj.arrayEnd();
    paretoOs << "\n";
    if (!pareto.empty() &&
        failed(writeReportFile(getOperation(), pareto, paretoText)))
      return signalPassFailure();
  }
};
} // namespace
