//===- StepProgram.cpp - One step's cut problem as an integer program ----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/StepProgram.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#ifdef REMAT_HAVE_CBC
#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>
#endif

using namespace remat::sched;

bool remat::sched::stepProgramAvailable() {
#ifdef REMAT_HAVE_CBC
  return true;
#else
  return false;
#endif
}

#ifdef REMAT_HAVE_CBC
namespace {

/// A value is integral within this.
constexpr double kIntegral = 1e-6;

/// Completions of held sets the local search of an interval program's
/// rounding tries in one solve (`solveIntervalStepProgram`).
constexpr unsigned kIntervalSearchEvaluations = 3000;

/// Classes of equal cost larger than this trade no places in the local
/// search of an interval program's rounding.
constexpr unsigned kIntervalTradeClass = 32;

/// LPs of the dive from the root of an interval program.
constexpr unsigned kIntervalDiveSolves = 8;

/// The LP relaxation of one or several `StepProgram`s over the same values
/// (docs/Scheduling.md, step 5e) with one count row per class of values of
/// equal cost, and the weak-duality bound of any node of the branch and
/// bound (column and count-row bounds changed). Columns: per step j,
/// live_j(v) = 2mj + v and recomputed_j(v) = 2mj + m + v; with several
/// steps also recomputed(v) = 2mK + v, at least every recomputed_j(v), which
/// carries the cost (with one step recomputed_0 carries it). An interval
/// program (`windows` given, one per step) has instead executed_j(v) =
/// 2mK + mj + v, v executed in window j, which carries the cost; there
/// recomputed_j(v) (v not live at step j and executed after it) is at most
/// the sum of v's executions in the windows from j on, so that each step's
/// own rows hold as in a single step.
class StepLp {
public:
  StepLp(llvm::ArrayRef<StepProgram> steps,
         llvm::ArrayRef<IntervalStep> windows = {},
         llvm::ArrayRef<unsigned> maxExecutions = {})
      : steps(steps), m(steps.front().cost.size()), k(steps.size()),
        intervals(!windows.empty()) {
    const StepProgram &first = steps.front();
    colLo.assign(columns(), 0);
    colUp.assign(columns(), 1);
    obj.assign(columns(), 0);
    for (unsigned v = 0; v != m; ++v)
      for (unsigned c : costColumns(v))
        obj[c] = first.cost[v];
    for (unsigned j = 0; j != k; ++j) {
      const StepProgram &p = steps[j];
      for (unsigned v = 0; v != m; ++v)
        if (p.pinned[v])
          colUp[recomputed(j, v)] = 0;
      double cap = double(std::max<int64_t>(p.cap, 1));
      for (unsigned v = 0; v != m; ++v) {
        if (p.needed[v])
          addRow({{live(j, v), 1}, {recomputed(j, v), 1}}, 1, COIN_DBL_MAX);
        if (!p.pinned[v])
          for (unsigned u : p.operands[v])
            addRow({{recomputed(j, v), 1},
                    {live(j, u), -1},
                    {recomputed(j, u), -1}},
                   -COIN_DBL_MAX, 0);
      }
      // The knapsack row in units of the cap.
      std::vector<std::pair<unsigned, double>> memory;
      for (unsigned v = 0; v != m; ++v)
        if (first.bytes[v] > 0)
          memory.push_back({live(j, v), double(first.bytes[v]) / cap});
      knapsackRow.push_back(rowLo.size());
      addRow(memory, -COIN_DBL_MAX, double(p.cap) / cap);
    }
    if (intervals)
      addWindowRows(windows);
    // Capped executions (a case of a split): v executed in at most that
    // many windows.
    if (intervals)
      for (unsigned v = 0; v != maxExecutions.size() && v != m; ++v)
        if (maxExecutions[v] != ~0u) {
          std::vector<std::pair<unsigned, double>> terms;
          for (unsigned j = 0; j != k; ++j)
            terms.push_back({executed(j, v), 1});
          addRow(terms, -COIN_DBL_MAX, double(maxExecutions[v]));
        }
    // A value recomputed after any step is recomputed (and paid) once.
    if (k > 1 && !intervals)
      for (unsigned j = 0; j != k; ++j)
        for (unsigned v = 0; v != m; ++v)
          if (!steps[j].pinned[v])
            addRow({{costColumns(v).front(), 1}, {recomputed(j, v), -1}}, 0,
                   COIN_DBL_MAX);
    // Count rows: the values of each cost (two or more, recomputable).
    std::map<double, std::vector<unsigned>> byCost;
    for (unsigned v = 0; v != m; ++v)
      if (isRecomputable(v) && first.cost[v] > 0)
        byCost[first.cost[v]].push_back(v);
    for (auto &[cost, members] : byCost) {
      if (members.size() < 2)
        continue;
      std::vector<std::pair<unsigned, double>> terms;
      for (unsigned v : members)
        for (unsigned c : costColumns(v))
          terms.push_back({c, 1});
      classRow.push_back(rowLo.size());
      classCost.push_back(cost);
      classMembers.push_back(members);
      addRow(terms, 0, double(members.size() * (intervals ? k : 1)));
    }
    CoinPackedMatrix matrix(false, tripletRow.data(), tripletCol.data(),
                            tripletValue.data(),
                            CoinBigIndex(tripletValue.size()));
    matrix.setDimensions(int(rowLo.size()), int(obj.size()));
    model.setLogLevel(0);
    model.loadProblem(matrix, colLo.data(), colUp.data(), obj.data(),
                      rowLo.data(), rowUp.data());
    rowsOfMatrix.resize(rowLo.size());
    for (size_t e = 0; e != tripletRow.size(); ++e)
      rowsOfMatrix[tripletRow[e]].push_back({tripletCol[e], tripletValue[e]});
  }

