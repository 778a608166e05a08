//===- ForwardRebuild.cpp - Forward-only plans by rebuilding --------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rebuilding construction of forward-only plans under a budget
/// (ForwardRebuild.h).
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/ForwardRebuild.h"

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/LowerBound.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <set>
#include <tuple>

using namespace remat::sched;

namespace {

constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max() / 4;

int64_t saturatingAdd(int64_t a, int64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

/// The construction of `rebuildWithinBudget`.
class Rebuilder {
public:
  Rebuilder(const Graph &graph, int64_t budget,
            const ForwardRebuildOptions &options);

  std::optional<Schedule> run();

private:
  /// The order in which a node's operands are made available: by the
  /// memory their rebuild from nothing needs beyond their result (a tree
  /// pebbling estimate), largest first.
  void computeOperandOrder();
  /// Eviction key of a held value (smaller: given up first): a class, then
  /// a rank within it.
  using Key = std::pair<int, double>;
  Key evictionKey(unsigned v) const;
  /// Puts `v` in the evictable set under its current key if it belongs
  /// there, else takes it out.
  void refresh(unsigned v);
  void pin(unsigned v);
  void unpin(unsigned v);
  /// Gives up held values until `bytes` more fit within the budget.
  bool makeRoom(int64_t bytes);
  /// Executes `v` (its operands held and pinned): the original execution
  /// at stage `v`, or a recomputation before the current stage.
  bool execute(unsigned v, bool original);
  /// Makes every operand of `root` available (rebuilding the missing ones
  /// before the current stage), then executes it.
  bool build(unsigned root, bool original);

  const Graph &graph;
  int64_t budget;
  size_t maxRecomputations;
  /// Distinct operands of every node, in the order they are made available.
  std::vector<std::vector<unsigned>> operands;
  /// Consumers of every node, in op order, each once.
  std::vector<std::vector<unsigned>> consumers;
  /// Index in `consumers[v]` of the first consumer whose original execution
  /// has not happened yet.
  std::vector<unsigned> nextConsumer;
  std::vector<char> held;
  std::vector<unsigned> pins;
  /// Frames in progress that read `v` and have not made it available yet.
  std::vector<unsigned> wanted;
  /// Whether `v` is in `evictable`, and under which key.
  std::vector<char> inSet;
  std::vector<Key> keyOf;
  /// Held, unpinned values that may be given up, by eviction key.
  std::set<std::tuple<int, double, unsigned>> evictable;
  int64_t heldTotal = 0;
  unsigned stage = 0;
  size_t recomputations = 0;
  Schedule schedule;
};

} // namespace

Rebuilder::Rebuilder(const Graph &graph, int64_t budget,
                     const ForwardRebuildOptions &options)
    : graph(graph), budget(budget), operands(graph.size()),
      consumers(graph.size()), nextConsumer(graph.size(), 0),
      held(graph.size(), 0), pins(graph.size(), 0), wanted(graph.size(), 0),
      inSet(graph.size(), 0), keyOf(graph.size()), schedule(graph.size()) {
  double cap = std::max(0.0, options.maxRecomputePerNode) * graph.size();
  maxRecomputations = cap >= double(std::numeric_limits<size_t>::max() / 2)
                          ? std::numeric_limits<size_t>::max() / 2
                          : size_t(cap);
  for (unsigned k = 0, n = graph.size(); k != n; ++k) {
    std::vector<unsigned> &ops = operands[k];
    ops = graph.nodes[k].operands;
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    for (unsigned op : ops)
      consumers[op].push_back(k);
  }
  computeOperandOrder();
}

void Rebuilder::computeOperandOrder() {
  unsigned n = graph.size();
  // need[v]: memory to compute v from nothing when its operands' rebuilds
  // are trees (each operand rebuilt whole, the others held meanwhile).
  std::vector<int64_t> need(n, 0);
  for (unsigned v = 0; v != n; ++v) {
    std::vector<unsigned> &ops = operands[v];
    std::stable_sort(ops.begin(), ops.end(), [&](unsigned a, unsigned b) {
      return need[a] - graph.nodes[a].bytes > need[b] - graph.nodes[b].bytes;
    });
    int64_t peak = 0, before = 0;
    for (unsigned op : ops) {
      peak = std::max(peak, saturatingAdd(before, need[op]));
      before = saturatingAdd(before, graph.nodes[op].bytes);
    }
    const Node &node = graph.nodes[v];
    need[v] = std::max(
        peak, saturatingAdd(saturatingAdd(before, node.bytes), node.workspace));
  }
}

Rebuilder::Key Rebuilder::evictionKey(unsigned v) const {
  const Node &node = graph.nodes[v];
  // Values an execution in progress still waits for go last, largest
  // first; first go the dormant values (no later reader), largest first.
  if (wanted[v] > 0)
    return {2, -double(node.bytes)};
  const std::vector<unsigned> &cs = consumers[v];
  if (nextConsumer[v] == cs.size())
    return {0, -double(node.bytes)};
  // The others by what rebuilding them would cost now (the value and its
  // operands not held) per byte freed and per stage until the next reader:
  // cheap, large values read late go first.
  double cost = node.cost + 1;
  for (unsigned op : operands[v])
    if (!held[op])
      cost += graph.nodes[op].cost + 1;
  double distance = double(cs[nextConsumer[v]]) - double(stage) + 1;
  return {1, cost / ((double(node.bytes) + 1) * distance)};
}

void Rebuilder::refresh(unsigned v) {
  if (inSet[v]) {
    evictable.erase({keyOf[v].first, keyOf[v].second, v});
    inSet[v] = 0;
  }
  if (held[v] && pins[v] == 0 && !isAlwaysKept(graph.nodes[v])) {
    keyOf[v] = evictionKey(v);
    evictable.insert({keyOf[v].first, keyOf[v].second, v});
    inSet[v] = 1;
  }
}

void Rebuilder::pin(unsigned v) {
  assert(held[v] && "only held values are pinned");
  ++pins[v];
  refresh(v);
}

void Rebuilder::unpin(unsigned v) {
  assert(pins[v] > 0 && "unbalanced pin");
  --pins[v];
  refresh(v);
}

bool Rebuilder::makeRoom(int64_t bytes) {
  while (saturatingAdd(heldTotal, bytes) > budget) {
    if (evictable.empty())
      return false;
    unsigned v = std::get<2>(*evictable.begin());
    evictable.erase(evictable.begin());
    inSet[v] = 0;
    held[v] = 0;
    heldTotal -= graph.nodes[v].activationBytes();
  }
  return true;
}

bool Rebuilder::execute(unsigned v, bool original) {
  const Node &node = graph.nodes[v];
  if (!makeRoom(
          saturatingAdd(graph.nodes[v].activationBytes(), node.workspace)))
    return false;
  if (!original) {
    if (++recomputations > maxRecomputations)
      return false;
    schedule.recomputeBefore[stage].push_back(v);
  }
  // A value nothing reads is freed right after it is made (outputs are
  // counted apart by the simulator).
  if (consumers[v].empty() && !node.output)
    return true;
  held[v] = 1;
  // An output's instance counts without its returned bytes, as the
  // simulator counts its final one: outputs are always kept, never
  // recomputed, so this instance is the final one.
  heldTotal += graph.nodes[v].activationBytes();
  refresh(v);
  return true;
}

bool Rebuilder::build(unsigned root, bool original) {
  // Frames of the depth-first rebuild: the node, its operands in the order
  // they are made available (missing ones first, by their estimated need,
  // then the held ones), and the position of the next. A held operand not
  // yet made available is wanted: it is given up only after every other
  // value, and rebuilt at its turn if it was. Every operand of a frame's
  // node is pinned once by the frame, at its turn, until the node has run.
  struct Frame {
    unsigned node;
    std::vector<unsigned> order;
    /// Operands missing at entry (the first ones of `order`).
    unsigned numMissing = 0;
    unsigned next = 0;
  };
  std::vector<Frame> frames;
  auto enter = [&](unsigned v) {
    Frame f{v, {}};
    for (unsigned op : operands[v])
      if (!held[op])
        f.order.push_back(op);
    f.numMissing = f.order.size();
    for (unsigned op : operands[v])
      if (held[op]) {
        f.order.push_back(op);
        ++wanted[op];
        refresh(op);
      }
    frames.push_back(std::move(f));
  };
  enter(root);
  while (!frames.empty()) {
    Frame &f = frames.back();
    if (f.next < f.order.size()) {
      unsigned op = f.order[f.next++];
      // Held operands were wanted since the frame was entered.
      if (f.next > f.numMissing) {
        --wanted[op];
        refresh(op);
      }
      if (held[op])
        pin(op);
      else
        enter(op);
      continue;
    }
    unsigned v = f.node;
    bool isOriginal = original && frames.size() == 1;
    if (!execute(v, isOriginal))
      return false;
    // After the original execution, the operands' next reader is a later
    // node (their eviction keys change while they are pinned).
    if (isOriginal)
      for (unsigned op : operands[v])
        ++nextConsumer[op];
    for (unsigned op : operands[v])
      unpin(op);
    frames.pop_back();
    if (!frames.empty()) {
      // The parent reads v: pin it until the parent runs.
      if (!held[v])
        return false;
      pin(v);
    }
  }
  return true;
}

std::optional<Schedule> Rebuilder::run() {
  for (unsigned k = 0, n = graph.size(); k != n; ++k) {
    stage = k;
    if (!build(k, /*original=*/true))
      return std::nullopt;
  }
  return std::move(schedule);
}

std::optional<Schedule>
remat::sched::rebuildWithinBudget(const Graph &graph, int64_t budget,
                                  const ForwardRebuildOptions &options) {
  assert(!graph.validate() && graph.isForwardOnly() &&
         "rebuildWithinBudget needs a valid forward-only graph");
  return Rebuilder(graph, budget, options).run();
}

std::optional<RebuildPlan>
remat::sched::rebuildLeastPeak(const Graph &graph, int64_t below,
                               const ForwardRebuildOptions &options) {
  assert(!graph.validate() && graph.isForwardOnly() &&
         "rebuildLeastPeak needs a valid forward-only graph");
  std::optional<RebuildPlan> best;
  // lo: a budget the construction missed (at first one no schedule meets,
  // below forwardLeastPeakBound); hi: the least peak reached so far.
  int64_t lo = forwardLeastPeakBound(graph) - 1, hi = below;
  for (unsigned run = 0; run != options.maxLeastPeakRuns && hi - lo > 1;
       ++run) {
    int64_t mid = lo + (hi - lo) / 2;
    std::optional<Schedule> schedule = rebuildWithinBudget(graph, mid, options);
    SimResult sim;
    if (!schedule || simulate(graph, *schedule, sim) || sim.peakBytes > mid) {
      lo = mid;
      continue;
    }
    hi = sim.peakBytes;
    best = RebuildPlan{std::move(*schedule), sim};
  }
  return best;
}
