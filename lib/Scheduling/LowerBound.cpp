//===- LowerBound.cpp - Lower bounds on recompute and peak ----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/LowerBound.h"
#include "ClpDuality.h"
#include "remat/Scheduling/WindowLowering.h"

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/MaxFlow.h"
#include "remat/Scheduling/Phases.h"
#include "remat/Scheduling/StepProgram.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#ifdef REMAT_HAVE_CBC
#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>
#endif

using namespace remat::sched;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max() / 4;

int64_t saturatingAdd(int64_t a, int64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

/// With `LowerBoundOptions::exactSteps`, the share of the time limit after
/// which the branch and bound on the knapsack row stops and the exact step
/// programs take the rest.
constexpr double kExactShare = 0.85;

/// With `LowerBoundOptions::jointExactSteps`, the share of the time limit
/// after which the exact step programs stop and the joint program takes
/// the rest (to 0.98).
constexpr double kJointShare = 0.9;

/// The clock of `recomputeLowerBound` and its shares of the time limit.
/// Each phase asks `stop` before work that could raise the bound; a phase
/// told to stop marks the bound cut short (`LowerBound::cutShort`: more
/// time could raise it), so nothing else needs to.
class TimeShares {
public:
  TimeShares(const LowerBoundOptions &options, bool &cutShort)
      : limit(options.timeLimitSeconds), testClock(options.elapsedForTest),
        cutShort(cutShort), start(std::chrono::steady_clock::now()) {}

  /// Seconds since the start (`LowerBoundOptions::elapsedForTest` when set).
  double elapsed() const {
    if (testClock)
      return testClock();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

  /// Seconds left until `share` of the time limit (infinite without one).
  double left(double share) const {
    return limit > 0 ? limit * share - elapsed() : kInf;
  }

  /// Whether no more than `margin` seconds are left until `share` of the
  /// time limit (never without a limit), on one reading of the clock;
  /// `secondsLeft` (if given) gets the seconds left.
  bool spent(double share, double margin = 0,
             double *secondsLeft = nullptr) const {
    double l = left(share);
    if (secondsLeft)
      *secondsLeft = l;
    return l <= margin;
  }

  /// `spent`, and if so the bound is cut short: ask only where work that
  /// could raise the bound then stops.
  bool stop(double share, double margin = 0, double *secondsLeft = nullptr) {
    if (!spent(share, margin, secondsLeft))
      return false;
    cutShort = true;
    return true;
  }

private:
  double limit;
  const std::function<double()> &testClock;
  bool &cutShort;
  std::chrono::steady_clock::time_point start;
};

/// Per-node and per-step facts the bounds share, all in the simulator's
/// counting (the returned part of an output never counts).
struct StepFacts {
  unsigned n = 0;
  /// Recomputation may precede node t only for t >= phaseStart (a training
  /// graph's first backward node; 0 in a forward-only graph).
  unsigned phaseStart = 0;
  std::vector<int64_t> counted;
  /// Last node reading v (-1: none), and the last one before phaseStart.
  std::vector<int> lastRead, lastReadEarly;
  std::vector<bool> recomputable;
  /// The nodes reading v, in increasing order.
  std::vector<std::vector<unsigned>> readers;
  /// Bytes live at step t in every schedule: t's result, backward values
  /// made before t and read at or after t.
  std::vector<int64_t> fixed;
  /// Bytes of forward values that must be live at t (read by t, read
  /// before phaseStart, or never recomputed).
  std::vector<int64_t> forced;
  /// Bytes of every forward value made before t and read at or after t.
  std::vector<int64_t> needed;
  /// Bytes live during every recomputation in the list before node k: the
  /// backward values and the never-recomputed forward values made before k
  /// and read at or after k (each has one instance, which serves that
  /// read). `listMin[j][k]` is the least of `listFixed` over [k, k + 2^j).
  std::vector<int64_t> listFixed;
  std::vector<std::vector<int64_t>> listMin;
  /// The least bytes live during a recomputation of v beyond `listFixed`:
  /// its result, its workspace and its distinct recomputable operands (the
  /// instances it reads).
  std::vector<int64_t> recomputeBytes;

  explicit StepFacts(const Graph &graph);
  /// The least of `listFixed` over the lists [lo, hi] (lo <= hi < n).
  int64_t leastListFixed(unsigned lo, unsigned hi) const {
    unsigned j = llvm::Log2_32(hi - lo + 1);
    return std::min(listMin[j][lo], listMin[j][hi + 1 - (1u << j)]);
  }
  /// v can be executed again in some list before a node in [lo, hi] (and
  /// at or after the first list that may exist) within `budget`: the bytes
  /// live during such a recomputation fit at one of them at least.
  bool mayRecomputeWithin(unsigned v, unsigned lo, unsigned hi,
                          int64_t budget) const {
    lo = std::max(lo, std::max(phaseStart, v + 1));
    hi = std::min(hi, n - 1);
    if (lo > hi)
      return false;
    return recomputeBytes[v] + leastListFixed(lo, hi) <= budget;
  }
  /// The first node after t that reads v (n: none).
  unsigned firstReadAfter(unsigned v, unsigned t) const {
    auto it = std::upper_bound(readers[v].begin(), readers[v].end(), t);
    return it == readers[v].end() ? n : *it;
  }
  bool isNeeded(unsigned v, unsigned t) const {
    return v < t && lastRead[v] >= int(t);
  }
  /// v is made before t and read by a node in [t, last].
  bool isReadWithin(unsigned v, unsigned t, unsigned last) const {
    if (v >= t)
      return false;
    auto it = std::lower_bound(readers[v].begin(), readers[v].end(), t);
    return it != readers[v].end() && *it <= last;
  }
  bool isForced(unsigned v, unsigned t,
                const std::vector<bool> &readByT) const {
    return isNeeded(v, t) &&
           (!recomputable[v] || readByT[v] || lastReadEarly[v] >= int(t));
  }
};

StepFacts::StepFacts(const Graph &graph) : n(graph.size()) {
  const std::vector<Node> &nodes = graph.nodes;
  phaseStart = n;
  for (unsigned v = 0; v != n && phaseStart == n; ++v)
    if (nodes[v].backward)
      phaseStart = v;
  if (phaseStart == n)
    phaseStart = 0; // Forward-only: recomputation anywhere.
  counted.resize(n);
  lastRead.assign(n, -1);
  lastReadEarly.assign(n, -1);
  recomputable.resize(n);
  readers.resize(n);
  for (unsigned v = 0; v != n; ++v) {
    const Node &node = nodes[v];
    int64_t returned = 0;
    if (node.output)
      returned = node.outputBytes >= 0 ? std::min(node.outputBytes, node.bytes)
                                       : node.bytes;
    counted[v] = node.bytes - returned;
    recomputable[v] = !node.backward && !node.noRecompute && !node.keep;
    for (unsigned op : node.operands) {
      if (readers[op].empty() || readers[op].back() != v)
        readers[op].push_back(v);
      lastRead[op] = std::max(lastRead[op], int(v));
      if (v < phaseStart)
        lastReadEarly[op] = std::max(lastReadEarly[op], int(v));
    }
  }
  // Interval sums as difference arrays over steps.
  std::vector<int64_t> dFixed(n + 1, 0), dForced(n + 1, 0), dNeeded(n + 1, 0),
      dList(n + 1, 0);
  auto addOver = [&](std::vector<int64_t> &d, unsigned from, int to,
                     int64_t bytes) {
    if (int(from) > to)
      return;
    d[from] += bytes;
    d[to + 1] -= bytes;
  };
  for (unsigned v = 0; v != n; ++v) {
    if (nodes[v].backward || !recomputable[v])
      addOver(dList, v + 1, lastRead[v], counted[v]);
    if (nodes[v].backward) {
      addOver(dFixed, v + 1, lastRead[v], counted[v]);
      continue;
    }
    addOver(dNeeded, v + 1, lastRead[v], counted[v]);
    addOver(dForced, v + 1, recomputable[v] ? lastReadEarly[v] : lastRead[v],
            counted[v]);
  }
  fixed.resize(n);
  forced.resize(n);
  needed.resize(n);
  listFixed.resize(n);
  int64_t f = 0, fo = 0, ne = 0, li = 0;
  for (unsigned t = 0; t != n; ++t) {
    f += dFixed[t];
    fo += dForced[t];
    ne += dNeeded[t];
    li += dList[t];
    listFixed[t] = li;
    // During node t: its result and its workspace too.
    fixed[t] = f + counted[t] + nodes[t].workspace;
    needed[t] = ne;
    forced[t] = fo;
    // Recomputable operands of t read after the early phase: forced at t.
    if (t >= phaseStart) {
      for (unsigned i = 0; i != nodes[t].operands.size(); ++i) {
        unsigned op = nodes[t].operands[i];
        bool repeated =
            std::find(nodes[t].operands.begin(), nodes[t].operands.begin() + i,
                      op) != nodes[t].operands.begin() + i;
        if (!repeated && !nodes[op].backward && recomputable[op] &&
            lastReadEarly[op] < int(t))
          forced[t] += counted[op];
      }
    }
  }
  listMin.push_back(listFixed);
  for (unsigned j = 1; (1u << j) <= n; ++j) {
    const std::vector<int64_t> &prev = listMin.back();
    std::vector<int64_t> next(n - (1u << j) + 1);
    for (unsigned k = 0; k != next.size(); ++k)
      next[k] = std::min(prev[k], prev[k + (1u << (j - 1))]);
    listMin.push_back(std::move(next));
  }
  recomputeBytes.assign(n, 0);
  for (unsigned v = 0; v != n; ++v) {
    if (!recomputable[v])
      continue;
    const std::vector<unsigned> &ops = nodes[v].operands;
    int64_t bytes = counted[v] + nodes[v].workspace;
    for (unsigned i = 0; i != ops.size(); ++i)
      if (recomputable[ops[i]] &&
          std::find(ops.begin(), ops.begin() + i, ops[i]) == ops.begin() + i)
        bytes += counted[ops[i]];
    recomputeBytes[v] = bytes;
  }
}

/// The cut bound of one step t for the recomputations executed after t and
/// before node `last` (inclusive; the graph's size: to the end): max over
/// lambda of mincut(lambda) - lambda * cap, in normalised units (costs /
/// costUnit, bytes / byteUnit). The values the cut must provide are those
/// made before t and read by a node in [t, last], and the forced ones.
class StepCut {
public:
  /// `budget`: the peak the schedules keep to; with `recomputeMemory`,
  /// a value none of whose possible recomputations in the window fits it
  /// is not recomputed (see `mayRecomputeWithin`).
  StepCut(const Graph &graph, const StepFacts &facts, unsigned t, unsigned last,
          double costUnit, double byteUnit, int64_t budget,
          bool recomputeMemory)
      : graph(graph), facts(facts), costUnit(costUnit),
        byteUnit(byteUnit), readByT(graph.size(), false), needed(t, false),
        stays(t, false) {
    for (unsigned op : graph.nodes[t].operands)
      readByT[op] = true;
    // A value is never recomputed in the window if it is never recomputed
    // at all, must be live at t, or (recomputeMemory) every list where its
    // execution could serve the window overflows the budget: before its
    // first read after t for a value read in the window (the one not live
    // at t must be executed again by then), anywhere in the window
    // otherwise.
    unsigned lastList = std::min(last, facts.n - 1);
    auto staysLive = [&](unsigned v) {
      if (!facts.recomputable[v] || facts.isForced(v, t, readByT))
        return true;
      if (!recomputeMemory)
        return false;
      unsigned hi =
          needed[v] ? std::min(facts.firstReadAfter(v, t), lastList) : lastList;
      return !facts.mayRecomputeWithin(v, t + 1, hi, budget);
    };
    // The forward values the cut concerns: needed ones and their forward
    // ancestors (a recomputation reads them).
    std::vector<bool> seen(t, false);
    std::vector<unsigned> stack;
    for (unsigned v = 0; v != t; ++v)
      if (!graph.nodes[v].backward &&
          (facts.isReadWithin(v, t, last) || facts.isForced(v, t, readByT))) {
        needed[v] = seen[v] = true;
        stack.push_back(v);
      }
    while (!stack.empty()) {
      unsigned v = stack.back();
      stack.pop_back();
      relevant.push_back(v);
      stays[v] = staysLive(v);
      if (stays[v])
        continue; // Never recomputed here: its operands are not needed.
      for (unsigned op : graph.nodes[v].operands)
        if (!graph.nodes[op].backward && !seen[op]) {
          seen[op] = true;
          stack.push_back(op);
        }
    }
    std::sort(relevant.begin(), relevant.end());
    local.assign(t, ~0u);
    for (unsigned i = 0; i != relevant.size(); ++i)
      local[relevant[i]] = i;
  }

  /// A line cost + lambda * bytes of one cut (normalised cost, raw bytes),
  /// which relevant values (local indices) it holds live and which it
  /// recomputes after t.
  struct Line {
    double cost = 0;
    int64_t bytes = 0;
    std::vector<bool> live, recomputed;
  };

  /// Branching decisions of the branch and bound, one per relevant value
  /// (local index): kFree, kLive (the value is in L) or kNotLive (it is
  /// not: recomputed after t if it is needed).
  enum Fix : int8_t { kFree = 0, kLive = 1, kNotLive = -1 };

  unsigned size() const { return relevant.size(); }
  /// The value may be fixed by a branch: recomputable and not forced.
  bool isBranchable(unsigned i) const {
    unsigned v = relevant[i];
    return !stays[v] && facts.counted[v] > 0;
  }
  int64_t bytesOf(unsigned i) const { return facts.counted[relevant[i]]; }

  /// Max flow at `lambda` (a lower bound on mincut(lambda) over the closed
  /// pairs that respect `fixes`; empty: none) and the line of the cut it
  /// leaves.
  double solve(double lambda, Line &line,
               const std::vector<int8_t> &fixes = {}) const {
    unsigned m = relevant.size();
    unsigned source = 2 * m, sink = 2 * m + 1;
    FlowNetwork net(2 * m + 2);
    for (unsigned i = 0; i != m; ++i) {
      unsigned v = relevant[i];
      const Node &node = graph.nodes[v];
      int8_t fix = fixes.empty() ? int8_t(kFree) : fixes[i];
      bool pinned = stays[v] || fix == kLive;
      net.addEdge(source, 2 * i, pinned ? kInf : costOf(i));
      net.addEdge(2 * i, 2 * i + 1,
                  fix == kNotLive
                      ? kInf
                      : lambda * double(facts.counted[v]) / byteUnit);
      if (needed[v] || fix == kLive)
        net.addEdge(2 * i + 1, sink, kInf);
      if (!pinned)
        for (unsigned op : node.operands)
          if (!graph.nodes[op].backward)
            net.addEdge(2 * local[op] + 1, 2 * i, kInf);
    }
    double flow = net.maxFlow(source, sink);
    std::vector<bool> side = net.sourceSide(source);
    line = Line();
    line.live.assign(m, false);
    line.recomputed.assign(m, false);
    for (unsigned i = 0; i != m; ++i) {
      unsigned v = relevant[i];
      if (!side[2 * i]) {
        line.cost += costOf(i);
        line.recomputed[i] = true;
      } else if (!side[2 * i + 1]) {
        line.bytes += facts.counted[v];
        line.live[i] = true;
      }
    }
    return flow;
  }

  /// The cut that recomputes nothing: the needed values live.
  Line keepAll() const {
    Line line;
    line.live.assign(relevant.size(), false);
    line.recomputed.assign(relevant.size(), false);
    for (unsigned i = 0; i != relevant.size(); ++i)
      if (needed[relevant[i]]) {
        line.bytes += facts.counted[relevant[i]];
        line.live[i] = true;
      }
    return line;
  }
  double totalCost() const {
    double c = 0;
    for (unsigned i = 0; i != relevant.size(); ++i)
      c += costOf(i);
    return c;
  }
  /// The normalised cost of recomputing relevant value `i`, shifted by
  /// `setShift`.
  double costOf(unsigned i) const {
    double c = graph.nodes[relevant[i]].cost / costUnit;
    return shift.empty() ? c : c + shift[i];
  }
  /// The value is never recomputed in the window (its recomputation costs
  /// nothing to the cut: it is held live).
  bool staysLive(unsigned i) const { return stays[relevant[i]]; }
  /// Adds `delta[i]` (normalised; the shifted costs must stay >= 0) to the
  /// cost of recomputing each relevant value `i`: a Lagrangian term of a
  /// side constraint on how many values of a class are recomputed
  /// (`cardinalityBound`). Empty: no shift.
  void setShift(std::vector<double> delta) { shift = std::move(delta); }
  /// The nodes `line` recomputes after t (graph indices, increasing).
  std::vector<unsigned> recomputedNodes(const Line &line) const {
    std::vector<unsigned> nodes;
    for (unsigned i = 0; i != relevant.size(); ++i)
      if (i < line.recomputed.size() && line.recomputed[i])
        nodes.push_back(relevant[i]);
    return nodes;
  }
  /// The cut problem within `cap` as an integer program (StepProgram.h),
  /// in normalised costs.
  StepProgram program(int64_t cap) const {
    StepProgram p;
    unsigned m = relevant.size();
    p.cap = cap;
    p.operands.resize(m);
    for (unsigned i = 0; i != m; ++i) {
      unsigned v = relevant[i];
      p.cost.push_back(costOf(i));
      p.bytes.push_back(facts.counted[v]);
      p.needed.push_back(needed[v]);
      p.pinned.push_back(stays[v]);
      if (!stays[v])
        for (unsigned op : graph.nodes[v].operands)
          if (!graph.nodes[op].backward)
            p.operands[i].push_back(local[op]);
    }
    return p;
  }
  /// The forward values the cut concerns (graph indices, increasing): the
  /// local index of `program` is the position here.
  const std::vector<unsigned> &relevantNodes() const { return relevant; }
  int64_t minPositiveBytes() const {
    int64_t b = 0;
    for (unsigned v : relevant)
      if (facts.counted[v] > 0 && (b == 0 || facts.counted[v] < b))
        b = facts.counted[v];
    return b;
  }

private:
  const Graph &graph;
  const StepFacts &facts;
  double costUnit, byteUnit;
  std::vector<bool> readByT;
  std::vector<bool> needed;
  /// Per value made before t: never recomputed in the window.
  std::vector<bool> stays;
  std::vector<unsigned> relevant;
  std::vector<unsigned> local;
  /// Per relevant value: added to its normalised cost (empty: none).
  std::vector<double> shift;
};

struct StepBound {
  double value = 0; // Normalised cost.
  double lambda = 0;
  bool infeasible = false;
  /// The least normalised cost of a cut found within the cap (kInf: none):
  /// an upper bound on the cut problem (not on schedules); the bound is
  /// exact when it meets `value`.
  double feasibleCost = kInf;
  /// The two cuts whose lines meet at the last multiplier tried: one above
  /// the cap (`lo`), one within it (`hi`), as far as found. The values on
  /// which they differ are the ones to branch on.
  StepCut::Line lo, hi;
  /// The cut of cost `feasibleCost` (empty when there is none).
  StepCut::Line feasible;
};

/// max over lambda >= 0 of mincut(lambda) - lambda * cap (cap in bytes),
/// over the closed pairs that respect `fixes` (empty: all).
StepBound boundStep(const StepCut &cut, int64_t cap, double byteUnit,
                    const std::vector<int8_t> &fixes = {}) {
  StepBound best;
  using Line = StepCut::Line;
  Line lo;
  if (fixes.empty()) {
    lo = cut.keepAll();
  } else {
    // The cheapest cut that respects the fixes, memory aside.
    best.value = std::max(0.0, cut.solve(0, lo, fixes));
  }
  if (lo.bytes <= cap) {
    best.feasibleCost = lo.cost;
    best.feasible = lo;
    best.lo = best.hi = std::move(lo);
    return best;
  }
  double capN = double(cap) / byteUnit;
  double total = cut.totalCost();
  int64_t minBytes = cut.minPositiveBytes();
  if (minBytes == 0)
    return best;
  auto evaluate = [&](double lambda, Line &line) {
    double flow = cut.solve(lambda, line, fixes);
    double g = flow - lambda * capN;
    if (g > best.value) {
      best.value = g;
      best.lambda = lambda;
    }
    return flow;
  };
  // A multiplier at which one byte outweighs all recomputation: its cut
  // holds the fewest bytes.
  double big = 2 * (total + 1) / (double(minBytes) / byteUnit);
  Line hi;
  evaluate(big, hi);
  // No closed cut fits: every schedule exceeds the budget here (the flow
  // bounds every cut's cost, so this is sound whatever the rounding).
  if (best.value > total * (1 + 1e-9) + 1e-12) {
    best.infeasible = true;
    return best;
  }
  auto finish = [&] {
    best.lo = std::move(lo);
    best.hi = std::move(hi);
    return std::move(best);
  };
  if (hi.bytes > cap)
    return finish();
  best.feasibleCost = hi.cost;
  best.feasible = hi;
  for (unsigned iter = 0; iter != 60; ++iter) {
    double lambda =
        (hi.cost - lo.cost) / (double(lo.bytes - hi.bytes) / byteUnit);
    if (!(lambda > 0) || !std::isfinite(lambda))
      break;
    Line line;
    double flow = evaluate(lambda, line);
    double meet = lo.cost + lambda * double(lo.bytes) / byteUnit;
    if (flow >= meet - 1e-9 * std::max(1.0, std::fabs(meet)))
      break; // lambda is the maximiser: no cut lies below the two lines.
    if (line.bytes > cap) {
      if (line.bytes == lo.bytes && line.cost == lo.cost)
        break;
      lo = std::move(line);
    } else {
      if (line.cost < best.feasibleCost) {
        best.feasibleCost = line.cost;
        best.feasible = line;
      }
      if (line.bytes == hi.bytes && line.cost == hi.cost)
        break;
      hi = std::move(line);
    }
  }
  return finish();
}

/// Golden-section steps per side of `cardinalityBound` (each one cut
/// bound of the shifted problem).
constexpr unsigned kCountSearchSteps = 10;

/// A bound on one step's cut problem from a disjunction on how many
/// values of a class of equal cost are recomputed. At the multiplier of
/// `root`, the two cuts whose lines meet (`root.lo` above the cap,
/// `root.hi` within it) mix into a fractional pair; where they differ by
/// values of the largest cost c among those they differ on, the class E of
/// all values of cost c (as the identical layers of a transformer give
/// them) is recomputed a fractional number of times m* in that mix, and
/// branching on single values hardly moves the bound (any other value of E
/// takes the place of the one fixed). Instead, with k = floor(m*), every
/// closed pair within the cap recomputes at most k values of E or at least
/// k + 1. For the first, for every mu >= 0 and lambda >= 0, cost(R) >=
/// cost(R) + mu (|R & E| - k) + lambda (bytes(L) - cap), so the bound of
/// the cut problem with the costs of E raised by mu, minus mu k, bounds
/// them; for the second, lowering the costs of E by mu <= c and adding mu
/// (k + 1). The least of the two (each maximised over mu) bounds
/// every pair, so the larger of it and `root.value` does; returned
/// normalised (`root.value` where no class of two or more values mixes).
/// When `outOfTime` turns true the search over mu stops where it is (every
/// mu tried gives a valid bound).
template <typename OutOfTime>
double cardinalityBound(const StepCut &cut, int64_t cap, double byteUnit,
                        const StepBound &root, OutOfTime outOfTime) {
  const StepCut::Line &lo = root.lo, &hi = root.hi;
  unsigned m = cut.size();
  if (root.infeasible || lo.recomputed.size() != m ||
      hi.recomputed.size() != m || lo.bytes <= cap || hi.bytes > cap ||
      lo.bytes <= hi.bytes)
    return root.value;
  double c = 0;
  for (unsigned i = 0; i != m; ++i)
    if (lo.recomputed[i] != hi.recomputed[i] && !cut.staysLive(i))
      c = std::max(c, cut.costOf(i));
  if (!(c > 0))
    return root.value;
  std::vector<bool> inClass(m, false);
  unsigned size = 0, mLo = 0, mHi = 0;
  for (unsigned i = 0; i != m; ++i) {
    if (cut.staysLive(i) || std::fabs(cut.costOf(i) - c) > 1e-9 * c)
      continue;
    inClass[i] = true;
    ++size;
    mLo += lo.recomputed[i];
    mHi += hi.recomputed[i];
  }
  if (size < 2 || mLo == mHi)
    return root.value;
  // The weight of `lo` in the mix that fills the cap exactly.
  double theta = double(cap - hi.bytes) / double(lo.bytes - hi.bytes);
  double mStar = theta * mLo + (1 - theta) * mHi;
  double k = std::floor(mStar);
  if (mStar - k < 1e-6 || k + 1 > size)
    return root.value;
  // The least cost within the class: lowering by it keeps every cost >= 0.
  double least = kInf;
  for (unsigned i = 0; i != m; ++i)
    if (inClass[i])
      least = std::min(least, cut.costOf(i));
  auto shifted = [&](double mu) {
    StepCut copy = cut;
    std::vector<double> delta(m, 0);
    for (unsigned i = 0; i != m; ++i)
      if (inClass[i])
        delta[i] = mu;
    copy.setShift(std::move(delta));
    StepBound b = boundStep(copy, cap, byteUnit);
    return b.infeasible ? std::optional<double>() : b.value;
  };
  // Each side is a concave function of mu (a minimum of lines over the
  // closed pairs, maximised over lambda): golden-section search over
  // [0, hi], the best value seen kept (every one is a valid bound).
  auto maximise = [&](double hi, auto side) -> std::optional<double> {
    constexpr double kRatio = 0.6180339887498949;
    double a = 0, b = hi, best = -kInf;
    auto at = [&](double mu) -> std::optional<double> {
      std::optional<double> v = side(mu);
      if (v)
        best = std::max(best, *v);
      return v;
    };
    double x1 = b - kRatio * (b - a), x2 = a + kRatio * (b - a);
    std::optional<double> f1 = at(x1), f2 = at(x2);
    for (unsigned iter = 0; iter != kCountSearchSteps && !outOfTime(); ++iter) {
      if (!f1 || !f2)
        return std::nullopt;
      if (*f1 < *f2) {
        a = x1;
        x1 = x2;
        f1 = f2;
        x2 = a + kRatio * (b - a);
        f2 = at(x2);
      } else {
        b = x2;
        x2 = x1;
        f2 = f1;
        x1 = b - kRatio * (b - a);
        f1 = at(x1);
      }
    }
    if (!f1 || !f2 || (!outOfTime() && !at(hi)))
      return std::nullopt;
    return best;
  };
  // At most k of the class: costs raised by mu (up to 16 c).
  std::optional<double> atMost =
      maximise(16 * c, [&](double mu) -> std::optional<double> {
        std::optional<double> b = shifted(mu);
        return b ? std::optional<double>(*b - mu * k) : std::nullopt;
      });
  // At least k + 1: costs lowered by mu (never below 0).
  std::optional<double> atLeast =
      maximise(least, [&](double mu) -> std::optional<double> {
        std::optional<double> b = shifted(-mu);
        return b ? std::optional<double>(*b + mu * (k + 1)) : std::nullopt;
      });
  if (!atMost || !atLeast)
    return root.value;
  return std::max(root.value, std::min(*atMost, *atLeast));
}

/// Branch and bound over the knapsack row of one step's cut problem: the
/// Lagrangian bound of a cut may lie well below its least cost within the
/// cap (a few large values decide it). Each branch fixes one value live or
/// not live (the largest on which the two cuts of its multiplier differ);
/// every closed pair within the cap respects the fixes of one leaf, so the
/// least leaf bound is a lower bound on the step's cut problem. Best first
/// (the leaf with the least bound is split), at most `maxSplits` splits or
/// until `outOfTime`. Returns the bound (normalised), or nullopt when no
/// closed pair within the cap exists; `feasible` gets the cheapest cut
/// within the cap found in any leaf (unchanged if none is cheaper than it).
template <typename OutOfTime>
std::optional<double> branchAndBound(const StepCut &cut, int64_t cap,
                                     double byteUnit, unsigned maxSplits,
                                     bool cardinality, OutOfTime outOfTime,
                                     unsigned &splits, StepCut::Line &feasible,
                                     StepCut::Line *previous = nullptr) {
  // `line` replaces `feasible`, which goes to `previous` (when asked).
  auto replace = [&](const StepCut::Line &line) {
    if (previous && !feasible.recomputed.empty())
      *previous = std::move(feasible);
    feasible = line;
  };
  struct Leaf {
    double bound;
    std::vector<int8_t> fixes;
    StepBound result;
  };
  auto worse = [](const Leaf &a, const Leaf &b) { return a.bound > b.bound; };
  std::vector<Leaf> heap;
  {
    StepBound root = boundStep(cut, cap, byteUnit);
    if (root.infeasible)
      return std::nullopt;
    if (root.feasibleCost < kInf &&
        (feasible.recomputed.empty() || root.feasibleCost < feasible.cost))
      replace(root.feasible);
    // The root's bound, raised by the disjunction on a class's count where
    // that applies: every leaf's pairs are among the root's, so it bounds
    // them all.
    double bound = cardinality
                       ? cardinalityBound(cut, cap, byteUnit, root, outOfTime)
                       : root.value;
    heap.push_back(Leaf{bound, std::vector<int8_t>(cut.size(), StepCut::kFree),
                        std::move(root)});
  }
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), worse);
    Leaf leaf = std::move(heap.back());
    heap.pop_back();
    const StepBound &r = leaf.result;
    // Solved (the bound meets a cut within the cap), out of splits, or
    // nothing to branch on: the least leaf bound is final.
    int branch = -1;
    if (r.feasibleCost > leaf.bound * (1 + 1e-9) + 1e-12 &&
        splits < maxSplits && !outOfTime()) {
      for (unsigned i = 0; i != cut.size(); ++i)
        if (leaf.fixes[i] == StepCut::kFree && i < r.lo.live.size() &&
            i < r.hi.live.size() && r.lo.live[i] != r.hi.live[i] &&
            cut.isBranchable(i) &&
            (branch < 0 || cut.bytesOf(i) > cut.bytesOf(branch)))
          branch = int(i);
    }
    if (branch < 0)
      return leaf.bound;
    ++splits;
    for (int8_t fix : {StepCut::kLive, StepCut::kNotLive}) {
      std::vector<int8_t> fixes = leaf.fixes;
      fixes[branch] = fix;
      StepBound child = boundStep(cut, cap, byteUnit, fixes);
      if (child.infeasible)
        continue; // No closed pair within the cap respects these fixes.
      if (child.feasibleCost < kInf &&
          (feasible.recomputed.empty() || child.feasibleCost < feasible.cost))
        replace(child.feasible);
      double bound = std::max(leaf.bound, child.value);
      heap.push_back(Leaf{bound, std::move(fixes), std::move(child)});
      std::push_heap(heap.begin(), heap.end(), worse);
    }
  }
  return std::nullopt; // Every leaf is infeasible.
}

