//===- Milp.h - Exact rematerialization by mixed-integer programming -*- C++
//-*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A Checkmate-style MILP over remat's schedule model, solved with CBC.
///
/// Stages: stage 0 is the forward pass (every forward node once, in order);
/// stage t >= 1 belongs to the t-th backward node b_t: the MILP may recompute
/// forward nodes (binary R[t][i], executed in index order), then b_t runs.
/// S[t][i] says that a value of forward node i is resident entering stage t.
/// Dependencies: a node computed in stage t needs each forward operand
/// recomputed earlier in the stage or resident; S[t+1][i] <= R[t][i] +
/// S[t][i]. Memory: at every execution point of every stage, the live bytes
/// (fixed backward values, the resident or recomputed forward values still
/// needed at or after that point or kept to the next stage, the result,
/// and the executing node's workspace, which `simulate` counts while it
/// runs) are bounded by the budget (or the peak variable P). Needed-later
/// and live indicators are continuous variables bounded below by the binaries, so the
/// model's live bytes are an upper bound of `simulate`'s and equal them at an
/// optimum. `keep`, `noRecompute` and output nodes are never recomputed.
///
/// The restriction compared with all schedules: a node is recomputed at most
/// once per recompute list, and the list runs in index order. The result is
/// always converted into a `Schedule` and checked with `simulate`; the
/// reported peak is the simulated one.
///
/// Forward-only graphs (Graph.h: recomputation before any node) are the
/// same model with every node a stage: stage k recomputes nodes before k,
/// then k runs; there is no separate forward pass (compact model only).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_MILP_H
#define REMAT_SCHEDULING_MILP_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/Plan.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace remat {
namespace sched {

struct CaseSplitBound;
struct MilpNeighbourhoodResult;
struct MilpCasesResult;

/// True if remat was built with CBC (REMAT_HAVE_CBC); otherwise
/// `milpOptimal` always declines.
bool milpAvailable();

/// True if `milpOptimal`'s knapsack rows (and with them its tree cuts) are
/// used on `graph`: on training graphs, not on forward-only ones (every node
/// a stage), where they were measured to cost CBC its own plans and to give
/// no proof (docs/Scheduling.md, "Knapsack rows").
bool milpKnapsackRowsApply(const Graph &graph);

/// The stage model needs a training graph's forward pass first: the note
/// naming the first forward node that follows a backward node, if any (none
/// on forward-only graphs). `milpOptimal` and `milpLargePlan` decline such a
/// graph with it; the planner re-sequences forward-first before (Phases.h).
std::optional<std::string> milpForwardFirstViolation(const Graph &graph);

/// True if some recompute list of `s` is not strictly increasing (out of
/// index order, or a node twice): a schedule outside the stage model, where
/// CBC's proofs and bounds do not reach (forward-min-peak's rebuilt plans,
/// ForwardRebuild.h).
bool milpOutsideStageModel(const Schedule &s);

/// The two formulations of the same model. `Dense` is Checkmate's: a live
/// indicator per stage, execution point and value (O(stages x nodes^2)
/// variables). `Compact` gives each value one live variable per segment of
/// the stage between its own position and its consumers' (liveness only
/// changes there), carries the live bytes from point to point in running-sum
/// variables (O(stages x (nodes + edges)) variables and nonzeros), drops the
/// variables of a forward node in the stages after its last (transitive)
/// backward reader, and adds cuts that at least one optimal schedule
/// satisfies (no resident and recomputed instance of a value in one stage,
/// no recomputation nothing reads). Both are exact for the model above.
enum class MilpModel { Compact, Dense };

/// Largest graph (number of nodes) `milpOptimal` solves whole with the
/// compact model, and with the dense one. Larger graphs at a budget get the
/// window search of MilpWindows.h (compact model only).
constexpr unsigned kMilpMaxNodes = 300;
constexpr unsigned kMilpDenseMaxNodes = 80;
/// Largest model (nonzeros of its constraint matrix) `milpOptimal` hands to
/// CBC. Building and loading a model is not interrupted, and beyond this
/// size it costs seconds and hundreds of megabytes before the search starts
/// (the 250-node forward-only Moccasin graph: 1.5M nonzeros, 0.54 GB, a
/// 20 s limit ran 21 s). Every LP, the first included, stops at the time
/// limit (Clp's wall-clock limit), so the cap is about memory, not about
/// the limit holding.
constexpr size_t kMilpMaxNonzeros = 250000;
/// Steps of the joint exact program in `milpOptimal`'s lower bound
/// (`LowerBoundOptions::jointExactSteps`, with `intervalSteps`: each window
/// between two steps pays for the values it executes). 8 against 4
/// (milp20, with `LowerBoundOptions::jointOverflowSteps`): VGG U-Net at 0.4
/// of store-all 43.05 -> 43.8% of the forward in 2 s, 43.97% (its optimum)
/// in the retry (`milpBoundRetrySeconds`).
constexpr unsigned kMilpBoundJointSteps = 8;

/// Solves the MILP above. With `budgetBytes > 0`: the least recompute cost
/// whose simulated activation peak is within the budget. With
/// `budgetBytes <= 0`: the least peak, then the least recompute at that peak
/// (two solves: the first gets two thirds of the time left, the second the
/// rest). Graphs above kMilpMaxNodes, and models above kMilpMaxNonzeros
/// with a warm start or on forward-only graphs, are not solved whole:
/// `milpLargePlan` (MilpLarge.h) re-plans windows of stages inside
/// `warmStart` when it is within the budget (`milpWindowPlan`,
/// MilpWindows.h), else repairs the least-peak plan to the budget or, without
/// a budget, lowers its peak, and reports the gap against a lower bound.
/// `timeLimitSeconds` bounds the wall time of the whole call, model
/// building included: CBC stops at the time left, and so does every LP it
/// solves, the first included (Clp's wall-clock limit); what can still run
/// past it is one cut generator's pass or one node's bookkeeping
/// (`SolverStats::seconds` says how long the call took). A proof (optimal,
/// infeasible, CBC's bound) counts only when the search ended before the
/// deadline. `warmStart`, if given
/// (typically the best heuristic plan), bounds the search (CBC's cutoff: only
/// what beats it is explored; with `costFixing`, recomputations that alone
/// cost more than it are fixed to 0) and is returned, with CBC's bound, when
/// CBC finds nothing better in time, so a time-limited solve is never worse
/// than it (CBC's own MIP start was measured worse: CBC kept the start). If CBC
/// proves nothing beats it, it is reported optimal, unless it lies outside
/// the stage model (a recompute list out of index order or repeating a
/// value, as forward-min-peak's rebuilt plans do, ForwardRebuild.h): CBC's
/// proofs and bounds hold in that model only, so such a plan is optimal only
/// where LowerBound and the operand-order bound (`forwardLeastPeakBound`),
/// which hold in remat's whole schedule model, meet it, and its reported
/// bound is theirs. Infeasibility proofs by windows of stages or by CBC say
/// "(proved) in the stage model"; without a warm start within the budget
/// the operand-order bound is asked first (a proof in the whole model).
/// LowerBound.h's bound
/// (2 s at most; joint exact steps, `kMilpBoundJointSteps`; computed once
/// more with a sixth of the limit where it was cut short within
/// kMilpBoundRetryGap of the plan, `milpBoundRetrySeconds`, MilpClaims.h)
/// floors the reported bound and proves the warm start optimal where it
/// meets it; at a budget, its joint solution or its cut lowered to a plan
/// (CutLowering.h, `lowerBoundWithinBudget`) replaces the warm start where
/// it is cheaper within the budget.
/// Returns the plan (strategy "milp", `solver` set, `detail` "optimal" only
/// if CBC proved optimality of every solve, else "feasible, gap X%", followed
/// by the objective, bound and time), or none with `note` saying why: no CBC,
/// graph too large for the dense model (> kMilpDenseMaxNodes), a training
/// graph's model too large
/// (> kMilpMaxNonzeros) without a warm start, no plan reached within the
/// budget above those sizes (MilpLarge.h; not a proof), forward-only graph
/// (dense model) or forward node after a backward node,
/// infeasible budget (on a forward-only graph without a warm start within
/// the budget, a sixth of the time goes to windows of stages,
/// `milpWindowPeakBound`, which may prove it, and then two thirds of what
/// is left to `milpRepairToBudget`, whose plan becomes the warm start), no
/// solution in time, or a
/// simulated peak above the
/// budget (a model mismatch; never reported as success). `rangeRows` adds
/// LowerBound's bounds on parts of the schedule (`LowerBound::ranges`) as
/// rows at a budget (docs/Scheduling.md, "Stage rows"); they never change
/// the optimum (gtest `Milp.RangeRowsKeepTheExhaustiveOptimum`).
/// `costFixing` (off by default: at 60 s it lost MobileNet's proof at 0.8
/// of store-all, 4.6 s without it, and gave VGG U-Net's at 0.5 in 58.7 s;
/// lead, 2026-11-24) fixes the recomputations dearer than the warm start to 0
/// (gtest `Milp.CostFixingKeepsTheExhaustiveOptimum`). `knapsackRows` (on by
/// default, where `milpKnapsackRowsApply`) restates each stage's memory row
/// at its backward node over the keep binaries alone, so that CBC's cover
/// cuts apply to it; the row is
/// implied by the model, so the optimum never changes (docs/Scheduling.md,
/// "Knapsack rows"; gtest `Milp.KnapsackRowsKeepTheExhaustiveOptimum`).
/// `treeCuts` (on by default; only with the knapsack rows) keeps CBC's cut
/// generators running in the branch-and-bound tree on every model; without
/// it, models of 2,000 columns or more get cuts at the root only (the rule
/// from before the knapsack rows). It changes the search, never the model
/// (docs/Scheduling.md, "Tree cuts").
/// `dumpFile` (empty: none) receives the model of the whole graph handed
/// to CBC as uncompressed MPS (CoinMpsIO; names C0000000.. and R0000000..,
/// binaries as BV bounds, a minimisation, objective and memory in the
/// builder's scaled units): the budget mode's solve (with LowerBound's
/// objective row and the knapsack and range rows when on), or in peak mode
/// the least-peak solve. Not written when no whole-graph model reaches CBC
/// (a bound proves the warm start, the budget is proved infeasible first,
/// or MilpLarge.h plans the graph).
/// On a training graph whose warm start LowerBound does not prove, CBC
/// runs with a reserve (9 of the bound's time limits plus
/// 0.5 s, at most a third of the time left) kept for a case split
/// (CaseSplitBound.h) when it does not prove its plan: on the node whose
/// recomputations cost that plan the most, a bound for schedules
/// recomputing it fewer times and one for as many or more, the case of the
/// least bound split again on the plan's next costliest node (4 cases
/// bounded at most); the least leaf bound raises the reported bound; it
/// holds in remat's whole schedule model (LowerBound.h's), not only in the
/// stage model. One above the plan's simulated cost is discarded (noted in
/// the detail) and asserts in debug builds. The first case's interval
/// solution, lowered by windows within what is left of the reserve, is
/// taken as the plan when cheaper. At a budget with a cutoff (a warm start
/// within it) work limits decide (Milp.cpp, `kCbcNodesBeforeSearch`):
/// CBC's first solve stops after a node limit (half of the time it had is
/// its safety cap); where it does not prove its plan, the search over the
/// recomputable set (MilpNeighbourhood.h) runs from it (CBC's plan or the
/// warm start, in the stage model) for a limited number of node-limited
/// moves, capped by the rest of the time less the split's reserve, and
/// its plan is taken when it improved on the plan's simulated cost (the
/// split still chooses its nodes from the plan before the search); then
/// CBC resumes, cut off at the plan, for a node limit capped by the time
/// left. The detail says where a time cap fired instead of a work limit.
/// Where a plan is left unproven with a gap below `kMilpCasesGap`
/// (Milp.cpp) of its cost, the case tree's leaves are solved by CBC
/// (MilpCases.h), once, at the first of: after CBC's main solve, within
/// `kMilpCasesShare` of the time the search would get; after the search,
/// within the time CBC's resume would get; after the split, within the
/// time left. Every leaf closed proves the plan (or the cheaper one a leaf
/// found) optimal in the stage model.
std::optional<PlanResult>
milpOptimal(const Graph &graph, int64_t budgetBytes, double timeLimitSeconds,
            std::string &note, const Schedule *warmStart = nullptr,
            MilpModel model = MilpModel::Compact, bool rangeRows = false,
            bool costFixing = false, bool knapsackRows = true,
            bool treeCuts = true, const std::string &dumpFile = {});

/// Test hooks of `milpOptimal` (unset outside tests).
struct MilpTestHooks {
  /// CBC's search taken as unfinished (its bound replaced by LowerBound's,
  /// its plan not proven, and CBC not resumed after the search over the
  /// recomputable set), so that the case split runs on graphs CBC proves
  /// at once.
  bool unprovenSearch = false;
  /// Called with the case split's bound before `milpOptimal` uses it (a
  /// test may corrupt it). With either hook set, an inconsistent split
  /// bound does not assert.
  std::function<void(CaseSplitBound &)> onCaseSplit;
  /// Called with what the search over the recomputable set found
  /// (MilpNeighbourhood.h), when it ran.
  std::function<void(const MilpNeighbourhoodResult &)> onNeighbourhoodSearch;
  /// When set, the main CBC solve's outcome is replaced by the warm start,
  /// unproven (LowerBound's bound), with an objective this much above the
  /// start's simulated cost: CBC's objective, from an LP solution integral
  /// within its tolerance, may sit off its plan's simulated cost.
  std::optional<double> mainSolveWarmStart;
  /// The gap (a fraction of the plan's cost) below which the case tree's
  /// leaves are solved by CBC (MilpCases.h) in place of `kMilpCasesGap`; 0
  /// turns them off. Unset with `unprovenSearch` or `mainSolveWarmStart`:
  /// off, so that the search, CBC's resume and the split run.
  std::optional<double> caseProofGap;
  /// Called with what the case tree's leaves solved by CBC found, when
  /// they ran.
  std::function<void(const MilpCasesResult &)> onCaseProof;
};
MilpTestHooks &milpTestHooks();

/// A lower bound on the activation peak of a forward-only graph's schedules.
struct MilpWindowBound {
  /// Every schedule of remat's model (Milp.h's restrictions) peaks at or
  /// above this many bytes (0: nothing proven).
  int64_t peakBytes = 0;
  /// CBC's search ended: `peakBytes` is the window's least peak.
  bool finished = false;
  /// Branch-and-bound nodes CBC explored.
  int64_t nodes = 0;
};

/// The least peak of the compact model restricted to the stages of nodes
/// `first` to `last` of a forward-only graph: any set of values may be
/// resident entering stage `first` and every value is dead after stage
/// `last`, so each schedule of the whole graph is, restricted to those
/// stages, a solution with at most its peak; the window's least peak (or
/// CBC's proven bound on it within `seconds`) bounds every schedule's
/// peak from below. Returns 0 bytes for training graphs and invalid graphs;
/// graphs of any size are taken (only the window's model is limited, by
/// kMilpMaxNonzeros).
MilpWindowBound milpWindowPeakBound(const Graph &graph, unsigned first,
                                    unsigned last, double seconds);

/// The largest `milpWindowPeakBound` over the windows `milpOptimal` tries
/// to prove a budget infeasible (widths 4 and 8 ending at the 3 steps that
/// hold the most bytes whatever is recomputed), the time shared among them:
/// a lower bound on every schedule's peak of a forward-only graph of any
/// size. `finished` when every window's search ended.
MilpWindowBound milpWindowLeastPeakBound(const Graph &graph, double seconds);

/// A plan within `budget` for a forward-only graph, searched from `seed`
/// (any valid schedule, typically forward-min-peak's least-peak plan) within
/// `seconds` by large-neighbourhood search in the compact model: the stages
/// around a step at the peak are re-planned by CBC inside the rest of the
/// plan (whose lists stay; what it has resident may enter them, what its
/// later stages read must leave them), and a solution is kept when the
/// simulated peak, then the number of steps at it, then the bytes above
/// the budget fall. `milpOptimal` runs it when no plan given fits the
/// budget of a forward-only graph, then lowers the plan's recompute the
/// same way, window by window (docs/Scheduling.md, "Repairing a plan to
/// the budget"). Returns none when it finds nothing
/// within the budget (which proves nothing) or for graphs the MILP
/// declines; a returned plan simulates within the budget. With `maxNodes`
/// >= 0 each window's solve stops at that many CBC nodes instead of after
/// 4 s of wall time: with `seconds` enough, the same plan on every run.
std::optional<Schedule> milpRepairToBudget(const Graph &graph, int64_t budget,
                                           const Schedule &seed,
                                           double seconds,
                                           int64_t maxNodes = -1);

/// The recompute sweeps `milpOptimal` runs after `milpRepairToBudget`:
/// lowers the recompute of `plan`, a forward-only schedule within `budget`
/// once its lists are put in index order (the stage model's; nothing
/// happens if it is not within the budget then), by re-planning windows of 24
/// stages (every 12) inside it for the least recompute within the budget,
/// keeping a window's solution when it simulates within the budget at a lower
/// cost, sweep after sweep while one gains and `seconds` last. With `maxNodes`
/// >= 0 each solve stops at that many CBC nodes, without CBC's cuts, and a
/// window whose last solve ended on the same plan is not solved again;
/// otherwise each solve stops after 4 s. Returns the number of window solves;
/// `plan` is left as it is for graphs the MILP declines.
unsigned milpLowerRecompute(const Graph &graph, int64_t budget, Schedule &plan,
                            double seconds, int64_t maxNodes = -1);

/// What `milpLowerPeak` found: the plan with the least peak (then the fewest
/// steps at it, then the fewest bytes above the target), simulated.
struct MilpPeakDescent {
  Schedule schedule;
  SimResult sim;
  /// Window solves.
  unsigned solves = 0;
};

/// The search of `milpRepairToBudget` towards `target` bytes, on graphs of
/// any size (only each window's model is limited, by kMilpMaxNonzeros) and
/// on training graphs too (forward pass first; a peak in the forward pass
/// frees the first backward stages, whose model has the forward pass's
/// rows). It stops at the target, at `seconds`, or when every step at the
/// peak has been tried at every radius. Returns the best plan found, whose
/// peak may be above `target` but never above `seed`'s; none when `seed` is
/// not a valid schedule or a forward node follows a backward one. Nothing it
/// returns is a proof (MilpLarge.h uses it for the least peak and for
/// budgets no plan meets on graphs too large to solve whole). With
/// `candidateCap` > 0 each window may recompute at most that many forward
/// nodes (`milpRecomputeCandidates`, MilpWindows.h) and only the values it
/// reads, recomputes, takes in or hands on get variables, which keeps the
/// windows of graphs of hundreds of nodes below kMilpMaxNonzeros.
std::optional<MilpPeakDescent>
milpLowerPeak(const Graph &graph, int64_t target, const Schedule &seed,
              double seconds, int64_t maxNodes = -1, unsigned candidateCap = 0);

/// Windows of stages that prove `budget` infeasible on a forward-only graph
/// of any size (what `milpOptimal` asks first when no plan fits the budget):
/// windows of 4 and 8 stages ending at the 3 steps that hold the most bytes
/// whatever is recomputed, each asked for a schedule of its stages (entering
/// state free) below the budget plus a margin. Returns the first window
/// (first and last node) whose search ends without one, none otherwise
/// (training graphs: always none).
std::optional<std::pair<unsigned, unsigned>>
milpWindowsProveInfeasible(const Graph &graph, int64_t budget, double seconds);

/// One step of `milpRepairToBudget`, for tests: the stages of nodes `first`
/// to `last` of `schedule` (a forward-only graph's, lists in index order)
/// re-planned by CBC for their least peak within `seconds` (and `maxNodes`
/// branch-and-bound nodes, -1: no limit), inside the rest
/// of the schedule. Returns the whole schedule, or none if CBC found no
/// solution. Every step outside the window holds at most the bytes it holds
/// in `schedule` (what the stages after it read leaves the window resident,
/// and only what `schedule` has resident and reads later enters it).
std::optional<Schedule> milpReplanWindow(const Graph &graph,
                                         const Schedule &schedule,
                                         unsigned first, unsigned last,
                                         double seconds,
                                         int64_t maxNodes = -1);

/// One window of a plan to re-plan at a budget (`milpReplanWindowAtBudget`).
struct MilpWindowRequest {
  /// The stages of nodes `first` to `last`: backward nodes of a training
  /// graph (forward pass first), any nodes of a forward-only graph.
  unsigned first = 0, last = 0;
  /// The activation budget (bytes) every step of the window must meet.
  int64_t budget = 0;
  /// Forward nodes the window may recompute, indexed by node (empty: every
  /// one the model allows). Fewer make a smaller model.
  std::vector<bool> recomputeAllowed;
  /// Values `schedule` does not have resident entering the window that may
  /// enter it all the same: the caller keeps them from before the window
  /// and charges their bytes to the steps before it with `entryRows`.
  std::vector<unsigned> enterAlso;
  /// Rows over the values resident entering the window: the bytes of those
  /// of `first` that enter are at most `second`.
  std::vector<std::pair<std::vector<unsigned>, int64_t>> entryRows;
  /// Only answers whose window recompute cost is below this (none: any).
  std::optional<double> cutoff;
  /// Wall-time limit of the solve, model building included.
  double seconds = 4;
  /// CBC's branch-and-bound node limit (-1: none); with a time limit that
  /// never binds, the answer is the same on every run.
  int64_t maxNodes = -1;
  /// CBC's cut generators on (off: a quicker root on large windows).
  bool cuts = true;
};

/// What `milpReplanWindowAtBudget` found.
struct MilpWindowAnswer {
  /// The whole schedule with the window's lists replaced (index order), if
  /// CBC found a solution.
  std::optional<Schedule> schedule;
  /// The window's model exceeded kMilpMaxNonzeros and was not solved.
  bool tooLarge = false;
  /// CBC's search ended (no limit stopped it).
  bool finished = false;
  int64_t nodes = 0;
};

/// The least recompute of the stages of one window of `schedule` within a
/// budget, the rest of the schedule fixed: the compact model over the
/// window's stages only, where only what `schedule` has resident entering
/// the window and reads later may enter it (and the values of `enterAlso`,
/// within `entryRows`) and what the stages after the window read must leave
/// it resident (as in `milpReplanWindow`), so no step after the window
/// holds more bytes than in `schedule`, and none before it does either
/// unless values of `enterAlso` enter. For
/// training graphs of any size (forward nodes first) and forward-only
/// graphs; no size limit on the graph, only kMilpMaxNonzeros on the
/// window's model. The answer is not checked here: callers simulate it.
MilpWindowAnswer milpReplanWindowAtBudget(const Graph &graph,
                                          const Schedule &schedule,
                                          const MilpWindowRequest &request);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_MILP_H
