//===- BudgetSearch.h - Less recompute within a budget ----------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A local search that lowers the recompute of a plan at a fixed activation
/// budget, judged by the exact simulator: the plan side of the gap between
/// `auto` and the recompute lower bound (LowerBound.h).
///
/// It works on kept sets (KeptSet.h). A move keeps a value the plan
/// recomputes (its recomputation, and that of every input recomputed only
/// for it, leaves the plan). When that pushes the simulated peak over the
/// budget, the move repairs it by dropping kept values live at the step of
/// the peak, one at a time (an ejection chain): of the few with the most
/// bytes per unit of cost, the drop that removes the most bytes over the
/// budget (summed over all steps) per unit of recompute it adds, until the
/// plan fits: the large values that are cheap to recompute give way, as in
/// PyTorch's min-cut partitioner. When no single drop lowers the excess,
/// the repair tries larger changes: dropping a kept value together with the
/// cheap kept ops that feed it (a batch norm's chain down to the
/// convolution output it is then recomputed from; dropping the activation
/// alone keeps its input live instead, the same bytes), and refreshing a
/// recomputed value live at the peak (recomputing it before each later
/// reader instead of holding it, `lowerKeptSet` with a refresh set: a value
/// may then be recomputed several times), alone or together with the cheap
/// dropped values that feed it (a chain refresh: refreshing one value of a
/// recomputed chain alone keeps its inputs held instead, as when a residual
/// stream recomputed for one block's gradient would be held to each
/// block's own). Readers of a refreshed value at most `refreshGap` steps
/// apart share one recomputation. A move is taken when the lowered
/// plan fits the budget and recomputes strictly less; the search passes
/// over the recomputed values, most expensive first, until a pass takes no
/// move or the evaluation limit is reached. `searchWithinBudget` runs the
/// single-value moves first and the larger changes from where they end, so
/// the larger changes never lose what the single moves find. It proves
/// nothing: it ends in a local optimum of these moves.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_BUDGETSEARCH_H
#define REMAT_SCHEDULING_BUDGETSEARCH_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/Plan.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// Limits of `reduceRecomputeInBudget`.
struct BudgetSearchOptions {
  /// At most this many plans are lowered and simulated in all (each costs
  /// O(nodes + operand references)), so the work is deterministic
  /// (`searchWithinBudget`: per search, single moves then larger changes).
  unsigned maxEvaluations = 1500;
  /// Kept values tried per drop when a kept value pushes the peak over the
  /// budget (those live at the peak step, most bytes per unit of cost first).
  unsigned maxEjections = 6;
  /// At most this many values are dropped to make room for one kept value.
  unsigned maxDrops = 8;
  /// At most this many starting plans (distinct kept sets of the cheapest
  /// candidates within the budget) share the evaluations.
  unsigned maxStarts = 2;
  /// Repairs may also refresh recomputed values live at the peak (recompute
  /// them at every reader instead of holding them between readers,
  /// `lowerKeptSet` with a refresh set), not only drop kept values.
  bool refresh = true;
  /// Repairs may also drop a kept value together with the cheap kept ops
  /// that feed it (up to the expensive op whose output it is then
  /// recomputed from).
  bool chains = true;
  /// With `refresh`: repairs may also refresh a recomputed value together
  /// with the cheap dropped values that feed it (refreshing one value of a
  /// recomputed chain alone only keeps its inputs live instead).
  bool refreshChains = true;
  /// The refresh gap of the search's plans (`KeptChoice::refreshGap`):
  /// readers of a refreshed value at most this many steps apart share its
  /// recomputation (a gradient op and the mask op beside it), readers
  /// farther apart get their own. 0 by default: with 8 (the first
  /// default) the held recomputations changed which plans fit on small
  /// graphs, and auto's plans got much worse there (resnet_n4 at 0.4 of
  /// store-all 29.56% -> 76.37% recompute, gpt_l2 at 0.4 none).
  unsigned refreshGap = 0;
  /// A seed (`KeptSeed`) whose lowering exceeds the budget is also tried
  /// with recomputations moved earlier in their lists (`hoistToBudget`,
  /// RecomputeHoist.h); if that fits, it is a plan of its own.
  bool hoist = true;
};