/// The joint LP of steps t_1 < .. < t_k (docs/Scheduling.md, "Lower bounds
/// on recompute", step 8): per step j and value v that matters there,
/// l_j(v) (an instance of v is live during t_j) and, for a recomputable
/// value, x_j(v) (v is executed again after t_j and before t_{j+1}; after
/// t_k for the last step) and r_j(v) (executed again after t_j), minimising
/// the cost of the x. Rows: the memory of each step; a value read at or
/// after t_j is live at t_j or executed after it, and in the interval when
/// it is read inside it or not at or after t_{j+1}; a value live at
/// t_{j+1} is live at t_j or executed in between; x_j <= r_j <= x_j +
/// r_{j+1}; an execution reads operands live at t_j or executed after t_j
/// (in the interval, for one in the interval). Returns a lower bound on the
/// normalised cost of the recomputations after t_1 of every schedule within
/// the budget: the weak-duality value of CLP's dual solution, recomputed
/// here with clamped signs so that any dual (optimal or not) gives a valid
/// bound. nullopt: built without CBC/CLP, no dual, or a dual whose bound is
/// -infinity (ClpDuality.h; not expected: every column here is bounded).
/// `finished` says
/// whether CLP proved its LP optimal (else the bound may rise with time).
std::optional<double> jointLpBound(const Graph &graph, const StepFacts &facts,
                                   const std::vector<unsigned> &steps,
                                   int64_t budgetBytes, double costUnit,
                                   double byteUnit, double seconds,
                                   bool &finished) {
  finished = false;
#ifndef REMAT_HAVE_CBC
  (void)graph, (void)facts, (void)steps, (void)budgetBytes, (void)costUnit,
      (void)byteUnit, (void)seconds;
  return std::nullopt;
#else
  unsigned k = steps.size(), n = facts.n;
  // The values of each step, from the last step back: those read at or
  // after t_j, those a later step holds that were made before t_j (an
  // instance live later was live at t_j or executed after it), and the
  // operands of the ones that may be executed again, transitively.
  struct Member {
    unsigned v;
    bool pinned, needed;
  };
  std::vector<std::vector<Member>> members(k);
  std::vector<std::vector<int>> localOf(k, std::vector<int>(n, -1));
  for (unsigned j = k; j-- != 0;) {
    unsigned t = steps[j];
    std::vector<bool> readByT(n, false);
    for (unsigned op : graph.nodes[t].operands)
      readByT[op] = true;
    std::vector<unsigned> stack;
    auto add = [&](unsigned v) {
      if (localOf[j][v] >= 0)
        return;
      localOf[j][v] = int(members[j].size());
      bool needed = facts.isNeeded(v, t);
      bool pinned =
          !facts.recomputable[v] || (needed && facts.isForced(v, t, readByT));
      members[j].push_back({v, pinned, needed});
      if (facts.recomputable[v])
        stack.push_back(v);
    };
    for (unsigned v = 0; v != t; ++v)
      if (!graph.nodes[v].backward &&
          (facts.isNeeded(v, t) || (j + 1 != k && localOf[j + 1][v] >= 0)))
        add(v);
    while (!stack.empty()) {
      unsigned v = stack.back();
      stack.pop_back();
      for (unsigned op : graph.nodes[v].operands)
        if (!graph.nodes[op].backward)
          add(op);
    }
  }
  std::vector<double> colLo, colUp, obj;
  std::vector<std::vector<int>> lCol(k), xCol(k), rCol(k);
  auto addColumn = [&](double lo, double cost) {
    colLo.push_back(lo);
    colUp.push_back(1);
    obj.push_back(cost);
    return int(obj.size() - 1);
  };
  for (unsigned j = 0; j != k; ++j) {
    for (const Member &m : members[j]) {
      lCol[j].push_back(addColumn(m.pinned && m.needed ? 1 : 0, 0));
      bool recomputable = facts.recomputable[m.v];
      xCol[j].push_back(
          recomputable ? addColumn(0, graph.nodes[m.v].cost / costUnit) : -1);
      rCol[j].push_back(recomputable ? addColumn(0, 0) : -1);
    }
  }
  // The rows as triplets, made into one row-ordered matrix at the end:
  // appending them one by one grows the matrix row by row, which took 47 s
  // for the 50,000 rows of 16 steps of MobileNetV2 (0.03 s this way).
  std::vector<int> tripletRow, tripletCol;
  std::vector<double> tripletValue;
  std::vector<double> rowLo, rowUp;
  auto addRow = [&](const std::vector<std::pair<int, double>> &entries,
                    double lo, double up) {
    for (auto [col, value] : entries)
      if (col >= 0) {
        tripletRow.push_back(int(rowLo.size()));
        tripletCol.push_back(col);
        tripletValue.push_back(value);
      }
    rowLo.push_back(lo);
    rowUp.push_back(up);
  };
  for (unsigned j = 0; j != k; ++j) {
    unsigned t = steps[j];
    bool last = j + 1 == k;
    std::vector<std::pair<int, double>> memory;
    for (unsigned i = 0; i != members[j].size(); ++i) {
      const Member &m = members[j][i];
      unsigned v = m.v;
      memory.push_back({lCol[j][i], double(facts.counted[v]) / byteUnit});
      int next = last ? -1 : localOf[j + 1][v];
      // Live at t_{j+1}: live at t_j or executed in between.
      if (next >= 0)
        addRow({{lCol[j][i], 1}, {xCol[j][i], 1}, {lCol[j + 1][next], -1}}, 0,
               COIN_DBL_MAX);
      if (xCol[j][i] < 0)
        continue;
      // r: executed after t_j (and before the end of the steps that hold
      // v): in the interval or after t_{j+1}.
      addRow({{rCol[j][i], 1}, {xCol[j][i], -1}}, 0, COIN_DBL_MAX);
      addRow({{xCol[j][i], 1},
              {next >= 0 ? rCol[j + 1][next] : -1, 1},
              {rCol[j][i], -1}},
             0, COIN_DBL_MAX);
      // An execution reads operands live at t_j or executed after t_j (in
      // the interval, for one in the interval).
      for (unsigned op : graph.nodes[v].operands) {
        if (graph.nodes[op].backward)
          continue;
        int u = localOf[j][op];
        addRow({{lCol[j][u], 1}, {xCol[j][u], 1}, {xCol[j][i], -1}}, 0,
               COIN_DBL_MAX);
        addRow({{lCol[j][u], 1}, {rCol[j][u], 1}, {rCol[j][i], -1}}, 0,
               COIN_DBL_MAX);
      }
      if (!m.needed || m.pinned)
        continue;
      // Read at or after t_j and not live there: executed after t_j; in
      // the interval, unless its next read is at or after t_{j+1} (then
      // the link above and step j + 1 take over).
      addRow({{lCol[j][i], 1}, {rCol[j][i], 1}}, 1, COIN_DBL_MAX);
      if (last || facts.lastRead[v] < int(steps[j + 1]) ||
          facts.isReadWithin(v, t + 1, steps[j + 1] - 1))
        addRow({{lCol[j][i], 1}, {xCol[j][i], 1}}, 1, COIN_DBL_MAX);
    }
    addRow(memory, -COIN_DBL_MAX,
           double(budgetBytes - facts.fixed[t]) / byteUnit);
  }
  CoinPackedMatrix matrix(false, tripletRow.data(), tripletCol.data(),
                          tripletValue.data(),
                          CoinBigIndex(tripletValue.size()));
  matrix.setDimensions(int(rowLo.size()), int(obj.size()));
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(matrix, colLo.data(), colUp.data(), obj.data(),
                    rowLo.data(), rowUp.data());
  if (seconds > 0)
    model.setMaximumWallSeconds(seconds);
  model.dual();
  finished = model.isProvenOptimal();
  if (!model.dualRowSolution())
    return std::nullopt;
  double bound = detail::weakDualityBound(model);
  if (bound == -std::numeric_limits<double>::infinity())
    return std::nullopt;
  return bound;
#endif
}

