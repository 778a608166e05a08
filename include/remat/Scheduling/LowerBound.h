//===- LowerBound.h - Lower bounds on recompute and peak --------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Lower bounds that hold for every schedule of remat's model (Graph.h), so
/// that a plan's distance from the optimum can be bounded on graphs far too
/// large for the exact MILP.
///
/// The cut bound at a step. Take the execution of node t in the original
/// order. Every forward value v made before t (index < t) and read by some
/// node at index >= t is, at that moment, either held by a live instance or
/// executed again after t (an instance made before t that serves a read at
/// or after t is live during t). A value recomputed after t needs each
/// forward operand in the same way: live at t or recomputed after t (graph
/// inputs are resident). Values t itself reads (and, in a training graph
/// before its first backward node, values read before the first backward
/// node, where nothing may be recomputed) must be live, as must values that
/// are never recomputed (`noRecompute`, `keep`). Backward values made before
/// t and read at or after t, t's own result and its workspace are live
/// too, whatever the schedule. A value is not recomputed after t either
/// when every list where the execution serving those reads could run
/// overflows the budget with the value, its workspace, its recomputable
/// operands and the backward and never-recomputed values live there
/// (`LowerBoundOptions::recomputeMemory`). So, with L the live forward
/// values and R the values not live at t and executed again after t,
///
///   bytes(L) <= budget - fixed(t),   recompute cost >= cost(R),
///
/// and the least cost(R) over closed (L, R) within that memory is a lower
/// bound on the recompute of every schedule whose peak is within `budget`.
/// That least cost is a cut problem with one knapsack row; relaxing the row
/// with a multiplier lambda >= 0 gives, for every lambda,
///
///   cost(R) >= mincut(lambda) - lambda * (budget - fixed(t)),
///
/// mincut(lambda) the minimum over closed (L, R) of cost(R) + lambda *
/// bytes(L), a minimum s-t cut (the network of MinCut.h with v_in -> v_out of
/// capacity lambda * bytes). The bound maximises over lambda (a concave
/// piecewise-linear function; its breakpoints are found by intersecting
/// cut lines) and over steps t. The multiplier leaves a gap where a few
/// large values decide the cut; at the steps whose cut within the cap
/// costs more than their bound, a best-first branch and bound fixes one
/// value live or not live per split (the largest on which the two cuts of
/// the final multiplier differ) and bounds each leaf the same way; the
/// least leaf bound holds for every closed pair within the cap, since each
/// respects the fixes of one leaf. A maximum flow never exceeds the minimum
/// cut, so using the flow value keeps the bound valid under rounding. Memory is
/// counted as the simulator counts it: the returned part of an output node
/// never counts, so it is left out.
///
/// Exact steps. At the steps with the best bounds the same cut problem is
/// also solved as an integer program (StepProgram.h): a branch and bound
/// over its LP with class counts as rows, whose bound holds when cut short.
///
/// Windows. The same argument for the recomputations executed after node t
/// and before node t + 1 (the list of t + 1): the values t + 1 reads that
/// were made before t are live at t or recomputed in that window, with
/// their operands. Windows are disjoint in time, so the bounds of all
/// windows add up, and they add to the bound of a cut to the end at a step
/// after them. The result is the larger of the sum of the windows and the
/// best (windows before t) + (cut from t to the end).
///
/// Joint LP (optional, `LowerBoundOptions::jointSteps`). The cuts of several
/// steps share one LP: a value live at a later step was live at an earlier
/// one or executed in between, and executions in different intervals are
/// different, so one LP bounds the recompute after the first step. Its
/// value is the weak-duality value of CLP's dual solution.
///
/// The same argument without recomputation gives the least-peak bound: at
/// step t the forced values, t's result and the live backward values are
/// live in every schedule.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_LOWERBOUND_H
#define REMAT_SCHEDULING_LOWERBOUND_H

