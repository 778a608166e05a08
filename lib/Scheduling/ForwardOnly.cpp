//===- ForwardOnly.cpp - Rematerialization without a backward pass --------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Lowering of drop modes to schedules of forward-only graphs, and the greedy
/// search `forwardOnlyMinPeak` over drop modes (a heuristic; see
/// ForwardOnly.h).
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/ForwardOnly.h"

#include "remat/Scheduling/ForwardRebuild.h"

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/RecomputeClosure.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <optional>
#include <random>
#include <tuple>
#include <utility>

using namespace remat::sched;

namespace {
constexpr unsigned kForever = std::numeric_limits<unsigned>::max();
} // namespace

/// The consumers of every node in op order, each consumer once.
static std::vector<std::vector<unsigned>> getConsumers(const Graph &graph) {
  unsigned n = graph.size();
  std::vector<std::vector<unsigned>> consumers(n);
  for (unsigned k = 0; k != n; ++k)
    for (unsigned op : graph.nodes[k].operands)
      if (consumers[op].empty() || consumers[op].back() != k)
        consumers[op].push_back(k);
  return consumers;
}

/// The drop mode a node actually gets: always-kept nodes are kept.
static DropMode effectiveMode(const Graph &graph,
                              const std::vector<DropMode> &modes, unsigned v) {
  return isAlwaysKept(graph.nodes[v]) ? DropMode::Keep : modes[v];
}

/// The last step at which the original instance of every node may serve a
/// read: kForever for kept nodes; for dropped ones the first consumer it
/// still serves, or the node itself when it serves none.
static std::vector<unsigned>
getServedUntil(const Graph &graph, const std::vector<DropMode> &modes,
               const std::vector<std::vector<unsigned>> &consumers) {
  unsigned n = graph.size();
  std::vector<unsigned> servedUntil(n, kForever);
  for (unsigned v = 0; v != n; ++v) {
    const std::vector<unsigned> &cs = consumers[v];
    switch (effectiveMode(graph, modes, v)) {
    case DropMode::Keep:
      break;
    case DropMode::AfterFirstUse:
      servedUntil[v] = cs.empty() ? v : cs.front();
      break;
    case DropMode::AtEveryUse:
      servedUntil[v] = !cs.empty() && cs.front() == v + 1 ? v + 1 : v;
      break;
    }
  }
  return servedUntil;
}

static Schedule
lowerWithConsumers(const Graph &graph, const std::vector<DropMode> &modes,
                   const std::vector<std::vector<unsigned>> &consumers) {
  unsigned n = graph.size();
  assert(modes.size() == n && "one drop mode per node");
  std::vector<unsigned> servedUntil = getServedUntil(graph, modes, consumers);

  // A read of v at step k needs a new instance iff k > servedUntil[v]: before
  // that, no recomputation of v has happened and the original still lives.
  // inList[v] == k: v is on the DFS stack or already in the list before k.
  Schedule schedule(n);
  std::vector<unsigned> inList(n, kForever);
  std::vector<std::pair<unsigned, unsigned>> stack;
  for (unsigned k = 0; k != n; ++k)
    appendRecomputeClosure(
        graph, k,
        [&](unsigned v) {
          if (k <= servedUntil[v] || inList[v] == k)
            return false;
          inList[v] = k;
          return true;
        },
        [](unsigned) {}, schedule.recomputeBefore[k], stack);
  return schedule;
}

Schedule remat::sched::lowerDropModes(const Graph &graph,
                                      const std::vector<DropMode> &modes) {
  return lowerWithConsumers(graph, modes, getConsumers(graph));
}

Schedule remat::sched::lowerDroppedSet(const Graph &graph,
                                       const std::vector<bool> &dropped) {
  assert(dropped.size() == graph.size() && "one entry per node");
  std::vector<DropMode> modes(graph.size(), DropMode::Keep);
  for (unsigned v = 0, e = graph.size(); v != e; ++v)
    if (dropped[v])
      modes[v] = DropMode::AtEveryUse;
  return lowerDropModes(graph, modes);
}