/// The cut problems to the end of `steps` (increasing) over the union of
/// their relevant values, whose graph indices go to `values` (the local
/// index of the programs is the position there), in normalised costs, as
/// steps of an interval program (StepProgram.h): the values each step
/// concerns and those read in its window (by the nodes after it up to the
/// next step; to the end for the last). Values a step does not concern are
/// neither needed nor recomputed there.
std::vector<IntervalStep>
unionPrograms(const Graph &graph, const StepFacts &facts,
              const std::vector<unsigned> &steps, int64_t budget,
              double costUnit, double byteUnit, bool recomputeMemory,
              std::vector<unsigned> &values) {
  unsigned n = facts.n;
  std::vector<StepCut> cuts;
  std::vector<unsigned> index(n, ~0u);
  values.clear();
  for (unsigned t : steps) {
    cuts.emplace_back(graph, facts, t, n, costUnit, byteUnit, budget,
                      recomputeMemory);
    for (unsigned v : cuts.back().relevantNodes())
      if (index[v] == ~0u) {
        index[v] = values.size();
        values.push_back(v);
      }
  }
  unsigned m = values.size();
  std::vector<IntervalStep> programs;
  for (unsigned j = 0; j != steps.size(); ++j) {
    unsigned t = steps[j];
    unsigned windowEnd = j + 1 < steps.size() ? steps[j + 1] : n - 1;
    StepProgram own = cuts[j].program(budget - facts.fixed[t]);
    const std::vector<unsigned> &local = cuts[j].relevantNodes();
    IntervalStep step;
    StepProgram &p = step.program;
    p.cap = own.cap;
    p.needed.assign(m, false);
    p.pinned.assign(m, true);
    p.operands.resize(m);
    step.relevant.assign(m, false);
    step.readInWindow.assign(m, false);
    for (unsigned v : values) {
      p.cost.push_back(graph.nodes[v].cost / costUnit);
      p.bytes.push_back(facts.counted[v]);
    }
    for (unsigned i = 0; i != local.size(); ++i) {
      unsigned v = local[i], u = index[v];
      step.relevant[u] = true;
      step.readInWindow[u] = facts.isReadWithin(v, t + 1, windowEnd);
      p.needed[u] = own.needed[i];
      p.pinned[u] = own.pinned[i];
      for (unsigned op : own.operands[i])
        p.operands[u].push_back(index[local[op]]);
    }
    programs.push_back(std::move(step));
  }
  return programs;
}