  unsigned columns() const {
    return 2 * m * k + (intervals ? m * k : k > 1 ? m : 0);
  }
  unsigned executed(unsigned j, unsigned v) const {
    return 2 * m * k + m * j + v;
  }
  unsigned live(unsigned j, unsigned v) const { return 2 * m * j + v; }
  unsigned recomputed(unsigned j, unsigned v) const {
    return 2 * m * j + m + v;
  }
  /// The columns that carry v's cost: its executions in each window, or
  /// the one column of its recomputation.
  llvm::SmallVector<unsigned, 4> costColumns(unsigned v) const {
    if (!intervals)
      return {k > 1 ? 2 * m * k + v : m + v};
    llvm::SmallVector<unsigned, 4> result;
    for (unsigned j = 0; j != k; ++j)
      result.push_back(executed(j, v));
    return result;
  }
  /// The sum of v's cost columns at `x`.
  double countOf(unsigned v, const std::vector<double> &x) const {
    double c = 0;
    for (unsigned col : costColumns(v))
      c += x[col];
    return c;
  }
  /// Some step may recompute v.
  bool isRecomputable(unsigned v) const {
    return llvm::any_of(steps,
                        [&](const StepProgram &p) { return !p.pinned[v]; });
  }
  /// The branching weight of column c: the cost of a recomputation, a
  /// tiny multiple of the bytes of a live value.
  double weightOf(unsigned c) const {
    if (c >= 2 * m * k)
      return steps.front().cost[(c - 2 * m * k) % m];
    unsigned r = c % (2 * m);
    return r >= m ? steps.front().cost[r - m]
                  : double(steps.front().bytes[r]) * 1e-12;
  }

  /// A node: bounds of the columns and of the count rows.
  struct Bounds {
    std::vector<double> colLo, colUp, classLo, classUp;
  };
  Bounds rootBounds() const {
    Bounds b{colLo, colUp, {}, {}};
    for (unsigned c : classRow) {
      b.classLo.push_back(rowLo[c]);
      b.classUp.push_back(rowUp[c]);
    }
    return b;
  }

