//===- CaseSplitBound.cpp - A recompute bound split on one node -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The case tree of CaseSplitBound.h, each case bounded by LowerBound.h.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/CaseSplitBound.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

using namespace remat::sched;

/// How many lists of `schedule` execute each node of `graph`.
static std::vector<unsigned> recomputeCounts(const Graph &graph,
                                             const Schedule &schedule) {
  std::vector<unsigned> count(graph.size(), 0);
  for (const std::vector<unsigned> &list : schedule.recomputeBefore)
    for (unsigned v : list)
      if (v < count.size())
        ++count[v];
  return count;
}

std::vector<std::pair<unsigned, unsigned>>
remat::sched::recomputationsByCost(const Graph &graph,
                                   const Schedule &schedule) {
  std::vector<unsigned> count = recomputeCounts(graph, schedule);
  std::vector<std::pair<unsigned, unsigned>> nodes;
  for (unsigned v = 0; v != graph.size(); ++v)
    if (count[v] && graph.nodes[v].cost > 0)
      nodes.push_back({v, count[v]});
  llvm::stable_sort(nodes, [&](auto a, auto b) {
    return graph.nodes[a.first].cost * a.second >
           graph.nodes[b.first].cost * b.second;
  });
  return nodes;
}

std::optional<std::pair<unsigned, unsigned>>
remat::sched::costliestRecomputation(const Graph &graph,
                                     const Schedule &schedule) {
  std::vector<std::pair<unsigned, unsigned>> nodes =
      recomputationsByCost(graph, schedule);
  if (nodes.empty())
    return std::nullopt;
  return nodes.front();
}

/// The relative slack of the budget with which a program found without a
/// point is solved again before +infinity is taken from it: the programs
/// of a larger budget are relaxations (every schedule within the budget is
/// within the larger one), so the second proof implies the first, with a
/// margin far above CLP's primal tolerance (1e-7 on rows in units of the
/// budget).
constexpr double kConfirmSlack = 1e-5;

using Clock = std::chrono::steady_clock;

/// `options` with its time limit at most the seconds left until `deadline`
/// (at least 0.01 s; none: unchanged).
static LowerBoundOptions
untilDeadline(const LowerBoundOptions &options,
              std::optional<Clock::time_point> deadline) {
  LowerBoundOptions until = options;
  if (!deadline)
    return until;
  double left = std::max(
      0.01, std::chrono::duration<double>(*deadline - Clock::now()).count());
  until.timeLimitSeconds = options.timeLimitSeconds > 0
                               ? std::min(options.timeLimitSeconds, left)
                               : left;
  return until;
}

namespace {

/// One leaf of the case tree, its bound, and whether the bound is only the
/// parent's and the case's forced cost (not yet bounded by LowerBound).
struct Leaf {
  std::vector<RecomputeRange> ranges;
  /// The range split last (the node of executions forced late).
  unsigned last = 0;
  /// Whether the leaf descends from the root's first case (at most k).
  bool first = true;
  double bound = 0;
  bool evaluated = false;
  /// Its bound by executions forced late (CaseSplitLeaf).
  unsigned lateFrom = ~0u;
  std::vector<unsigned> lateNodes;
  /// A LowerBound call that bounded it was cut short (CaseSplitLeaf).
  bool cutShort = false;
};

/// A bound by executions forced late of a case: the step s (~0u: no suffix
/// qualified), the nodes proved to execute only after s, the bound, and
/// whether it gave the case's bound (above its capped LowerBound).
struct ForcedLate {
  unsigned from = ~0u;
  std::vector<unsigned> nodes;
  double bound = 0;
  bool decides = false;
  /// A head graph's LowerBound of some pass was cut short by time.
  bool cutShort = false;
};

} // namespace