/// The interval program's result `r` over `windows` (one per step of
/// `steps`, over the graph values `values`) in graph terms, costs in the
/// units of `Node::cost`.
IntervalSolution toIntervalSolution(const std::vector<unsigned> &steps,
                                    const std::vector<IntervalStep> &windows,
                                    const std::vector<unsigned> &values,
                                    const StepProgramResult &r,
                                    double costUnit) {
  IntervalSolution solution;
  solution.steps = steps;
  solution.cost = r.solutionCost * costUnit;
  solution.bound = r.bound * costUnit;
  solution.optimal = r.optimal;
  solution.nodes = r.nodes;
  for (unsigned j = 0; j != steps.size(); ++j) {
    std::vector<unsigned> dropped, held;
    for (unsigned u = 0; u != values.size(); ++u)
      if (windows[j].relevant[u])
        (r.live[j][u] ? held : dropped).push_back(values[u]);
    llvm::sort(dropped);
    llvm::sort(held);
    solution.dropped.push_back(std::move(dropped));
    solution.held.push_back(std::move(held));
    std::vector<unsigned> executed;
    for (unsigned u = 0; u != values.size(); ++u)
      if (r.executed[j][u])
        executed.push_back(values[u]);
    llvm::sort(executed);
    solution.executed.push_back(std::move(executed));
  }
  return solution;
}