  /// Solves the node's LP (warm from the last basis). nullopt: infeasible
  /// or not solved; otherwise a lower bound on every integer point within
  /// the node's bounds (weak duality with clamped signs, any dual vector)
  /// and the LP's point in `x`.
  std::optional<double> solve(const Bounds &b, double seconds,
                              std::vector<double> &x) {
    std::vector<double> lo = rowLo, up = rowUp;
    for (unsigned k = 0; k != classRow.size(); ++k) {
      lo[classRow[k]] = b.classLo[k];
      up[classRow[k]] = b.classUp[k];
    }
    model.chgColumnLower(b.colLo.data());
    model.chgColumnUpper(b.colUp.data());
    model.chgRowLower(lo.data());
    model.chgRowUpper(up.data());
    model.setMaximumWallSeconds(std::max(0.001, seconds));
    model.dual();
    infeasible = model.isProvenPrimalInfeasible();
    if (infeasible)
      return std::nullopt;
    const double *dual = model.dualRowSolution();
    const double *primal = model.primalColumnSolution();
    if (!dual || !primal || !model.isProvenOptimal())
      return std::nullopt;
    x.assign(primal, primal + obj.size());
    // Weak duality: cost(x) >= sum_r y_r side_r + sum_c min over the
    // column's bounds of (obj_c - (A^T y)_c) x_c, for y_r >= 0 on rows
    // with only a lower side, <= 0 with only an upper side.
    std::vector<double> reduced = obj;
    double bound = 0, magnitude = 0;
    for (unsigned r = 0; r != lo.size(); ++r) {
      double y = dual[r];
      bool hasLo = lo[r] > -COIN_DBL_MAX, hasUp = up[r] < COIN_DBL_MAX;
      if (!hasLo)
        y = std::min(0.0, y);
      if (!hasUp)
        y = std::max(0.0, y);
      if (y == 0)
        continue;
      double side = y > 0 ? lo[r] : up[r];
      bound += y * side;
      magnitude += std::fabs(y * side);
      for (auto [c, a] : rowsOfMatrix[r])
        reduced[c] -= y * a;
    }
    for (unsigned c = 0; c != reduced.size(); ++c) {
      double term =
          reduced[c] >= 0 ? reduced[c] * b.colLo[c] : reduced[c] * b.colUp[c];
      bound += term;
      magnitude += std::fabs(term);
    }
    return bound - 1e-9 * (magnitude + 1);
  }

  /// Whether `x` (integral) satisfies every row, the knapsack rows in
  /// exact bytes.
  bool satisfies(const std::vector<double> &x) const {
    for (unsigned r = 0; r != rowLo.size(); ++r) {
      if (llvm::is_contained(knapsackRow, r))
        continue;
      double a = 0;
      for (auto [c, e] : rowsOfMatrix[r])
        a += e * x[c];
      if (a < rowLo[r] - 1e-9 || a > rowUp[r] + 1e-9)
        return false;
    }
    for (unsigned j = 0; j != k; ++j) {
      int64_t bytes = 0;
      for (unsigned v = 0; v != m; ++v)
        if (x[live(j, v)] > 0.5)
          bytes += steps.front().bytes[v];
      if (bytes > steps[j].cap)
        return false;
    }
    for (unsigned c = 0; c != x.size(); ++c)
      if (x[c] < colLo[c] - 1e-9 || x[c] > colUp[c] + 1e-9)
        return false;
    return true;
  }

