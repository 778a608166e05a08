//===- PlanReport.cpp - describing rematerialization plans ------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/PlanReport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace remat;
using namespace remat::sched;

static double percent(double part, double whole) {
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

/// A JSON number, or null for a value JSON cannot represent (inf, nan): the
/// report must stay JSON even if a cost overflowed (Graph::validate bounds
/// the costs so that it does not).
static llvm::json::Value jsonNumber(double value) {
  if (std::isfinite(value))
    return value;
  return nullptr;
}

std::string remat::sched::describePlan(const PlanResult &plan,
                                       const Graph &graph,
                                       int64_t storeAllPeak) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "plan '" << plan.strategy << "'";
  if (!plan.detail.empty())
    os << " (" << plan.detail << ")";
  os << ": peak activation bytes " << plan.sim.peakBytes << " (store-all "
     << storeAllPeak << ", ratio "
     << llvm::format("%.3f", storeAllPeak
                                 ? double(plan.sim.peakBytes) / storeAllPeak
                                 : 1.0)
     << "), total with arguments " << plan.sim.peakTotalBytes
     << ", recompute cost " << llvm::format("%.6g", plan.sim.recomputeCost)
     << " ("
     << llvm::format("%.1f",
                     percent(plan.sim.recomputeCost, graph.forwardCost()))
     << "% of forward), " << plan.sim.recomputeCount << " recomputed ops, "
     << "planned in " << llvm::format("%.3f", plan.planSeconds * 1e3) << " ms";
  if (const std::optional<BoundStats> &b = plan.bound)
    os << "; recompute lower bound " << llvm::format("%.6g", b->recomputeCost)
       << " ("
       << llvm::format("%.1f", percent(b->recomputeCost, graph.forwardCost()))
       << "% of forward), gap to bound " << llvm::format("%.1f", b->gapPercent)
       << "%" << (b->complete ? "" : " (bound cut short by its time limit)");
  return s;
}

void remat::sched::writePlanJSON(llvm::json::OStream &j, const PlanResult &plan,
                                 const Graph &graph, int64_t storeAllPeak) {
  j.object([&] {
    j.attribute("strategy", plan.strategy);
    j.attribute("detail", plan.detail);
    j.attribute("peak_activation_bytes", plan.sim.peakBytes);
    j.attribute("peak_total_bytes", plan.sim.peakTotalBytes);
    j.attribute("store_all_peak_bytes", storeAllPeak);
    j.attribute("recompute_cost", jsonNumber(plan.sim.recomputeCost));
    j.attribute("forward_cost", jsonNumber(graph.forwardCost()));
    j.attribute("recompute_percent", jsonNumber(percent(plan.sim.recomputeCost,
                                                        graph.forwardCost())));
    j.attribute("recomputed_ops",
                static_cast<int64_t>(plan.sim.recomputeCount));
    j.attribute("plan_seconds", jsonNumber(plan.planSeconds));
    j.attribute("resequenced_forward_first", !plan.order.empty());
    if (const std::optional<BoundStats> &b = plan.bound) {
      j.attribute("lower_bound", jsonNumber(b->recomputeCost));
      j.attribute("lower_bound_percent",
                  jsonNumber(percent(b->recomputeCost, graph.forwardCost())));
      j.attribute("gap_to_bound", jsonNumber(b->gapPercent));
      j.attribute("lower_bound_seconds", jsonNumber(b->seconds));
      j.attribute("lower_bound_complete", b->complete);
    }
    if (const std::optional<sched::SolverStats> &s = plan.solver) {
      j.attributeObject("solver", [&] {
        j.attribute("optimal", s->optimal);
        j.attribute("objective", s->objective);
        j.attribute("bound", s->bound);
        j.attribute("gap_percent", s->gapPercent);
        j.attribute("seconds", s->seconds);
        j.attribute("time_limit_seconds", s->timeLimitSeconds);
        j.attribute("warm_start", s->warmStarted);
        j.attribute("from_warm_start", s->fromWarmStart);
      });
    }
  });
}

std::string remat::sched::formatPlanTable(llvm::StringRef title,
                                          llvm::ArrayRef<PlanResult> plans,
                                          const Graph &graph,
                                          int64_t storeAllPeak) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << title << " (" << graph.size() << " ops, forward cost "
     << llvm::format("%.6g", graph.forwardCost()) << ")\n";
  os << llvm::format("%-16s %16s %7s %14s %8s %9s %10s  %s\n", "strategy",
                     "peak bytes", "ratio", "recompute", "recomp%", "rec. ops",
                     "plan ms", "detail");
  for (const PlanResult &p : plans)
    os << llvm::format(
        "%-16s %16lld %7.3f %14.6g %8.1f %9zu %10.3f  %s\n", p.strategy.c_str(),
        static_cast<long long>(p.sim.peakBytes),
        storeAllPeak ? double(p.sim.peakBytes) / storeAllPeak : 1.0,
        p.sim.recomputeCost, percent(p.sim.recomputeCost, graph.forwardCost()),
        p.sim.recomputeCount, p.planSeconds * 1e3, p.detail.c_str());
  return s;
}
