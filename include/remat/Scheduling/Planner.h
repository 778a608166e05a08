//===- Planner.h - Strategy registry and selection --------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rematerialization planner: the registry of strategies (one entry per
/// strategy: its name, the graphs it accepts and the function that plans),
/// the one budget driver that chooses among their plans, and the entry points
/// the passes, the tools and the benchmark call. Plain C++ on the scheduling
/// graph (no MLIR). The algorithms themselves are declared in Algorithms.h.
///
/// Errors are `llvm::Error`s throughout: a strategy that declines a graph
/// returns one (in an `llvm::Expected`) whose message becomes a note of the
/// result; `planRematerialization` returns a `PlanningError` when the request
/// as a whole fails.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_PLANNER_H
#define REMAT_SCHEDULING_PLANNER_H

#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Plan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

class PlanRequest;

/// Prefix of the note saying that the input order interleaves the phases
/// (not a strategy declining the graph).
inline constexpr const char *kOrderNotePrefix = "order: ";

struct PlannerOptions {
  /// One of getStrategyNames().
  std::string strategy = std::string(strategy::kAuto);
  /// Activation budget in bytes; 0 means none.
  int64_t budget = 0;
  /// Revolve checkpoint slots; 0 picks the fewest slots that meet the budget
  /// (or sqrt(#stages) without a budget).
  unsigned slots = 0;
  /// Greedy threshold in bytes; 0 runs Chen's search over the threshold.
  int64_t threshold = 0;
  /// Memory slots of the heterogeneous-chain dynamic program.
  unsigned dpSlots = 500;
  /// Wall-time limit in seconds of the exact MILP (`milp`, warm-started from
  /// the best heuristic plan, or within a budget on training graphs above 32
  /// ops from `auto`'s candidates); `auto` gives it at most 10 s. A graph with
  /// forward ops after its first backward op is planned in two orders, each
  /// with half of it, so that the whole call stays within it; there `milp`
  /// with a budget plans `auto` first (half of the limit for its
  /// time-limited parts, its deterministic work uncapped) and the
  /// any-order bound that restates the MILP's claim (a tenth of the limit,
  /// at most 2 s), and the MILP gets what is left (none under 0.5 s), so
  /// that the call stays within the limit unless `auto` alone takes longer.
  double timeLimitSeconds = 60;
  /// Recompute limit as a percentage of the forward cost (< 0: none). With
  /// it the plan is the least peak among the strategy's plans within the
  /// limit (for `auto`: every plan of `planFrontier`), and within `budget`
  /// if one is given.
  double maxRecomputePercent = -1;
  /// Seconds for the recompute lower bound at `budget` (LowerBound.h,
  /// `recomputeLowerBoundAnyOrder`), attached to the chosen plan as
  /// `PlanResult::bound`, with up to 4 joint exact steps
  /// (`LowerBoundOptions::jointExactSteps`); 0: none. Needs a budget. Not
  /// taken from `timeLimitSeconds`.
  double boundSeconds = 0;
  /// Scale of the deterministic evaluation budgets of the local searches
  /// (the min-cut sweep's kept-set search and `auto`'s relaxation to the
  /// budget): 1 by default; less plans faster with fewer evaluations and a
  /// thinner min-cut grid (MinCut.h; the schedule fuzz target uses 0.01).
  /// Plans are valid at any scale.
  double searchWork = 1;
  /// With a budget, `auto` runs its local search within the budget
  /// (BudgetSearch.h) on its cheapest plans; off only to measure what the
  /// search adds (`remat-bench --budget-search-graphs`).
  bool budgetSearch = true;
  /// The local search's larger changes (BudgetSearchOptions::chains and
  /// ::refresh); off only to measure what they add.
  bool budgetSearchLargerMoves = true;
  /// The recompute lower bound (LowerBound.h) whose cut at its best step
  /// (`cutRecomputed`) seeds the local search within the budget, made to
  /// fit first (BudgetSearch.h, `fitToBudget`), per planned op order, gets
  /// a fixed number of step evaluations for the graph's size (scaled by
  /// `searchWork`), so that the plan does not depend on the machine's
  /// speed, and this many seconds as a safety cap (only a machine far
  /// slower than expected reaches it, and then the plan may depend on its
  /// speed); 0: no such seed. Used only with `budgetSearch`; `remat-bench
  /// --budget-search-cut-seeds` measures what the seed adds.
  double budgetSearchCutSeconds = 5;
  /// That bound also spends extra branch-and-bound splits at its best step
  /// for a cheaper cut (`LowerBoundOptions::cutSplits`). The planner turns
  /// it off for the pinned and the forward-first orders of a graph with
  /// late forward ops (Phases.h): there only the search with late forward
  /// values droppable gets them (`lateForwardCandidates`), one per plan.
  bool budgetSearchCutSplits = true;
  /// The cut that bound's final cut replaced (`LowerBound::previousCut`)
  /// seeds the search too; off only to measure what it adds.
  bool budgetSearchPreviousCut = true;
  /// When `auto`'s cheapest plan within the budget is more than 5% above
  /// that bound (or none fits), interval programs of a few steps are
  /// solved and lowered by windows (WindowLowering.h,
  /// `intervalWindowPlan`, a fixed number of branch-and-bound nodes, twice
  /// `budgetSearchCutSeconds` (10 s) and a quarter of `timeLimitSeconds` as
  /// safety caps, whichever is less); a lowering within the
  /// budget is a candidate. Used only with `budgetSearch`, on graphs of at
  /// most 2,000 ops; the planner turns it off for the forward-first order
  /// of a graph with late forward ops (Phases.h: the programs would run
  /// twice); off otherwise only to measure what it adds.
  bool budgetSearchWindows = true;
};

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