/// The nodes with an instance live during the execution at which `sim`'s peak
/// is reached (its operands and its result included).
static std::vector<unsigned> getNodesLiveAtPeak(const Graph &graph,
                                                const Schedule &schedule,
                                                const SimResult &sim) {
  unsigned n = graph.size();
  std::vector<unsigned> execNode;
  std::vector<size_t> lastUse;
  std::vector<size_t> latest(n, 0);
  size_t peakPos = 0;
  auto execute = [&](unsigned v, unsigned step) {
    size_t pos = execNode.size();
    for (unsigned op : graph.nodes[v].operands)
      lastUse[latest[op]] = pos;
    execNode.push_back(v);
    lastUse.push_back(pos);
    latest[v] = pos;
    if (v == sim.peakAt && step == sim.peakStep)
      peakPos = pos;
  };
  for (unsigned k = 0; k != n; ++k) {
    for (unsigned u : schedule.recomputeBefore[k])
      execute(u, k);
    execute(k, k);
  }
  std::vector<unsigned> live;
  for (size_t q = 0; q <= peakPos && q < execNode.size(); ++q)
    if (lastUse[q] >= peakPos)
      live.push_back(execNode[q]);
  std::sort(live.begin(), live.end());
  live.erase(std::unique(live.begin(), live.end()), live.end());
  return live;
}

namespace {

/// The greedy search of `forwardOnlyMinPeak`.
class MinPeakSearch {
public:
  MinPeakSearch(const Graph &graph, int64_t budget)
      : graph(graph), budget(budget), consumers(getConsumers(graph)),
        modes(graph.size(), DropMode::Keep) {
    double total = 0;
    for (const Node &node : graph.nodes)
      total += node.cost;
    costEpsilon = 1e-6 * (graph.size() ? total / graph.size() : 0) + 1e-12;
  }

  /// The greedy search; its end goes to `end` if given.
  PlanResult run(ForwardDropSearch *end = nullptr);
  /// `forwardOnlyPerturbedSearch` (ForwardOnly.h): `run`'s search (or its
  /// end, `options.from`), then kicks and descents from the best modes
  /// found.
  PlanResult perturbed(const ForwardPerturbOptions &options);

private:
  /// The schedule of the current drop modes and its simulation.
  struct Eval {
    Schedule schedule;
    SimResult sim;
    /// Number of steps whose largest live byte count equals the peak.
    size_t peakSteps = 0;
    /// The schedule simulates; else its peak and cost are the largest, so
    /// that no move, relaxation or comparison keeps it.
    bool valid = true;
  };
  /// Changing one or two values to stronger drop modes, evaluated.
  struct Move {
    std::vector<std::pair<unsigned, DropMode>> changes;
    Eval eval;
    /// True if the move lowers the peak; otherwise it keeps the peak and
    /// reduces the number of steps at the peak.
    bool lowers = false;
    /// Gain (bytes off the peak, or steps off the plateau) per unit of added
    /// recompute cost.
    double score = 0;
  };

  Eval evaluate();
  bool withinBudget(const Eval &e) const {
    return budget > 0 && e.sim.peakBytes <= budget;
  }
  /// The drop modes stronger than the current one that change the schedule.
  std::vector<DropMode> strongerModes(unsigned v) const;
  /// Keeps in `best` the better of `best` and the move of `changes` reaching
  /// `e` from `cur`, if that move makes progress.
  void consider(std::optional<Move> &best, const Eval &cur,
                std::vector<std::pair<unsigned, DropMode>> changes, Eval e);
  /// The best single move from `cur`, if any makes progress.
  std::optional<Move> bestSingleMove(const Eval &cur);
  /// The best pair of moves from `cur`, if any makes progress: the first
  /// among the kPairFirstMoves single moves reaching the smallest peaks, the
  /// second among the values live at the peak after the first.
  std::optional<Move> bestPairMove(const Eval &cur);
  /// Applies improving moves until none is left or the budget is met.
  void descend(Eval &cur);
  /// Weakens drops (most expensive first) while the peak stays <= limit.
  void relax(Eval &cur, int64_t limit);
  /// Whether `e` is better than `best`: within the budget at less
  /// recompute, else a lower peak, else the same peak at less recompute.
  bool better(const Eval &e, const Eval &best) const;
  /// The search of `run` (rounds of descend and relax) from `cur`.
  void search(Eval &cur);
  /// The plan of `cur`, its detail starting with `what`.
  PlanResult result(Eval cur, const std::string &what,
                    std::chrono::steady_clock::time_point start);