/// The graph of a case and its caps: a node recomputed at least lo > 0
/// times costs 0 there (its lo cost(node) is `forced`), one recomputed at
/// most 0 times is `noRecompute` (every part of LowerBound then keeps it
/// live where it is read later), and one at most hi > 0 times gets the cap
/// (node, hi) of the interval programs. False when a range is empty.
static bool caseGraph(const Graph &graph, llvm::ArrayRef<RecomputeRange> ranges,
                      Graph &g, double &forced,
                      std::vector<std::pair<unsigned, unsigned>> &caps) {
  g = graph;
  forced = 0;
  caps.clear();
  for (const RecomputeRange &r : ranges) {
    if (r.lo > r.hi)
      return false;
    Node &node = g.nodes[r.node];
    if (r.lo > 0) {
      forced += double(r.lo) * graph.nodes[r.node].cost;
      node.cost = 0;
    }
    if (r.hi == 0)
      node.noRecompute = true;
    else if (r.hi != ~0u)
      caps.push_back({r.node, r.hi});
  }
  return true;
}

/// The first case's bound by executions forced late (CaseSplitBound.h):
/// for the shortest suffix of `steps` whose interval program with the node
/// capped at k - 1 recomputations (and the other caps, `caps`) has no
/// point (so every schedule of the case executes it at least k times after
/// the suffix's first step s, and never before s), the program capped at k
/// (the recompute after s) plus LowerBound on the graph of the nodes up to
/// s with the node never recomputed (the recompute up to s); 0 when no
/// suffix qualifies, +infinity when the case has no schedule within the
/// budget. A program without a point counts only when it has none with the
/// budget loosened by kConfirmSlack either (else the suffix is passed over,
/// or the bound is 0: one false infeasibility at a leaf of CLP's branch and
/// bound would otherwise decide the case). The interval programs, the
/// confirmations included, share the time limit (each at most a quarter of
/// it); the LowerBound of the head graph has a time limit of its own.
/// Both limits end at `deadline` at the latest (`untilDeadline`). `from`
/// receives s and `lateNodes` the node and the other capped nodes proved
/// to execute only after s (`CaseSplitLeaf`), where a suffix qualified;
/// `cutShort` is set where the head graph's LowerBound was cut short.
static double
forcedLateBound(const Graph &graph, int64_t budgetBytes, unsigned node,
                unsigned k, llvm::ArrayRef<std::pair<unsigned, unsigned>> caps,
                const LowerBoundOptions &options,
                llvm::ArrayRef<unsigned> steps, unsigned &from,
                std::vector<unsigned> &lateNodes, bool &cutShort,
                std::optional<Clock::time_point> deadline) {
  double inf = std::numeric_limits<double>::infinity();
  double seconds = untilDeadline(options, deadline).timeLimitSeconds;
  if (seconds <= 0)
    seconds = 2;
  Clock::time_point start = Clock::now();
  // The next program's share: a quarter of the limit, at most what is left.
  auto share = [&] {
    double spent = std::chrono::duration<double>(Clock::now() - start).count();
    return std::min(seconds / 4, seconds - spent);
  };
  int64_t looser =
      budgetBytes + std::max<int64_t>(1, int64_t(std::ceil(double(budgetBytes) *
                                                           kConfirmSlack)));
  // The caps with the node's at `cap`.
  auto with = [&](unsigned cap) {
    std::vector<std::pair<unsigned, unsigned>> all;
    for (auto [v, hi] : caps)
      if (v != node)
        all.push_back({v, hi});
    all.push_back({node, cap});
    return all;
  };
  // No point with the caps `capped` at the budget (the program's result
  // `atBudget`), confirmed at the looser budget.
  auto noPoint = [&](llvm::ArrayRef<unsigned> suffix,
                     llvm::ArrayRef<std::pair<unsigned, unsigned>> capped,
                     std::optional<double> atBudget) {
    if (!atBudget || *atBudget < inf || share() <= 0)
      return false;
    std::optional<double> confirmed =
        intervalStepsBound(graph, looser, suffix, share(), capped);
    return confirmed && *confirmed == inf;
  };
  // A training graph recomputes nothing before its first backward node, so
  // the suffixes start there; a forward-only graph may recompute before
  // every node (Graph.h), and every execution of the node after its first
  // is a recomputation there too.
  unsigned firstBackward = 0;
  while (firstBackward < graph.size() && !graph.nodes[firstBackward].backward)
    ++firstBackward;
  if (firstBackward == graph.size())
    firstBackward = 0;
  // The last kMaxSuffixes suffixes.
  constexpr unsigned kMaxSuffixes = 4;
  for (unsigned i = steps.size(), tried = 0;
       i-- > 0 && tried++ < kMaxSuffixes && share() > 0;) {
    unsigned s = steps[i];
    if (s <= node || s < firstBackward)
      break;
    llvm::ArrayRef<unsigned> suffix = steps.drop_front(i);
    std::optional<double> fewer =
        intervalStepsBound(graph, budgetBytes, suffix, share(), with(k - 1));
    if (!noPoint(suffix, with(k - 1), fewer))
      continue;
    if (share() <= 0)
      return 0;
    std::optional<double> late =
        intervalStepsBound(graph, budgetBytes, suffix, share(), with(k));
    if (!late)
      return 0;
    if (*late == inf && !noPoint(suffix, with(k), late))
      return 0; // Not confirmed: no finite bound of the program either.
    from = s;
    lateNodes = {node};
    if (*late == inf)
      return inf;
    // The schedule's lists up to s are a schedule of the nodes up to s
    // (each instance freed at its last read there, never later than in
    // the whole graph), within the budget, that never recomputes the node
    // and keeps to the other caps.
    Graph head;
    head.inputBytes = graph.inputBytes;
    head.nodes.assign(graph.nodes.begin(), graph.nodes.begin() + s + 1);
    head.nodes[node].noRecompute = true;
    LowerBoundOptions headOptions = options;
    headOptions.maxRecomputations.clear();
    for (auto [v, hi] : caps) {
      if (v == node || v >= s)
        continue;
      // Another capped node whose hi executions are forced after s too (the
      // program with the node at k and it at hi - 1 has no point): a
      // schedule of the case never recomputes it up to s either.
      std::vector<std::pair<unsigned, unsigned>> fewer = with(k);
      for (auto &[u, cap] : fewer)
        if (u == v)
          cap = hi - 1;
      std::optional<double> atBudget =
          share() > 0
              ? intervalStepsBound(graph, budgetBytes, suffix, share(), fewer)
              : std::nullopt;
      if (noPoint(suffix, fewer, atBudget)) {
        head.nodes[v].noRecompute = true;
        lateNodes.push_back(v);
      } else
        headOptions.maxRecomputations.push_back({v, hi});
    }
    LowerBound early = recomputeLowerBound(
        head, budgetBytes, untilDeadline(headOptions, deadline));
    cutShort = cutShort || early.cutShort;
    // A head graph proved without a schedule is not taken for +infinity
    // (a single proof of LowerBound's): the part after s alone still holds.
    if (early.infeasible)
      return *late;
    return *late + early.recomputeCost;
  }
  return 0;
}