  llvm::ArrayRef<StepProgram> steps;
  unsigned m, k;
  bool intervals;
  /// The last `solve` proved its LP infeasible (no point within the
  /// node's bounds).
  bool infeasible = false;
  std::vector<unsigned> classRow, knapsackRow;
  std::vector<double> classCost;
  std::vector<std::vector<unsigned>> classMembers;

private:
  /// The rows of an interval program beyond each step's own.
  void addWindowRows(llvm::ArrayRef<IntervalStep> windows) {
    for (unsigned j = 0; j != k; ++j) {
      const StepProgram &p = steps[j];
      const std::vector<bool> &read = windows[j].readInWindow;
      for (unsigned v = 0; v != m; ++v) {
        // Never executed in the window where never after the step (a value
        // that must be live there gains nothing by it).
        if (p.pinned[v])
          colUp[executed(j, v)] = 0;
        if (read[v])
          addRow({{live(j, v), 1}, {executed(j, v), 1}}, 1, COIN_DBL_MAX);
        if (!p.pinned[v])
          for (unsigned u : p.operands[v])
            addRow({{executed(j, v), 1},
                    {live(j, u), -1},
                    {executed(j, u), -1}},
                   -COIN_DBL_MAX, 0);
        // Not live at j and executed after it: executed in a window from
        // j on.
        std::vector<std::pair<unsigned, double>> later = {
            {recomputed(j, v), 1}};
        for (unsigned i = j; i != k; ++i)
          later.push_back({executed(i, v), -1});
        addRow(later, -COIN_DBL_MAX, 0);
        // Live at the next step and made before this one: live here or
        // executed in this window.
        if (j + 1 < k && windows[j].relevant[v] && windows[j + 1].relevant[v])
          addRow({{live(j + 1, v), 1}, {live(j, v), -1}, {executed(j, v), -1}},
                 -COIN_DBL_MAX, 0);
      }
    }
  }
  void addRow(const std::vector<std::pair<unsigned, double>> &terms, double lo,
              double hi) {
    for (auto [c, a] : terms) {
      tripletRow.push_back(int(rowLo.size()));
      tripletCol.push_back(int(c));
      tripletValue.push_back(a);
    }
    rowLo.push_back(lo);
    rowUp.push_back(hi);
  }
  std::vector<double> colLo, colUp, obj, rowLo, rowUp;
  std::vector<int> tripletRow, tripletCol;
  std::vector<double> tripletValue;
  std::vector<std::vector<std::pair<int, double>>> rowsOfMatrix;
  ClpSimplex model;
};

} // namespace
#endif

std::optional<StepProgramResult>
remat::sched::solveStepProgram(const StepProgram &program, double seconds,
                               unsigned maxNodes) {
  return solveJointStepProgram(program, seconds, maxNodes);
}

/// The branch and bound of `solveJointStepProgram` and, with `windows`
/// (one per step, their programs `steps`), of `solveIntervalStepProgram`.
/// Marks as executed (`run`) every value on `work` and, through the operands
/// of `p`, every value they read that is neither live nor executed already;
/// a pinned operand (never recomputed) becomes live instead. Empties `work`.
static void executeClosure(const StepProgram &p, std::vector<char> &live,
                           std::vector<char> &run,
                           std::vector<unsigned> &work) {
  while (!work.empty()) {
    unsigned v = work.back();
    work.pop_back();
    if (run[v])
      continue;
    run[v] = true;
    for (unsigned u : p.operands[v]) {
      if (live[u] || run[u])
        continue;
      if (p.pinned[u])
        live[u] = true;
      else
        work.push_back(u);
    }
  }
}