/// The joint program of `steps` (increasing) over the union of their
/// relevant values (`unionPrograms`), in normalised costs: with `intervals`
/// each window paid for its executions (StepProgram.h,
/// `solveIntervalStepProgram`), else each value once
/// (`solveJointStepProgram`). Its bound holds for the recompute after the
/// first step. `recomputed` receives the graph indices (increasing) its
/// best solution recomputes, and with `intervals` `interval` that solution
/// per window (cleared when there is none).
std::optional<StepProgramResult>
solveJointSteps(const Graph &graph, const StepFacts &facts,
                const std::vector<unsigned> &steps, int64_t budget,
                double costUnit, double byteUnit, bool recomputeMemory,
                bool intervals, double seconds,
                std::vector<unsigned> &recomputed, IntervalSolution &interval,
                llvm::ArrayRef<std::pair<unsigned, unsigned>> caps = {}) {
  interval = IntervalSolution();
  std::vector<unsigned> values;
  std::vector<IntervalStep> windows =
      unionPrograms(graph, facts, steps, budget, costUnit, byteUnit,
                    recomputeMemory, values);
  std::optional<StepProgramResult> r;
  if (intervals) {
    // Capped recomputations (`LowerBoundOptions::maxRecomputations`): a
    // window j executes only values step t_j concerns (the others are
    // pinned there, unionPrograms), which are made before t_j, so each
    // execution in a window is a recomputation, and the windows are
    // disjoint: at most k of them execute the node.
    std::vector<unsigned> maxExecutions;
    for (auto [node, k] : caps)
      for (unsigned u = 0; u != values.size(); ++u)
        if (values[u] == node) {
          maxExecutions.resize(values.size(), ~0u);
          maxExecutions[u] = std::min(maxExecutions[u], k);
        }
    r = solveIntervalStepProgram(windows, seconds, 0, maxExecutions);
    if (r && r->solutionCost >= 0 && r->live.size() == steps.size())
      interval = toIntervalSolution(steps, windows, values, *r, costUnit);
  } else {
    std::vector<StepProgram> programs;
    for (IntervalStep &w : windows)
      programs.push_back(std::move(w.program));
    r = solveJointStepProgram(programs, seconds);
  }
  recomputed.clear();
  if (r)
    for (unsigned u = 0; u != r->recomputed.size(); ++u)
      if (r->recomputed[u])
        recomputed.push_back(values[u]);
  llvm::sort(recomputed);
  return r;
}

} // namespace

