//===- Milp.cpp - Exact rematerialization by mixed-integer programming ----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Builds the MILP described in Milp.h, solves it with CBC's C interface,
/// lowers the recompute decisions to a Schedule and checks it with simulate.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/CutLowering.h"
#include "remat/Scheduling/ForwardOnly.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/MilpClaims.h"
#include "remat/Scheduling/MilpLarge.h"
#include "remat/Scheduling/MilpWindows.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#ifdef REMAT_HAVE_CBC
#include <coin/CbcEventHandler.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/ClpSimplex.hpp>
#include <coin/CoinFinite.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#endif

using namespace remat::sched;

// On forward-only graphs (every node a stage) the knapsack rows were
// measured to cost the search its plans and to give no proof
// (random_layered_n100 at 0.8 of store-all, quiet machine, 60 s: CBC's own
// 3.39% plan and a 37.4% gap after 2,387 nodes without them, only the warm
// start's 6.36% and 67.4% after 232 nodes with them; at 0.9 1.37% and 50.2%
// either way; lead, 2026-11-24, bench/milp-results.md).
bool remat::sched::milpKnapsackRowsApply(const Graph &graph) {
  return !graph.isForwardOnly();
}

bool remat::sched::milpAvailable() {
#ifdef REMAT_HAVE_CBC
  return true;
#else
  return false;
#endif
}

#ifdef REMAT_HAVE_CBC
namespace {

/// How long after the caller's deadline Clp's own wall-clock limit falls.
constexpr double kClpGraceSeconds = 0.05;

/// Models with at least this many columns get CBC's cuts at the root only
/// (node throughput on the published graphs: VGG U-Net's 5,083 columns and
/// up), unless they carry the knapsack rows and tree cuts are asked for
/// (`milpOptimal`'s `treeCuts`); smaller ones keep cuts in the tree.
constexpr int kRootCutsOnlyColumns = 2000;

/// CbcMain1's progress callback: nothing to do.
int noCallBack(CbcModel *, int) { return 0; }

/// Copies every improving solution CBC finds as it finds it. CbcMain1
/// searches a copy of the model, and when the search stops on the time
/// limit the copy's best solution does not always come back: on
/// random_layered_n100 at 0.8 of store-all CBC logged an integer solution
/// (objective 1.69 against the warm start's 3.06) and bestSolution() was
/// null after the call, so the warm start was returned. Only points that
/// satisfy the model are kept (`Best::check`, `solutionObjective`): at an
/// event the model's bestSolution() is not always a solution. On the first
/// 45 nodes of random_layered_n100 at half of the whole graph's store-all
/// peak, without a warm start (CBC's heuristics on), the heuristicSolution
/// and solution events showed a point with a binary at 0.5 and a row
/// violated by 1; CBC itself returned no solution, and that point's
/// schedule simulated at 26,720 bytes against the budget of 23,159 ("model
/// mismatch" in 3 of 4 runs at 20-25 s).
class SolutionKeeper : public CbcEventHandler {
public:
  struct Best {
    std::vector<double> values;
    double objective = COIN_DBL_MAX;
    /// The objective of a point of `cols` values that satisfies the model;
    /// none for any other point.
    std::function<std::optional<double>(const double *, int)> check;
  };
  explicit SolutionKeeper(Best *best) : best(best) {}
  CbcEventHandler *clone() const override {
    return new SolutionKeeper(*this);
  }
  CbcAction event(CbcEvent which) override {
    if (which != solution && which != heuristicSolution)
      return noAction;
    const CbcModel *m = getModel();
    if (!m || !m->bestSolution())
      return noAction;
    std::optional<double> objective =
        best->check(m->bestSolution(), m->getNumCols());
    if (objective && *objective < best->objective) {
      best->objective = *objective;
      best->values.assign(m->bestSolution(),
                          m->bestSolution() + m->getNumCols());
    }
    return noAction;
  }

private:
  Best *best;
};

/// Outcome of one CBC solve.
struct SolveOutcome {
  bool found = false;
  /// CBC's search ended before the deadline (MilpClaims.h), or LowerBound's
  /// bound proved the outcome without it: only then does it prove anything.
  bool finished = false;
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
double gapPercent(double objective, double bound) {
  if (std::fabs(objective) <= 1e-12)
    return 0;
  return std::max(0.0, 100.0 * (objective - bound) / std::fabs(objective));
}

/// The MILP for one graph; `peakMode` makes the peak a variable P
/// (minimised), otherwise the peak is bounded by `budget` and the recompute
/// cost is minimised.
class MilpBuilder {
public:
  /// `numForward` forward nodes come first; a forward-only graph (every
  /// node may be recomputed before any later one, Graph.h) passes
  /// `graph.size()` and needs the compact model.
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
  /// Rows over the values resident entering the window (inside a fixed
  /// schedule): the counted bytes of those of `first` that enter are at
  /// most `second` (`MilpWindowRequest::entryRows`).
  std::vector<std::pair<std::vector<unsigned>, int64_t>> entryRows;
  /// CBC's branch-and-bound node limit (-1: none): a deterministic limit on
  /// the search, where the time limit depends on the machine's load.
  int64_t maxNodes = -1;
  /// CBC's cut generators (off for window solves that must be quick).
  bool cuts = true;
  /// `solve` only gathers the model and says whether it exceeds
  /// kMilpMaxNonzeros (`tooLargeNonzeros`); nothing is solved.
  bool sizeOnly = false;

  MilpBuilder(const Graph &graph, unsigned numForward, bool compact)
      : graph(graph), n(graph.size()), f(numForward),
        forwardOnly(numForward == graph.size()),
        firstStage(forwardOnly ? 0 : numForward), numStages(n - firstStage),
        compact(compact) {
    const std::vector<Node> &nodes = graph.nodes;
    counted.assign(n, 0);
    for (unsigned v = 0; v != n; ++v) {
      const Node &node = nodes[v];
      int64_t c = node.bytes;
      if (node.output)
        c -= node.outputBytes >= 0 ? std::min(node.outputBytes, node.bytes)
                                   : node.bytes;
      counted[v] = c;
    }
    for (const Node &node : nodes)
      nonNegativeCosts = nonNegativeCosts && node.cost >= 0;
    recomputable.assign(f, false);
    for (unsigned i = 0; i != f; ++i)
      recomputable[i] = !isAlwaysKept(nodes[i]);
    lastUse.resize(n);
    lastForwardUse.resize(n);
    for (unsigned v = 0; v != n; ++v) {
      lastUse[v] = v;
      lastForwardUse[v] = -1;
    }
    for (unsigned v = 0; v != n; ++v)
      for (unsigned op : nodes[v].operands) {
        lastUse[op] = std::max(lastUse[op], v);
        if (!nodes[v].backward)
          lastForwardUse[op] = std::max<int>(lastForwardUse[op], v);
      }
    int64_t maxBytes = 1, total = 0, maxWorkspace = 0;
    for (unsigned v = 0; v != n; ++v) {
      maxBytes = std::max(maxBytes, counted[v]);
      total += counted[v];
      maxWorkspace = std::max(maxWorkspace, nodes[v].workspace);
    }
    scale = double(maxBytes);
    bigM = double(total + maxWorkspace) / scale + 1;
    double maxCost = 0;
    for (unsigned i = 0; i != f; ++i)
      maxCost = std::max(maxCost, nodes[i].cost);
    costScale = maxCost > 0 ? maxCost : 1;
    // Presolve (compact model): forward node i can matter in stage t only if
    // a backward node at or after b_t reads i or a forward descendant of i
    // (`lastBackward[i]`, the latest such reader). Later stages neither keep
    // nor recompute it: in `simulate` its instances are dead by then.
    lastBackward.assign(f, -1);
    for (unsigned v = firstStage; v != n; ++v)
      for (unsigned op : nodes[v].operands)
        if (op < f)
          lastBackward[op] = std::max<int>(lastBackward[op], v);
    for (unsigned i = f; i-- > 0;)
      for (unsigned op : nodes[i].operands)
        lastBackward[op] = std::max(lastBackward[op], lastBackward[i]);
    consumers.resize(f);
    for (unsigned i = 0; i != f; ++i)
      for (unsigned op : nodes[i].operands)
        if (consumers[op].empty() || consumers[op].back() != i)
          consumers[op].push_back(i);
  }

  /// The scaled bytes a node's execution adds to what is live: its result
  /// and its workspace (`simulate` counts both during the execution).
  double executing(unsigned v) const {
    return double(counted[v] + graph.nodes[v].workspace) / scale;
  }

  /// The bytes live while node v runs in every schedule: its result, its
  /// workspace and its distinct operands (LowerBound.h's least-peak bound
  /// at a step of a forward-only graph, without the graph's inputs).
  int64_t stepBytes(unsigned v) const {
    int64_t bytes = counted[v] + graph.nodes[v].workspace;
    std::set<unsigned> ops(graph.nodes[v].operands.begin(),
                           graph.nodes[v].operands.end());
    for (unsigned op : ops)
      bytes += counted[op];
    return bytes;
  }

  /// The largest counted bytes of a value (the model's unit of memory).
  double memoryScale() const { return scale; }

  /// True if stage t (node firstStage + t) has variables for forward node
  /// i: in a forward-only graph only nodes before the stage's node.
  bool inStage(unsigned t, unsigned i) const {
    if (forwardOnly && i >= t)
      return false;
    if (firstStage + t < windowFirst || firstStage + t > windowLast)
      return false;
    if (!windowValues.empty() && !windowValues[i])
      return false;
    return !compact || lastBackward[i] >= int(firstStage + t);
  }