  /// First moves tried by bestPairMove.
  static constexpr size_t kPairFirstMoves = 16;
  /// Rounds of descend and relax without a budget.
  static constexpr unsigned kMaxRounds = 8;

  const Graph &graph;
  int64_t budget;
  std::vector<std::vector<unsigned>> consumers;
  std::vector<DropMode> modes;
  double costEpsilon = 0;
  /// `perturbed`'s limits: past its deadline (a safety cap) or with
  /// `maxSteps` steps simulated, descents and relaxations stop.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  uint64_t maxSteps = 0;
  bool pastLimits() const {
    return (maxSteps && numSteps >= maxSteps) ||
           (deadline && std::chrono::steady_clock::now() > *deadline);
  }
  size_t numSimulations = 0;
  /// Schedule steps simulated (nodes and recomputations), the work counted
  /// by `ForwardPerturbOptions::maxSteps`.
  uint64_t numSteps = 0;
  size_t numMoves = 0;
  size_t numPairMoves = 0;
  /// Lowerings that did not simulate (rejected).
  size_t numRejected = 0;
};

} // namespace

std::function<void(Schedule &)> &remat::sched::forwardLoweringTestHook() {
  static std::function<void(Schedule &)> hook;
  return hook;
}

MinPeakSearch::Eval MinPeakSearch::evaluate() {
  Eval e;
  e.schedule = lowerWithConsumers(graph, modes, consumers);
  if (forwardLoweringTestHook())
    forwardLoweringTestHook()(e.schedule);
  std::vector<int64_t> stepPeak;
  std::optional<std::string> error =
      liveBytesTrace(graph, e.schedule, e.sim, stepPeak);
  ++numSimulations;
  numSteps += graph.size() + e.schedule.numRecomputed();
  // Lowered drop modes always simulate; one that does not (a bug) is
  // rejected: it gets the largest peak and cost, and `result` never
  // returns it.
  if (error) {
    e.valid = false;
    e.sim = SimResult();
    e.sim.peakBytes = std::numeric_limits<int64_t>::max();
    e.sim.recomputeCost = std::numeric_limits<double>::infinity();
    ++numRejected;
    return e;
  }
  e.peakSteps = std::count(stepPeak.begin(), stepPeak.end(), e.sim.peakBytes);
  return e;
}

std::vector<DropMode> MinPeakSearch::strongerModes(unsigned v) const {
  std::vector<DropMode> result;
  const std::vector<unsigned> &cs = consumers[v];
  if (isAlwaysKept(graph.nodes[v]) || cs.empty())
    return result;
  // AfterFirstUse is Keep for a value with one consumer, unless that
  // consumer is dropped (its recomputations read the value later); with the
  // first consumer right after the definition, AtEveryUse is AfterFirstUse.
  bool readLater = cs.size() > 1 ||
                   effectiveMode(graph, modes, cs.front()) != DropMode::Keep;
  if (modes[v] == DropMode::Keep && readLater)
    result.push_back(DropMode::AfterFirstUse);
  if (modes[v] != DropMode::AtEveryUse && cs.front() != v + 1)
    result.push_back(DropMode::AtEveryUse);
  return result;
}

void MinPeakSearch::consider(std::optional<Move> &best, const Eval &cur,
                             std::vector<std::pair<unsigned, DropMode>> changes,
                             Eval e) {
  bool lowers = e.sim.peakBytes < cur.sim.peakBytes;
  bool plateau =
      e.sim.peakBytes == cur.sim.peakBytes && e.peakSteps < cur.peakSteps;
  if (!lowers && !plateau)
    return;
  double gain = lowers ? double(cur.sim.peakBytes - e.sim.peakBytes)
                       : double(cur.peakSteps - e.peakSteps);
  double addedCost = std::max(0.0, e.sim.recomputeCost - cur.sim.recomputeCost);
  double score = gain / (addedCost + costEpsilon);
  if (best && (best->lowers > lowers ||
               (best->lowers == lowers && best->score >= score)))
    return;
  best = Move{std::move(changes), std::move(e), lowers, score};
}

