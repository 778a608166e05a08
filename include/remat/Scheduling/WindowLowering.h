//===- WindowLowering.h - Interval solutions as schedules -------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The interval program of some steps (StepProgram.h, LowerBound.h
/// `solveIntervalSteps`, docs/Scheduling.md step 5f) says, per step, which
/// values are held live there, and pays every window between two steps for
/// the values it executes. Its solution is a plan too: `lowerByWindows`
/// walks the nodes in order; after each step, every value the step concerns
/// that the solution does not hold live there loses its instance; before
/// each node from the first backward node on, each operand without an
/// instance is recomputed in that node's list, after its own missing
/// operands; a value the solution holds at a step and no node of the window
/// before it read is rebuilt in the step's own list. A value is so executed
/// at most once per window, and only where the solution executes it, so the
/// schedule never recomputes more than the solution pays. A kept
/// set (KeptSet.h) cannot say this: it holds a value recomputed once to its
/// last reader, or recomputes it before every reader.
///
/// The program only counts memory at its steps, so the lowering may
/// overflow the budget between them. `intervalWindowPlan` starts from one
/// step; while the lowering overflows, it adds the step where it peaks (the
/// step before it when the peak is in the recomputation list of a step
/// already in; when the peak comes before the first step, where nothing is
/// dropped, the first step moves there) and solves again, with few
/// branch-and-bound nodes, up to `WindowPlanOptions::maxSteps` steps
/// (fewer when a solution already costs more than the caller's plan,
/// `WindowPlanOptions::stopAboveCost`). The
/// steps whose lowering first fits are solved once more with more nodes
/// (`finalNodes`): on these programs the cheaper solutions come late in the
/// search. Every schedule it returns is simulated within the budget.
///
/// On ResNet-50 at 0.5 of store-all (bench/bound-results.md, r50b) the
/// steps {539, 694, 737, 792} are found this way, and their program's
/// solution at 30 nodes lowers to 2.040% of the forward within the budget,
/// where `auto`'s kept-set search ends at 2.156%. The outcome is sensitive
/// to the first step and the node counts (the branch and bound stops far
/// from the optimum: other first steps end at 2.10-2.13%).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_WINDOWLOWERING_H
#define REMAT_SCHEDULING_WINDOWLOWERING_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/LowerBound.h"

#include <cstdint>
#include <optional>

namespace remat {
namespace sched {

/// The schedule of `solution` (see above). Values that are never
/// recomputed (`isAlwaysKept`, backward values) never lose their instance.
/// Runs in O(nodes + operand references + dropped values).
Schedule lowerByWindows(const Graph &graph, const IntervalSolution &solution);

/// Limits of `intervalWindowPlan`.
struct WindowPlanOptions {
  /// At most this many steps in the interval program.
  unsigned maxSteps = 5;
  /// Split nodes of each interval program's branch and bound while steps
  /// are added (0: only the time limit), the deterministic limit.
  unsigned maxNodes = 5;
  /// Split nodes of the program of the first steps whose lowering fits,
  /// solved once more when this exceeds `maxNodes`: its cheaper solutions
  /// are found late in the search, and fit or not.
  unsigned finalNodes = 30;
  /// Wall-time safety cap of all the programs together.
  double seconds = 4;
  /// When a program whose lowering overflows has a solution dearer than
  /// this (`Node::cost` units; 0: no limit, which a caller whose plan costs
  /// nothing never needs: no window plan is sought then), no step is added.
  /// A heuristic, for the time: a step only adds rows, so the program's
  /// optimum never falls, but the solution compared is the node-limited
  /// branch and bound's best, not its bound, and may lie far above the
  /// optimum (ResNet-50 0.4: 9.58% against a bound of 5.67%).
  double stopAboveCost = 0;
};

/// What `intervalWindowPlan` did.
struct WindowPlanStats {
  /// Interval programs solved and the steps of the last.
  unsigned programs = 0;
  std::vector<unsigned> steps;
  /// The largest of the programs' bounds. Each bounds the recompute after
  /// its own first step, and the first step only moves earlier, so this
  /// bounds the recompute after the last program's first step.
  double bound = 0;
  /// The cost of the solution whose lowering is returned (`Node::cost`
  /// units; the lowering recomputes at most this).
  double cost = 0;
  /// The wall-time cap (`WindowPlanOptions::seconds`) ended the search: a
  /// program was cut short by it, or steps were not added or the final
  /// program not solved for want of time. The outcome then depends on the
  /// machine's speed and load, not on the node limits alone.
  bool timedOut = false;
  /// No step was added because a solution cost more than
  /// `WindowPlanOptions::stopAboveCost`.
  bool aboveCost = false;
};

/// The cheapest schedule within `budgetBytes` found by lowering the
/// solutions of interval programs of steps starting with `firstStep`
/// (see above); none when no lowering fits. Each returned schedule has
/// been simulated within the budget.
std::optional<Schedule> intervalWindowPlan(const Graph &graph,
                                           int64_t budgetBytes,
                                           unsigned firstStep,
                                           const WindowPlanOptions &options,
                                           WindowPlanStats *stats = nullptr);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_WINDOWLOWERING_H
