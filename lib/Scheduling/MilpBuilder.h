//===- MilpBuilder.h - The compact MILP of one graph -----------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to lib/Scheduling: the MILP of Milp.h for one graph (`MilpBuilder`)
/// and the outcome of one CBC solve, shared by `milpOptimal` (Milp.cpp), the
/// windows of stages and repairs (MilpRepair.cpp) and their solver
/// (MilpBuilder.cpp). Only built with CBC (REMAT_HAVE_CBC).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_SCHEDULING_MILPBUILDER_H
#define REMAT_LIB_SCHEDULING_MILPBUILDER_H

#ifdef REMAT_HAVE_CBC

#include "remat/Scheduling/CaseSplitBound.h"
#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/MilpClaims.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <coin/CoinTypes.hpp>

namespace remat::sched::detail {

/// Outcome of one CBC solve.
struct SolveOutcome {
  bool found = false;
  /// CBC's search ended before the deadline (MilpClaims.h), or LowerBound's
  /// bound proved the outcome without it: only then does it prove anything.
  bool finished = false;
  /// CBC stopped on a node or solution limit in time (MilpClaims.h): the
  /// outcome depends on the model alone, but proves nothing.
  bool stoppedOnLimit = false;
  bool optimal = false;
  bool infeasible = false;
  double gapPercent = 0;
  /// Objective and best bound in the objective's units (bytes or cost).
  double objective = 0;
  double bound = 0;
  Schedule schedule;
  /// Set when the model was not solved for its size: its nonzeros and rows.
  size_t tooLargeNonzeros = 0, tooLargeRows = 0;
  /// Branch-and-bound nodes CBC explored.
  int64_t nodes = 0;
  /// Recompute variables fixed to 0 by the cutoff before the search.
  int64_t fixedColumns = 0;
};

/// 100 (objective - bound) / objective, 0 when both are 0.
double gapPercent(double objective, double bound);

/// The LP relaxation of a budget-mode model (every binary relaxed to [0, 1])
/// solved by CLP at several budgets (MilpRounding.cpp): the budget changes
/// only the memory rows' right-hand sides, so each budget after the first is
/// a dual simplex warm-started from the previous basis.
struct LpRelaxation {
  /// Budgets in bytes, in the order solved; the first must be the one
  /// `solve` is called with.
  std::vector<int64_t> budgets;
  /// Wall seconds for all of them (CLP's own limit, from `solve`'s call).
  double seconds = 0;
  /// Solve the first budget by CLP's barrier (interior point, crossover)
  /// instead of the dual simplex.
  bool barrier = false;