/// The kinds of graph a strategy plans (a bit set).
enum GraphKinds : unsigned {
  /// A training step: forward and backward nodes.
  TrainingStep = 1,
  /// A forward-only graph (`Graph::isForwardOnly`).
  ForwardOnly = 2,
  AnyGraph = TrainingStep | ForwardOnly,
};

/// A strategy's planning function: the candidate plans of `request` (one for
/// most strategies; `auto` and `mincut` return several and the budget driver
/// chooses), or an error saying why the strategy declines the graph.
using PlanFn = llvm::Expected<std::vector<PlanResult>> (*)(PlanRequest &);

/// One entry of the registry.
struct StrategyInfo {
  /// The name pass options spell (a `strategy::k...` constant).
  llvm::StringLiteral name;
  /// The graphs it plans (`GraphKinds`).
  unsigned accepts;
  PlanFn plan;
};

/// Every strategy, in the order pass options list them. Adding a strategy is
/// one entry in this table (Planner.cpp) plus its function (Algorithms.h).
llvm::ArrayRef<StrategyInfo> getStrategies();

/// The entry named `name`, or null.
const StrategyInfo *lookupStrategy(llvm::StringRef name);

/// The names of `getStrategies()`, in order. "auto" is the budget driver
/// over all of them; "forward-min-peak" plans forward-only graphs
/// (ForwardOnly.h); the chain and Chen strategies need a training step.
llvm::ArrayRef<llvm::StringRef> getStrategyNames();

//===----------------------------------------------------------------------===//
// The budget driver
//===----------------------------------------------------------------------===//

/// The driver's decision.
struct BudgetDecision {
  /// A candidate fits the budget; `plan` is it.
  bool feasible = false;
  /// The chosen plan if feasible; otherwise the plan reaching the minimal
  /// peak (unset if there were no candidates).
  std::optional<PlanResult> plan;
  /// The smallest peak among the candidates (0 if there were none).
  int64_t minPeakBytes = 0;
  /// Human-readable verdict, e.g. for a diagnostic when infeasible.
  std::string message;
};

/// Among `candidates` whose `sim.peakBytes <= budgetBytes` (inclusive),
/// returns the one with the least recompute cost (ties: smaller peak, then
/// the earlier candidate). If none fits, returns `feasible = false` with the
/// minimal peak and the plan reaching it.
BudgetDecision selectForBudget(const std::vector<PlanResult> &candidates,
                               int64_t budgetBytes);

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// LowerBound's any-order bound at `budgetBytes` (LowerBound.h,
/// `recomputeLowerBoundAnyOrder`, 4 joint exact steps) within a tenth of
/// `timeLimitSeconds`, 0.05 .. 2 s: what the planner restates a solver's
/// claim with on a graph with late forward ops (Phases.h), where the
/// solver's own claim covers one order only; a plan is optimal over every
/// order where it meets the plan (`orderClaimBoundMeets`).
LowerBound orderClaimBound(const Graph &graph, int64_t budgetBytes,
                           double timeLimitSeconds);

/// Whether `bound` proves a plan of recompute `cost` optimal: below a
/// relative 1e-9 the difference is rounding in the bound's flows.
bool orderClaimBoundMeets(double bound, double cost);

