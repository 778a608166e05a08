//===- Revolve.h - Binomial checkpointing (Revolve) -------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Revolve (Griewank & Walther, "Algorithm 799: Revolve", 2000) on a
/// homogeneous chain of `l` steps with `c` checkpoint slots ("snaps").
///
/// Counting convention. The slot count `c` includes the slot holding the
/// initial state (position 0): with c = 1 only the start is stored and step k
/// is reached by advancing from 0 again for every k. A "forward" is one
/// single-step advance (an `Advance a->b` action counts b - a) that keeps
/// only the resulting state; the advances of the initial sweep (0 -> l-1) are
/// counted, the l taped forwards that precede the l backward steps are not.
/// With this convention the minimum over all schedules is
///   t(l, c) = r*l - beta(c+1, r-1),  beta(s, r) = C(s+r, s),
/// with r the unique integer such that beta(c, r-1) < l <= beta(c, r)
/// (beta(s, -1) = 0), and `revolveSchedule` attains it.
///
/// On a graph's stage chain (`revolve`), the initial sweep is the original
/// forward pass, so the recomputations are the t(L, c) - (L-1) non-initial
/// advances plus the L-1 re-taped stages 1..L-1: exactly t(L, c) stage
/// executions, which is what `SimResult::recomputeCount` counts on a chain
/// whose stages are single nodes.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_REVOLVE_H
#define REMAT_SCHEDULING_REVOLVE_H

#include "remat/Scheduling/Chain.h"

#include <cstdint>

namespace remat {
namespace sched {

/// beta(s, r) = C(s + r, s) for r >= 0, 0 for r = -1; saturates at
/// UINT64_MAX.
uint64_t revolveBeta(unsigned s, int r);

/// The closed form t(l, c) above (0 for l <= 1). `c` must be >= 1.
uint64_t revolveMinForwards(uint64_t l, unsigned c);

/// The binomial schedule reversing `l` steps with `c >= 1` slots: starts with
/// `Checkpoint 0`, ends with `Free 0`, never holds more than `c` checkpoints,
/// and performs exactly revolveMinForwards(l, c) forwards. Slots beyond `l`
/// are not used. O(number of actions) = O(l) actions for c >= 2.
ChainSchedule revolveSchedule(unsigned l, unsigned c);

/// The number of forwards `revolveSchedule(l, c)` performs, obtained by
/// running the same generator without storing the actions.
uint64_t revolveScheduleForwards(unsigned l, unsigned c);

/// Revolve on the stage chain of `graph` with `checkpoints` stored boundaries
/// besides the (free) graph inputs, i.e. revolveSchedule(L, checkpoints + 1).
/// The stages are treated as homogeneous whatever their actual costs and
/// sizes. Declines (ok = false) on graphs that are not reversible chains.
/// Plans every chain of `buildStageChains` (Chain.h) and keeps the least
/// simulated peak.
ChainPlan revolve(const Graph &graph, unsigned checkpoints);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_REVOLVE_H