static std::optional<StepProgramResult>
solvePrograms(llvm::ArrayRef<StepProgram> steps,
              llvm::ArrayRef<IntervalStep> windows, double seconds,
              unsigned maxNodes, llvm::ArrayRef<unsigned> maxExecutions = {}) {
#ifndef REMAT_HAVE_CBC
  (void)steps, (void)windows, (void)seconds, (void)maxNodes,
      (void)maxExecutions;
  return std::nullopt;
#else
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto left = [&] {
    return seconds -
           std::chrono::duration<double>(Clock::now() - start).count();
  };
  if (steps.empty() || seconds <= 0)
    return std::nullopt;
  const StepProgram &first = steps.front();
  unsigned m = first.cost.size();
  if (m == 0)
    return std::nullopt;
  bool intervals = !windows.empty();
  StepLp lp(steps, windows, maxExecutions);
  struct Node {
    double bound;
    StepLp::Bounds bounds;
    std::vector<double> x;
  };
  auto worse = [](const Node &a, const Node &b) { return a.bound > b.bound; };
  std::vector<Node> heap, dive;
  std::vector<double> x;
  StepProgramResult result;
  double incumbent = COIN_DBL_MAX;
  // The cost of the rounded point if it is a solution (integral, closed,
  // within each step's cap in exact bytes), and the values it recomputes.
  std::vector<bool> solution;
  auto integralCost =
      [&](const std::vector<double> &x) -> std::optional<double> {
    for (double v : x)
      if (std::fabs(v - std::round(v)) > kIntegral)
        return std::nullopt;
    auto on = [&](unsigned c) { return x[c] > 0.5; };
    solution.assign(m, false);
    if (intervals) {
      std::vector<double> rounded(x.size());
      for (unsigned c = 0; c != x.size(); ++c)
        rounded[c] = on(c) ? 1 : 0;
      if (!lp.satisfies(rounded))
        return std::nullopt;
      double cost = 0;
      for (unsigned v = 0; v != m; ++v)
        for (unsigned c : lp.costColumns(v))
          if (on(c)) {
            cost += first.cost[v];
            solution[v] = true;
          }
      return cost;
    }
    for (unsigned j = 0; j != steps.size(); ++j) {
      const StepProgram &p = steps[j];
      int64_t bytes = 0;
      for (unsigned v = 0; v != m; ++v) {
        bool isLive = on(lp.live(j, v)), isRecomputed = on(lp.recomputed(j, v));
        if (p.needed[v] && !isLive && !isRecomputed)
          return std::nullopt;
        if (isRecomputed) {
          if (p.pinned[v])
            return std::nullopt;
          solution[v] = true;
          for (unsigned u : p.operands[v])
            if (!on(lp.live(j, u)) && !on(lp.recomputed(j, u)))
              return std::nullopt;
        }
        if (isLive)
          bytes += first.bytes[v];
      }
      if (bytes > p.cap)
        return std::nullopt;
    }
    double cost = 0;
    for (unsigned v = 0; v != m; ++v)
      if (solution[v])
        cost += first.cost[v];
    return cost;
  };
  // The live columns of an interval program's new best solution.
  auto recordLive = [&](const std::vector<double> &point) {
    if (!intervals)
      return;
    result.live.assign(steps.size(), std::vector<bool>(m, false));
    result.executed = result.live;
    for (unsigned j = 0; j != steps.size(); ++j)
      for (unsigned v = 0; v != m; ++v) {
        result.live[j][v] = point[lp.live(j, v)] > 0.5;
        result.executed[j][v] = point[lp.executed(j, v)] > 0.5;
      }
  };
  // A primal heuristic, per step: the values the LP point holds fully live
  // stay live, every other needed value is recomputed, with the operands
  // its recomputation needs (pinned ones live); kept when every step is
  // within its cap.
  // An interval program is rounded from its last step back, a value live
  // at the next step needed at this one too, and the point is kept when it
  // satisfies every row.
  // The point of an interval program whose live columns are `hold` (per
  // step and value; pinned values needed at a step are live whatever it
  // says), completed from the last step back: a value read in a step's
  // window or live at the next step and not live at this one is executed
  // in the window, with the operands its execution needs.
  unsigned k = steps.size();
  auto completeWindows = [&](const std::vector<std::vector<char>> &hold) {
    std::vector<double> point(lp.columns(), 0);
    std::vector<char> live(m), liveNext(m), run(m);
    std::vector<unsigned> work;
    for (unsigned i = 0; i != k; ++i) {
      unsigned j = k - 1 - i;
      const StepProgram &p = steps[j];
      for (unsigned v = 0; v != m; ++v) {
        live[v] = hold[j][v];
        run[v] = false;
        bool needed = windows[j].readInWindow[v] ||
                      (p.needed[v] && p.pinned[v]) ||
                      (j + 1 < k && liveNext[v] && windows[j].relevant[v] &&
                       windows[j + 1].relevant[v]);
        if (needed && !live[v]) {
          if (p.pinned[v])
            live[v] = true;
          else
            work.push_back(v);
        }
      }
      executeClosure(p, live, run, work);
      for (unsigned v = 0; v != m; ++v) {
        point[lp.live(j, v)] = live[v];
        point[lp.executed(j, v)] = run[v];
      }
      liveNext = live;
    }
    // Not live at a step and executed after it.
    for (unsigned j = 0; j != k; ++j)
      for (unsigned v = 0; v != m; ++v) {
        bool later = false;
        for (unsigned i = j; i != k && !later; ++i)
          later = point[lp.executed(i, v)] > 0.5;
        point[lp.recomputed(j, v)] =
            !steps[j].pinned[v] && later && point[lp.live(j, v)] < 0.5;
      }
    return point;
  };
  // The cost of `hold` completed, if that satisfies every row; a cheaper
  // one becomes the incumbent.
  auto tryHold =
      [&](const std::vector<std::vector<char>> &hold) -> std::optional<double> {
    std::vector<double> point = completeWindows(hold);
    std::vector<bool> keep = solution;
    std::optional<double> cost = integralCost(point);
    if (cost && *cost < incumbent) {
      incumbent = *cost;
      result.recomputed = solution;
      result.solutionCost = *cost;
      recordLive(point);
    }
    solution = std::move(keep);
    return cost;
  };
  // Completions tried by the local search below, in all: a deterministic
  // limit on its work. The search, the rounding at a half and the dive
  // below run only under a node limit (a caller that wants solutions,
  // WindowLowering.h); callers after a bound within a time limit keep that
  // time for the tree.
  bool seekSolutions = intervals && maxNodes > 0;
  unsigned searchLeft = seekSolutions ? kIntervalSearchEvaluations : 0;
  // An interval program is rounded by holding live what the LP point holds
  // live at least 1 - kIntegral (a pinned value more than half), and,
  // seeking solutions, at least a half too; from the cheaper completion
  // that satisfies every row, a local search holds one more value live at
  // a step, alone or over the steps before it back to one where it is live,
  // the LP's largest fractions first, taking each change that keeps the
  // rows satisfied and lowers the cost.
  auto roundWindows = [&](const std::vector<double> &x) {
    std::vector<std::vector<char>> best;
    double bestCost = COIN_DBL_MAX;
    for (double threshold : {1 - kIntegral, 0.5}) {
      if (threshold == 0.5 && !seekSolutions)
        break;
      std::vector<std::vector<char>> hold(k, std::vector<char>(m));
      for (unsigned j = 0; j != k; ++j)
        for (unsigned v = 0; v != m; ++v)
          hold[j][v] = x[lp.live(j, v)] >= threshold ||
                       (steps[j].pinned[v] && x[lp.live(j, v)] > 0.5);
      std::optional<double> cost = tryHold(hold);
      if (cost && *cost < bestCost) {
        bestCost = *cost;
        best = std::move(hold);
      }
    }
    if (best.empty() || searchLeft == 0)
      return;
    std::vector<std::pair<double, std::pair<unsigned, unsigned>>> moves;
    for (unsigned j = 0; j != k; ++j)
      for (unsigned v = 0; v != m; ++v) {
        double l = x[lp.live(j, v)];
        if (!best[j][v] && l > kIntegral && windows[j].relevant[v] &&
            !steps[j].pinned[v])
          moves.push_back({-l, {j, v}});
      }
    llvm::sort(moves);
    auto addHolds = [&] {
      for (auto &[negLive, move] : moves) {
        auto [j, v] = move;
        if (best[j][v])
          continue;
        for (bool back : {false, true}) {
          if (searchLeft == 0)
            return;
          --searchLeft;
          std::vector<std::vector<char>> hold = best;
          hold[j][v] = true;
          for (unsigned i = j;
               back && i-- > 0 && !hold[i][v] && windows[i].relevant[v];)
            hold[i][v] = true;
          std::optional<double> cost = tryHold(hold);
          if (cost && *cost < bestCost - kIntegral) {
            bestCost = *cost;
            best = std::move(hold);
            break;
          }
        }
      }
    };
    addHolds();
    // Values of equal cost trade places (classes of at most
    // kIntervalTradeClass): one held where the other is, at the steps both
    // concern (which of a stage's equal convolutions is rebuilt decides what
    // else must be), dearest classes first; after a trade the holds are tried
    // again.
    bool traded = false;
    for (unsigned c = lp.classRow.size(); c-- > 0;) {
      const std::vector<unsigned> &members = lp.classMembers[c];
      if (members.size() > kIntervalTradeClass)
        continue;
      for (unsigned a = 0; a != members.size(); ++a)
        for (unsigned b = a + 1; b != members.size(); ++b) {
          unsigned u = members[a], v = members[b];
          auto trades = [&](unsigned j) {
            return windows[j].relevant[u] && windows[j].relevant[v] &&
                   best[j][u] != best[j][v];
          };
          bool differs = false;
          for (unsigned j = 0; j != k && !differs; ++j)
            differs = trades(j);
          if (!differs)
            continue;
          if (searchLeft == 0)
            return;
          --searchLeft;
          std::vector<std::vector<char>> hold = best;
          for (unsigned j = 0; j != k; ++j)
            if (trades(j))
              std::swap(hold[j][u], hold[j][v]);
          std::optional<double> cost = tryHold(hold);
          if (cost && *cost < bestCost - kIntegral) {
            bestCost = *cost;
            best = std::move(hold);
            traded = true;
          }
        }
    }
    if (traded)
      addHolds();
  };
  auto roundDown = [&](const std::vector<double> &x) {
    if (intervals)
      return roundWindows(x);
    std::vector<char> rec(m), anyRec(m);
    std::vector<unsigned> work;
    for (unsigned j = 0; j != steps.size(); ++j) {
      const StepProgram &p = steps[j];
      std::vector<char> live(m);
      std::fill(rec.begin(), rec.end(), 0);
      for (unsigned v = 0; v != m; ++v) {
        double l = x[lp.live(j, v)];
        live[v] = l > 1 - kIntegral || (p.pinned[v] && l > 0.5);
        if (p.needed[v] && !live[v]) {
          if (p.pinned[v])
            live[v] = true;
          else
            work.push_back(v);
        }
      }
      executeClosure(p, live, rec, work);
      int64_t bytes = 0;
      for (unsigned v = 0; v != m; ++v) {
        if (live[v])
          bytes += first.bytes[v];
        anyRec[v] |= rec[v];
      }
      if (bytes > p.cap)
        return;
    }
    double cost = 0;
    for (unsigned v = 0; v != m; ++v)
      if (anyRec[v])
        cost += first.cost[v];
    if (cost >= incumbent)
      return;
    incumbent = cost;
    result.recomputed.assign(anyRec.begin(), anyRec.end());
    result.solutionCost = cost;
  };
  // Solves a node and queues it, records its solution, or drops it (its LP
  // infeasible, or its bound no better than the best solution).
  double unbounded = COIN_DBL_MAX; // Least bound of nodes left unsolved.
  // Least bound of the nodes closed by their own solution (that bound, not
  // the solution's cost, so that the LP's tolerances never lift it).
  double closed = COIN_DBL_MAX;
  // Depth first until a solution is found, then best first.
  auto diving = [&] { return incumbent >= COIN_DBL_MAX; };
  auto visit = [&](StepLp::Bounds bounds, double parent) {
    std::optional<double> b = lp.solve(bounds, left(), x);
    if (!b) {
      if (lp.infeasible)
        return;
      // Not solved (time limit, numerical trouble): the parent's bound
      // still holds for it.
      unbounded = std::min(unbounded, parent);
      return;
    }
    double bound = std::max(*b, parent);
    if (bound >= incumbent)
      return;
    roundDown(x);
    if (std::optional<double> cost = integralCost(x)) {
      closed = std::min(closed, bound);
      if (*cost < incumbent) {
        incumbent = *cost;
        result.recomputed = solution;
        result.solutionCost = *cost;
        recordLive(x);
      }
      return;
    }
    if (!diving()) {
      heap.push_back(Node{bound, std::move(bounds), x});
      std::push_heap(heap.begin(), heap.end(), worse);
    } else {
      dive.push_back(Node{bound, std::move(bounds), x});
    }
  };
  visit(lp.rootBounds(), 0);
  // Under a node limit an interval program also dives from the root for
  // solutions: the live columns the LP point holds at least half live are
  // fixed live (the largest fractional one when none is), the LP solved
  // again and its point rounded, at most kIntervalDiveSolves times. Its
  // LPs only look for solutions; the search's bound is the tree's.
  if (seekSolutions && (!heap.empty() || !dive.empty())) {
    StepLp::Bounds bounds = lp.rootBounds();
    std::vector<double> point = heap.empty() ? dive.back().x : heap.front().x;
    for (unsigned d = 0; d != kIntervalDiveSolves && left() > 0; ++d) {
      int largest = -1;
      unsigned fixed = 0;
      for (unsigned j = 0; j != steps.size(); ++j)
        for (unsigned v = 0; v != m; ++v) {
          unsigned c = lp.live(j, v);
          double l = point[c];
          if (l <= kIntegral || l >= 1 - kIntegral || bounds.colLo[c] > 0.5)
            continue;
          if (l >= 0.5) {
            bounds.colLo[c] = 1;
            ++fixed;
          } else if (largest < 0 || l > point[largest]) {
            largest = int(c);
          }
        }
      if (!fixed && largest < 0)
        break;
      if (!fixed)
        bounds.colLo[largest] = 1;
      if (!lp.solve(bounds, left(), point))
        break;
      roundWindows(point);
    }
  }
  while ((!heap.empty() || !dive.empty()) && left() > 0 &&
         (maxNodes == 0 || result.nodes < maxNodes)) {
    // Until a solution is found, depth first (the child visited last, the
    // side with more recomputed), then best first.
    if (!diving() && !dive.empty()) {
      for (Node &node : dive) {
        heap.push_back(std::move(node));
        std::push_heap(heap.begin(), heap.end(), worse);
      }
      dive.clear();
    }
    Node node;
    if (!dive.empty()) {
      node = std::move(dive.back());
      dive.pop_back();
    } else {
      std::pop_heap(heap.begin(), heap.end(), worse);
      node = std::move(heap.back());
      heap.pop_back();
    }
    if (node.bound >= incumbent)
      continue;
    ++result.nodes;
    const std::vector<double> &x = node.x;
    // Branch on the count of the dearest class whose count is fractional,
    // else on the dearest fractional recomputation, else on the largest
    // fractional live value.
    int klass = -1;
    double count = 0;
    for (unsigned k = 0; k != lp.classRow.size(); ++k) {
      double c = 0;
      for (unsigned v : lp.classMembers[k])
        c += lp.countOf(v, x);
      if (std::fabs(c - std::round(c)) > kIntegral &&
          (klass < 0 || lp.classCost[k] > lp.classCost[klass])) {
        klass = int(k);
        count = c;
      }
    }
    if (klass >= 0) {
      StepLp::Bounds down = node.bounds, upper = node.bounds;
      down.classUp[klass] = std::floor(count);
      upper.classLo[klass] = std::ceil(count);
      double parent = node.bound;
      visit(std::move(down), parent);
      visit(std::move(upper), parent);
      continue;
    }
    int column = -1;
    double weight = -1;
    for (unsigned c = 0; c != lp.columns(); ++c) {
      if (std::fabs(x[c] - std::round(x[c])) <= kIntegral)
        continue;
      double w = lp.weightOf(c);
      if (w > weight) {
        weight = w;
        column = int(c);
      }
    }
    if (column < 0) {
      // Integral but not a solution (tolerances): nothing to branch on.
      unbounded = std::min(unbounded, node.bound);
      continue;
    }
    StepLp::Bounds zero = node.bounds, one = node.bounds;
    zero.colUp[column] = 0;
    one.colLo[column] = 1;
    double parent = node.bound;
    visit(std::move(zero), parent);
    visit(std::move(one), parent);
  }
  // Nodes pruned by a rounded solution bound by its cost.
  double bound = std::min({closed, unbounded, incumbent});
  for (const std::vector<Node> *open : {&heap, &dive})
    for (const Node &node : *open)
      bound = std::min(bound, node.bound);
  if (bound >= COIN_DBL_MAX)
    return std::nullopt; // Nothing solved (or no point within the cap).
  result.optimal =
      heap.empty() && dive.empty() && unbounded >= COIN_DBL_MAX && incumbent < COIN_DBL_MAX;
  result.bound = std::max(0.0, bound);
  return result;
#endif
}

std::optional<StepProgramResult>
remat::sched::solveJointStepProgram(llvm::ArrayRef<StepProgram> steps,
                                    double seconds, unsigned maxNodes) {
  return solvePrograms(steps, {}, seconds, maxNodes);
}

std::optional<StepProgramResult>
remat::sched::solveIntervalStepProgram(llvm::ArrayRef<IntervalStep> steps,
                                       double seconds, unsigned maxNodes,
                                       llvm::ArrayRef<unsigned> maxExecutions) {
  std::vector<StepProgram> programs;
  for (const IntervalStep &step : steps)
    programs.push_back(step.program);
  if (programs.empty())
    return std::nullopt;
  return solvePrograms(programs, steps, seconds, maxNodes, maxExecutions);
}