  /// Filled by `MilpBuilder::solve`: the model's size and build time, the
  /// columns of S[t][i] (-1: none; `keepColumn[t][i]`, stage t the one of
  /// node firstStage + t, the builder's first stage), and one point per
  /// budget solved.
  size_t rows = 0, columns = 0, nonzeros = 0;
  double buildSeconds = 0;
  std::vector<std::vector<int>> keepColumn, recomputeColumn;
  struct Point {
    int64_t budget = 0;
    /// CLP ended before its limit with an optimal or (without a secondary
    /// status such as CLP's "probably infeasible but not proven") a proven
    /// infeasible answer: only then is it a proof (of infeasibility; the
    /// bound is `dualBound`, valid whatever CLP's tolerances).
    bool optimal = false, infeasible = false;
    /// The LP optimum in cost units (when `optimal`).
    double objective = 0;
    /// A lower bound on the LP optimum in cost units from CLP's dual
    /// solution by weak duality (signs clamped to the rows' senses), so that
    /// it holds whatever CLP's tolerances left (when `optimal`; -infinity
    /// where the dual gives none).
    double dualBound = -std::numeric_limits<double>::infinity();
    double seconds = 0;
    int iterations = 0;
    /// The primal values of every column (when `optimal`; cleared after
    /// `onPoint`).
    std::vector<double> x;
  };
  std::vector<Point> points;
  /// Called with each point as it is solved, before the next budget's LP
  /// (the rounding uses a point while the time lasts).
  std::function<void(const Point &)> onPoint;
};

/// Solves `model` (gathered by `MilpBuilder::solve` at `relax.budgets[0]`,
/// column-major in `colStart`/`index`/`value`) as an LP at each of
/// `relax.budgets` in turn, moving the upper bounds of `memRows` by the
/// budget's change scaled by `scale`; objective values are multiplied by
/// `costScale`. Stops at the first budget found infeasible or not solved.
void solveLpRelaxation(const MilpRows &model, int numCols,
                       const std::vector<CoinBigIndex> &colStart,
                       const std::vector<int> &index,
                       const std::vector<double> &value,
                       const std::vector<int> &memRows, double scale,
                       double costScale, LpRelaxation &relax);

/// The MILP for one graph; `peakMode` makes the peak a variable P
/// (minimised), otherwise the peak is bounded by `budget` and the recompute
/// cost is minimised.
class MilpBuilder {
public:
  /// Fix recomputations dearer than the cutoff to 0 (`milpOptimal`).
  bool costFixing = false;
  /// Add each stage's memory row at its backward node as an explicit
  /// knapsack row over the keep binaries (`milpOptimal`).
  bool knapsackRows = true;
  /// With the knapsack rows, keep CBC's cuts in the tree on every model
  /// (`milpOptimal`).
  bool treeCuts = true;
  /// Only the stages of nodes `windowFirst` to `windowLast` (forward-only
  /// graphs; `milpWindowPeakBound`): a relaxation whose state entering the
  /// first stage is free and whose values die after the last one.
  unsigned windowFirst = 0, windowLast = ~0u;
  /// Large-neighbourhood search (forward-only graphs; `repairToBudget`,
  /// `cutRepairedRecompute`): the window's stages are re-planned inside the
  /// schedule `fixedLists`, whose lists outside the window stay. Only the
  /// values in `enterAllowed` may be resident entering the window (those the
  /// fixed schedule has there and reads later: the stages before it then
  /// hold at most what they hold now), and the values in `exitRequired`
  /// (those the fixed stages after it read before recomputing them) must
  /// leave it resident (the stages after it then hold what they hold now).
  const Schedule *fixedLists = nullptr;
  std::vector<bool> enterAllowed, exitRequired;
  /// Keep CBC's primal heuristics on with a cutoff (they are turned off by
  /// default then: see `solve`).
  bool heuristicsWithCutoff = false;
  /// Windows inside a fixed schedule (`milpReplanWindowAtBudget`): when not
  /// empty, only the forward values in `windowValues` have variables in the
  /// window's stages and only those in `recomputeAllowed` may be recomputed
  /// there (a restriction of the model: every solution is still one).
  /// `windowValues` must hold the operands of every value in
  /// `recomputeAllowed`, the forward operands of the window's nodes and the
  /// values in `exitRequired`.
  std::vector<bool> windowValues, recomputeAllowed;
  /// Ranges on how often forward nodes are recomputed (a leaf of the case
  /// tree, CaseSplitBound.h; MilpCases.h): each becomes the row lo <= the
  /// sum of the node's recompute variables over all stages <= hi (each
  /// stage's list executes a node at most once, so the sum is the number of
  /// its executions after the first); hi = 0 fixes them to 0; ranges of
  /// the same node are intersected, and an empty one (or a least count above
  /// the node's stages) makes `solve` return a finished, infeasible outcome
  /// without solving. A restriction of the model to the solutions within
  /// the ranges.
  std::vector<RecomputeRange> recomputeRanges;
  /// Rows over the values resident entering the window (inside a fixed
  /// schedule): the counted bytes of those of `first` that enter are at
  /// most `second` (`MilpWindowRequest::entryRows`).
  std::vector<std::pair<std::vector<unsigned>, int64_t>> entryRows;
  /// CBC's branch-and-bound node limit (-1: none): a deterministic limit on
  /// the search, where the time limit depends on the machine's load.
  int64_t maxNodes = -1;
  /// CBC's cut generators (off for window solves that must be quick).
  bool cuts = true;
  /// Stop at CBC's first solution (below the cutoff, with one): for
  /// searches that only ask whether a solution exists.
  bool firstSolution = false;
  /// `solve` only gathers the model and says whether it exceeds
  /// kMilpMaxNonzeros (`tooLargeNonzeros`); nothing is solved.
  bool sizeOnly = false;
  /// When not empty, `solve` writes the model it hands CBC to this file
  /// as free MPS before solving it (`milpOptimal`'s `dumpFile`).
  std::string mpsFile;
  /// `solve` at a budget solves the model's LP relaxation into it
  /// (`solveLpRelaxation`) instead of calling CBC, whatever its size.
  LpRelaxation *relaxation = nullptr;

  /// `numForward` forward nodes come first; a forward-only graph (every
  /// node may be recomputed before any later one, Graph.h) passes
  /// `graph.size()` and needs the compact model.
  MilpBuilder(const Graph &graph, unsigned numForward, bool compact);

  /// The scaled bytes a node's execution adds to what is live: its result
  /// and its workspace (`simulate` counts both during the execution).
  double executing(unsigned v) const {
    return double(counted[v] + graph.nodes[v].workspace) / scale;
  }

  /// The bytes live while node v runs in every schedule: its result, its
  /// workspace and its distinct operands (LowerBound.h's least-peak bound
  /// at a step of a forward-only graph, without the graph's inputs).
  int64_t stepBytes(unsigned v) const;