/// A plan of the search: a kept set and the dropped values recomputed at
/// every reader, lowered by `lowerKeptSet(graph, kept, refresh)`.
struct KeptChoice {
  std::vector<bool> kept;
  std::vector<bool> refresh;
  /// A refreshed value's instance also serves the steps at most this many
  /// steps after its last read (`lowerKeptSet` with a refresh gap).
  unsigned refreshGap = 0;
};

/// `lowerKeptSet(graph, choice.kept, choice.refresh, choice.refreshGap)`:
/// the schedule of a plan of the search.
Schedule lowerKeptChoice(const Graph &graph, const KeptChoice &choice);

/// Improves `kept`, whose lowering must fit `budgetBytes`, by the moves
/// above. Returns the improved kept and refresh sets, or none if the
/// lowering of `kept` does not fit the budget or no move was taken. The
/// result's lowering (`lowerKeptSet` with its refresh set) fits the budget
/// and recomputes strictly less than the lowering of `kept`. `evaluations`, if given, receives the number of
/// lowerings and simulations spent. Late forward nodes (Phases.h) are
/// values like the others: a move may drop them (`lowerKeptSet`).
std::optional<KeptChoice>
reduceRecomputeInBudget(const Graph &graph, std::vector<bool> kept,
                        int64_t budgetBytes,
                        const BudgetSearchOptions &options,
                        unsigned *evaluations = nullptr);

/// Makes the lowering of `choice` (`lowerKeptChoice`, with the refresh gap
/// of `options`) fit `budgetBytes` by the repair changes above (drops of kept
/// values, chain drops, refreshes, each relieving the current peak step, at
/// most `maxChanges` of them), whatever recompute that adds. Returns the
/// repaired choice, `choice` itself if it fits already, or none if the repair
/// gets stuck (no change lowers the excess), runs out of changes or of
/// `options.maxEvaluations`. `evaluations`, if given, receives the number
/// of lowerings and simulations spent. Late forward nodes (Phases.h) are
/// values like the others: a move may drop them (`lowerKeptSet`).
std::optional<KeptChoice> fitToBudget(const Graph &graph, KeptChoice choice,
                                      int64_t budgetBytes,
                                      const BudgetSearchOptions &options,
                                      unsigned maxChanges,
                                      unsigned *evaluations = nullptr);

/// A start of `searchWithinBudget` that is no candidate plan: a kept and
/// refresh set that may exceed the budget (it is made to fit first,
/// `fitToBudget`), as a lower bound's cut gives one (LowerBound.h,
/// `cutRecomputed`), with the strategy and detail its plan reports.
struct KeptSeed {
  KeptChoice choice;
  std::string strategy;
  std::string detail;
};

/// Runs `reduceRecomputeInBudget` from the cheapest plans of `candidates`
/// within `budgetBytes` (in the graph's own order, `PlanResult::order`
/// empty) whose kept-set lowering fits the budget, and from each of
/// `seeds` made to fit the budget (`fitToBudget`, each with the share of
/// the evaluations of one start), and returns the plans that recompute less
/// than the cheapest candidate within the budget (strategy and detail of
/// their start, detail extended by "local search in the budget"), each
/// lowered and simulated. Never returns a plan over the budget; returns
/// nothing when nothing improves.
std::vector<PlanResult>
searchWithinBudget(const Graph &graph, const std::vector<PlanResult> &candidates,
                   int64_t budgetBytes, const BudgetSearchOptions &options,
                   const std::vector<KeptSeed> &seeds = {});

/// `searchWithinBudget` once per refresh gap of `refreshGaps` (each with
/// `options`' evaluations and `BudgetSearchOptions::refreshGap` set to the
/// gap), from the same candidates and seeds: all their plans. No gap is
/// best everywhere: sharing a refreshed value's recomputation between
/// readers close together makes some plans cheaper (ResNet-50) and others
/// no longer fit, which changes where the search goes (small graphs).
std::vector<PlanResult>
searchWithinBudgetGaps(const Graph &graph,
                       const std::vector<PlanResult> &candidates,
                       int64_t budgetBytes, const BudgetSearchOptions &options,
                       llvm::ArrayRef<unsigned> refreshGaps,
                       const std::vector<KeptSeed> &seeds = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_BUDGETSEARCH_H