  /// `lowerBound` (objective units, 0: none) is a bound every feasible
  /// solution meets (LowerBound.h): it becomes an objective row, and the
  /// reported bound is at least it. `ranges` (budget mode only) are
  /// LowerBound's bounds on parts of the schedule at this budget: each
  /// becomes a row over the recompute variables of its stages.
  SolveOutcome solve(bool peakMode, int64_t budget, double seconds,
                     std::optional<double> cutoff = std::nullopt,
                     double lowerBound = 0,
                     const std::vector<LowerBound::Range> &ranges = {}) {
    SolveOutcome out;
    using Clock = std::chrono::steady_clock;
    auto deadline = Clock::now() +
                    std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(std::max(0.0, seconds)));
    // The matrix is gathered here and loaded at once (adding rows one by one
    // through the C interface is quadratic: tens of seconds at 30 nodes).
    MilpRows model;
    std::vector<double> &colLb = model.colLb, &colUb = model.colUb,
                        &colObj = model.colObj;
    std::vector<char> &colInt = model.colInt;
    std::vector<int> &rowStart = model.rowStart, &rowCol = model.rowCol;
    std::vector<double> &rowVal = model.rowVal, &rowLb = model.rowLb,
                        &rowUb = model.rowUb;
    int numCols = 0;
    auto addCol = [&](double lb, double ub, double obj, bool integer) {
      colLb.push_back(lb);
      colUb.push_back(ub);
      colObj.push_back(obj);
      colInt.push_back(integer);
      return numCols++;
    };
    auto addRow = [&](const std::vector<int> &cols,
                      const std::vector<double> &coefs, char sense,
                      double rhs) {
      rowCol.insert(rowCol.end(), cols.begin(), cols.end());
      rowVal.insert(rowVal.end(), coefs.begin(), coefs.end());
      rowStart.push_back(int(rowCol.size()));
      rowLb.push_back(sense == 'L' ? -COIN_DBL_MAX : rhs);
      rowUb.push_back(sense == 'G' ? COIN_DBL_MAX : rhs);
    };
    const std::vector<Node> &nodes = graph.nodes;
    // Variables. R[t][i], S[t][i] for t = 1..numStages (index t-1).
    std::vector<std::vector<int>> R(numStages, std::vector<int>(f, -1));
    std::vector<std::vector<int>> S(numStages, std::vector<int>(f, -1));
    int P = -1;
    if (peakMode)
      P = addCol(0, 1e30, 1, false);
    for (unsigned t = 0; t != numStages; ++t)
      for (unsigned i = 0; i != f; ++i) {
        if (!inStage(t, i))
          continue;
        S[t][i] = addCol(0, 1, 0, true);
        if (recomputable[i] &&
            (recomputeAllowed.empty() || recomputeAllowed[i]))
          R[t][i] =
              addCol(0, 1, peakMode ? 0 : nodes[i].cost / costScale, true);
      }
    // Inside a fixed schedule: only what it has resident may enter.
    if (fixedLists && windowFirst >= firstStage &&
        windowFirst - firstStage < numStages)
      for (unsigned i = 0; i != f; ++i) {
        int col = S[windowFirst - firstStage][i];
        if (col >= 0 && !enterAllowed[i])
          colUb[col] = 0;
      }
    if (fixedLists && windowFirst >= firstStage &&
        windowFirst - firstStage < numStages)
      for (const auto &[values, bytes] : entryRows) {
        std::vector<int> cols;
        std::vector<double> coefs;
        for (unsigned j : values) {
          int col = j < f ? S[windowFirst - firstStage][j] : -1;
          if (col >= 0 && counted[j] > 0) {
            cols.push_back(col);
            coefs.push_back(counted[j] / scale);
          }
        }
        if (!cols.empty())
          addRow(cols, coefs, 'L', double(bytes) / scale);
      }
    // Cost fixing: with a cutoff only plans that cost less than it are
    // searched (anything else loses to the warm start, which is returned
    // then), and costs are non-negative, so a recomputation whose own cost
    // exceeds the cutoff is in none of them: its variables are fixed to 0.
    if (costFixing && !peakMode && cutoff && nonNegativeCosts) {
      double limit = *cutoff + 1e-9 * std::max(1.0, std::fabs(*cutoff));
      for (unsigned t = 0; t != numStages; ++t)
        for (unsigned i = 0; i != f; ++i)
          if (R[t][i] >= 0 && nodes[i].cost > limit) {
            colUb[R[t][i]] = 0;
            ++out.fixedColumns;
          }
    }
    double budgetScaled = double(budget) / scale;
    // Knapsack rows (addKnapsackRow) at a budget in the compact model.
    bool withKnapsackRows = compact && knapsackRows && !peakMode;
    // Memory row helper: sum(coefs*cols) [- P] <= rhsConst [+ budget].
    auto addMemRow = [&](std::vector<int> cols, std::vector<double> coefs,
                         double rhs) {
      if (peakMode) {
        cols.push_back(P);
        coefs.push_back(-1);
      } else {
        rhs += budgetScaled;
      }
      addRow(cols, coefs, 'L', rhs);
    };

    // Stage 0: every forward node runs once, in order (a forward-only
    // graph's nodes run in their own stages; a window that starts after the
    // first backward stage leaves the forward pass as it is).
    bool forwardPass = !forwardOnly && windowFirst <= firstStage;
    for (unsigned i = 0; i != (forwardPass ? f : 0); ++i) {
      double fixed = executing(i);
      std::vector<int> cols;
      std::vector<double> coefs;
      for (unsigned j = 0; j != i; ++j) {
        if (counted[j] == 0)
          continue;
        if (lastForwardUse[j] >= int(i))
          fixed += counted[j] / scale;
        else if (numStages > 0 && S[0][j] >= 0) {
          cols.push_back(S[0][j]);
          coefs.push_back(counted[j] / scale);
        }
      }
      addMemRow(cols, coefs, -fixed);
    }

    for (unsigned t = 0; t != numStages; ++t) {
      unsigned b = firstStage + t;
      if (b < windowFirst || b > windowLast)
        continue; // Outside the window: no variables, no rows.
      // Dependencies of the recomputations and of b.
      for (unsigned i = 0; i != f; ++i) {
        if (R[t][i] < 0)
          continue;
        std::set<unsigned> ops(nodes[i].operands.begin(),
                               nodes[i].operands.end());
        for (unsigned j : ops) {
          std::vector<int> cols{R[t][i], S[t][j]};
          std::vector<double> coefs{1, -1};
          if (R[t][j] >= 0) {
            cols.push_back(R[t][j]);
            coefs.push_back(-1);
          }
          addRow(cols, coefs, 'L', 0);
        }
      }
      std::set<unsigned> bOps;
      for (unsigned j : nodes[b].operands)
        if (j < f)
          bOps.insert(j);
      // Inside a fixed schedule, what the stages after the window read
      // leaves its last stage like an operand of b: needed, then live.
      if (fixedLists && b == windowLast)
        for (unsigned j = 0; j != f; ++j)
          if (exitRequired[j] && S[t][j] >= 0)
            bOps.insert(j);
      for (unsigned j : bOps) {
        std::vector<int> cols{S[t][j]};
        std::vector<double> coefs{1};
        if (R[t][j] >= 0) {
          cols.push_back(R[t][j]);
          coefs.push_back(1);
        }
        addRow(cols, coefs, 'G', 1);
      }
      // Residency.
      if (t + 1 < numStages)
        for (unsigned i = 0; i != f; ++i) {
          if (S[t + 1][i] < 0 || S[t][i] < 0)
            continue; // Not yet computed (i == b), or not needed any more.
          std::vector<int> cols{S[t + 1][i], S[t][i]};
          std::vector<double> coefs{1, -1};
          if (R[t][i] >= 0) {
            cols.push_back(R[t][i]);
            coefs.push_back(-1);
          }
          addRow(cols, coefs, 'L', 0);
        }
      // Backward values live across the whole stage.
      double constLive = 0;
      for (unsigned v = std::max(f, firstStage); v < b; ++v)
        if (lastUse[v] >= b)
          constLive += counted[v] / scale;
      // Execution points: recomputable forward nodes, then b (index f).
      std::vector<unsigned> points;
      for (unsigned i = 0; i != f; ++i)
        if (R[t][i] >= 0)
          points.push_back(i);
      points.push_back(f);
      if (withKnapsackRows)
        addKnapsackRow(t, bOps, constLive, S, addMemRow);
      if (compact) {
        addCompactMemory(t, points, constLive, R, S, bOps, addCol, addRow,
                         addMemRow);
        continue;
      }
      // Live indicators L[j][k] per point k and value j.
      std::vector<std::vector<int>> Lv(points.size(), std::vector<int>(f, -1));
      for (unsigned j = 0; j != f; ++j) {
        if (counted[j] == 0)
          continue;
        // N[k]: j needed at or after point k (or kept to the next stage).
        std::vector<int> N(points.size());
        for (unsigned k = 0; k != points.size(); ++k)
          N[k] = addCol(0, 1, 0, false);
        for (unsigned k = 0; k != points.size(); ++k) {
          unsigned p = points[k];
          if (k + 1 < points.size())
            addRow({N[k], N[k + 1]}, {1, -1}, 'G', 0);
          if (p < f) {
            const std::vector<unsigned> &ops = nodes[p].operands;
            if (std::find(ops.begin(), ops.end(), j) != ops.end())
              addRow({N[k], R[t][p]}, {1, -1}, 'G', 0);
          } else {
            if (bOps.count(j))
              colLb[N[k]] = 1;
            if (t + 1 < numStages)
              addRow({N[k], S[t + 1][j]}, {1, -1}, 'G', 0);
          }
        }
        for (unsigned k = 0; k != points.size(); ++k) {
          unsigned p = points[k];
          if (p == j)
            continue;
          int L = addCol(0, 1, 0, false);
          Lv[k][j] = L;
          addRow({L, S[t][j], N[k]}, {1, -1, -1}, 'G', -1);
          if (j < p && R[t][j] >= 0)
            addRow({L, R[t][j], N[k]}, {1, -1, -1}, 'G', -1);
        }
      }
      // Memory rows.
      for (unsigned k = 0; k != points.size(); ++k) {
        unsigned p = points[k];
        std::vector<int> cols;
        std::vector<double> coefs;
        for (unsigned j = 0; j != f; ++j)
          if (Lv[k][j] >= 0) {
            cols.push_back(Lv[k][j]);
            coefs.push_back(counted[j] / scale);
          }
        if (p < f) {
          cols.push_back(R[t][p]);
          coefs.push_back(bigM);
          addMemRow(cols, coefs, bigM - constLive - executing(p));
        } else {
          addMemRow(cols, coefs, -constLive - executing(b));
        }
      }
    }