/// The bound of the schedules of the case `ranges` (each recomputing each
/// range's node within it): its forced cost plus LowerBound on its graph
/// with its caps (`caseGraph`), or the bound by executions forced late of
/// a node whose range has a most k > 0 (the range split last first, then
/// the root's; on `plainSteps`, else on the capped LowerBound's joint
/// steps) where larger; +infinity when a range is empty. `capped` receives
/// the capped LowerBound, `late` the bound by executions forced late of the
/// largest bound among those whose suffix qualified (none: `from` ~0u),
/// and whether it gave the case's bound. Each LowerBound call and each
/// pass's interval programs end at `deadline` at the latest.
static double boundCase(const Graph &graph, int64_t budgetBytes,
                        llvm::ArrayRef<RecomputeRange> ranges, unsigned last,
                        const LowerBoundOptions &options,
                        llvm::ArrayRef<unsigned> plainSteps, LowerBound &capped,
                        ForcedLate &late,
                        std::optional<Clock::time_point> deadline) {
  Graph g;
  double forced = 0;
  std::vector<std::pair<unsigned, unsigned>> caps;
  if (!caseGraph(graph, ranges, g, forced, caps))
    return std::numeric_limits<double>::infinity();
  LowerBoundOptions cappedOptions = options;
  llvm::append_range(cappedOptions.maxRecomputations, caps);
  capped = recomputeLowerBound(g, budgetBytes,
                               untilDeadline(cappedOptions, deadline));
  double bound = capped.recomputeCost;
  llvm::SmallVector<unsigned, 2> passes = {last};
  if (last != 0)
    passes.push_back(0);
  for (unsigned i : passes) {
    const RecomputeRange &range = ranges[i];
    if (range.hi == 0 || range.hi == ~0u)
      continue;
    // On the steps of the plain bound's joint program, else on the capped
    // one's: one LowerBound of a head graph at most.
    llvm::ArrayRef<unsigned> steps =
        plainSteps.empty()
            ? llvm::ArrayRef<unsigned>(capped.jointSolution.steps)
            : plainSteps;
    unsigned from = ~0u;
    std::vector<unsigned> nodes;
    double byLate =
        forcedLateBound(g, budgetBytes, range.node, range.hi, caps, options,
                        steps, from, nodes, late.cutShort, deadline);
    if (from != ~0u && (late.from == ~0u || byLate > late.bound)) {
      late.from = from;
      late.nodes = std::move(nodes);
      late.bound = byLate;
      late.decides = byLate > bound;
    }
    if (byLate > bound) {
      bound = byLate;
      late.decides = true;
    }
  }
  return forced + bound;
}