std::optional<IntervalSolution>
remat::sched::solveIntervalSteps(const Graph &graph, int64_t budgetBytes,
                                 llvm::ArrayRef<unsigned> steps, double seconds,
                                 unsigned maxNodes, bool recomputeMemory) {
  StepFacts facts(graph);
  if (steps.empty() || !llvm::is_sorted(steps) || steps.back() >= facts.n)
    return std::nullopt;
  double costUnit = graph.forwardCost() > 0 ? graph.forwardCost() : 1;
  double byteUnit = double(std::max<int64_t>(budgetBytes, 1));
  std::vector<unsigned> values;
  std::vector<unsigned> stepList(steps.begin(), steps.end());
  std::vector<IntervalStep> windows =
      unionPrograms(graph, facts, stepList, budgetBytes, costUnit, byteUnit,
                    recomputeMemory, values);
  if (values.empty())
    return std::nullopt;
  std::optional<StepProgramResult> r =
      solveIntervalStepProgram(windows, seconds, maxNodes);
  if (!r || r->live.size() != steps.size())
    return std::nullopt;
  return toIntervalSolution(stepList, windows, values, *r, costUnit);
}

std::optional<double> remat::sched::intervalStepsBound(
    const Graph &graph, int64_t budgetBytes, llvm::ArrayRef<unsigned> steps,
    double seconds,
    llvm::ArrayRef<std::pair<unsigned, unsigned>> maxRecomputations) {
  StepFacts facts(graph);
  if (!stepProgramAvailable() || seconds <= 0 || steps.empty() ||
      !llvm::is_sorted(steps) || steps.back() >= facts.n)
    return std::nullopt;
  double costUnit = graph.forwardCost() > 0 ? graph.forwardCost() : 1;
  double byteUnit = double(std::max<int64_t>(budgetBytes, 1));
  std::vector<unsigned> stepList(steps.begin(), steps.end()), recomputed;
  IntervalSolution interval;
  std::vector<unsigned> values;
  if (unionPrograms(graph, facts, stepList, budgetBytes, costUnit, byteUnit,
                    /*recomputeMemory=*/true, values)
          .empty() ||
      values.empty())
    return std::nullopt;
  std::optional<StepProgramResult> r =
      solveJointSteps(graph, facts, stepList, budgetBytes, costUnit, byteUnit,
                      /*recomputeMemory=*/true, /*intervals=*/true, seconds,
                      recomputed, interval, maxRecomputations);
  // With CLP, values and time, the branch and bound returns none only when
  // no node's LP has a point (solvePrograms: a node not solved in time
  // keeps its parent's bound, so a result).
  if (!r)
    return std::numeric_limits<double>::infinity();
  return r->bound * costUnit;
}

int64_t remat::sched::leastPeakLowerBound(const Graph &graph) {
  StepFacts facts(graph);
  int64_t peak = 0;
  for (unsigned t = 0; t != facts.n; ++t)
    peak = std::max(peak, facts.fixed[t] + facts.forced[t]);
  return peak;
}

int64_t remat::sched::forwardLeastPeakBound(const Graph &graph, unsigned *at) {
  unsigned n = graph.size();
  int64_t bound = 0;
  // inSet[v] == epoch: v is among the operands not yet placed.
  std::vector<unsigned> inSet(n, 0);
  unsigned epoch = 0;
  std::vector<unsigned> rest;
  // Each node's operands, each once (an operand read twice counts once).
  std::vector<std::vector<unsigned>> distinct(n);
  for (unsigned v = 0; v != n; ++v) {
    distinct[v] = graph.nodes[v].operands;
    std::sort(distinct[v].begin(), distinct[v].end());
    distinct[v].erase(std::unique(distinct[v].begin(), distinct[v].end()),
                      distinct[v].end());
  }
  for (unsigned t = 0; t != n; ++t) {
    const Node &node = graph.nodes[t];
    ++epoch;
    rest.clear();
    int64_t restBytes = 0;
    for (unsigned op : node.operands)
      if (inSet[op] != epoch) {
        inSet[op] = epoch;
        rest.push_back(op);
        restBytes = saturatingAdd(restBytes, graph.nodes[op].activationBytes());
      }
    int64_t boundT = saturatingAdd(
        saturatingAdd(restBytes, node.activationBytes()), node.workspace);
    // Lawler's rule, from the last operand made to the first.
    while (!rest.empty()) {
      size_t bestAt = 0;
      int64_t best = std::numeric_limits<int64_t>::max();
      for (size_t i = 0; i != rest.size(); ++i) {
        const Node &opNode = graph.nodes[rest[i]];
        int64_t term = saturatingAdd(restBytes, opNode.workspace);
        for (unsigned p : distinct[rest[i]])
          if (inSet[p] != epoch)
            term = saturatingAdd(term, graph.nodes[p].activationBytes());
        if (term < best) {
          best = term;
          bestAt = i;
        }
      }
      boundT = std::max(boundT, best);
      unsigned last = rest[bestAt];
      rest.erase(rest.begin() + bestAt);
      inSet[last] = 0;
      restBytes -= graph.nodes[last].activationBytes();
    }
    if (boundT > bound) {
      bound = boundT;
      if (at)
        *at = t;
    }
  }
  return bound;
}