    // The objective is at least the lower bound: a valid row (every
    // solution of the model is a schedule of remat's model within the
    // budget, and the bound holds for all of those) that lifts the LP
    // bound of every branch-and-bound node to at least it. With the
    // knapsack rows it is left out (the bound still floors the reported
    // one): the row holds the root LP at the bound on a face of many
    // optimal points, and CBC's root cut passes then stopped early, the
    // bound unmoved (resnet_n4 at 0.5 of store-all: root bound 2.43M with
    // the row, 3.16M without; MobileNet at 0.5 and 0.6 proven at the root
    // only without it; docs/Scheduling.md, "Knapsack rows").
    if (lowerBound > 0 && !withKnapsackRows) {
      std::vector<int> cols;
      std::vector<double> coefs;
      if (peakMode) {
        cols.push_back(P);
        coefs.push_back(1);
      } else {
        for (unsigned t = 0; t != numStages; ++t)
          for (unsigned i = 0; i != f; ++i)
            if (R[t][i] >= 0 && colObj[R[t][i]] != 0) {
              cols.push_back(R[t][i]);
              coefs.push_back(colObj[R[t][i]]);
            }
      }
      if (!cols.empty())
        addRow(cols, coefs, 'G',
               lowerBound / (peakMode ? scale : costScale) * (1 - 1e-9));
    }

    if (!peakMode)
      addRangeRows(ranges, R, colObj, addRow);

    if (sizeOnly) {
      if (rowCol.size() > kMilpMaxNonzeros) {
        out.tooLargeNonzeros = rowCol.size();
        out.tooLargeRows = rowLb.size();
      }
      return out;
    }
    // Transpose the rows into CBC's column-major matrix.
    std::vector<CoinBigIndex> colStart(numCols + 1, 0);
    for (int c : rowCol)
      ++colStart[c + 1];
    for (int c = 0; c != numCols; ++c)
      colStart[c + 1] += colStart[c];
    std::vector<int> index(rowCol.size());
    std::vector<double> value(rowCol.size());
    {
      std::vector<CoinBigIndex> fill(colStart.begin(), colStart.end() - 1);
      for (size_t r = 0; r + 1 < rowStart.size(); ++r)
        for (int k = rowStart[r]; k != rowStart[r + 1]; ++k) {
          CoinBigIndex at = fill[rowCol[k]]++;
          index[at] = int(r);
          value[at] = rowVal[k];
        }
    }
    // Decline models beyond kMilpMaxNonzeros (Milp.h).
    if (rowCol.size() > kMilpMaxNonzeros) {
      out.tooLargeNonzeros = rowCol.size();
      out.tooLargeRows = rowLb.size();
      return out;
    }
    auto secondsLeft = [&] {
      return std::chrono::duration<double>(deadline -
                                           std::chrono::steady_clock::now())
          .count();
    };
    if (secondsLeft() <= 0)
      return out; // Building the model used the time.
    // The order of Cbc_C_Interface (CBC's defaults first, then the model):
    // CbcMain0 tunes the solver it finds.
    OsiClpSolverInterface empty;
    CbcModel cbc(empty);
    CbcSolverUsefulData data;
    CbcMain0(cbc, data);
    SolutionKeeper::Best kept;
    kept.check = [&](const double *x, int cols) {
      return solutionObjective(model, x, cols);
    };
    SolutionKeeper keeper(&kept);
    cbc.passInEventHandler(&keeper);
    auto &lp = *dynamic_cast<OsiClpSolverInterface *>(cbc.solver());
    lp.loadProblem(numCols, int(rowLb.size()), colStart.data(), index.data(),
                   value.data(), colLb.data(), colUb.data(), colObj.data(),
                   rowLb.data(), rowUb.data());
    for (int c = 0; c != numCols; ++c)
      if (colInt[c])
        lp.setInteger(c);
    lp.setObjSense(1);
    // The time limit covers every LP: CBC checks its clock only between
    // its own steps (root cut passes, nodes), while one LP solve of a large
    // model can run for minutes. Clp's wall-clock limit is a point in time,
    // so it holds for the first LP and for every LP CBC solves later.
    // It is set kClpGraceSeconds after the deadline: an LP Clp stops on
    // time then always ends past the deadline, where no proof is accepted
    // (below), so a cut-short LP never counts as an infeasible node.
    lp.getModelPtr()->setMaximumWallSeconds(std::max(0.0, secondsLeft()) +
                                            kClpGraceSeconds);
    cbc.setLogLevel(0);
    cbc.setMaximumSeconds(std::max(0.01, secondsLeft()));
    // Wall-clock time (CBC counts CPU time by default). CBC's preprocessing
    // does not stop on the time limit (16 s at a 10 s limit on the 100-node
    // Moccasin graph; 10.3 s without it).
    std::vector<const char *> args{"remat", "-log",     "0",
                                   "-timeMode", "elapsed", "-preprocess",
                                   "off"};
    // A known plan's objective prunes the search (nothing worse is
    // explored); "infeasible" then means nothing beats that plan.
    // CBC's primal heuristics (feasibility pump, local search) then only
    // look for what beats a plan we already have, and were measured to
    // slow the proof: VGG U-Net at 0.7-0.9 of store-all proved in 0.9-1.6 s
    // of CPU without them against 2.8-3.7 s with them (0.6: proved in
    // 4.2 s against a 0.6% gap after 4.6 s). Branch and bound still finds
    // better solutions at its nodes.
    if (cutoff) {
      cbc.setCutoff(*cutoff / (peakMode ? scale : costScale) + 1e-6);
      if (!heuristicsWithCutoff) {
        args.push_back("-heuristicsOnOff");
        args.push_back("off");
      }
    }
    // Node throughput: no strong branching (CBC's default evaluates 5
    // candidates per node with trial LPs, and one LP of these models takes
    // up to seconds) and cuts at the root only (the root's passes lift the
    // bound, 0.735 -> 1.02 on random_layered_n100 at 0.8; in the tree
    // Gomory and probing ran at every node). Measured at 30-60 s limits,
    // load 12-15 (bench/milp-results.md, branch milp11d): nodes per CPU
    // second x3-x8 (VGG U-Net 0.5 86 -> 522 nodes in 5 CPU s,
    // random_layered_n100 0.8 9 -> 75 in 11 CPU s); no row proven before
    // lost its proof, none of the open gaps changed.
    // Cuts at the root only on large models: on small ones the tree's cuts
    // are what closes the gap quickly (mlp_b4 at 0.9 of store-all, an
    // interleaved 25-op graph that auto solves forward-first: proven in
    // 0.44 s with strong branching off alone, not proven within auto's 10 s
    // with cuts at the root only as well; lead, 2026-11-24).
    // With the knapsack rows the tree's cuts pay on large models too: at a
    // node, the fixings make the stage knapsacks tighter and CBC's cover
    // cuts close what the root left (resnet_n4 at 0.5 of store-all, 4,552
    // columns: proven in 2 nodes and 1.4 CPU s, against a 0.7% gap after
    // 4,062 nodes and 22.6 CPU s with cuts at the root only; milp13,
    // bench/milp-results.md "Tree cuts"). They are asked for explicitly
    // ("-cutsOnOff on"): CBC's default left the same row open (0.7%, 266
    // nodes).
    args.push_back("-strongBranching");
    args.push_back("0");
    std::string nodeLimit = std::to_string(maxNodes);
    if (maxNodes >= 0) {
      args.push_back("-maxNodes");
      args.push_back(nodeLimit.c_str());
    }
    if (!cuts) {
      args.push_back("-cutsOnOff");
      args.push_back("off");
    } else if (numCols >= kRootCutsOnlyColumns) {
      args.push_back("-cutsOnOff");
      args.push_back(withKnapsackRows && treeCuts ? "on" : "root");
    }
    args.push_back("-solve");
    args.push_back("-quit");
    CbcMain1(int(args.size()), args.data(), cbc, noCallBack, data);
    out.nodes = cbc.getNodeCount();
    double unit = peakMode ? scale : costScale;
    // CBC's own best solution, or the best one the event handler copied
    // if that one is better or CBC's did not come back.
    const double *sol = cbc.bestSolution();
    double obj = sol ? cbc.getObjValue() : COIN_DBL_MAX;
    if (!kept.values.empty() && int(kept.values.size()) == numCols &&
        kept.objective < obj) {
      sol = kept.values.data();
      obj = kept.objective;
    }
    // What counts (MilpClaims.h): proofs only from a search that ended
    // before the deadline (CBC may stop on the time limit claiming
    // infeasibility, and an LP Clp cut short at the deadline proves
    // nothing); CBC's best possible objective from a search cut short only
    // strictly below the best known objective (cut short at the root CBC
    // reported 2.9e12 against a cutoff of 2.1 on gpt_l2).
    CbcAnswer answer;
    answer.provenOptimal = cbc.isProvenOptimal();
    answer.provenInfeasible = cbc.isProvenInfeasible();
    answer.secondsLimitReached = cbc.isSecondsLimitReached();
    answer.deadline = deadline;
    answer.returnedAt = Clock::now();
    answer.bestPossible = cbc.getBestPossibleObjValue();
    if (cutoff)
      answer.bestKnown = *cutoff / unit;
    if (sol)
      answer.bestKnown = std::min(answer.bestKnown.value_or(obj), obj);
    CbcClaims claims = acceptCbcAnswer(answer);
    out.finished = claims.finished;
    if (claims.bound)
      out.bound = std::max(0.0, *claims.bound) * unit;
    out.bound = std::max(out.bound, lowerBound);
    if (!sol || claims.infeasible) {
      out.infeasible = claims.infeasible;
      return out;
    }
    out.found = true;
    out.optimal = claims.optimal;
    out.objective = obj * unit;
    out.bound =
        out.optimal ? out.objective : std::min(out.objective, out.bound);
    out.gapPercent = gapPercent(out.objective, out.bound);
    out.schedule = Schedule(n);
    if (fixedLists)
      for (unsigned k = 0; k != n; ++k)
        if (k < windowFirst || k > windowLast)
          out.schedule.recomputeBefore[k] = fixedLists->recomputeBefore[k];
    for (unsigned t = 0; t != numStages; ++t)
      for (unsigned i = 0; i != f; ++i)
        if (R[t][i] >= 0 && sol[R[t][i]] > 0.5)
          out.schedule.recomputeBefore[firstStage + t].push_back(i);
    pruneUnread(out.schedule);
    return out;
  }

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
                    const std::vector<double> &colObj, AddRow &addRow) {
    constexpr unsigned kMaxRangeRows = 64;
    std::vector<LowerBound::Range> kept;
    for (const LowerBound::Range &r : ranges) {
      bool dominated = false;
      for (const LowerBound::Range &o : ranges)
        if (&o != &r && o.first >= r.first && o.last <= r.last &&
            o.cost >= r.cost &&
            (o.cost > r.cost || o.first != r.first || o.last != r.last ||
             &o < &r))
          dominated = true;
      if (!dominated)
        kept.push_back(r);
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const LowerBound::Range &a,
                        const LowerBound::Range &b) {
                       return a.cost > b.cost;
                     });
    if (kept.size() > kMaxRangeRows)
      kept.resize(kMaxRangeRows);
    for (const LowerBound::Range &r : kept) {
      std::vector<int> cols;
      std::vector<double> coefs;
      for (unsigned t = 0; t != numStages; ++t) {
        unsigned b = firstStage + t;
        if (b < r.first || b > r.last)
          continue;
        for (unsigned i = 0; i != f; ++i)
          if (R[t][i] >= 0 && colObj[R[t][i]] != 0) {
            cols.push_back(R[t][i]);
            coefs.push_back(colObj[R[t][i]]);
          }
      }
      // No stage of the model in the range: the row would say the budget
      // is infeasible in the stage model; leaving it out is always valid.
      if (!cols.empty())
        addRow(cols, coefs, 'G', r.cost / costScale * (1 - 1e-9));
    }
  }

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
                      double constLive,
                      const std::vector<std::vector<int>> &S,
                      AddMemRow &addMemRow) const {
    if (t + 1 >= numStages)
      return;
    unsigned b = firstStage + t;
    double fixedAtB = constLive + executing(b);
    for (unsigned j : bOps)
      fixedAtB += counted[j] / scale;
    std::vector<int> cols;
    std::vector<double> coefs;
    for (unsigned j = 0; j != f; ++j) {
      // Values with neither variable in stage t are not forward values of
      // it (a forward-only graph's b itself, counted in executing(b)).
      if (bOps.count(j) || counted[j] == 0 || S[t + 1][j] < 0 || S[t][j] < 0)
        continue;
      cols.push_back(S[t + 1][j]);
      coefs.push_back(counted[j] / scale);
    }
    if (cols.size() > 1)
      addMemRow(cols, coefs, -fixedAtB);
  }

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
                        AddRow &addRow, AddMemRow &addMemRow) {
    unsigned m = points.size() - 1; // points[m] == f stands for b.
    bool hasNext = t + 1 < numStages;
    // Per value j: its consumers recomputable in this stage (ascending) and
    // the live expression of each (segment, side) key, created lazily.
    struct Value {
      std::vector<unsigned> cons;
      std::vector<int> need; // N_s, s < cons.size()
      std::map<std::pair<unsigned, bool>, Expr> live;
      bool tailOne = false;
      int tailVar = -1;
    };
    std::vector<Value> values(f);
    std::vector<bool> active(f, false);
    for (unsigned j = 0; j != f; ++j) {
      if (counted[j] == 0 || (S[t][j] < 0 && R[t][j] < 0))
        continue;
      active[j] = true;
      Value &val = values[j];
      for (unsigned c : consumers[j])
        if (R[t][c] >= 0)
          val.cons.push_back(c);
      val.tailOne = bOps.count(j) != 0;
      if (!val.tailOne && hasNext)
        val.tailVar = S[t + 1][j];
      // A resident instance and a recomputation of j in one stage: the
      // resident one is read by nothing in the stage (j's readers come after
      // j), so dropping it is never worse; excluding it tightens the model.
      if (S[t][j] >= 0 && R[t][j] >= 0)
        addRow({S[t][j], R[t][j]}, {1, 1}, 'L', 1);
      // Needed at or after consumer s: N_s >= R[c_s], N_s >= N_{s+1}.
      if (!val.tailOne) {
        unsigned r = val.cons.size();
        val.need.assign(r, -1);
        for (unsigned s = r; s-- > 0;) {
          int col = addCol(0, 1, 0, false);
          val.need[s] = col;
          addRow({col, R[t][val.cons[s]]}, {1, -1}, 'G', 0);
          int next = s + 1 < r ? val.need[s + 1] : val.tailVar;
          if (next >= 0)
            addRow({col, next}, {1, -1}, 'G', 0);
        }
      }
      // A recomputation of j that nothing reads is never needed.
      if (R[t][j] >= 0 && !val.tailOne) {
        std::vector<int> cols{R[t][j]};
        std::vector<double> coefs{1};
        for (unsigned c : val.cons) {
          cols.push_back(R[t][c]);
          coefs.push_back(-1);
        }
        if (val.tailVar >= 0) {
          cols.push_back(val.tailVar);
          coefs.push_back(-1);
        }
        addRow(cols, coefs, 'L', 0);
      }
    }
    // The live expression of j at point p.
    auto liveAt = [&](unsigned j, unsigned p) -> const Expr & {
      Value &val = values[j];
      unsigned seg = std::lower_bound(val.cons.begin(), val.cons.end(), p) -
                     val.cons.begin();
      bool after = p > j;
      auto key = std::make_pair(seg, after);
      auto it = val.live.find(key);
      if (it != val.live.end())
        return it->second;
      // N: j is read at or after this point (by a recomputation, by b, or
      // kept to the next stage). Every such reader needs an instance of j
      // (the dependency and residency rows), so after j's own position j is
      // live exactly when N holds; before it, only a resident instance is,
      // which with S + R <= 1 is N and not R.
      Expr e;
      int need = -1;
      if (!val.tailOne) {
        if (seg < val.cons.size())
          need = val.need[seg];
        else if (val.tailVar >= 0)
          need = val.tailVar;
        else
          return val.live.emplace(key, std::move(e)).first->second; // Dead.
      }
      if (after) {
        if (val.tailOne)
          e.constant = 1;
        else
          e.terms.push_back({need, 1});
      } else if (val.tailOne) {
        e.terms.push_back({S[t][j], 1});
      } else if (R[t][j] < 0) {
        e.terms.push_back({need, 1});
      } else {
        int L = addCol(0, 1, 0, false);
        addRow({L, need, R[t][j]}, {1, -1, 1}, 'G', 0);
        e.terms.push_back({L, 1});
      }
      return val.live.emplace(key, std::move(e)).first->second;
    };
    // M_k rows, then the memory rows. The live bytes at a point where
    // nothing is recomputed are at most those at the next execution (every
    // value live there is read at or after it), so the rows of all points
    // hold without a big-M: M_k + bytes(p) R[t][p] <= budget - fixed.
    std::vector<const Expr *> previous(f, nullptr);
    int prevM = -1;
    for (unsigned k = 0; k <= m; ++k) {
      unsigned p = points[k];
      std::map<int, double> row;
      double rhs = 0;
      for (unsigned j = 0; j != f; ++j) {
        if (!active[j])
          continue;
        const Expr &now = liveAt(j, p);
        if (previous[j] == &now)
          continue;
        double bytes = counted[j] / scale;
        for (auto [c, v] : now.terms)
          row[c] -= bytes * v;
        rhs += bytes * now.constant;
        if (previous[j]) {
          for (auto [c, v] : previous[j]->terms)
            row[c] += bytes * v;
          rhs -= bytes * previous[j]->constant;
        }
        previous[j] = &now;
      }
      int M = addCol(-COIN_DBL_MAX, COIN_DBL_MAX, 0, false);
      std::vector<int> cols{M};
      std::vector<double> coefs{1};
      if (prevM >= 0) {
        cols.push_back(prevM);
        coefs.push_back(-1);
      }
      for (auto [c, v] : row)
        if (v != 0) {
          cols.push_back(c);
          coefs.push_back(v);
        }
      addRow(cols, coefs, 'E', rhs);
      prevM = M;
      if (k < m)
        addMemRow({M, R[t][p]}, {1, executing(p)}, -constLive);
      else
        addMemRow({M}, {1}, -constLive - executing(firstStage + t));
    }
  }

