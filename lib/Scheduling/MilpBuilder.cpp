//===- MilpBuilder.cpp - The compact MILP of one graph --------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Builds the MILP described in Milp.h for one graph, solves it with CBC,
/// lowers the recompute decisions to a Schedule and checks it with simulate
/// (MilpBuilder.h).
///
//===----------------------------------------------------------------------===//

#ifdef REMAT_HAVE_CBC

#include "MilpBuilder.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/MilpClaims.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <tuple>

#include <coin/CbcEventHandler.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/ClpSimplex.hpp>
#include <coin/CoinFinite.hpp>
#include <coin/CoinMpsIO.hpp>
#include <coin/OsiClpSolverInterface.hpp>

using namespace remat::sched;
using namespace remat::sched::detail;

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
  CbcEventHandler *clone() const override { return new SolutionKeeper(*this); }
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

} // namespace

double detail::gapPercent(double objective, double bound) {
  if (std::fabs(objective) <= 1e-12)
    return 0;
  return std::max(0.0, 100.0 * (objective - bound) / std::fabs(objective));
}

MilpBuilder::MilpBuilder(const Graph &graph, unsigned numForward, bool compact)
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

int64_t MilpBuilder::stepBytes(unsigned v) const {
  int64_t bytes = counted[v] + graph.nodes[v].workspace;
  std::set<unsigned> ops(graph.nodes[v].operands.begin(),
                         graph.nodes[v].operands.end());
  for (unsigned op : ops)
    bytes += counted[op];
  return bytes;
}

bool MilpBuilder::inStage(unsigned t, unsigned i) const {
  if (forwardOnly && i >= t)
    return false;
  if (firstStage + t < windowFirst || firstStage + t > windowLast)
    return false;
  if (!windowValues.empty() && !windowValues[i])
    return false;
  return !compact || lastBackward[i] >= int(firstStage + t);
}

SolveOutcome MilpBuilder::solve(bool peakMode, int64_t budget, double seconds,
                                std::optional<double> cutoff, double lowerBound,
                                const std::vector<LowerBound::Range> &ranges) {
  SolveOutcome out;
  using Clock = std::chrono::steady_clock;
  auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
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
                    const std::vector<double> &coefs, char sense, double rhs) {
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
      if (recomputable[i] && (recomputeAllowed.empty() || recomputeAllowed[i]))
        R[t][i] = addCol(0, 1, peakMode ? 0 : nodes[i].cost / costScale, true);
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
  // Ranges on the number of recomputations (a leaf of the case tree),
  // intersected per node.
  std::map<unsigned, std::pair<unsigned, unsigned>> counts;
  for (const RecomputeRange &range : recomputeRanges) {
    auto [it, fresh] = counts.insert({range.node, {range.lo, range.hi}});
    if (!fresh)
      it->second = {std::max(it->second.first, range.lo),
                    std::min(it->second.second, range.hi)};
  }
  for (auto [node, range] : counts) {
    auto [lo, hi] = range;
    std::vector<int> cols;
    for (unsigned t = 0; t != numStages; ++t)
      if (node < f && R[t][node] >= 0)
        cols.push_back(R[t][node]);
    if (lo > hi || lo > cols.size()) {
      // No solution within the range: the restricted model is empty (a
      // proof, with nothing solved).
      out.infeasible = out.finished = true;
      return out;
    }
    if (hi == 0) {
      for (int c : cols)
        colUb[c] = 0;
      continue;
    }
    if (lo == 0 && hi >= cols.size())
      continue;
    rowCol.insert(rowCol.end(), cols.begin(), cols.end());
    rowVal.insert(rowVal.end(), cols.size(), 1.0);
    rowStart.push_back(int(rowCol.size()));
    rowLb.push_back(double(lo));
    rowUb.push_back(hi >= cols.size() ? COIN_DBL_MAX : double(hi));
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
  std::vector<int> memRows;
  auto addMemRow = [&](std::vector<int> cols, std::vector<double> coefs,
                       double rhs) {
    memRows.push_back(int(rowLb.size()));
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
  if (relaxation && !peakMode) {
    relaxation->rows = rowLb.size();
    relaxation->columns = numCols;
    relaxation->nonzeros = rowCol.size();
    relaxation->keepColumn = S;
    relaxation->recomputeColumn = R;
    relaxation->buildSeconds =
        std::max(0.0, seconds) -
        std::chrono::duration<double>(deadline - Clock::now()).count();
    relaxation->seconds =
        std::chrono::duration<double>(deadline - Clock::now()).count();
    solveLpRelaxation(model, numCols, colStart, index, value, memRows, scale,
                      costScale, *relaxation);
    return out;
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
  if (!mpsFile.empty()) {
    // Uncompressed, with names C0000000.. and R0000000.. and the integer
    // columns in MARKER blocks (OSI's own writeMps gzips where it can).
    std::vector<char> integrality(colInt.begin(), colInt.end());
    std::vector<std::string> noNames;
    CoinMpsIO writer;
    writer.setMpsData(*lp.getMatrixByCol(), lp.getInfinity(), lp.getColLower(),
                      lp.getColUpper(), lp.getObjCoefficients(),
                      integrality.data(), lp.getRowLower(), lp.getRowUpper(),
                      noNames, noNames);
    writer.writeMps(mpsFile.c_str(), /*compression=*/0, /*formatType=*/1);
  }
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
  std::vector<const char *> args{"remat",   "-log",        "0",  "-timeMode",
                                 "elapsed", "-preprocess", "off"};
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
  if (firstSolution) {
    args.push_back("-maxSolutions");
    args.push_back("1");
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
  // Any stop other than the end of the search or the clock (node and
  // solution limits, CBC's "difficulties", an event) ends no proof. CBC's
  // node and solution checks are ">= the limit": a search that ends at
  // exactly its node limit, or any first-solution search that found one,
  // is never "finished" either (proofs lost, none claimed).
  answer.limitReached = cbc.isNodeLimitReached() ||
                        cbc.isSolutionLimitReached() ||
                        (cbc.status() != 0 && !cbc.isSecondsLimitReached());
  answer.deadline = deadline;
  answer.returnedAt = Clock::now();
  answer.bestPossible = cbc.getBestPossibleObjValue();
  if (cutoff)
    answer.bestKnown = *cutoff / unit;
  if (sol)
    answer.bestKnown = std::min(answer.bestKnown.value_or(obj), obj);
  CbcClaims claims = acceptCbcAnswer(answer);
  out.finished = claims.finished;
  out.stoppedOnLimit = claims.stoppedOnLimit;
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
  out.bound = out.optimal ? out.objective : std::min(out.objective, out.bound);
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

template <typename AddRow>
void MilpBuilder::addRangeRows(const std::vector<LowerBound::Range> &ranges,
                               const std::vector<std::vector<int>> &R,
                               const std::vector<double> &colObj,
                               AddRow &addRow) {
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
                   [](const LowerBound::Range &a, const LowerBound::Range &b) {
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

template <typename AddMemRow>
void MilpBuilder::addKnapsackRow(unsigned t, const std::set<unsigned> &bOps,
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

template <typename AddCol, typename AddRow, typename AddMemRow>
void MilpBuilder::addCompactMemory(
    unsigned t, const std::vector<unsigned> &points, double constLive,
    const std::vector<std::vector<int>> &R,
    const std::vector<std::vector<int>> &S, const std::set<unsigned> &bOps,
    AddCol &addCol, AddRow &addRow, AddMemRow &addMemRow) {
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

void MilpBuilder::pruneUnread(Schedule &schedule) {
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

#endif // REMAT_HAVE_CBC