std::optional<MinPeakSearch::Move>
MinPeakSearch::bestSingleMove(const Eval &cur) {
  std::optional<Move> best;
  for (unsigned v : getNodesLiveAtPeak(graph, cur.schedule, cur.sim)) {
    for (DropMode m : strongerModes(v)) {
      DropMode old = modes[v];
      modes[v] = m;
      Eval e = evaluate();
      modes[v] = old;
      consider(best, cur, {{v, m}}, std::move(e));
    }
  }
  return best;
}

std::optional<MinPeakSearch::Move>
MinPeakSearch::bestPairMove(const Eval &cur) {
  // Every single move, by the peak (then the plateau) it reaches.
  std::vector<std::tuple<int64_t, size_t, unsigned, DropMode>> firsts;
  for (unsigned v : getNodesLiveAtPeak(graph, cur.schedule, cur.sim)) {
    for (DropMode m : strongerModes(v)) {
      DropMode old = modes[v];
      modes[v] = m;
      Eval e = evaluate();
      modes[v] = old;
      firsts.emplace_back(e.sim.peakBytes, e.peakSteps, v, m);
    }
  }
  std::sort(firsts.begin(), firsts.end());
  if (firsts.size() > kPairFirstMoves)
    firsts.resize(kPairFirstMoves);
  std::optional<Move> best;
  for (auto [peak, steps, v, m] : firsts) {
    DropMode oldV = modes[v];
    modes[v] = m;
    Eval first = evaluate();
    if (!first.valid) {
      modes[v] = oldV;
      continue;
    }
    for (unsigned w : getNodesLiveAtPeak(graph, first.schedule, first.sim)) {
      for (DropMode m2 : strongerModes(w)) {
        DropMode oldW = modes[w];
        modes[w] = m2;
        Eval e = evaluate();
        modes[w] = oldW;
        consider(best, cur, {{v, m}, {w, m2}}, std::move(e));
      }
    }
    modes[v] = oldV;
  }
  return best;
}

void MinPeakSearch::descend(Eval &cur) {
  size_t maxMoves = 4 * size_t(graph.size()) + 16;
  for (size_t iter = 0; iter != maxMoves && !withinBudget(cur) && !pastLimits();
       ++iter) {
    std::optional<Move> move = bestSingleMove(cur);
    if (!move) {
      // Stuck: one value's drop only moves the peak elsewhere (typically by
      // extending the lifetime of its operands); try two at once.
      move = bestPairMove(cur);
      if (!move)
        return;
      ++numPairMoves;
    }
    for (auto [v, m] : move->changes)
      modes[v] = m;
    cur = std::move(move->eval);
    ++numMoves;
  }
}

void MinPeakSearch::relax(Eval &cur, int64_t limit) {
  // Weight of a drop: the cost of the recomputations of the node.
  std::vector<double> weight(graph.size(), 0);
  for (const std::vector<unsigned> &list : cur.schedule.recomputeBefore)
    for (unsigned u : list)
      weight[u] += graph.nodes[u].cost;
  std::vector<unsigned> dropped;
  for (unsigned v = 0, e = graph.size(); v != e; ++v)
    if (modes[v] != DropMode::Keep)
      dropped.push_back(v);
  std::stable_sort(dropped.begin(), dropped.end(), [&](unsigned a, unsigned b) {
    return weight[a] > weight[b];
  });
  for (unsigned v : dropped) {
    if (pastLimits())
      return;
    DropMode old = modes[v];
    // Weakest first: keeping the value saves the most.
    for (DropMode m : {DropMode::Keep, DropMode::AfterFirstUse}) {
      if (m >= old)
        break;
      modes[v] = m;
      Eval e = evaluate();
      if (e.sim.peakBytes <= limit &&
          e.sim.recomputeCost <= cur.sim.recomputeCost) {
        cur = std::move(e);
        break;
      }
      modes[v] = old;
    }
  }
}

