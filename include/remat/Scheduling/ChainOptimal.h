//===- ChainOptimal.h - Optimal checkpointing of chains ---------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A Rotor-style dynamic program (after Beaumont et al. 2019, "Optimal
/// checkpointing for heterogeneous chains") over the chain model of Chain.h:
/// every stage has its own forward and taped-forward cost, boundary, tape and
/// peak sizes. Opt(s, t, m) is the least recompute cost of reversing stages
/// s..t with their input position s-1 available, in m memory, where either
///  - stage s is taped (its input dropped unless its backward reads it), and
///    s+1..t are reversed with position s covered by the tape, then stage s
///    is reversed; or
///  - the schedule advances from s-1 to some j in [s, t), checkpoints j,
///    reverses j+1..t with j owned by that subproblem (freed once stage j+1
///    is taped), and then reverses s..j in the same memory.
/// The input position is either owned by the subproblem or covered by an
/// outer tape (free); both variants are tabulated. Forward executions before
/// the first backward are the original forward pass and cost nothing.
///
/// What "optimal" means here, precisely. The result is the cheapest
/// schedule of the chain model of Chain.h among its *nested persistent*
/// schedules: no stage runs forward while a tape of a later stage or a
/// checkpoint at or after its own position is held (nothing is precomputed
/// for a later backward phase), and a checkpoint is only dropped once the
/// stage it feeds is taped (not dropped and recomputed later). An exhaustive
/// search over that class agrees with the DP on small random chains (unit
/// tests); the unrestricted model occasionally admits cheaper schedules
/// (about 1 case in 300 there), e.g. when a later backward phase holds more
/// gradient bytes.
///
/// Memory is exact: every table row Opt(., s, t, .) is a step function of
/// the budget in bytes (it only changes where some sum of sizes is reached),
/// so the DP's result is the optimum of that class for the budget, with no
/// rounding. When the rows grow long (a budget holding many hundred values of
/// different sizes; more than 16 breakpoints per row on average) the exact
/// table is slower than a discretised one and the DP falls back to S memory
/// slots (sizes in their greatest common divisor, budget/S per slot when that
/// exceeds S slots): sizes rounded to the nearest slot first, the schedule
/// kept if it fits in bytes (else re-solved with the overshoot taken off),
/// finally every size rounded up, which is conservative. Chains longer than
/// `maxStages` are coarsened for the DP; see `chainOptimal` for how the
/// strategy stays exact on homogeneous chains of any length.
///
/// On a homogeneous chain whose model is Revolve's (equal boundaries, one
/// tape at a time, a gradient live from the first backward on), the
/// binomial schedule lies in the nested persistent class, so the DP's cost
/// at the binomial schedule's peak equals Revolve's t(l, c) (Revolve.h), and
/// one byte less gives t(l, c - 1): the unit tests check both against the
/// closed form. On chains where tapes are as small as checkpoints (the
/// usual training chain) the model admits more than Revolve's (a taped stage
/// is kept instead of checkpointed and re-taped) and the DP is cheaper.
///
/// The chain model over-approximates `simulate`'s peak, so the schedule fits
/// the budget in `simulate` (which `chainOptimal` checks) but is not claimed
/// optimal for the graph itself.
///
/// Cost: O(L^3 P) time and O(L^2 P) memory for L stages and P breakpoints
/// per row (P is about the number of boundaries the budget holds: 9 for a
/// 300-stage chain at 3x its least memory, 0.3-1 s of CPU for L = 100, a few
/// seconds for L = 300 on the development machine); the discretised
/// fallback is O(L^3 S).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_CHAINOPTIMAL_H
#define REMAT_SCHEDULING_CHAINOPTIMAL_H

#include "remat/Scheduling/Chain.h"

#include <cstdint>

namespace remat {
namespace sched {

struct ChainOptimalOptions {
  /// Memory slots of the discretisation (S).
  unsigned slots = 500;
  /// Chains with more stages are coarsened to this many first.
  unsigned maxStages = 300;
};

/// Outcome of the dynamic program on a chain.
struct ChainSolution {
  /// A schedule fits `modelBudget` in the discretised model.
  bool feasible = false;
  /// The model's recompute cost of `actions` (first sweep free).
  double cost = 0;
  ChainSchedule actions;
  /// Least model memory (bytes, pinned excluded) any schedule of the model
  /// needs on this chain, computed exactly (without discretisation).
  int64_t minModelBytes = 0;
  /// Solved exactly (in bytes, or with one slot per unit); otherwise sizes
  /// were rounded to `slots`.
  bool exact = false;
  /// Slots used and bytes per slot (budget / slots); 0 when solved in bytes.
  unsigned slots = 0;
  double slotBytes = 0;
};

/// The least model memory (bytes, pinned excluded) needed to reverse `chain`
/// at all. O(L^3).
int64_t chainMinModelBytes(const StageChain &chain);

/// A schedule reaching chainMinModelBytes (at every step the first option of
/// least memory; not the cheapest such schedule).
ChainSchedule chainMinMemorySchedule(const StageChain &chain);

/// Runs the dynamic program on `chain` as is (no coarsening) for a model
/// budget in bytes (pinned bytes excluded). Sizes are measured in their
/// greatest common divisor; budgets of at most `slots` = S units are solved
/// over one slot per unit (exact, fastest), larger ones exactly in bytes
/// unless the rows grow too long or `tryExact` is false, then over S slots.
ChainSolution solveChainOptimal(const StageChain &chain, int64_t modelBudget,
                                unsigned slots = 500, bool tryExact = true);

/// The whole strategy on `graph` for `budgetBytes` (in SimResult::peakBytes
/// units, pinned forward nodes included). Builds the stage chain, coarsens it
/// to `options.maxStages` stages if longer, and judges every candidate by
/// `simulate` (the cheapest whose simulated peak fits wins):
///  - the DP at the budget (the model over-approximates simulate, so its plan
///    fits) and, as the model can be far from tight on DAGs (a stage's sizes
///    are per-stage maxima), at up to three larger model budgets found by
///    bisection;
///  - the binomial schedule on the uncoarsened chain with the most slots
///    whose simulated peak fits (bisection over the slots): optimal on
///    homogeneous chains of any length (Revolve.h), and what makes the
///    strategy never decline a budget Revolve meets nor recompute more than
///    Revolve at Revolve's peak, on any graph.
/// On heterogeneous chains longer than `maxStages` the result is not claimed
/// optimal (the DP sees merged stages only). Cost: up to four DP solves plus
/// O(log L) binomial schedules of O(t(L, c)) steps, each materialised and
/// simulated. Returns `infeasible` with `minFeasibleBytes` (the least
/// simulated peak among the model's minimum-memory plan and the one-slot
/// binomial schedule) when nothing fits.
ChainPlan chainOptimal(const Graph &graph, int64_t budgetBytes,
                       const ChainOptimalOptions &options = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_CHAINOPTIMAL_H