LowerBound remat::sched::recomputeLowerBound(const Graph &graph,
                                             int64_t budgetBytes,
                                             const LowerBoundOptions &options) {
  LowerBound result;
  TimeShares clock(options, result.cutShort);
  StepFacts facts(graph);
  unsigned n = facts.n;
  for (unsigned t = 0; t != n; ++t)
    result.peakBytes =
        std::max(result.peakBytes, facts.fixed[t] + facts.forced[t]);
  if (result.peakBytes > budgetBytes) {
    result.infeasible = true;
    result.seconds = clock.elapsed();
    return result;
  }
  double costUnit = graph.forwardCost() > 0 ? graph.forwardCost() : 1;
  double byteUnit = double(std::max<int64_t>(budgetBytes, 1));
  // Bound of the cut at step t for the recomputations before node `last`
  // (inclusive); nullopt: no schedule fits.
  auto cutBound = [&](unsigned t, unsigned last) -> std::optional<double> {
    StepCut cut(graph, facts, t, last, costUnit, byteUnit, budgetBytes,
                options.recomputeMemory);
    StepBound b = boundStep(cut, budgetBytes - facts.fixed[t], byteUnit);
    ++result.stepsEvaluated;
    if (b.infeasible)
      return std::nullopt;
    return b.value * costUnit;
  };
  auto infeasibleAt = [&](unsigned t) {
    result.infeasible = true;
    result.recomputeCost = 0;
    result.ranges.clear();
    result.step = t;
    result.cutRecomputed.clear();
    result.previousCut.clear();
    result.exactCut.clear();
    result.cutCost = -1;
    result.seconds = clock.elapsed();
    return result;
  };

  // Windows: the recomputations executed after node t and before node T
  // serve the reads in (t, T] of values made before t that are not live at
  // t. Windows are disjoint in time, so their bounds add up; the best set
  // of disjoint windows (lengths 1, 2, 4, .., kMaxWindow) is a dynamic
  // program over window ends. Lengths are tried shortest first, each over
  // every step, while half of the time limit lasts; windows not evaluated
  // count 0.
  constexpr unsigned kMaxWindow = 64;
  std::vector<std::vector<std::pair<unsigned, double>>> endingAt(n + 1);
  {
    // The windows of each length that could need recomputation (holding
    // what they read and the forced values exceeds the budget).
    std::vector<std::vector<unsigned>> windowsOfLength;
    std::vector<unsigned> seenAt(n, 0);
    unsigned stamp = 0;
    for (unsigned length = 1; length <= kMaxWindow; length *= 2) {
      std::vector<unsigned> starts;
      for (unsigned t = facts.phaseStart; t + length < n; ++t) {
        ++stamp;
        int64_t readBytes = 0;
        for (unsigned r = t + 1; r <= t + length; ++r)
          for (unsigned v : graph.nodes[r].operands) {
            if (v >= t || graph.nodes[v].backward || seenAt[v] == stamp)
              continue;
            seenAt[v] = stamp;
            bool forcedAtT = !facts.recomputable[v] ||
                             facts.lastReadEarly[v] >= int(t) ||
                             llvm::is_contained(graph.nodes[t].operands, v);
            if (!forcedAtT)
              readBytes += facts.counted[v];
          }
        if (facts.fixed[t] + facts.forced[t] + readBytes > budgetBytes)
          starts.push_back(t);
      }
      windowsOfLength.push_back(std::move(starts));
    }
    auto windowTimeUp = [&] {
      return clock.stop(0.5) ||
             (options.maxEvaluations &&
              result.stepsEvaluated >= options.maxEvaluations / 2);
    };
    unsigned length = 1;
    for (const std::vector<unsigned> &starts : windowsOfLength) {
      result.stepsCandidate += starts.size();
      for (unsigned t : starts) {
        if (windowTimeUp()) {
          result.complete = false;
          break;
        }
        std::optional<double> b = cutBound(t, t + length);
        if (!b)
          return infeasibleAt(t);
        if (*b > 0) {
          endingAt[t + length].push_back({t, *b});
          result.ranges.push_back({t + 1, t + length, *b});
        }
      }
      length *= 2;
    }
  }
  // prefix[T]: the best sum of disjoint windows ending at or before node T.
  std::vector<double> prefix(n + 1, 0);
  for (unsigned T = 1; T <= n; ++T) {
    prefix[T] = prefix[T - 1];
    for (auto [t, b] : endingAt[T])
      prefix[T] = std::max(prefix[T], prefix[t] + b);
  }
  result.recomputeCost = prefix[n];
  result.step = n;
  // The cut within the cap found at the step that gives the bound.
  // The cut it replaces becomes the previous one.
  auto setCut = [&](const StepCut &cut, const StepCut::Line &line,
                    double cost) {
    if (!result.cutRecomputed.empty())
      result.previousCut = std::move(result.cutRecomputed);
    result.cutRecomputed.clear();
    result.cutCost = -1;
    if (cost == kInf)
      return;
    result.cutRecomputed = cut.recomputedNodes(line);
    result.cutCost = cost * costUnit;
  };

  // Single steps to the end: every later read, the largest excess first;
  // the windows before such a step add to it. They get the time up to
  // three quarters of the limit; the rest goes to the branch and bound.
  auto singlesTimeUp = [&] {
    return clock.stop(0.75) ||
           (options.maxEvaluations && uint64_t(result.stepsEvaluated) * 4 >=
                                          uint64_t(options.maxEvaluations) * 3);
  };
  // Steps whose branch and bound could raise the result: the least cost
  // of a cut within the cap found there is above the bound.
  struct Open {
    double bound, feasible;
    unsigned t;
  };
  std::vector<Open> open;
  std::vector<std::pair<int64_t, unsigned>> candidates;
  for (unsigned t = 0; t != n; ++t) {
    int64_t excess = facts.fixed[t] + facts.needed[t] - budgetBytes;
    if (excess > 0)
      candidates.push_back({excess, t});
  }
  std::sort(
      candidates.begin(), candidates.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
      });
  result.stepsCandidate += candidates.size();
  unsigned singles = 0;
  struct Single {
    unsigned t;
    double value, lambda;
  };
  std::vector<Single> singleSteps;
  for (const auto &[excess, t] : candidates) {
    if ((options.maxSteps && singles >= options.maxSteps) ||
        singlesTimeUp()) {
      result.complete = false;
      break;
    }
    ++singles;
    StepCut cut(graph, facts, t, n, costUnit, byteUnit, budgetBytes,
                options.recomputeMemory);
    StepBound b = boundStep(cut, budgetBytes - facts.fixed[t], byteUnit);
    ++result.stepsEvaluated;
    if (b.infeasible)
      return infeasibleAt(t);
    if (b.value > 0)
      result.ranges.push_back({t + 1, n - 1, b.value * costUnit});
    double total = prefix[t] + b.value * costUnit;
    if (total > result.recomputeCost) {
      result.recomputeCost = total;
      result.step = t;
      setCut(cut, b.feasible, b.feasibleCost);
    }
    if (b.value > 0)
      singleSteps.push_back({t, b.value, b.lambda});
    if (b.feasibleCost > b.value * (1 + 1e-9) + 1e-12)
      open.push_back({total, prefix[t] + b.feasibleCost * costUnit, t});
  }
  // The joint LP: up to options.jointSteps steps with a positive bound,
  // evenly spaced in op order and always with the best one; the windows
  // before its first step add to it; until 0.9 of the time limit.
  double jointLeft = 0;
  if (options.jointSteps >= 2 && singleSteps.size() >= 2 &&
      !clock.stop(0.9, 0, &jointLeft)) {
    llvm::sort(singleSteps,
               [](const Single &a, const Single &b) { return a.t < b.t; });
    unsigned bestAt = 0;
    for (unsigned i = 0; i != singleSteps.size(); ++i)
      if (singleSteps[i].value > singleSteps[bestAt].value)
        bestAt = i;
    unsigned k = std::min<size_t>(options.jointSteps, singleSteps.size());
    std::vector<unsigned> picked = {bestAt};
    for (unsigned q = 0; q != k - 1; ++q)
      picked.push_back(unsigned(uint64_t(q) * singleSteps.size() / (k - 1)));
    llvm::sort(picked);
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    std::vector<unsigned> steps;
    for (unsigned q : picked)
      steps.push_back(singleSteps[q].t);
    // CLP's wall-time limit (0: none).
    double left = options.timeLimitSeconds > 0 ? std::max(0.01, jointLeft) : 0;
    bool finished = false;
    std::optional<double> b = jointLpBound(graph, facts, steps, budgetBytes,
                                           costUnit, byteUnit, left, finished);
    // Stopped on CLP's limit, not on its optimum.
    result.cutShort |= left > 0 && !finished;
    result.jointSteps = steps.size();
    if (b) {
      double total = prefix[steps.front()] + *b * costUnit;
      if (total > result.recomputeCost) {
        result.recomputeCost = total;
        result.step = steps.front();
        result.fromJoint = true;
        result.cutRecomputed.clear();
        result.previousCut.clear();
        result.cutCost = -1;
      }
    }
  }
  // Branch and bound at the steps with the best bounds first, while some
  // could still beat the result (their cut within the cap costs more).
  std::stable_sort(open.begin(), open.end(), [](const Open &a, const Open &b) {
    return a.bound > b.bound;
  });
  // The exact step programs follow the branch and bound (below).
  // Under a work limit only with a node limit (`exactStepNodes`), which
  // then takes the place of the time share.
  bool exact = options.exactSteps && options.timeLimitSeconds > 0 &&
               (!options.maxEvaluations || options.exactStepNodes) &&
               stepProgramAvailable();
  bool exactTimed = exact && !options.maxEvaluations;
  // The branch and bound's share of the time, and of the work limit in
  // splits.
  auto splitsTimeUp = [&] { return clock.stop(exactTimed ? kExactShare : 1); };
  auto outOfWork = [&] {
    return splitsTimeUp() || (options.maxEvaluations &&
                              result.splits >= options.maxEvaluations / 4);
  };
  for (const Open &o : open) {
    if (o.feasible <= result.recomputeCost)
      continue;
    if (options.maxSplits == 0 || outOfWork())
      break;
    StepCut cut(graph, facts, o.t, n, costUnit, byteUnit, budgetBytes,
                options.recomputeMemory);
    unsigned splits = 0;
    StepCut::Line feasible;
    unsigned maxSplits = options.maxSplits;
    if (options.maxEvaluations)
      maxSplits = std::min(maxSplits, options.maxEvaluations / 4 -
                                          unsigned(result.splits));
    StepCut::Line previous;
    std::optional<double> b = branchAndBound(
        cut, budgetBytes - facts.fixed[o.t], byteUnit, maxSplits,
        options.cardinality, splitsTimeUp, splits, feasible, &previous);
    result.splits += splits;
    if (!b)
      return infeasibleAt(o.t);
    if (*b > 0)
      result.ranges.push_back({o.t + 1, n - 1, *b * costUnit});
    double total = prefix[o.t] + *b * costUnit;
    if (total > result.recomputeCost) {
      result.recomputeCost = total;
      result.step = o.t;
      setCut(cut, feasible, feasible.recomputed.empty() ? kInf : feasible.cost);
      // A dearer cut the branch and bound found here came after the one
      // replaced above.
      if (!previous.recomputed.empty() && !result.cutRecomputed.empty())
        result.previousCut = cut.recomputedNodes(previous);
    }
  }
  // The exact cut problem (StepProgram.h) at the steps with the best
  // single bounds, after the branch and bound (which stops at kExactShare
  // of the time limit, so that its count disjunctions at the best steps
  // come first), within 0.98 of the time limit; only with a time limit and
  // no work limit (the search's result depends on the time it gets).
  // With joint steps the exact steps stop at kJointShare of the limit.
  bool joint = exactTimed && options.jointExactSteps >= 2;
  double exactEnd = joint ? kJointShare : 0.98;
  if (exact) {
    unsigned solved = 0;
    for (Open &o : open) {
      if (solved == options.exactSteps)
        break;
      // Under a work limit the programs do not raise the bound: stopping
      // them does not cut it short.
      double left = 0;
      if (exactTimed ? clock.stop(exactEnd, 0.01, &left)
                     : clock.spent(exactEnd, 0.01, &left))
        break;
      ++solved;
      StepCut cut(graph, facts, o.t, n, costUnit, byteUnit, budgetBytes,
                  options.recomputeMemory);
      std::optional<StepProgramResult> r =
          solveStepProgram(cut.program(budgetBytes - facts.fixed[o.t]), left,
                           options.exactStepNodes);
      result.cutShort |= exactTimed && (!r || !r->optimal);
      if (!r)
        continue;
      ++result.exactSteps;
      // A cheaper cut at the step that gives the bound seeds planners even
      // when the program's bound does not raise it (cut short).
      if (o.t == result.step && !result.fromJoint && !r->recomputed.empty() &&
          (result.cutCost < 0 || r->solutionCost * costUnit < result.cutCost)) {
        StepCut::Line line;
        line.recomputed = r->recomputed;
        result.exactCut = cut.recomputedNodes(line);
      }
      // Under a work limit (a planner's seeds) the bound and the other
      // cuts stay as the branch and bound left them: the program only adds
      // its cut.
      if (!exactTimed)
        continue;
      double total = prefix[o.t] + r->bound * costUnit;
      if (total <= o.bound)
        continue; // Cut short below the multiplier's bound.
      result.ranges.push_back({o.t + 1, n - 1, r->bound * costUnit});
      o.bound = total;
      if (total > result.recomputeCost) {
        result.recomputeCost = total;
        // The cheapest of the program's solution, the multiplier's cut
        // within the cap at this step, and the branch and bound's there.
        StepBound b = boundStep(cut, budgetBytes - facts.fixed[o.t], byteUnit);
        if (!r->recomputed.empty() && r->solutionCost < b.feasibleCost) {
          b.feasible = StepCut::Line();
          b.feasible.recomputed = r->recomputed;
          b.feasibleCost = r->solutionCost;
        }
        if (result.step != o.t || result.cutCost < 0 ||
            b.feasibleCost * costUnit < result.cutCost)
          setCut(cut, b.feasible, b.feasibleCost);
        result.step = o.t;
      }
    }
  }
  // Joint steps (StepProgram.h, docs/Scheduling.md step 5e): the cut at
  // the step that gives the bound, lowered as a kept set (every value it
  // recomputes dropped), may overflow the budget at another step; that step
  // joins the step's program, and the joint program's solution is lowered
  // the same way (by windows with `jointWindowTrace`), until it fits, its
  // peak step is already in and (`jointOverflowSteps`) no other step not yet
  // in overflows, or `jointExactSteps` steps are in. Only in the time the
  // exact steps left.
  if (joint && !result.fromJoint && result.step < n &&
      !result.cutRecomputed.empty()) {
    std::vector<unsigned> steps = {result.step};
    std::vector<unsigned> cut = result.cutRecomputed;
    // With interval steps and `jointWindowTrace`, the last program's
    // solution lowered by windows instead of its cut as a kept set.
    IntervalSolution last;
    while (steps.size() < options.jointExactSteps) {
      std::vector<bool> kept(n, true);
      for (unsigned v : cut)
        kept[v] = false;
      SimResult sim;
      std::vector<int64_t> stepPeak;
      Schedule lowered = last.steps.empty() ? lowerKeptSet(graph, kept)
                                            : lowerByWindows(graph, last);
      if (liveBytesTrace(graph, lowered, sim, stepPeak) ||
          sim.peakBytes <= budgetBytes)
        break;
      unsigned next = sim.peakStep;
      if (llvm::is_contained(steps, next)) {
        // The peak is at a step already in: the step of the largest
        // overflow not yet in (`jointOverflowSteps`), if any.
        next = n;
        if (options.jointOverflowSteps)
          for (unsigned k = 0; k != stepPeak.size(); ++k)
            if (stepPeak[k] > budgetBytes && !llvm::is_contained(steps, k) &&
                (next == n || stepPeak[k] > stepPeak[next]))
              next = k;
        if (next == n)
          break;
      }
      // A step to add, and no time for its program: only then was the loop
      // cut short (a lowering that fits, or no step left, ends it anyway).
      double left = 0;
      if (clock.stop(0.98, 0.01, &left))
        break;
      std::vector<unsigned> before = steps;
      steps.push_back(next);
      llvm::sort(steps);
      std::vector<unsigned> solution;
      IntervalSolution interval;
      std::optional<StepProgramResult> r =
          solveJointSteps(graph, facts, steps, budgetBytes, costUnit, byteUnit,
                          options.recomputeMemory, options.intervalSteps, left,
                          solution, interval, options.maxRecomputations);
      if (!r || !r->optimal)
        result.cutShort = true;
      if (!r)
        break;
      double total = prefix[steps.front()] + r->bound * costUnit;
      // With interval steps, when the step did not raise the bound: the
      // steps next to those in the program (`jointNeighbourSteps`), each
      // with half of the time left, and the program that bounds highest
      // goes on.
      if (options.intervalSteps && options.jointNeighbourSteps &&
          total <= result.recomputeCost) {
        std::vector<unsigned> tried = {next};
        for (unsigned t : before)
          for (unsigned c : {t - 1, t + 1}) {
            if (t == 0 || c >= n || c < facts.phaseStart ||
                llvm::is_contained(before, c) || llvm::is_contained(tried, c))
              continue;
            // Half of the time left each.
            double share = 0;
            if (clock.stop(0.98, 0.02, &share))
              continue;
            share /= 2;
            tried.push_back(c);
            std::vector<unsigned> other = before;
            other.push_back(c);
            llvm::sort(other);
            std::vector<unsigned> otherSolution;
            IntervalSolution otherInterval;
            std::optional<StepProgramResult> o = solveJointSteps(
                graph, facts, other, budgetBytes, costUnit, byteUnit,
                options.recomputeMemory, options.intervalSteps, share,
                otherSolution, otherInterval, options.maxRecomputations);
            if (!o || !o->optimal)
              result.cutShort = true;
            if (!o || prefix[other.front()] + o->bound * costUnit <= total)
              continue;
            total = prefix[other.front()] + o->bound * costUnit;
            r = o;
            steps = std::move(other);
            solution = std::move(otherSolution);
            interval = std::move(otherInterval);
          }
      }
      if (total > result.recomputeCost) {
        result.recomputeCost = total;
        result.ranges.push_back(
            {steps.front() + 1, n - 1, r->bound * costUnit});
        result.step = steps.front();
        result.jointExactSteps = steps.size();
        result.jointSolution = interval;
        // Its best solution, a cut that fits every step of the program.
        if (!result.cutRecomputed.empty())
          result.previousCut = std::move(result.cutRecomputed);
        result.cutRecomputed = solution;
        result.cutCost = solution.empty() ? -1 : r->solutionCost * costUnit;
        result.exactCut.clear();
      }
      if (solution.empty())
        break;
      cut = std::move(solution);
      if (options.jointWindowTrace)
        last = std::move(interval);
    }
  }
  // More splits at the step that gives the bound, for a cheaper cut
  // within the cap there (a seed for planners), when the cut found there
  // is poor (none, or more than 25% above the step's bound); the bound it
  // proves at that step holds too.
  constexpr double kPoorCut = 1.25;
  if (options.cutSplits && !result.fromJoint && result.step < n &&
      (result.cutCost < 0 ||
       result.cutCost >
           kPoorCut * (result.recomputeCost - prefix[result.step])) &&
      !clock.stop(1)) {
    unsigned t = result.step;
    StepCut cut(graph, facts, t, n, costUnit, byteUnit, budgetBytes,
                options.recomputeMemory);
    unsigned splits = 0;
    StepCut::Line feasible;
    std::optional<double> b = branchAndBound(
        cut, budgetBytes - facts.fixed[t], byteUnit, options.cutSplits,
        options.cardinality, [&] { return clock.stop(1); }, splits, feasible);
    result.splits += splits;
    if (!b)
      return infeasibleAt(t);
    result.recomputeCost =
        std::max(result.recomputeCost, prefix[t] + *b * costUnit);
    if (!feasible.recomputed.empty() &&
        (result.cutCost < 0 || feasible.cost * costUnit < result.cutCost)) {
      std::vector<unsigned> before = std::move(result.cutRecomputed);
      setCut(cut, feasible, feasible.cost);
      result.cutBeforeSplits = std::move(before);
    }
  }
  // Past the limit: not every part ran as long as it would have without
  // it (each part that stopped on it has marked the bound cut short).
  if (clock.spent(1))
    result.complete = false;
  result.seconds = clock.elapsed();
  return result;
}