private:
  /// Removes recomputations whose instance no execution reads (possible for
  /// zero-cost nodes); removing them never adds memory.
  void pruneUnread(Schedule &schedule) {
    bool changed = true;
    while (changed) {
      changed = false;
      // Flatten: (node, step, index in list or -1 for the node itself).
      std::vector<int> latest(n, -1);
      struct Exec {
        unsigned node, step;
        int pos;
        bool read = false;
      };
      std::vector<Exec> execs;
      for (unsigned k = 0; k != n; ++k) {
        auto run = [&](unsigned v, int pos) {
          for (unsigned op : graph.nodes[v].operands)
            if (latest[op] >= 0)
              execs[latest[op]].read = true;
          latest[v] = int(execs.size());
          execs.push_back({v, k, pos});
        };
        const std::vector<unsigned> &list = schedule.recomputeBefore[k];
        for (unsigned q = 0; q != list.size(); ++q)
          run(list[q], int(q));
        run(k, -1);
      }
      for (auto it = execs.rbegin(); it != execs.rend(); ++it)
        if (it->pos >= 0 && !it->read) {
          std::vector<unsigned> &list = schedule.recomputeBefore[it->step];
          list.erase(list.begin() + it->pos);
          changed = true;
          break;
        }
    }
  }

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

/// Windows of stages that prove a budget infeasible on a forward-only graph
/// (`milpOptimal` without a plan within the budget): the model of
/// `milpWindowPeakBound` over the stages of nodes s - w + 1 to s, for the
/// kWindowSteps steps s that hold the most bytes whatever is recomputed
/// (`stepBytes`) and the widths in kWindowWidths, each asked for a solution
/// with a peak below the budget plus a margin (CBC's cutoff). A window
/// whose search ends without one proves that every schedule of the whole
/// graph peaks above the budget. Returns the first such window's nodes.
/// Measured on random_layered_n100 at 0.5 of store-all (the 4 stages ending
/// at node index 61: CBC's bound on the window's least peak 0.52-0.53 of
/// store-all within 8 CPU s, against 0.46 from the whole graph's least-peak
/// MILP after 39 CPU s and 0.43 from LowerBound; bench/milp-results.md).
constexpr unsigned kWindowSteps = 3;
constexpr unsigned kWindowWidths[] = {4, 8};