  /// The largest counted bytes of a value (the model's unit of memory).
  double memoryScale() const { return scale; }

  /// True if stage t (node firstStage + t) has variables for forward node
  /// i: in a forward-only graph only nodes before the stage's node.
  bool inStage(unsigned t, unsigned i) const;

  /// `lowerBound` (objective units, 0: none) is a bound every feasible
  /// solution meets (LowerBound.h): it becomes an objective row, and the
  /// reported bound is at least it. `ranges` (budget mode only) are
  /// LowerBound's bounds on parts of the schedule at this budget: each
  /// becomes a row over the recompute variables of its stages.
  SolveOutcome solve(bool peakMode, int64_t budget, double seconds,
                     std::optional<double> cutoff = std::nullopt,
                     double lowerBound = 0,
                     const std::vector<LowerBound::Range> &ranges = {});

  /// Rows from LowerBound's bounds on parts of the schedule (stage rows):
  /// the recompute cost of the stages of the lists of nodes `first` to
  /// `last` is at least the range's cost. Every solution of the model is a
  /// schedule of remat's model whose simulated peak is within the budget
  /// and whose lists are exactly its R variables (the model's live bytes
  /// bound `simulate`'s from above), so each row holds for every solution;
  /// unlike the single objective row they also hold at every
  /// branch-and-bound node for the part of the schedule they cover.
  /// Dominated ranges (another range inside them with at least their cost)
  /// are dropped, and at most kMaxRangeRows are added, the costliest first:
  /// each row is dense (a suffix row of gpt_l2 has thousands of terms).
  template <typename AddRow>
  void addRangeRows(const std::vector<LowerBound::Range> &ranges,
                    const std::vector<std::vector<int>> &R,
                    const std::vector<double> &colObj, AddRow &addRow);

  /// The memory row of stage t at its backward node b, restated over
  /// binaries only: the values b reads are live (a constant), every other
  /// forward value is live at b exactly when it is kept to the next stage
  /// (S[t+1][j]: an instance that enters stage t+1 exists while b runs, and
  /// in the compact model a value b does not read is live at b only through
  /// that instance), so
  ///
  ///   sum_j bytes(j) S[t+1][j] <= budget - live backward values - b's
  ///                               result and workspace - bytes(b's operands).
  ///
  /// The compact model already implies this row (it is its memory row at b,
  /// with the running sums M_k substituted), so it removes no solution and
  /// leaves the LP relaxation as it is; what it changes is what CBC's cut
  /// generators see: a knapsack of binaries, from which they derive cover
  /// and lifted cuts that the running-sum form hides behind continuous
  /// variables.
  template <typename AddMemRow>
  void addKnapsackRow(unsigned t, const std::set<unsigned> &bOps,
                      double constLive, const std::vector<std::vector<int>> &S,
                      AddMemRow &addMemRow) const;

  /// A linear expression over columns plus a constant.
  struct Expr {
    std::vector<std::pair<int, double>> terms;
    double constant = 0;
  };

  /// The memory rows of stage t in the compact model. Value j's liveness
  /// at a point of the stage only changes where the point passes j itself
  /// (a recomputed instance exists after it) or one of j's forward
  /// consumers (the last possible reader in the stage), so j gets one live
  /// variable per such segment instead of one per point, and the live bytes
  /// are carried from point to point by free variables M_k with rows
  /// M_k = M_{k-1} + (the bytes of the values whose segment changes at k).
  /// The model has O(stages x (nodes + edges)) variables and nonzeros
  /// instead of O(stages x nodes^2).
  template <typename AddCol, typename AddRow, typename AddMemRow>
  void addCompactMemory(unsigned t, const std::vector<unsigned> &points,
                        double constLive,
                        const std::vector<std::vector<int>> &R,
                        const std::vector<std::vector<int>> &S,
                        const std::set<unsigned> &bOps, AddCol &addCol,
                        AddRow &addRow, AddMemRow &addMemRow);

private:
  /// Removes recomputations whose instance no execution reads (possible for
  /// zero-cost nodes); removing them never adds memory.
  void pruneUnread(Schedule &schedule);

  const Graph &graph;
  unsigned n, f;
  bool forwardOnly;
  unsigned firstStage, numStages;
  bool compact;
  bool nonNegativeCosts = true;
  std::vector<int> lastBackward;
  std::vector<std::vector<unsigned>> consumers;
  std::vector<int64_t> counted;
  std::vector<bool> recomputable;
  std::vector<unsigned> lastUse;
  std::vector<int> lastForwardUse;
  double scale = 1, bigM = 1, costScale = 1;
};

} // namespace remat::sched::detail

#endif // REMAT_HAVE_CBC

#endif // REMAT_LIB_SCHEDULING_MILPBUILDER_H