#include "remat/Scheduling/Graph.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace remat {
namespace sched {

/// Limits of `recomputeLowerBound`.
struct LowerBoundOptions {
  /// Wall-time limit in seconds for the cut bounds (the windows first, up
  /// to half of it, then cuts to the end in decreasing order of the bytes
  /// they would have to shed, up to three quarters, then the branch and
  /// bound; the bound of the cuts made so far is returned when time runs
  /// out). <= 0: no limit.
  double timeLimitSeconds = 2;
  /// At most this many steps get a cut to the end (0: all that could give
  /// a positive bound).
  unsigned maxSteps = 0;
  /// Splits of the branch and bound on the knapsack row at each step
  /// whose cut to the end could raise the bound (0: no branch and bound).
  unsigned maxSplits = 64;
  /// At the root of each step's branch and bound, also bound the two sides
  /// of a disjunction on how many values of a class of equal cost the cut
  /// recomputes (at most k, or at least k + 1, with k the floor of the
  /// fractional count at the best multiplier): splits on single values of
  /// a class of identical values (a transformer's layers) hardly move the
  /// bound, the count does.
  bool cardinality = true;
  /// Deterministic work limit (0: none): at most this many step evaluations
  /// in all (windows up to half of it, then cuts to the end up to three
  /// quarters) and a quarter of it in branch-and-bound splits. Unlike the
  /// time limit, the bound and its cut then do not depend on the machine's
  /// speed or load; the time limit still applies as a safety cap.
  unsigned maxEvaluations = 0;
  /// Steps of the joint LP over steps (docs/Scheduling.md), solved after
  /// the single steps within 0.9 of the time limit; 0 or 1: none. It needs
  /// CLP (built with CBC). Off by default: on the exported and published
  /// graphs it never raised the bound above the single steps and windows.
  unsigned jointSteps = 0;
  /// Charge the memory a recomputation needs (docs/Scheduling.md, step
  /// 3b): a value is not recomputed after a step when every list where its
  /// execution could serve the reads overflows the budget with its result,
  /// its workspace, its recomputable operands and what is live in every
  /// schedule there. Off only to compare with the bound without it.
  bool recomputeMemory = true;
  /// After the rest, this many more splits of the branch and bound at the
  /// step that gives the bound (a single step's cut to the end), for a
  /// cheaper cut within the cap there (`LowerBound::cutRecomputed`, a seed
  /// for planners; the multiplier search often leaves a poor one), when the
  /// cut found there costs more than 25% above that step's bound or none
  /// was found. 0: none.
  unsigned cutSplits = 0;
  /// After the single steps, solve the cut problem of up to this many steps
  /// (those with the best bounds) as an integer program (a branch and bound
  /// over CLP's LPs, StepProgram.h), after the branch and bound on the
  /// knapsack row (which then stops at 0.85 of the time limit), until 0.98
  /// of it. Only with a time limit, and without `maxEvaluations` unless
  /// `exactStepNodes` is set; 0 or no CLP (built without CBC): none.
  unsigned exactSteps = 4;
  /// At most this many split nodes per exact step program (0: none, only
  /// the time). With `maxEvaluations` the exact steps run only with it, as
  /// the deterministic limit (the time limit stays a safety cap), so that
  /// their solution can seed planners (`cutRecomputed`) without making the
  /// plan depend on the machine's load.
  unsigned exactStepNodes = 0;
  /// With the exact steps timed (not under `maxEvaluations`), which then
  /// stop at 0.9 of the time limit, until 0.98 of it: up to this many steps in
  /// one joint program (StepProgram.h, `solveJointStepProgram`): the step that
  /// gives the bound, and each step where the best cut found so far,
  /// lowered as a kept set (`lowerKeptSet`), peaks over the budget. 0 or 1:
  /// none (the library's default); the exact MILP's bound uses 8
  /// (`kMilpBoundJointSteps`, Milp.h, with interval steps); the bound the
  /// planner reports (`PlannerOptions::boundSeconds`) and remat-bench use 4:
  /// measured on the whole bound table (bench/bound-results.md), 28 of 30
  /// budgets within 5% against 26.
  unsigned jointExactSteps = 0;
  /// The joint steps' program pays each window between two steps for the
  /// values it executes (StepProgram.h, `solveIntervalStepProgram`) instead
  /// of each value once (`solveJointStepProgram`). Its LP is never below
  /// the joint program's, but it is larger and gets fewer nodes in the
  /// joint steps' 0.08 of the time limit: with 8 s, ResNet-50 at 0.5 / 0.6
  /// of store-all 1.95 -> 1.98% / 0.55 -> 0.56% of the forward, encoder-12
  /// at 0.6 13.42 -> 13.35% (docs/Scheduling.md step 5f). Off by default.
  bool intervalSteps = false;
  /// With joint exact steps: when the best cut found so far, lowered as a
  /// kept set, peaks at a step already in the joint program, the step where
  /// it overflows the budget most among those not yet in joins instead of
  /// the loop stopping there.
  bool jointOverflowSteps = true;
  /// With `intervalSteps`, the step that joins next is found in the last
  /// joint program's solution lowered by windows (`lowerByWindows`,
  /// WindowLowering.h: each value executed where the solution pays for it)
  /// instead of its cut lowered as a kept set (each value recomputed once).
  /// VGG U-Net at 0.4 of store-all: 43.97% of the forward (the optimum)
  /// with 4 steps in 0.8 s, against 6 steps and 5.9 s (milp20).
  bool jointWindowTrace = true;
  /// With joint exact steps and `intervalSteps` (so only the exact MILP's
  /// bounds): when the step added does not raise the bound,
  /// the steps next to those already in (one before, one after each) are
  /// tried instead, each with half of the time left, and the program that
  /// bounds highest goes on. resnet_n4 at 0.4 of store-all: the steps
  /// {83, 84} at the end of the backward (the first convolution's output
  /// executed twice), 13.19 -> 21.2% of the forward in 2 s (milp20).
  bool jointNeighbourSteps = true;
  /// A case of a split (CaseSplitBound.h): pairs (node, k) saying that the
  /// schedules bounded recompute that forward node at most k times (execute
  /// it at most k times after its forward execution). Only the interval
  /// programs (`intervalSteps`) use it, as a row over the node's executions
  /// in their windows (StepProgram.h, `solveIntervalStepProgram`'s
  /// `maxExecutions`); with it the bound holds for those schedules only.
  /// Empty: every schedule.
  std::vector<std::pair<unsigned, unsigned>> maxRecomputations;
  /// Test hook (unset outside tests): the seconds elapsed since the start
  /// of `recomputeLowerBound`, read in place of the steady clock by every
  /// check of the time limit's shares. The solvers (CLP, StepProgram.h)
  /// keep their own clocks and get the time left on this one as their
  /// limit. `recomputeLowerBoundAnyOrder` passes it to both orders' runs.
  std::function<double()> elapsedForTest;
};

/// A solution of the interval program of some steps (StepProgram.h,
/// `solveIntervalStepProgram`, docs/Scheduling.md step 5f) in graph terms.
struct IntervalSolution {
  /// The steps (node indices, increasing).
  std::vector<unsigned> steps;
  /// Per step, the forward values made before it that the step concerns
  /// (read at or after it, or an ancestor of one) and the solution does not
  /// hold live there (graph indices, increasing).
  std::vector<std::vector<unsigned>> dropped;
  /// Per step, the values the step concerns that the solution holds live
  /// there (graph indices, increasing).
  std::vector<std::vector<unsigned>> held;
  /// Per step, the values the solution executes in its window (after the
  /// step, up to the next one; the last to the end), graph indices,
  /// increasing.
  std::vector<std::vector<unsigned>> executed;
  /// The solution's cost (every execution in every window paid) and the
  /// program's bound on the recompute after the first step of every
  /// schedule within the budget, both in the units of `Node::cost`.
  double cost = 0;
  double bound = 0;
  bool optimal = false;
  /// Split nodes of the branch and bound.
  unsigned nodes = 0;
};

/// A lower bound and how it was found.
struct LowerBound {
  /// No schedule has a peak within the budget: the least-peak bound
  /// exceeds it, or some step's least memory does.
  bool infeasible = false;
  /// Lower bound on the recompute cost (the units of `Node::cost`) of every
  /// schedule whose activation peak is within the budget (0 if infeasible).
  double recomputeCost = 0;
  /// Lower bound on the activation peak of every schedule, whatever its
  /// recompute.
  int64_t peakBytes = 0;
  /// The step whose cut to the end gives `recomputeCost` with the windows
  /// before it (the graph's size: the windows alone).
  unsigned step = 0;
  /// A bound on part of a schedule: in every schedule whose peak is within
  /// the budget, the recomputations in the lists of nodes `first` to `last`
  /// (inclusive) cost at least `cost`. One per window and per cut to the
  /// end that gave a positive bound (the cut at step t bounds the lists of
  /// t + 1 to the last node); the exact MILP adds them as rows. Empty when
  /// infeasible, and from `recomputeLowerBoundAnyOrder` when it compared
  /// two orders (each order's ranges hold for its own plans only).
  struct Range {
    unsigned first, last;
    double cost;
  };
  std::vector<Range> ranges;
  /// Cuts computed (windows and cuts to the end), and cuts that could give
  /// a positive bound (the window or step holds more than the budget when
  /// nothing is recomputed).
  unsigned stepsEvaluated = 0;
  unsigned stepsCandidate = 0;
  /// Branch-and-bound splits made (each solves two fixed cut problems).
  unsigned splits = 0;
  /// Steps whose cut problem CBC bounded (`LowerBoundOptions::exactSteps`).
  unsigned exactSteps = 0;
  /// Steps of the joint program that gives `recomputeCost` (0: none,
  /// `LowerBoundOptions::jointExactSteps`); `step` is then its first step
  /// and `cutRecomputed` its best solution, a cut that fits every one of
  /// its steps.
  unsigned jointExactSteps = 0;
  /// With `LowerBoundOptions::intervalSteps`, that program's best solution
  /// (its `steps` empty when none was found): each value executed in each
  /// window, which `lowerByWindows` (WindowLowering.h) makes a schedule.
  /// On VGG U-Net at 0.4 of store-all (6 steps) it fits the budget at the
  /// bound, where the cut lowered as a kept set does not (milp20). Empty
  /// from `recomputeLowerBoundAnyOrder` when the forward-first order gives
  /// the bound (its windows are that order's).
  IntervalSolution jointSolution;
  /// Steps of the joint LP (0: not solved), and whether it gives
  /// `recomputeCost`.
  unsigned jointSteps = 0;
  bool fromJoint = false;
  /// `recomputeLowerBoundAnyOrder` with two orders: the bound of the
  /// stronger one (it bounds the plans of that order only); -1 otherwise.
  double strongerOrderCost = -1;
  /// The cheapest cut within the budget found at `step` when a single
  /// step's cut gives `recomputeCost` (not the windows alone, not the joint
  /// LP): the forward values it leaves not live at `step` and recomputes
  /// after it (node indices of the graph passed in, increasing), and its
  /// cost, an upper bound on that step's cut problem (not on schedules:
  /// it ignores every other step), or -1 when none was found. A seed for
  /// planners and a witness of how loose the bound is at that step.
  std::vector<unsigned> cutRecomputed;
  double cutCost = -1;
  /// With `LowerBoundOptions::cutSplits`, when the extra splits found a
  /// cheaper cut: the cut they improved on (same indices; empty otherwise).
  std::vector<unsigned> cutBeforeSplits;
  /// With `cutRecomputed`: the cut within the budget it replaced last (a
  /// dearer one the branch and bound found before it at the same step, or
  /// the cut of a step whose bound a later step beat), same indices; empty
  /// when none. A cut at one step is not always the better start for a
  /// plan: on ResNet-50 at 0.6 of store-all the previous cut (237 values,
  /// 0.3% dearer) lowers and searches to 0.56% of the forward, the final
  /// one (232 values) to 0.60%.
  std::vector<unsigned> previousCut;
  /// The exact step program's solution at `step` (LowerBoundOptions::
  /// exactSteps) when it is cheaper than `cutCost` there, same indices; a
  /// seed beside the others (GPT-32 at 0.6 of store-all: 0.530% of the
  /// forward against the knapsack branch and bound's 0.605%). Empty: none.
  std::vector<unsigned> exactCut;
  /// Every candidate step was evaluated (not cut short by the limits).
  bool complete = true;
  /// Some part stopped on the time limit (the step enumeration, the branch
  /// and bound, an exact or joint step program, or the joint steps before
  /// all were added), so that more time could raise the bound; false when
  /// the same options with more time give the same bound. Each part that
  /// stops on its share of the limit sets it (a run that finishes every
  /// part after the limit has passed is not cut short).
  bool cutShort = false;
  /// Wall time spent.
  double seconds = 0;
};

/// Solves the interval program of `steps` (increasing node indices; a
/// step before the first backward node of a training graph holds live what
/// is read before it, as in its cut) at `budgetBytes`, over the cut
/// problems `recomputeLowerBound` builds there, within `seconds` and at
/// most `maxNodes` split nodes (0: no node limit; under a node limit the
/// branch and bound also searches for solutions, StepProgram.cpp). Its
/// `bound` holds for the recompute after the first step of every schedule
/// within the budget. None: built without CLP, no solution found, or no
/// step concerns a value.
std::optional<IntervalSolution>
solveIntervalSteps(const Graph &graph, int64_t budgetBytes,
                   llvm::ArrayRef<unsigned> steps, double seconds,
                   unsigned maxNodes, bool recomputeMemory = true);

/// The bound of the interval program of `steps` (as `solveIntervalSteps`,
/// without a node limit) with the caps `maxRecomputations` (node, k) of
/// `LowerBoundOptions::maxRecomputations`: a bound on the recompute after
/// the first step of every schedule within the budget that recomputes each
/// such node at most k times; +infinity when the program has no point (no
/// such schedule exists, proved). None: built without CLP, `seconds` not
/// positive, `steps` empty, unsorted or past the graph, or no step
/// concerns a value. When no LP is solved within `seconds`, the bound is 0
/// (the branch and bound keeps the root's parent bound).
std::optional<double> intervalStepsBound(
    const Graph &graph, int64_t budgetBytes, llvm::ArrayRef<unsigned> steps,
    double seconds,
    llvm::ArrayRef<std::pair<unsigned, unsigned>> maxRecomputations);

/// The least activation peak any schedule of `graph` can reach: the bytes
/// live at some step whatever is recomputed. The graph must be valid.
int64_t leastPeakLowerBound(const Graph &graph);

/// A lower bound on the activation peak of every schedule of `graph` (valid,
/// forward-only or not), in remat's schedule model (Graph.h), not only in
/// the MILP's stage model. When node t runs it reads one instance of each
/// operand; order the operands by when those instances were made. When the
/// i-th was made, the earlier ones were live (t reads them later), and so
/// were its own operands and its workspace: at least the bytes of
/// {earlier operands} u {its operands} u {itself}. The least, over orders,
/// of the largest of these is found by Lawler's rule (the term of the last
/// operand grows with the set before it, so the operand whose term is least
/// with all the others before it goes last, and so on), and the bound is
/// the largest over t of that and of t's own execution. It is at least the
/// stage bound (each node's operands, result and workspace at once). `at`,
/// if given, receives the node t whose term is the bound.
int64_t forwardLeastPeakBound(const Graph &graph, unsigned *at = nullptr);

/// Lower bounds on the recompute of every schedule of `graph` whose
/// activation peak is within `budgetBytes`, and on the least peak. The graph
/// must be valid (Graph::validate).
LowerBound recomputeLowerBound(const Graph &graph, int64_t budgetBytes,
                               const LowerBoundOptions &options = {});

/// The bound for the orders the planner plans (Phases.h): the input order
/// and, when forward nodes come after the first backward node, the stable
/// forward-first re-sequencing; the weaker of the two (each gets half of
/// the time limit), so it bounds a plan in either order.
LowerBound recomputeLowerBoundAnyOrder(const Graph &graph, int64_t budgetBytes,
                                       const LowerBoundOptions &options = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_LOWERBOUND_H