/// The windows `windowProvesInfeasible` and `milpWindowLeastPeakBound` try
/// on `graph` (forward-only; `windows` is its model), first and last node of
/// each: widths kWindowWidths ending at the kWindowSteps steps with the most
/// bytes.
std::vector<std::pair<unsigned, unsigned>>
boundWindows(const Graph &graph, const MilpBuilder &windows) {
  unsigned n = graph.size();
  std::vector<unsigned> steps(n);
  for (unsigned v = 0; v != n; ++v)
    steps[v] = v;
  std::stable_sort(steps.begin(), steps.end(), [&](unsigned a, unsigned b) {
    return windows.stepBytes(a) > windows.stepBytes(b);
  });
  steps.resize(std::min<size_t>(steps.size(), kWindowSteps));
  std::vector<std::pair<unsigned, unsigned>> tried;
  for (unsigned width : kWindowWidths)
    for (unsigned s : steps) {
      unsigned first = s + 1 >= width ? s + 1 - width : 0;
      if (std::find(tried.begin(), tried.end(), std::make_pair(first, s)) ==
          tried.end())
        tried.push_back({first, s});
    }
  return tried;
}

std::optional<std::pair<unsigned, unsigned>>
windowProvesInfeasible(const Graph &graph, int64_t budget, double seconds) {
  if (seconds <= 0.05 || !graph.isForwardOnly())
    return std::nullopt;
  auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(seconds));
  MilpBuilder windows(graph, graph.size(), /*compact=*/true);
  windows.knapsackRows = false;
  std::vector<std::pair<unsigned, unsigned>> tried =
      boundWindows(graph, windows);
  // CBC prunes what lies within its cutoff increment and its tolerances of
  // the cutoff; the margin keeps every proof above the budget itself.
  double margin = 0.5 + 1e-3 * windows.memoryScale();
  for (size_t k = 0; k != tried.size(); ++k) {
    double left = std::chrono::duration<double>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
    if (left <= 0.05)
      break;
    windows.windowFirst = tried[k].first;
    windows.windowLast = tried[k].second;
    SolveOutcome out =
        windows.solve(/*peakMode=*/true, 0, left / double(tried.size() - k),
                      double(budget) + margin);
    if (out.infeasible && out.finished)
      return tried[k];
  }
  return std::nullopt;
}

/// The boundary of the stages of nodes `first` to `last` inside `schedule`,
/// a forward-only graph's schedule whose lists are in index order: `enter[j]`
/// when an instance of j exists entering stage `first` and a read at or
/// after that stage uses it, `exit[j]` the same entering stage last + 1.
void windowBoundary(const Graph &graph, const Schedule &schedule,
                    unsigned first, unsigned last, std::vector<bool> &enter,
                    std::vector<bool> &exit) {
  unsigned n = graph.size();
  std::vector<size_t> lastUse, latest(n, SIZE_MAX);
  std::vector<size_t> atFirst, atExit;
  size_t firstPos = 0, exitPos = SIZE_MAX;
  for (unsigned k = 0; k != n; ++k) {
    if (k == first) {
      atFirst = latest;
      firstPos = lastUse.size();
    }
    if (k == last + 1) {
      atExit = latest;
      exitPos = lastUse.size();
    }
    auto run = [&](unsigned v) {
      for (unsigned op : graph.nodes[v].operands)
        lastUse[latest[op]] = lastUse.size();
      latest[v] = lastUse.size();
      lastUse.push_back(lastUse.size());
    };
    for (unsigned u : schedule.recomputeBefore[k])
      run(u);
    run(k);
  }
  auto usedFrom = [&](const std::vector<size_t> &at, size_t pos,
                      std::vector<bool> &out) {
    out.assign(n, false);
    for (unsigned j = 0; j != at.size(); ++j)
      out[j] = at[j] != SIZE_MAX && lastUse[at[j]] >= pos;
  };
  usedFrom(atFirst, firstPos, enter);
  usedFrom(atExit, exitPos, exit);
}

/// Restricts `builder`'s window (its bounds, `enterAllowed` and
/// `exitRequired` set) to the forward nodes in `allowed` (indexed by node)
/// as recomputations, and gives variables only to the values that enter or
/// leave it, those of `enterAlso`, the operands of the window's nodes and
/// the recomputable nodes and their operands (`MilpBuilder::windowValues`).
void restrictWindow(const Graph &graph, unsigned f,
                    const std::vector<bool> &allowed,
                    const std::vector<unsigned> &enterAlso,
                    MilpBuilder &builder) {
  unsigned n = graph.size();
  std::vector<bool> values(n, false);
  builder.recomputeAllowed.clear();
  for (unsigned i = 0; i != f; ++i) {
    builder.recomputeAllowed.push_back(allowed[i]);
    if (builder.enterAllowed[i] || builder.exitRequired[i])
      values[i] = true;
    if (allowed[i]) {
      values[i] = true;
      for (unsigned op : graph.nodes[i].operands)
        values[op] = true;
    }
  }
  for (unsigned v = builder.windowFirst; v <= builder.windowLast && v < n; ++v)
    for (unsigned op : graph.nodes[v].operands)
      values[op] = true;
  for (unsigned j : enterAlso)
    if (j < f)
      values[j] = true;
  values.resize(f);
  builder.windowValues = std::move(values);
}

/// Radii of the free stages around a peak step that `repairToBudget` tries,
/// smallest first: the stages of nodes p - r to p + r / 2 for step p.
constexpr unsigned kRepairRadii[] = {4, 8, 16, 32};
/// The radii with a cap on each window's recomputations
/// (`repairToBudget`'s `candidateCap`), whose models stay small enough for
/// wider windows.
constexpr unsigned kCappedRepairRadii[] = {4, 8, 16, 32, 64};
/// Wall seconds one repair solve gets at most.
constexpr double kRepairSolveSeconds = 4;

/// How far a forward-only schedule is from a budget: its peak, the steps at
/// the peak, and the bytes above the budget summed over all steps. Smaller
/// (lexicographically) is better; a repair step must make it smaller.
struct Excess {
  int64_t peak = 0;
  size_t peakSteps = 0;
  int64_t above = 0;
  bool operator<(const Excess &o) const {
    return std::tie(peak, peakSteps, above) <
           std::tie(o.peak, o.peakSteps, o.above);
  }
};

/// Simulates `schedule` and measures it against `budget`; none if it is
/// not a valid schedule.
std::optional<Excess> measureExcess(const Graph &graph,
                                    const Schedule &schedule, int64_t budget,
                                    std::vector<int64_t> &stepPeak) {
  SimResult sim;
  if (liveBytesTrace(graph, schedule, sim, stepPeak))
    return std::nullopt;
  Excess e;
  e.peak = sim.peakBytes;
  for (int64_t bytes : stepPeak) {
    e.peakSteps += bytes == sim.peakBytes;
    e.above += std::max<int64_t>(0, bytes - budget);
  }
  return e;
}

/// Seconds left until a deadline set `seconds` (at least 0) from now; may be
/// negative once it has passed.
class SecondsLeft {
public:
  explicit SecondsLeft(double seconds)
      : deadline(
            std::chrono::steady_clock::now() +
            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                std::chrono::duration<double>(std::max(0.0, seconds)))) {}
  double operator()() const {
    return std::chrono::duration<double>(deadline -
                                         std::chrono::steady_clock::now())
        .count();
  }

private:
  std::chrono::steady_clock::time_point deadline;
};

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
/// whole windows exceed kMilpMaxNonzeros from 13 stages on.
std::optional<Schedule> repairToBudget(const Graph &graph, int64_t budget,
                                       Schedule seed, double seconds,
                                       unsigned &solves, int64_t maxNodes = -1,
                                       Schedule *best = nullptr,
                                       unsigned candidateCap = 0) {
  SecondsLeft left(seconds);
  unsigned n = graph.size();
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  unsigned firstStage = f == n ? 0 : f;
  for (std::vector<unsigned> &list : seed.recomputeBefore)
    std::sort(list.begin(), list.end());
  std::vector<int64_t> stepPeak;
  std::optional<Excess> cur = measureExcess(graph, seed, budget, stepPeak);
  if (!cur || firstStage == n)
    return std::nullopt;
  MilpBuilder builder(graph, f, /*compact=*/true);
  builder.knapsackRows = false;
  // CBC's primal heuristics find these solutions: with the cutoff and
  // without them nothing came back in 4 s per window (random_layered_n100
  // at 0.6 of store-all).
  builder.heuristicsWithCutoff = true;
  builder.maxNodes = maxNodes;
  double solveSeconds = maxNodes >= 0 ? seconds : kRepairSolveSeconds;
  std::vector<bool> exhausted(n, false);
  size_t radius = 0;
  while (cur->peak > budget && left() > 0.05) {
    unsigned p = n;
    for (unsigned k = 0; k != n && p == n; ++k)
      if (stepPeak[k] == cur->peak && !exhausted[k])
        p = k;
    if (p == n && maxNodes < 0 && left() > 4 * solveSeconds) {
      // Every step at the peak tried at every radius with time left: again
      // with twice the time per solve (random_layered_n500 at 0.4 of
      // store-all stopped at 30 s of 60 s, its wider windows cut short).
      solveSeconds *= 2;
      exhausted.assign(n, false);
      continue;
    }
    if (p == n)
      break;
    // Each radius twice: CBC without a cutoff (its heuristics' first
    // solutions), then with the current peak as its cutoff (heuristics kept
    // on); on random_layered_n100 at 0.6 of store-all each variant alone
    // stalled at a step where the other one gained.
    unsigned r = candidateCap > 0 ? kCappedRepairRadii[radius / 2]
                                  : kRepairRadii[radius / 2];
    bool withCutoff = radius % 2 == 1;
    builder.fixedLists = &seed;
    builder.windowFirst = std::max(firstStage, p >= r ? p - r : 0);
    builder.windowLast =
        std::min(n - 1, std::max(p, builder.windowFirst) + r / 2);
    windowBoundary(graph, seed, builder.windowFirst, builder.windowLast,
                   builder.enterAllowed, builder.exitRequired);
    if (candidateCap > 0)
      restrictWindow(graph, f,
                     milpRecomputeCandidates(graph, seed, builder.windowFirst,
                                             builder.windowLast, candidateCap),
                     {}, builder);
    // The first backward stage has the forward pass's rows: what it keeps
    // from the forward pass is counted there, so any value may enter.
    if (f != n && builder.windowFirst == f)
      builder.enterAllowed.assign(n, true);
    ++solves;
    std::optional<double> cutoff;
    if (withCutoff)
      cutoff = double(cur->peak) - 0.5;
    SolveOutcome out = builder.solve(
        /*peakMode=*/true, 0, std::min(left(), solveSeconds), cutoff);
    if (out.tooLargeNonzeros) {
      // Wider windows around this step would be larger still.
      exhausted[p] = true;
      radius = 0;
      continue;
    }
    std::vector<int64_t> nextPeak;
    std::optional<Excess> next;
    if (out.found)
      next = measureExcess(graph, out.schedule, budget, nextPeak);
    if (next && *next < *cur) {
      seed = std::move(out.schedule);
      cur = next;
      stepPeak = std::move(nextPeak);
      radius = 0;
      continue;
    }
    if (++radius == 2 * (candidateCap > 0 ? std::size(kCappedRepairRadii)
                                          : std::size(kRepairRadii))) {
      exhausted[p] = true;
      radius = 0;
    }
  }
  if (best)
    *best = seed;
  if (cur->peak > budget)
    return std::nullopt;
  return seed;
}