LowerBound remat::sched::recomputeLowerBoundAnyOrder(
    const Graph &graph, int64_t budgetBytes, const LowerBoundOptions &options) {
  if (lateForwardNodes(graph).empty())
    return recomputeLowerBound(graph, budgetBytes, options);
  LowerBoundOptions half = options;
  half.timeLimitSeconds = options.timeLimitSeconds / 2;
  if (options.maxEvaluations)
    half.maxEvaluations = std::max(1u, options.maxEvaluations / 2);
  LowerBound input = recomputeLowerBound(graph, budgetBytes, half);
  std::vector<unsigned> order = forwardFirstOrder(graph);
  Graph resequenced = reorderGraph(graph, order);
  LowerBound other = recomputeLowerBound(resequenced, budgetBytes, half);
  LowerBound result = input;
  if (input.infeasible ||
      (!other.infeasible && other.recomputeCost < input.recomputeCost)) {
    result = other;
    // The cuts in the input's node indices.
    for (std::vector<unsigned> *cut :
         {&result.cutRecomputed, &result.cutBeforeSplits, &result.previousCut,
          &result.exactCut}) {
      for (unsigned &v : *cut)
        v = order[v];
      llvm::sort(*cut);
    }
    // The joint solution's windows are those of the re-sequenced order,
    // which a schedule in the input's order cannot follow: none.
    result.jointSolution = IntervalSolution();
  }
  result.peakBytes = std::min(input.peakBytes, other.peakBytes);
  result.complete = input.complete && other.complete;
  result.cutShort = input.cutShort || other.cutShort;
  result.stepsEvaluated = input.stepsEvaluated + other.stepsEvaluated;
  result.stepsCandidate = input.stepsCandidate + other.stepsCandidate;
  result.splits = input.splits + other.splits;
  result.exactSteps = input.exactSteps + other.exactSteps;
  result.jointSteps = std::max(input.jointSteps, other.jointSteps);
  if (!input.infeasible && !other.infeasible)
    result.strongerOrderCost =
        std::max(input.recomputeCost, other.recomputeCost);
  result.seconds = input.seconds + other.seconds;
  // Each order's ranges bound the plans of that order only.
  result.ranges.clear();
  return result;
}
