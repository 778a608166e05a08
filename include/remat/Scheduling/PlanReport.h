//===- PlanReport.h - Describing rematerialization plans --------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Text and JSON renderings of plans, shared by the passes' remarks and
/// reports, the tools and the benchmark.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_PLANREPORT_H
#define REMAT_SCHEDULING_PLANREPORT_H

#include "remat/Scheduling/Plan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace llvm {
namespace json {
class OStream;
} // namespace json
} // namespace llvm

namespace remat {
namespace sched {

/// One line describing a plan: strategy, peak against store-all, recompute
/// cost as a percentage of the forward cost, recomputed ops, planning time.
std::string describePlan(const PlanResult &plan, const Graph &graph,
                         int64_t storeAllPeak);

/// Writes `plan` as a JSON object.
void writePlanJSON(llvm::json::OStream &j, const PlanResult &plan,
                   const Graph &graph, int64_t storeAllPeak);

/// A fixed-width table of plans, one row per plan.
std::string formatPlanTable(llvm::StringRef title,
                            llvm::ArrayRef<PlanResult> plans,
                            const Graph &graph, int64_t storeAllPeak);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_PLANREPORT_H