/// Stages freed at once by `cutRepairedRecompute`, and the step between
/// the first stages of two consecutive windows of a sweep. On
/// random_layered_n100 (60 s, one run each, load 1-2): 8 / 4 left 50.98%
/// recompute at 0.7 of store-all and 193.25% at 0.6, 16 / 8 24.01% and
/// 147.60%, 24 / 12 19.08% and 86.24%, 32 / 16 11.52% and 146.26%.
constexpr unsigned kRecomputeWindow = 24, kRecomputeStride = 12;

/// Lowers the recompute cost of `plan`, a forward-only schedule within
/// `budget`, by the same large-neighbourhood search as `repairToBudget`: a
/// sweep re-plans windows of kRecomputeWindow stages in turn inside the
/// rest of the plan, asking CBC for the least recompute of the window
/// within the budget; a solution is kept when it simulates within the
/// budget at a lower cost. Sweeps repeat while one gains and time is left.
void cutRepairedRecompute(const Graph &graph, int64_t budget, Schedule &plan,
                          double seconds, unsigned &solves) {
  SecondsLeft left(seconds);
  unsigned n = graph.size();
  SimResult sim;
  if (simulate(graph, plan, sim) || sim.peakBytes > budget)
    return;
  MilpBuilder builder(graph, n, /*compact=*/true);
  builder.knapsackRows = false;
  bool gained = true;
  while (gained && left() > 0.05) {
    gained = false;
    for (unsigned first = 0; first < n && left() > 0.05;
         first += kRecomputeStride) {
      builder.fixedLists = &plan;
      builder.windowFirst = first;
      builder.windowLast = std::min(n - 1, first + kRecomputeWindow - 1);
      windowBoundary(graph, plan, builder.windowFirst, builder.windowLast,
                     builder.enterAllowed, builder.exitRequired);
      ++solves;
      SolveOutcome out = builder.solve(/*peakMode=*/false, budget,
                                       std::min(left(), kRepairSolveSeconds));
      if (out.tooLargeNonzeros)
        return;
      SimResult next;
      if (out.found && !simulate(graph, out.schedule, next) &&
          next.peakBytes <= budget &&
          next.recomputeCost < sim.recomputeCost - 1e-9) {
        plan = std::move(out.schedule);
        sim = next;
        gained = true;
      }
    }
  }
}

std::string formatDetail(const SolverStats &stats, bool peakMode) {
  char buf[256];
  const char *unit = peakMode ? " B" : "";
  if (stats.optimal)
    std::snprintf(buf, sizeof(buf), "optimal (%s %.6g%s, %.2f s of %.0f s%s)",
                  peakMode ? "peak" : "recompute cost", stats.objective, unit,
                  stats.seconds, stats.timeLimitSeconds,
                  stats.warmStarted ? ", warm start" : "");
  else
    std::snprintf(buf, sizeof(buf),
                  "feasible, gap %.2f%% (%s %.6g%s, bound %.6g%s, %.2f s of "
                  "%.0f s%s)",
                  stats.gapPercent, peakMode ? "peak" : "recompute cost",
                  stats.objective, unit, stats.bound, unit, stats.seconds,
                  stats.timeLimitSeconds,
                  stats.warmStarted ? ", warm start" : "");
  return buf;
}

} // namespace
#endif

MilpWindowBound remat::sched::milpWindowPeakBound(const Graph &graph,
                                                  unsigned first, unsigned last,
                                                  double seconds) {
  MilpWindowBound result;
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || !graph.isForwardOnly() || graph.size() == 0)
    return result;
  last = std::min(last, graph.size() - 1);
  if (first > last)
    return result;
  MilpBuilder builder(graph, graph.size(), /*compact=*/true);
  builder.knapsackRows = false;
  builder.windowFirst = first;
  builder.windowLast = last;
  SolveOutcome out = builder.solve(/*peakMode=*/true, 0, seconds);
  result.nodes = out.nodes;
  result.finished = out.finished;
  if (out.tooLargeNonzeros)
    return result;
  // Peaks are whole bytes: the least one at or above CBC's bound, less a
  // relative 1e-6 for its tolerances (a 48-byte optimum comes back as
  // 47.99999995).
  double bound = out.bound - 1e-6 * std::max(1.0, std::fabs(out.bound));
  result.peakBytes = bound > 0 ? int64_t(std::ceil(bound)) : 0;
#else
  (void)graph;
  (void)first;
  (void)last;
  (void)seconds;
#endif
  return result;
}

std::optional<Schedule>
remat::sched::milpRepairToBudget(const Graph &graph, int64_t budget,
                                 const Schedule &seed, double seconds,
                                 int64_t maxNodes) {
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || !graph.isForwardOnly() || graph.size() == 0 ||
      graph.size() > kMilpMaxNodes ||
      seed.recomputeBefore.size() != graph.size())
    return std::nullopt;
  unsigned solves = 0;
  std::optional<Schedule> plan =
      repairToBudget(graph, budget, seed, seconds, solves, maxNodes);
  SimResult sim;
  if (plan && (simulate(graph, *plan, sim) || sim.peakBytes > budget))
    return std::nullopt;
  return plan;
#else
  (void)graph;
  (void)budget;
  (void)seed;
  (void)seconds;
  (void)maxNodes;
  return std::nullopt;
#endif
}

MilpWindowBound remat::sched::milpWindowLeastPeakBound(const Graph &graph,
                                                       double seconds) {
  MilpWindowBound result;
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || !graph.isForwardOnly() || graph.size() == 0)
    return result;
  SecondsLeft left(seconds);
  MilpBuilder windows(graph, graph.size(), /*compact=*/true);
  windows.knapsackRows = false;
  std::vector<std::pair<unsigned, unsigned>> tried =
      boundWindows(graph, windows);
  result.finished = true;
  for (size_t k = 0; k != tried.size(); ++k) {
    if (left() <= 0.05) {
      result.finished = false;
      break;
    }
    MilpWindowBound w =
        milpWindowPeakBound(graph, tried[k].first, tried[k].second,
                            left() / double(tried.size() - k));
    result.nodes += w.nodes;
    result.finished = result.finished && w.finished;
    result.peakBytes = std::max(result.peakBytes, w.peakBytes);
  }
#else
  (void)graph;
  (void)seconds;
#endif
  return result;
}

std::optional<MilpPeakDescent>
remat::sched::milpLowerPeak(const Graph &graph, int64_t target,
                            const Schedule &seed, double seconds,
                            int64_t maxNodes, unsigned candidateCap) {
#ifdef REMAT_HAVE_CBC
  unsigned n = graph.size();
  if (graph.validate() || n == 0 || seed.recomputeBefore.size() != n)
    return std::nullopt;
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  for (unsigned v = f; v < n; ++v)
    if (!graph.nodes[v].backward)
      return std::nullopt; // The stage model needs the forward pass first.
  MilpPeakDescent descent;
  descent.schedule = seed;
  repairToBudget(graph, target, seed, seconds, descent.solves, maxNodes,
                 &descent.schedule, candidateCap);
  if (simulate(graph, descent.schedule, descent.sim))
    return std::nullopt;
  return descent;
#else
  (void)graph;
  (void)target;
  (void)seed;
  (void)seconds;
  (void)maxNodes;
  (void)candidateCap;
  return std::nullopt;
#endif
}

std::optional<std::pair<unsigned, unsigned>>
remat::sched::milpWindowsProveInfeasible(const Graph &graph, int64_t budget,
                                         double seconds) {
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || graph.size() == 0)
    return std::nullopt;
  return windowProvesInfeasible(graph, budget, seconds);
#else
  (void)graph;
  (void)budget;
  (void)seconds;
  return std::nullopt;
#endif
}

std::optional<Schedule>
remat::sched::milpReplanWindow(const Graph &graph, const Schedule &schedule,
                               unsigned first, unsigned last, double seconds,
                               int64_t maxNodes) {
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || !graph.isForwardOnly() || graph.size() == 0 ||
      graph.size() > kMilpMaxNodes ||
      schedule.recomputeBefore.size() != graph.size() || first > last ||
      last >= graph.size())
    return std::nullopt;
  MilpBuilder builder(graph, graph.size(), /*compact=*/true);
  builder.knapsackRows = false;
  builder.fixedLists = &schedule;
  builder.windowFirst = first;
  builder.windowLast = last;
  builder.maxNodes = maxNodes;
  windowBoundary(graph, schedule, first, last, builder.enterAllowed,
                 builder.exitRequired);
  SolveOutcome out = builder.solve(/*peakMode=*/true, 0, seconds);
  if (!out.found)
    return std::nullopt;
  return out.schedule;
#else
  (void)graph;
  (void)schedule;
  (void)first;
  (void)last;
  (void)seconds;
  return std::nullopt;
#endif
}

