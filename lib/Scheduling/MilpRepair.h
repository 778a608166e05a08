//===- MilpRepair.h - Repairs of plans by windows of stages -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to lib/Scheduling: the window proofs and repairs of MilpRepair.cpp
/// that `milpOptimal` (Milp.cpp) calls directly. Only built with CBC.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_SCHEDULING_MILPREPAIR_H
#define REMAT_LIB_SCHEDULING_MILPREPAIR_H

#ifdef REMAT_HAVE_CBC

#include "remat/Scheduling/Graph.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace remat::sched::detail {

/// Windows of stages that prove `budget` infeasible on a forward-only graph
/// within `seconds` (MilpRepair.cpp, kWindowSteps): returns the first and
/// last node of the first window whose least peak is above the budget.
std::optional<std::pair<unsigned, unsigned>>
windowProvesInfeasible(const Graph &graph, int64_t budget, double seconds);

/// Large-neighbourhood search for a plan within `budget` on a forward-only
/// graph (`milpOptimal` when no plan given fits the budget). From `seed`
/// (each list put in index order, the stage model's order), it repeatedly
/// re-plans the stages around a step at the peak (radii kRepairRadii)
/// inside the rest of the plan, whose lists stay (`windowBoundary`: only
/// what the plan has resident entering the window may enter it, and what
/// the stages after it read must leave it, so no other step holds more
/// than it does now), asking CBC for the least peak of those stages within
/// kRepairSolveSeconds. A solution is kept when its simulated `Excess` is
/// smaller; a step where every radius gives nothing is not chosen again. It
/// stops within the budget (returning the plan), out of time, or out of
/// steps. Every plan it keeps is checked by `simulate`; nothing it does is
/// a proof. With `maxNodes` >= 0 each solve stops at that many CBC nodes
/// instead of after kRepairSolveSeconds (only the overall `seconds` still
/// bound it): given time enough, the same plan on every run.
///
/// Training graphs (forward pass first) are repaired the same way over their
/// backward stages: a peak in the forward pass frees the first backward
/// stages, whose model has the forward pass's rows (any forward value may
/// then enter them). With `best`, the plan with the smallest excess found is
/// stored there even when it misses the budget (`milpLowerPeak`). With
/// `candidateCap` > 0 each window may recompute only that many forward nodes
/// (`milpRecomputeCandidates`) and only the values it may read, enter or
/// leave with get variables (`restrictWindow`): on random_layered_n500 the
/// whole windows exceed kMilpMaxNonzeros from 13 stages on. `cuts` false
/// runs CBC without its cut generators (with `maxNodes`, so that the node
/// limit bounds each solve's work: its root passes are not counted).
std::optional<Schedule> repairToBudget(const Graph &graph, int64_t budget,
                                       Schedule seed, double seconds,
                                       unsigned &solves, int64_t maxNodes = -1,
                                       Schedule *best = nullptr,
                                       unsigned candidateCap = 0,
                                       bool cuts = true);

/// Lowers the recompute cost of `plan`, a forward-only schedule within
/// `budget`, by the same large-neighbourhood search as `repairToBudget`: a
/// sweep re-plans windows of kRecomputeWindow stages in turn inside the
/// rest of the plan, asking CBC for the least recompute of the window
/// within the budget; a solution is kept when it simulates within the
/// budget at a lower cost. Sweeps repeat while one gains and time is left.
/// With `maxNodes` >= 0 each solve stops at that many CBC nodes, without
/// CBC's cuts, instead of after kRepairSolveSeconds (only `seconds` still
/// bounds the whole), and a window whose last solve ended on its own on the
/// same plan is not solved again: given time enough, the same plan on every
/// run, whatever the machine's load.
void cutRepairedRecompute(const Graph &graph, int64_t budget, Schedule &plan,
                          double seconds, unsigned &solves,
                          int64_t maxNodes = -1);

} // namespace remat::sched::detail

#endif // REMAT_HAVE_CBC

#endif // REMAT_LIB_SCHEDULING_MILPREPAIR_H
