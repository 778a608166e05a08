//===- StepProgram.h - A step's cut as an integer program -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The cut problem of one step of the recompute lower bound (LowerBound.h,
/// docs/Scheduling.md "Lower bounds on recompute", steps 2-4) solved as an
/// integer program instead of relaxed with a multiplier: per value v,
/// binaries live(v) and recomputed(v);
///
///   minimise   sum cost(v) recomputed(v)
///   subject to live(v) + recomputed(v) >= 1          (v needed)
///              recomputed(v) <= live(u) + recomputed(u)  (u an operand of v)
///              recomputed(v) = 0                     (v never recomputed)
///              sum bytes(v) live(v) <= cap.
///
/// Every closed pair (L, R) within the cap is a solution of it, so any lower
/// bound on its optimum bounds the step's cut problem, and so the recompute
/// of every schedule within the budget. `solveStepProgram` runs a branch and
/// bound over CLP's LP relaxation with one count row per class of values of
/// equal cost: a node branches on the count of the dearest class whose count
/// is fractional (at most its floor / at least its ceiling), else on the
/// dearest fractional column; a node's bound is the weak-duality value of
/// its LP's dual vector with clamped signs (valid for any dual vector), so
/// the least bound over the open nodes and the best solution holds when the
/// search is cut short. On a transformer's
/// layers the multiplier's relaxation mixes two cuts that differ by whole
/// attention chains; the integer program has no such mix (GPT-12 at 0.6 of
/// store-all: 0.93% of the forward relaxed, 1.204% exact, against a plan of
/// 1.208%).
///
/// Joint steps. The cut problems of steps t_1 < .. < t_K over the same values
/// (one program per step, each with its own needed and pinned values,
/// operands and cap) joined by one cost: a schedule within the budget gives
/// a closed pair within the cap at every step, and every value any of them
/// recomputes is executed again after t_1, so
///
///   minimise   sum cost(v) recomputed(v)
///   subject to each step's rows over live_j(v), recomputed_j(v)
///              recomputed(v) >= recomputed_j(v)
///
/// bounds the recompute after t_1. A single cut only has to fit its own
/// step; this one has to fit all of them with one set of paid
/// recomputations (encoder-12 at 0.6 of store-all: the end of the forward
/// and the first backward steps need different cheap values dropped).
///
/// Interval steps. The joint program pays a value once however often it is
/// executed. Take instead the windows between the steps: window j holds the
/// lists of the nodes after t_j up to t_{j+1} (the last window: to the end),
/// and e_j(v) says v is executed in window j. A value read by a node of
/// window j is live at t_j or executed in window j before that read; a
/// value live at t_{j+1} and made before t_j was live at t_j or executed in
/// window j; an execution in window j reads instances live at t_j or made
/// in window j. So, over the same values,
///
///   minimise   sum_j sum_v cost(v) e_j(v)
///   subject to live_j(v) + e_j(v) >= 1        (v read in window j)
///              e_j(v) <= live_j(u) + e_j(u)   (u an operand of v)
///              live_{j+1}(v) <= live_j(v) + e_j(v)   (v concerns both)
///              each step's rows over live_j(v), recomputed_j(v)
///              recomputed_j(v) <= e_j(v) + ... + e_K(v)
///
/// bounds the recompute after t_1: windows are disjoint in time, so a value
/// executed in two of them is paid twice. On ResNet-50 at 0.4-0.5 of
/// store-all a cut at the start of the backward recomputes the first
/// stage's residual stream once; the stage's own backward needs it again
/// at the end, where it can be neither held nor rebuilt for free.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_STEPPROGRAM_H
#define REMAT_SCHEDULING_STEPPROGRAM_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat {
namespace sched {

/// One step's cut problem over its relevant values (local indices).
struct StepProgram {
  /// Cost of recomputing each value (any unit; the result is in the same).
  std::vector<double> cost;
  /// Bytes each value holds when live.
  std::vector<int64_t> bytes;
  /// Values that must be live or recomputed.
  std::vector<bool> needed;
  /// Values never recomputed (live when needed or read by a recomputation).
  std::vector<bool> pinned;
  /// Per value, the values a recomputation of it reads (empty for pinned
  /// values).
  std::vector<std::vector<unsigned>> operands;
  /// The bytes the live values may hold.
  int64_t cap = 0;
};

/// What the branch and bound proved about a `StepProgram`.
struct StepProgramResult {
  /// A lower bound on the least cost of a solution (already lowered by a
  /// relative margin for the solver's tolerances).
  double bound = 0;
  /// The search finished: `bound` is the optimum (up to the margin).
  bool optimal = false;
  /// The recomputed values of the best solution found (empty: none found),
  /// and its cost.
  std::vector<bool> recomputed;
  double solutionCost = -1;
  /// `solveIntervalStepProgram` only: per step, the values the best
  /// solution holds live there and those it executes in the step's window
  /// (empty when none was found).
  std::vector<std::vector<bool>> live, executed;
  /// Nodes of the branch and bound that were split or solved.
  unsigned nodes = 0;
};

/// One step of an interval program (see above), over the values of all
/// its steps: `program` is the step's own cut problem (its rows hold too,
/// with recomputed(v) at most v's executions in the windows from this step
/// on), `readInWindow` the values read by a node of the step's window,
/// `relevant` the values the step concerns (made before it): only a value
/// relevant at two consecutive steps has its live column at the later one
/// bounded by the earlier one. A value pinned in `program` is not executed
/// in the window.
struct IntervalStep {
  StepProgram program;
  std::vector<bool> readInWindow;
  std::vector<bool> relevant;
};

/// Whether `solveStepProgram` and `solveJointStepProgram` can run (remat was
/// built with CBC, which brings CLP).
bool stepProgramAvailable();

/// Solves `program` within `seconds` of wall time and, when `maxNodes` is
/// not 0, at most `maxNodes` split nodes (a deterministic limit: under it
/// the result does not depend on the machine's speed as long as `seconds`
/// is not reached). nullopt: built without CLP, or no bound and no solution
/// (the program is infeasible, left to the multiplier's own proof, or no LP
/// was solved).
std::optional<StepProgramResult> solveStepProgram(const StepProgram &program,
                                                  double seconds,
                                                  unsigned maxNodes = 0);

/// The joint program of `steps` (see above), by the same branch and bound
/// (count rows and branches on the joint recomputations); all programs
/// have the same values (indices, `cost` and `bytes` of the first). The
/// result's `recomputed` is the union of the steps' recomputations of the
/// best solution. One program: `solveStepProgram`.
std::optional<StepProgramResult>
solveJointStepProgram(llvm::ArrayRef<StepProgram> steps, double seconds,
                      unsigned maxNodes = 0);

/// The interval program of `steps` (in the order of the steps, see above)
/// by the same branch and bound. The result's `recomputed` holds the values
/// its best solution executes in some window, `solutionCost` that
/// solution's cost (every execution paid), and `live` / `executed` the
/// solution step by step. With `maxNodes` (a caller that wants solutions,
/// WindowLowering.h) the search also rounds LP points at a half, searches
/// locally from each rounding and dives from the root (StepProgram.cpp);
/// without it the time goes to the tree, for the bound.
///
/// `maxExecutions` (empty, or one entry per value; ~0u: none) caps the
/// windows that execute a value: sum_j e_j(v) <= maxExecutions[v]. The
/// windows are disjoint in time, so a schedule that executes v at most c
/// times after the first step gives a point of the program with the row;
/// the bound then holds for those schedules only (a case of a split,
/// CaseSplitBound.h).
std::optional<StepProgramResult>
solveIntervalStepProgram(llvm::ArrayRef<IntervalStep> steps, double seconds,
                         unsigned maxNodes = 0,
                         llvm::ArrayRef<unsigned> maxExecutions = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_STEPPROGRAM_H