MilpWindowAnswer
remat::sched::milpReplanWindowAtBudget(const Graph &graph,
                                       const Schedule &schedule,
                                       const MilpWindowRequest &request) {
  MilpWindowAnswer answer;
#ifdef REMAT_HAVE_CBC
  unsigned n = graph.size();
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  unsigned firstStage = f == n ? 0 : f;
  if (n == 0 || schedule.recomputeBefore.size() != n ||
      request.first > request.last || request.last >= n ||
      request.first < firstStage ||
      (!request.recomputeAllowed.empty() &&
       request.recomputeAllowed.size() != n))
    return answer;
  for (unsigned v = f; v < n; ++v)
    if (!graph.nodes[v].backward)
      return answer; // The stage model needs the forward pass first.
  MilpBuilder builder(graph, f, /*compact=*/true);
  builder.knapsackRows = false;
  builder.fixedLists = &schedule;
  builder.windowFirst = request.first;
  builder.windowLast = request.last;
  builder.maxNodes = request.maxNodes;
  builder.cuts = request.cuts;
  windowBoundary(graph, schedule, request.first, request.last,
                 builder.enterAllowed, builder.exitRequired);
  for (unsigned j : request.enterAlso)
    if (j < f)
      builder.enterAllowed[j] = true;
  builder.entryRows = request.entryRows;
  if (!request.recomputeAllowed.empty())
    restrictWindow(graph, f, request.recomputeAllowed, request.enterAlso,
                   builder);
  SolveOutcome out = builder.solve(/*peakMode=*/false, request.budget,
                                   request.seconds, request.cutoff);
  answer.tooLarge = out.tooLargeNonzeros != 0;
  answer.nodes = out.nodes;
  answer.finished = out.finished;
  if (out.found)
    answer.schedule = std::move(out.schedule);
#else
  (void)graph;
  (void)schedule;
  (void)request;
#endif
  return answer;
}

/// Why a model goes to MilpLarge.h instead of CBC, for the plan's detail.
[[maybe_unused]] static std::string milpTooManyNonzeros(int64_t nonzeros) {
  return "model of " + std::to_string(nonzeros) + " nonzeros, more than the " +
         std::to_string(kMilpMaxNonzeros) + " solved whole";
}