void MinPeakSearch::search(Eval &cur) {
  if (!cur.valid)
    return; // Rejected: no peak to search from.
  for (unsigned round = 0; round != kMaxRounds && !withinBudget(cur); ++round) {
    int64_t before = cur.sim.peakBytes;
    descend(cur);
    // Within the budget, cut recompute down to it; otherwise keep the peak.
    relax(cur, withinBudget(cur) ? budget : cur.sim.peakBytes);
    // A new round starts from the relaxed modes; stop once one gains nothing.
    if (cur.sim.peakBytes >= before)
      break;
  }
}

bool MinPeakSearch::better(const Eval &e, const Eval &best) const {
  if (withinBudget(e) != withinBudget(best))
    return withinBudget(e);
  if (!withinBudget(e) && e.sim.peakBytes != best.sim.peakBytes)
    return e.sim.peakBytes < best.sim.peakBytes;
  return e.sim.recomputeCost < best.sim.recomputeCost;
}

PlanResult MinPeakSearch::run(ForwardDropSearch *end) {
  auto start = std::chrono::steady_clock::now();
  Eval cur = evaluate();
  search(cur);
  if (end) {
    end->budget = budget;
    end->modes = modes;
  }
  return result(std::move(cur), "", start);
}

PlanResult MinPeakSearch::perturbed(const ForwardPerturbOptions &options) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  // The greedy search runs whole (as forward-min-peak's), or its end is
  // given; the perturbed searches stop at the limits, a stopped one still a
  // valid plan.
  if (options.from) {
    assert(options.from->budget == budget &&
           options.from->modes.size() == graph.size() &&
           "the drop-mode search's end must be at the same budget");
    modes = options.from->modes;
  }
  Eval best = evaluate();
  if (!options.from)
    search(best);
  deadline =
      start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(options.seconds));
  numSteps = 0;
  maxSteps = options.maxSteps;
  std::vector<DropMode> bestModes = modes;
  std::mt19937 rng(options.seed);
  unsigned rounds = 0, gains = 0;
  int64_t searchPeak = best.sim.peakBytes;
  for (; (options.maxRounds == 0 || rounds != options.maxRounds) &&
         elapsed() < options.seconds && !pastLimits() && !withinBudget(best);
       ++rounds) {
    // The kick: values live at the best plan's peak, each (at random) a
    // dropped value kept or dropped harder, with even odds, or a kept value
    // dropped; then the search from there.
    if (!best.valid)
      break;
    modes = bestModes;
    std::vector<unsigned> live =
        getNodesLiveAtPeak(graph, best.schedule, best.sim);
    for (unsigned i = 0; i != options.kick && !live.empty(); ++i) {
      unsigned v = live[rng() % live.size()];
      std::vector<DropMode> stronger = strongerModes(v);
      if (modes[v] != DropMode::Keep && (stronger.empty() || rng() % 2))
        modes[v] = DropMode::Keep;
      else if (!stronger.empty())
        modes[v] = stronger[rng() % stronger.size()];
    }
    Eval cur = evaluate();
    search(cur);
    if (better(cur, best)) {
      gains += cur.sim.peakBytes < best.sim.peakBytes;
      best = std::move(cur);
      bestModes = modes;
    }
  }
  modes = bestModes;
  return result(std::move(best),
                std::to_string(rounds) + " perturbed searches, " +
                    std::to_string(numSteps) + " steps simulated, from " +
                    std::to_string(searchPeak) + " bytes, " +
                    std::to_string(gains) + " lowering the peak; ",
                start);
}