/// A planned request.
struct PlannerResult {
  /// The chosen plan.
  PlanResult plan;
  /// Peak of store-all, for the report.
  int64_t storeAllPeak = 0;
  /// Every candidate tried (auto) or the one plan.
  std::vector<PlanResult> candidates;
  /// Notes on strategies that declined the graph (e.g. not a chain).
  std::vector<std::string> notes;
  /// How many times each algorithm ran for this request (by the names of
  /// `PlanCache`, e.g. "greedy-search", "chain-opt"): each algorithm runs
  /// once per graph and parameter, whichever strategies share it. LowerBound's
  /// any-order bound at the budget counts as "lower-bound-any-order".
  std::map<std::string, unsigned> algorithmRuns;
};

/// Why a request could not be planned (unknown strategy, a strategy that
/// does not plan this kind of graph or declines it, a budget below what the
/// strategy meets). When the budget is the problem, the smallest budget some
/// strategy meets when rerun with it, and that strategy.
class PlanningError : public llvm::ErrorInfo<PlanningError> {
public:
  static char ID;

  explicit PlanningError(std::string message,
                         std::optional<int64_t> minFeasibleBudget = {},
                         std::string minFeasibleStrategy = {})
      : message(std::move(message)), minFeasibleBudget(minFeasibleBudget),
        minFeasibleStrategy(std::move(minFeasibleStrategy)) {}

  /// What failed, without the smallest budget.
  const std::string &getMessage() const { return message; }
  std::optional<int64_t> getMinFeasibleBudget() const {
    return minFeasibleBudget;
  }
  const std::string &getMinFeasibleStrategy() const {
    return minFeasibleStrategy;
  }

  /// The message, then "; the smallest budget remat can meet for this graph
  /// is N bytes (strategy 'S')" when there is one.
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string message;
  std::optional<int64_t> minFeasibleBudget;
  std::string minFeasibleStrategy;
};

/// Plans `graph` with `options`. With a budget, the result is either a plan
/// whose simulated peak is within the budget or a `PlanningError` with the
/// smallest feasible budget. A forward-only graph (`Graph::isForwardOnly`) is
/// planned by `forwardOnlyMinPeak` under `auto` and `forward-min-peak` (without
/// a budget: the least peak it finds, unlike a training step's `auto`, which is
/// store-all without a budget), by store-all under `store-all`; any other
/// strategy is an error naming these.
llvm::Expected<PlannerResult>
planRematerialization(const Graph &graph, const PlannerOptions &options);

/// One plan per strategy with default parameters (for comparisons and
/// benchmarks); strategies that decline the graph are reported in `notes`.
/// On a forward-only graph: store-all and forward-min-peak (least peak).
///
/// Any topological order is planned (Phases.h): when forward nodes come after
/// the first backward node, both here and in `planRematerialization` every
/// strategy plans the input order with those nodes pinned where they are and
/// the stable forward-first re-sequencing, and the better plan is kept (for
/// each strategy here, the one with the smaller least peak); plans of the
/// re-sequencing carry `PlanResult::order`, and a note starting with
/// `kOrderNotePrefix` says so.
/// `searchWork` is `PlannerOptions::searchWork`.
std::vector<PlanResult> planAllStrategies(const Graph &graph,
                                          std::vector<std::string> &notes,
                                          unsigned dpSlots = 500,
                                          double searchWork = 1);

/// Parses a recompute limit: "30%", "30" or "12.5%" (percent of the forward
/// cost, >= 0). Empty text is no limit (-1). None if malformed.
std::optional<double> parseRecomputeLimit(llvm::StringRef text);

/// The non-dominated plans of `plans` (no other plan has a smaller or equal
/// peak and recompute cost, one of them smaller), by increasing recompute
/// and decreasing peak; among equal plans the first one.
std::vector<PlanResult> paretoFrontier(std::vector<PlanResult> plans);

/// The (peak, recompute) frontier of every strategy and parameter: `auto`'s
/// candidates (the min-cut sweep included) plus Revolve and the chain
/// optimum at budgets of 0.2 .. 0.9 of store-all's peak, in the input order
/// (late forward ops pinned) and, if some are late, forward-first.
/// Monotone: choosing, for a budget, the least-recompute frontier plan
/// within it, a larger budget never gives more recompute.
std::vector<PlanResult> planFrontier(const Graph &graph,
                                     std::vector<std::string> &notes,
                                     unsigned dpSlots = 500);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_PLANNER_H