/// The next split of `leaf`: the first node of `planned` (by the cost of
/// the plan's recomputations, the nodes the leaf does not range yet first)
/// whose range in the leaf holds both sides of k = (the plan's count - 1,
/// at most the leaf's most - 1); none when no such node is left.
static std::optional<std::pair<unsigned, unsigned>>
nextSplit(const Leaf &leaf,
          llvm::ArrayRef<std::pair<unsigned, unsigned>> planned) {
  for (bool ranged : {false, true})
    for (auto [v, count] : planned) {
      const RecomputeRange *in = nullptr;
      for (const RecomputeRange &r : leaf.ranges)
        if (r.node == v)
          in = &r;
      if (bool(in) != ranged || count == 0)
        continue;
      unsigned lo = in ? in->lo : 0, hi = in ? in->hi : ~0u;
      unsigned k = std::min(count - 1, hi == ~0u ? ~0u : hi - 1);
      if (hi != 0 && k >= lo && k < hi)
        return std::pair(v, k);
    }
  return std::nullopt;
}

CaseSplitBound remat::sched::caseSplitBound(const Graph &graph,
                                            int64_t budgetBytes, unsigned node,
                                            unsigned maxRecomputations,
                                            const LowerBoundOptions &options,
                                            double plainBound,
                                            llvm::ArrayRef<unsigned> plainSteps,
                                            const CaseSplitOptions &tree) {
  Clock::time_point clockStart = Clock::now();
  // Every LowerBound call and interval program of the tree ends by the end
  // of its seconds (on the steady clock).
  std::optional<Clock::time_point> deadline;
  if (tree.seconds > 0)
    deadline = clockStart + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(tree.seconds));
  // Seconds since the start (`CaseSplitOptions::elapsedForTest` when set).
  auto elapsed = [&] {
    return tree.elapsedForTest
               ? tree.elapsedForTest()
               : std::chrono::duration<double>(Clock::now() - clockStart)
                     .count();
  };
  double start = elapsed();
  double inf = std::numeric_limits<double>::infinity();
  unsigned maxCaseBounds = std::max(2u, tree.maxCaseBounds);
  CaseSplitBound split;
  split.node = node;
  split.maxRecomputations = maxRecomputations;
  // The nodes to split on below the root, by the plan's recompute cost.
  std::vector<std::pair<unsigned, unsigned>> planned;
  if (tree.plan)
    planned = recomputationsByCost(graph, *tree.plan);
  // The two cases of the root; the second is bounded by LowerBound only
  // when its forced cost is below every other leaf's bound (it is the
  // minimum only then).
  std::vector<Leaf> leaves(2);
  leaves[0].ranges = {{node, 0, maxRecomputations}};
  leaves[1].ranges = {{node, maxRecomputations + 1, ~0u}};
  leaves[1].first = false;
  leaves[1].bound = std::max(plainBound, double(maxRecomputations + 1) *
                                             graph.nodes[node].cost);
  // The longest time a case took to bound: a case beyond the root's two
  // starts only where one that long still ends within the tree's seconds.
  double longest = 0;
  auto evaluate = [&](Leaf &leaf) {
    double caseStart = elapsed();
    LowerBound capped;
    ForcedLate late;
    double b = boundCase(graph, budgetBytes, leaf.ranges, leaf.last, options,
                         plainSteps, capped, late, deadline);
    leaf.bound = std::max(leaf.bound, b);
    leaf.evaluated = true;
    leaf.lateFrom = late.from;
    leaf.lateNodes = std::move(late.nodes);
    leaf.cutShort = capped.cutShort || late.cutShort;
    if (++split.caseBounds == 1) {
      split.capped = std::move(capped);
      split.lateFrom = late.decides ? late.from : ~0u;
    }
    longest = std::max(longest, elapsed() - caseStart);
  };
  leaves[0].bound = plainBound;
  evaluate(leaves[0]);
  // Best first: the open leaf of the least bound is bounded, else split,
  // within the limits (the tree's case bounds; its seconds, a safety cap).
  for (;;) {
    Leaf *least = nullptr;
    for (Leaf &leaf : leaves)
      if (!least || leaf.bound < least->bound)
        least = &leaf;
    if (least->bound == inf)
      break;
    double spent = elapsed() - start;
    bool timeLeft = tree.seconds <= 0 || spent + longest <= tree.seconds;
    if (!least->evaluated) {
      // The root's second case is bounded within the case limit alone (its
      // time capped as every case's), any other within both limits.
      bool rootCase = !least->first && least->ranges.size() == 1 &&
                      least->ranges.front().hi == ~0u &&
                      least->ranges.front().lo == maxRecomputations + 1;
      if (split.caseBounds < maxCaseBounds && (rootCase || timeLeft)) {
        evaluate(*least);
        continue;
      }
      break;
    }
    if (split.caseBounds + 1 >= maxCaseBounds || !timeLeft)
      break;
    std::optional<std::pair<unsigned, unsigned>> next =
        nextSplit(*least, planned);
    if (!next)
      break;
    auto [v, k] = *next;
    // The two children: the leaf's ranges with v's narrowed to [lo, k] and
    // [k + 1, hi]; each keeps the parent's bound (its schedules are the
    // parent's), the second its forced cost too.
    Leaf low = *least, high = *least;
    unsigned at = low.ranges.size();
    for (unsigned i = 0; i != low.ranges.size(); ++i)
      if (low.ranges[i].node == v)
        at = i;
    if (at == low.ranges.size()) {
      low.ranges.push_back({v, 0, ~0u});
      high.ranges.push_back({v, 0, ~0u});
    }
    low.ranges[at].hi = k;
    high.ranges[at].lo = k + 1;
    low.last = high.last = at;
    low.evaluated = high.evaluated = false;
    low.lateFrom = high.lateFrom = ~0u;
    low.lateNodes.clear();
    high.lateNodes.clear();
    low.cutShort = high.cutShort = false;
    Graph g;
    double forced = 0;
    std::vector<std::pair<unsigned, unsigned>> caps;
    high.bound = caseGraph(graph, high.ranges, g, forced, caps)
                     ? std::max(high.bound, forced)
                     : inf;
    *least = std::move(low);
    leaves.push_back(std::move(high));
    ++split.splits;
  }
  split.atMost = split.atLeast = inf;
  for (const Leaf &leaf : leaves) {
    double &side = leaf.first ? split.atMost : split.atLeast;
    side = std::min(side, leaf.bound);
    split.cases.push_back({leaf.ranges, leaf.bound, leaf.evaluated,
                           leaf.lateFrom, leaf.lateNodes, leaf.cutShort});
  }
  split.recomputeCost = std::min(split.atMost, split.atLeast);
  split.seconds = elapsed() - start;
  return split;
}