PlanResult MinPeakSearch::result(Eval cur, const std::string &what,
                                 std::chrono::steady_clock::time_point start) {
  size_t numDropped = 0, numAfterFirst = 0;
  for (unsigned v = 0, e = graph.size(); v != e; ++v) {
    DropMode m = effectiveMode(graph, modes, v);
    numDropped += m != DropMode::Keep;
    numAfterFirst += m == DropMode::AfterFirstUse;
  }
  PlanResult plan;
  plan.strategy = strategy::kForwardMinPeak;
  // Never a plan that does not simulate: the search's start was rejected
  // and nothing replaced it, so no value is dropped.
  if (!cur.valid) {
    cur.schedule = Schedule(graph.size());
    std::fill(modes.begin(), modes.end(), DropMode::Keep);
    numDropped = numAfterFirst = 0;
    [[maybe_unused]] std::optional<std::string> error =
        simulate(graph, cur.schedule, cur.sim);
    assert(!error && "a valid graph's schedule without recomputation");
  }
  plan.detail = (budget > 0 ? "budget=" + std::to_string(budget)
                            : std::string("least peak")) +
                "; " + what + "dropped " + std::to_string(numDropped) + " (" +
                std::to_string(numAfterFirst) + " after the first use); " +
                std::to_string(numMoves) + " moves (" +
                std::to_string(numPairMoves) + " pairs), " +
                std::to_string(numSimulations) + " simulations";
  if (numRejected)
    plan.detail += ", " + std::to_string(numRejected) +
                   " lowerings rejected (they did not simulate)";
  plan.schedule = std::move(cur.schedule);
  plan.sim = cur.sim;
  plan.planSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return plan;
}

PlanResult remat::sched::forwardOnlyMinPeak(const Graph &graph, int64_t budget,
                                            bool rebuild,
                                            ForwardDropSearch *search) {
  assert(!graph.validate() && graph.isForwardOnly() &&
         "forwardOnlyMinPeak needs a valid forward-only graph");
  PlanResult plan = MinPeakSearch(graph, budget).run(search);
  if (!rebuild || (budget > 0 && plan.sim.peakBytes <= budget))
    return plan;
  // Below the search's least peak, the rebuilding construction
  // (ForwardRebuild.h): at the budget, else its own least peak where lower.
  auto start = std::chrono::steady_clock::now();
  std::optional<RebuildPlan> rebuilt;
  if (budget > 0)
    if (std::optional<Schedule> s = rebuildWithinBudget(graph, budget)) {
      SimResult sim;
      if (!simulate(graph, *s, sim) && sim.peakBytes <= budget)
        rebuilt = RebuildPlan{std::move(*s), sim};
    }
  if (!rebuilt)
    rebuilt = rebuildLeastPeak(graph, plan.sim.peakBytes);
  plan.planSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!rebuilt || rebuilt->sim.peakBytes >= plan.sim.peakBytes)
    return plan;
  plan.detail = (budget > 0 ? "budget=" + std::to_string(budget)
                            : std::string("least peak")) +
                "; rebuilt under " +
                (budget > 0 && rebuilt->sim.peakBytes <= budget
                     ? std::string("the budget")
                     : "a budget of " + std::to_string(rebuilt->sim.peakBytes) +
                           " bytes") +
                " (ForwardRebuild.h), below the drop-mode search's " +
                std::to_string(plan.sim.peakBytes) + " bytes";
  plan.schedule = std::move(rebuilt->schedule);
  plan.sim = rebuilt->sim;
  return plan;
}

PlanResult
remat::sched::forwardOnlyPerturbedSearch(const Graph &graph, int64_t budget,
                                         const ForwardPerturbOptions &options) {
  assert(!graph.validate() && graph.isForwardOnly() &&
         "forwardOnlyPerturbedSearch needs a valid forward-only graph");
  return MinPeakSearch(graph, budget).perturbed(options);
}

uint64_t remat::sched::forwardPerturbSteps(double seconds) {
  // About 36M steps per CPU second were measured on random_layered_n250
  // and n500 (loaded, 2026-11-29: 120M steps in 3.35 and 3.36 CPU s); 15M
  // leaves more than half of the time as margin.
  constexpr double kStepsPerSecond = 15e6;
  return seconds > 0 ? uint64_t(seconds * kStepsPerSecond) + 1 : 1;
}