std::optional<PlanResult> remat::sched::milpOptimal(const Graph &graph,
                                                    int64_t budgetBytes,
                                                    double timeLimitSeconds,
                                                    std::string &note,
                                                    const Schedule *warmStart,
                                                    MilpModel model,
                                                    bool rangeRows,
                                                    bool costFixing,
                                                    bool knapsackRows,
                                                    bool treeCuts) {
#ifndef REMAT_HAVE_CBC
  (void)treeCuts;
  (void)model;
  (void)rangeRows;
  (void)costFixing;
  (void)knapsackRows;
  (void)graph;
  (void)budgetBytes;
  (void)timeLimitSeconds;
  (void)warmStart;
  note = "milp: remat was built without CBC (coinor-libcbc-dev)";
  return std::nullopt;
#else
  if (std::optional<std::string> err = graph.validate()) {
    note = "milp: malformed graph: " + *err;
    return std::nullopt;
  }
  unsigned n = graph.size();
  bool compact = model == MilpModel::Compact;
  unsigned maxNodes = compact ? kMilpMaxNodes : kMilpDenseMaxNodes;
  // Too large to solve whole: the compact model searches windows of stages
  // inside the warm start (MilpWindows.h), or repairs the least-peak plan
  // to the budget or towards a lower peak (MilpLarge.h); the dense model
  // declines.
  bool large = n > maxNodes && compact;
  if (n > maxNodes && !large) {
    note = "milp: graph has " + std::to_string(n) + " nodes, more than the " +
           std::to_string(maxNodes) + " the exact solver accepts";
    return std::nullopt;
  }
  if (graph.isForwardOnly() && !compact) {
    note = "milp: the dense model needs a training step (forward and "
           "backward nodes); the graph is forward-only";
    return std::nullopt;
  }
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  for (unsigned v = f; v < n; ++v)
    if (!graph.nodes[v].backward) {
      note = "milp: forward node '" + graph.nodes[v].name +
             "' follows a backward node; the stage model needs the forward "
             "pass first";
      return std::nullopt;
    }
  if (large)
    return milpLargePlan(graph, budgetBytes, timeLimitSeconds, warmStart,
                         "graph of " + std::to_string(n) +
                             " nodes, more than the " +
                             std::to_string(maxNodes) + " solved whole",
                         note);

  auto start = std::chrono::steady_clock::now();
  auto left = [&] {
    return timeLimitSeconds -
           std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
               .count();
  };
  // The model too large to solve whole: MilpLarge.h with the time left,
  // reporting the whole call's time against the whole limit.
  auto largePlan = [&](int64_t budget, int64_t nonzeros) {
    MilpLargeOptions options;
    double rest = std::max(0.0, left());
    options.spentSeconds = timeLimitSeconds - rest;
    return milpLargePlan(graph, budget, rest, warmStart,
                         milpTooManyNonzeros(nonzeros), note, options);
  };
  MilpBuilder builder(graph, f, compact);
  builder.costFixing = costFixing;
  builder.knapsackRows = knapsackRows && milpKnapsackRowsApply(graph);
  builder.treeCuts = treeCuts;
  PlanResult plan;
  plan.strategy = strategy::kMilp;
  SolverStats stats;
  stats.timeLimitSeconds = timeLimitSeconds;
  stats.warmStarted = warmStart != nullptr;
  bool peakMode = budgetBytes <= 0;
  bool optimal = true, leastPeakOnly = false;
  double gap = 0;
  int64_t budget = budgetBytes;
  SolveOutcome result;
  // The warm start: its objective is CBC's cutoff (the search only explores
  // what can beat it), and it is returned when CBC finds nothing better in
  // time, with CBC's bound. (Handing it to CBC as a MIP start instead made
  // CBC keep it: 96 against 25 recompute on a 35-node graph at 10 s.)
  std::optional<SimResult> warmSim;
  if (warmStart) {
    SimResult sim;
    if (!simulate(graph, *warmStart, sim))
      warmSim = sim;
  }
  auto declineSize = [&](const SolveOutcome &out) {
    if (!out.tooLargeNonzeros)
      return false;
    note = "milp: the model has " + std::to_string(out.tooLargeNonzeros) +
           " nonzeros (" + std::to_string(out.tooLargeRows) +
           " rows), more than the " + std::to_string(kMilpMaxNonzeros) +
           " CBC is given (building and loading it alone would take "
           "seconds and hundreds of megabytes)";
    return true;
  };
  auto keepWarm = [&](SolveOutcome &out, double warmObjective,
                      bool cutoffUsed) {
    if (out.found && out.objective <= warmObjective + 1e-9)
      return;
    // With the cutoff, a proof that nothing fits proves the start optimal.
    if (cutoffUsed && out.infeasible)
      out.bound = warmObjective;
    out.found = true;
    out.infeasible = false;
    out.schedule = *warmStart;
    out.objective = warmObjective;
    out.bound = std::min(out.bound, warmObjective);
    // Only a search that ended proves the start optimal (a bound at the
    // cutoff from one cut short is what an LP stopped on time leaves;
    // LowerBound's bound meeting the start is handled before CBC runs).
    out.optimal = out.finished && out.bound >= warmObjective - 1e-9;
    out.gapPercent = gapPercent(out.objective, out.bound);
    stats.fromWarmStart = true;
  };
  // Lower bounds (LowerBound.h) hold for every schedule of remat's model,
  // so for every solution of the MILP: they become objective rows and
  // floors of the reported bound, and where one reaches the warm start's
  // objective it proves the warm start optimal without CBC.
  auto meets = [](double bound, double objective) {
    return bound >= objective - 1e-9 * std::max(1.0, std::fabs(objective));
  };
  // With whole node costs, bounds round up to a whole cost (wholeCostBound).
  std::vector<double> nodeCosts;
  for (const Node &node : graph.nodes)
    nodeCosts.push_back(node.cost);
  LowerBoundOptions boundOptions;
  boundOptions.timeLimitSeconds =
      std::max(0.01, std::min(2.0, timeLimitSeconds / 10));
  // Joint exact steps whose windows pay for what they execute
  // (`LowerBoundOptions::intervalSteps`): a value recomputed after the
  // bound's step and dropped again before a later step it is read after is
  // paid twice. Within the same 2 s, at 0.4 of store-all (milp18,
  // bench/milp-results.md): gpt_l2 56.06 -> 70.47% of the forward cost
  // (the plan, 79.82%, recomputes its 2.1M-flop MLP matmul twice),
  // MobileNet 13.88 -> 14.46% (plan 14.50%), VGG U-Net 36.02 -> 43.05%.
  boundOptions.jointExactSteps = kMilpBoundJointSteps;
  boundOptions.intervalSteps = true;
  bool byBound = false;
  // A plan repaired to the budget (forward-only graphs, repairToBudget).
  Schedule repaired;
  unsigned repairSolves = 0;
  bool byRepair = false;
  // A plan lowered from the lower bound's cut (CutLowering.h).
  Schedule cutPlan;
  bool byCut = false;
  int64_t mismatchPeak = -1; // CBC's plan failed the simulator check.
  if (peakMode) {
    std::optional<double> cutoff;
    if (warmSim)
      cutoff = double(warmSim->peakBytes);
    double peakBound = double(leastPeakLowerBound(graph));
    SolveOutcome least;
    if (cutoff && meets(peakBound, *cutoff)) {
      least.infeasible = true; // Nothing beats the warm start.
      least.finished = true;   // Proved by the bound, no search needed.
      byBound = true;
    } else {
      least = builder.solve(/*peakMode=*/true, 0, left() * 2 / 3, cutoff,
                            peakBound);
      stats.nodes += least.nodes;
    }
    // Too large to solve whole: the descent of MilpLarge.h from the warm
    // start (forward-min-peak's plan on a forward-only graph).
    if (least.tooLargeNonzeros && compact &&
        (warmStart || graph.isForwardOnly()))
      return largePlan(0, least.tooLargeNonzeros);
    if (declineSize(least))
      return std::nullopt;
    if (warmSim)
      keepWarm(least, double(warmSim->peakBytes), true);
    if (!least.found) {
      note = "milp: no solution within the time limit";
      return std::nullopt;
    }
    SimResult sim;
    if (std::optional<std::string> err = simulate(graph, least.schedule, sim)) {
      note = "milp: invalid schedule: " + *err;
      return std::nullopt;
    }
    // The objective is the simulated peak (CBC's P can sit a tolerance
    // below it, e.g. 47.99999995 for 48 bytes).
    optimal = least.optimal;
    budget = sim.peakBytes;
    stats.objective = double(sim.peakBytes);
    stats.bound = std::min(least.bound, stats.objective);
    if (optimal)
      stats.bound = stats.objective;
    gap = gapPercent(stats.objective, stats.bound);
    result = std::move(least);
    // Then the least recompute at that peak, if time is left (cut off at the
    // least-peak plan's recompute).
    bool recomputeOptimal = false;
    LowerBound atPeak = recomputeLowerBound(graph, budget, boundOptions);
    atPeak.recomputeCost = wholeCostBound(nodeCosts, atPeak.recomputeCost);
    if (meets(atPeak.recomputeCost, sim.recomputeCost)) {
      recomputeOptimal = true; // The bound proves nothing is cheaper.
    } else if (left() > 0.05) {
      SolveOutcome cheap = builder.solve(
          false, budget, left(), sim.recomputeCost, atPeak.recomputeCost,
          rangeRows ? atPeak.ranges : std::vector<LowerBound::Range>());
      stats.nodes += cheap.nodes;
      SimResult cheapSim;
      if (cheap.found && !simulate(graph, cheap.schedule, cheapSim) &&
          cheapSim.peakBytes <= budget &&
          cheapSim.recomputeCost <= sim.recomputeCost + 1e-9) {
        result = std::move(cheap);
        recomputeOptimal = result.optimal;
      } else if (cheap.infeasible) {
        recomputeOptimal = true; // Nothing cheaper at that peak.
      }
    }
    // The detail reports the peak solve; the recompute at that peak is
    // claimed least only if the second solve proved it.
    leastPeakOnly = optimal && !recomputeOptimal;
    optimal = optimal && recomputeOptimal;
  } else {
    std::optional<double> cutoff;
    if (warmSim && warmSim->peakBytes <= budgetBytes)
      cutoff = warmSim->recomputeCost;
    LowerBound bound = recomputeLowerBound(graph, budgetBytes, boundOptions);
    bound.recomputeCost = wholeCostBound(nodeCosts, bound.recomputeCost);
    if (bound.infeasible) {
      note = "milp: no schedule fits the budget of " +
             std::to_string(budgetBytes) +
             " bytes (proved): some step holds more whatever is recomputed "
             "(lower bound)";
      return std::nullopt;
    }
    // No plan within the budget on a forward-only graph whose whole model
    // is too large (random_layered_n250: 1.5M nonzeros): the repair of
    // MilpLarge.h, whose windows are kept small, instead of the one below
    // (whose windows of that graph found nothing in 4 s each).
    if (!cutoff && compact && graph.isForwardOnly()) {
      builder.sizeOnly = true;
      SolveOutcome probe = builder.solve(false, budgetBytes, left());
      builder.sizeOnly = false;
      if (probe.tooLargeNonzeros)
        return largePlan(budgetBytes, probe.tooLargeNonzeros);
    }
    // No plan within the budget on a forward-only graph: first ask whether
    // a few stages alone already need more (windowProvesInfeasible), with
    // a sixth of the time (they prove random_layered_n100 at 0.5 of
    // store-all in 1-2 s; the rest goes to the repair below).
    if (!cutoff && compact) {
      if (std::optional<std::pair<unsigned, unsigned>> window =
              windowProvesInfeasible(graph, budgetBytes, left() / 6)) {
        note = "milp: no schedule fits the budget of " +
               std::to_string(budgetBytes) +
               " bytes (proved): the stages of nodes '" +
               graph.nodes[window->first].name + "' to '" +
               graph.nodes[window->second].name +
               "' alone need more, whatever is kept entering them";
        return std::nullopt;
      }
    }
    // Still no plan within the budget on a forward-only graph: repair the
    // plan of forward-min-peak (or the warm start, if it peaks lower) stage
    // by stage (repairToBudget) with two thirds of the time left, then
    // lower its recompute (cutRepairedRecompute) with three quarters of the
    // rest; the plan is the warm start of the search below.
    if (!cutoff && compact && graph.isForwardOnly() && left() > 0.1) {
      PlanResult seed = forwardOnlyMinPeak(graph, budgetBytes);
      if (warmSim && warmSim->peakBytes < seed.sim.peakBytes)
        seed.schedule = *warmStart;
      SimResult repairedSim;
      if (std::optional<Schedule> fixed =
              repairToBudget(graph, budgetBytes, std::move(seed.schedule),
                             left() * 2 / 3, repairSolves)) {
        repaired = std::move(*fixed);
        cutRepairedRecompute(graph, budgetBytes, repaired, left() * 3 / 4,
                             repairSolves);
        if (!simulate(graph, repaired, repairedSim) &&
            repairedSim.peakBytes <= budgetBytes) {
          warmStart = &repaired;
          warmSim = repairedSim;
          cutoff = repairedSim.recomputeCost;
          stats.warmStarted = true;
          byRepair = true;
        }
      }
    }
    // The bound's cut lowered to a plan (CutLowering.h): where it is
    // cheaper than the warm start within the budget it becomes the warm
    // start, and where it meets the bound it is proven optimal without CBC
    // (MobileNet at 0.4 of store-all: 3,990 against auto's 4,000).
    if (!bound.cutRecomputed.empty() &&
        (!cutoff || !meets(bound.recomputeCost, *cutoff))) {
      // Within a quarter of the time left (about 0.5 ms a lowering on
      // 300 nodes: the 20,000 tried at most would take seconds).
      CutLoweringOptions lowering;
      lowering.seconds = std::max(0.01, left() / 4);
      if (std::optional<CutLowering> lowered = lowerCutWithinBudget(
              graph, budgetBytes, bound.cutRecomputed, lowering))
        if (!cutoff || lowered->sim.recomputeCost < *cutoff - 1e-9) {
          cutPlan = std::move(lowered->schedule);
          warmStart = &cutPlan;
          warmSim = lowered->sim;
          cutoff = lowered->sim.recomputeCost;
          stats.warmStarted = true;
          byCut = true;
          byRepair = false;
        }
    }
    // A bound close to the plan may be a proof its 2 s cut short: once
    // more with a sixth of the time limit (milpBoundRetrySeconds).
    if (cutoff) {
      double seconds = milpBoundRetrySeconds(timeLimitSeconds, left(),
                                             boundOptions.timeLimitSeconds,
                                             bound.recomputeCost, *cutoff);
      if (seconds > 0) {
        LowerBoundOptions longer = boundOptions;
        longer.timeLimitSeconds = seconds;
        LowerBound again = recomputeLowerBound(graph, budgetBytes, longer);
        again.recomputeCost = wholeCostBound(nodeCosts, again.recomputeCost);
        if (!again.infeasible && again.recomputeCost > bound.recomputeCost)
          bound = std::move(again);
      }
    }
    if (cutoff && meets(bound.recomputeCost, *cutoff)) {
      result.infeasible = true; // Nothing beats the warm start.
      result.finished = true;   // Proved by the bound, no search needed.
      byBound = true;
    } else {
      result = builder.solve(
          false, budgetBytes, left(), cutoff, bound.recomputeCost,
          rangeRows ? bound.ranges : std::vector<LowerBound::Range>());
      stats.nodes += result.nodes;
    }
    if (result.tooLargeNonzeros && compact &&
        (warmStart || graph.isForwardOnly())) {
      return largePlan(budgetBytes, result.tooLargeNonzeros);
    }
    if (declineSize(result))
      return std::nullopt;
    // CBC's plan must pass remat's simulator within the budget; one that
    // does not is a model mismatch, and then none of that solve's claims
    // count: the warm start (if any) is returned with LowerBound's bound.
    if (result.found) {
      SimResult check;
      if (simulate(graph, result.schedule, check) ||
          check.peakBytes > budgetBytes) {
        mismatchPeak = check.peakBytes;
        result = SolveOutcome();
        result.bound = bound.recomputeCost;
      }
    }
    if (cutoff)
      keepWarm(result, *cutoff, /*cutoffUsed=*/mismatchPeak < 0);
    if (!result.found) {
      note = result.infeasible
                 ? "milp: no schedule fits the budget of " +
                       std::to_string(budgetBytes) + " bytes (proved)"
                 : mismatchPeak >= 0
                       ? "milp: model mismatch: CBC's plan has a simulated "
                         "peak of " +
                             std::to_string(mismatchPeak) +
                             " bytes, above the budget of " +
                             std::to_string(budgetBytes)
                       : "milp: no solution within the time limit";
      return std::nullopt;
    }
    optimal = result.optimal;
    gap = result.gapPercent;
    stats.objective = result.objective;
    stats.bound = result.bound;
  }
  plan.planSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  stats.seconds = plan.planSeconds;
  stats.optimal = optimal;
  stats.gapPercent = gap;
  plan.schedule = std::move(result.schedule);
  if (std::optional<std::string> err =
          simulate(graph, plan.schedule, plan.sim)) {
    note = "milp: invalid schedule: " + *err;
    return std::nullopt;
  }
  if (plan.sim.peakBytes > budget) {
    note = "milp: model mismatch: simulated peak " +
           std::to_string(plan.sim.peakBytes) + " bytes exceeds " +
           std::to_string(budget);
    return std::nullopt;
  }
  plan.detail = formatDetail(stats, peakMode);
  if (byBound)
    plan.detail += "; the warm start, proven optimal by the lower bound "
                   "(LowerBound.h) without CBC";
  else if (mismatchPeak >= 0)
    plan.detail += "; CBC's plan failed the simulator check (model "
                   "mismatch: peak " +
                   std::to_string(mismatchPeak) +
                   " bytes), the warm start is returned";
  else if (stats.fromWarmStart)
    plan.detail += "; CBC found nothing better than the warm start in time";
  if (byCut)
    plan.detail += "; warm start: the lower bound's cut, lowered "
                   "(CutLowering.h)";
  if (byRepair)
    plan.detail += "; warm start: forward-min-peak's plan, repaired to the "
                   "budget and its recompute lowered (" +
                   std::to_string(repairSolves) +
                   " solves of windows of stages)";
  if (leastPeakOnly)
    plan.detail += "; the least peak is proven, the recompute at that peak "
                   "is not";
  plan.solver = stats;
  return plan;
#endif
}
