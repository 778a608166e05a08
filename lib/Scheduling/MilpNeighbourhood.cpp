//===- MilpNeighbourhood.cpp - Search over the recomputable set -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The large-neighbourhood search of MilpNeighbourhood.h: moves that
/// restrict the compact MILP to a set of recomputable values, each solved
/// by CBC under a node limit (MilpBuilder.h, `recomputeAllowed`).
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/MilpNeighbourhood.h"
#include "MilpBuilder.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Milp.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Debug.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>

#define DEBUG_TYPE "remat-milp-neighbourhood"

using namespace remat::sched;

#ifdef REMAT_HAVE_CBC
using namespace remat::sched::detail;

namespace {

/// LP recompute mass above which a value joins a move's set.
constexpr double kMassEpsilon = 1e-3;

/// Per forward value, the cost `schedule`'s recomputations of it bring
/// about: each recomputation's own cost plus that of the earlier members
/// of its list it reads, directly or through other members (a chain
/// rebuilt for it; shared members are counted for each reader).
std::vector<double> attributableCosts(const Graph &graph,
                                      const Schedule &schedule) {
  std::vector<double> out(graph.size(), 0);
  for (const std::vector<unsigned> &list : schedule.recomputeBefore) {
    std::map<unsigned, double> chain; // list member -> its chain's cost
    for (unsigned v : list) {
      double c = graph.nodes[v].cost;
      std::set<unsigned> ops(graph.nodes[v].operands.begin(),
                             graph.nodes[v].operands.end());
      for (unsigned op : ops) {
        auto it = chain.find(op);
        if (it != chain.end())
          c += it->second;
      }
      chain[v] = c;
      out[v] += c;
    }
  }
  return out;
}

[[maybe_unused]] std::string setString(const std::vector<bool> &s) {
  std::string out;
  for (unsigned i = 0; i != s.size(); ++i)
    if (s[i])
      out += std::to_string(i) + " ";
  return out;
}

/// Seconds left below which the search tries nothing more.
constexpr double kMinSeconds = 0.05;

/// One run of the search (MilpNeighbourhood.h): the incumbent, the sets
/// tried, the LP relaxations solved, and the clock of the safety cap.
class NeighbourhoodSearch {
public:
  NeighbourhoodSearch(const Graph &graph, int64_t budget,
                      const MilpNeighbourhoodOptions &options,
                      MilpNeighbourhoodResult &best)
      : graph(graph), budget(budget), options(options), best(best),
        begin(Clock::now()) {
    unsigned n = graph.size();
    while (f < n && !graph.nodes[f].backward)
      ++f;
    recomputable.resize(f);
    for (unsigned i = 0; i != f; ++i)
      recomputable[i] = !isAlwaysKept(graph.nodes[i]);
  }

  /// Rounds until one gains nothing, the move limit or the safety cap.
  void run() {
    bool improved = true;
    while (improved && best.moves < options.maxMoves && left() > kMinSeconds)
      improved = round();
    best.seconds = elapsed();
    if (timedOut || left() <= kMinSeconds)
      best.stop = MilpNeighbourhoodResult::Stop::Time;
    else if (best.moves >= options.maxMoves)
      best.stop = MilpNeighbourhoodResult::Stop::MoveLimit;
  }

private:
  using Clock = std::chrono::steady_clock;

  double elapsed() const {
    return std::chrono::duration<double>(Clock::now() - begin).count();
  }
  double left() const { return options.seconds - elapsed(); }

  /// One round from the incumbent's recomputed set A (MilpNeighbourhood.h,
  /// steps 1-4): true when a move improved the incumbent.
  bool round();
  /// Move 1's sets: A less one of `drops`' values, the cheapest to
  /// recompute (the last of `drops`) first.
  std::vector<std::vector<bool>>
  dropOneSets(const std::vector<bool> &incumbent,
              llvm::ArrayRef<std::pair<double, unsigned>> drops) const;
  /// Move 3's set: A with its values' operands and consumers.
  std::vector<bool> widenedSet(const std::vector<bool> &incumbent) const;
  /// Move 2's set for dropping `d` (< 0: none): the values with LP
  /// recompute mass in the model without `d` (with A too when none is
  /// dropped); none where that LP was not solved.
  std::optional<std::vector<bool>> lpSet(int d,
                                         const std::vector<bool> &incumbent);
  /// The LP relaxation's recompute mass per value of the model restricted
  /// to `allowed` (cached: it does not depend on the incumbent); none where
  /// the LP was not solved.
  std::optional<std::vector<double>> lpMassOf(const std::vector<bool> &allowed);
  /// One move: the model restricted to `allowed`, cut off at the
  /// incumbent's cost; true when its solution became the incumbent.
  bool solveMove(std::vector<bool> allowed);

  const Graph &graph;
  int64_t budget;
  const MilpNeighbourhoodOptions &options;
  MilpNeighbourhoodResult &best;
  Clock::time_point begin;
  /// Forward nodes (all first), and which of them may be recomputed.
  unsigned f = 0;
  std::vector<bool> recomputable;
  /// The sets solved so far (each at most once).
  std::set<std::vector<bool>> tried;
  std::map<std::vector<bool>, std::optional<std::vector<double>>> lpCache;
  /// A move ran out of time (the safety cap decided).
  bool timedOut = false;
};

bool NeighbourhoodSearch::solveMove(std::vector<bool> allowed) {
  for (unsigned i = 0; i != f; ++i)
    allowed[i] = allowed[i] && recomputable[i];
  if (!tried.insert(allowed).second || best.moves >= options.maxMoves)
    return false;
  if (left() <= kMinSeconds) {
    timedOut = true;
    return false;
  }
  MilpBuilder builder(graph, f, /*compact=*/true);
  builder.knapsackRows = options.knapsackRows;
  builder.recomputeAllowed = allowed;
  builder.maxNodes = options.moveNodes;
  // CBC's heuristics on: in a restricted model they find what its tree
  // search under the node limit misses (resnet_n4 at 0.4 of store-all:
  // the set of the optimum with three values more, 23.76% of the forward
  // cost within 250 nodes when that was the limit, none without them).
  builder.heuristicsWithCutoff = true;
  // Each move's CBC within the time left: a quarter of the cap per move
  // cut short the move that finds resnet_n4 0.4's optimum (23.74% instead
  // of 23.42%, rn4f, bench/milp-results.md).
  double seconds = left();
  auto moveStart = Clock::now();
  SolveOutcome out = builder.solve(/*peakMode=*/false, budget, seconds,
                                   best.sim.recomputeCost);
  // A move CBC did not finish within its time: the cap decided it.
  if (!out.finished && out.nodes < options.moveNodes &&
      std::chrono::duration<double>(Clock::now() - moveStart).count() >=
          seconds * 0.95)
    timedOut = true;
  ++best.moves;
  best.nodes += out.nodes;
  SimResult sim;
  bool better = out.found && !simulate(graph, out.schedule, sim) &&
                sim.peakBytes <= budget &&
                sim.recomputeCost < best.sim.recomputeCost - 1e-9;
  LLVM_DEBUG(llvm::dbgs() << "move " << best.moves << ": "
                          << std::count(allowed.begin(), allowed.end(), true)
                          << " values {" << setString(allowed) << "}: "
                          << (out.found
                                  ? "found " + std::to_string(sim.recomputeCost)
                              : out.infeasible
                                  ? std::string("nothing below the cutoff")
                                  : std::string("none"))
                          << ", " << out.nodes << " nodes"
                          << (better ? ", kept" : "") << "\n");
  if (!better)
    return false;
  best.schedule = std::move(out.schedule);
  best.sim = sim;
  ++best.improvements;
  best.lastImprovingMove = best.moves;
  return true;
}

std::optional<std::vector<double>>
NeighbourhoodSearch::lpMassOf(const std::vector<bool> &allowed) {
  auto cached = lpCache.find(allowed);
  if (cached != lpCache.end())
    return cached->second;
  std::vector<double> mass(f, 0);
  bool solved = false;
  MilpBuilder builder(graph, f, /*compact=*/true);
  builder.knapsackRows = false;
  builder.recomputeAllowed = allowed;
  LpRelaxation relax;
  relax.budgets = {budget};
  relax.onPoint = [&](const LpRelaxation::Point &point) {
    if (!point.optimal)
      return;
    solved = true;
    for (const std::vector<int> &row : relax.recomputeColumn)
      for (unsigned i = 0; i != row.size() && i != f; ++i)
        if (row[i] >= 0)
          mass[i] += point.x[row[i]];
  };
  builder.relaxation = &relax;
  builder.solve(/*peakMode=*/false, budget, std::max(0.01, left()));
  ++best.lps;
  if (!solved)
    return lpCache[allowed] = std::nullopt;
  return lpCache[allowed] = mass;
}

std::vector<std::vector<bool>> NeighbourhoodSearch::dropOneSets(
    const std::vector<bool> &incumbent,
    llvm::ArrayRef<std::pair<double, unsigned>> drops) const {
  std::vector<std::vector<bool>> sets;
  for (size_t k = drops.size(); k-- > 0;) {
    sets.push_back(incumbent);
    sets.back()[drops[k].second] = false;
  }
  return sets;
}

std::optional<std::vector<bool>>
NeighbourhoodSearch::lpSet(int d, const std::vector<bool> &incumbent) {
  std::vector<bool> base = recomputable;
  if (d >= 0)
    base[d] = false;
  std::optional<std::vector<double>> mass = lpMassOf(base);
  if (!mass)
    return std::nullopt;
  std::vector<bool> s(f, false);
  for (unsigned i = 0; i != f; ++i)
    s[i] = base[i] && ((*mass)[i] > kMassEpsilon || (d < 0 && incumbent[i]));
  return s;
}

std::vector<bool>
NeighbourhoodSearch::widenedSet(const std::vector<bool> &incumbent) const {
  std::vector<bool> s = incumbent;
  for (unsigned v = 0; v != f; ++v) {
    if (!incumbent[v])
      continue;
    for (unsigned op : graph.nodes[v].operands)
      if (op < f)
        s[op] = true;
    for (unsigned c = v + 1; c != f; ++c) {
      const std::vector<unsigned> &ops = graph.nodes[c].operands;
      if (std::find(ops.begin(), ops.end(), v) != ops.end())
        s[c] = true;
    }
  }
  return s;
}

bool NeighbourhoodSearch::round() {
  // The incumbent's recomputed values, the costliest to recompute first.
  std::vector<double> attributable = attributableCosts(graph, best.schedule);
  std::vector<bool> incumbent(f, false);
  for (const std::vector<unsigned> &list : best.schedule.recomputeBefore)
    for (unsigned v : list)
      incumbent[v] = true;
  std::vector<std::pair<double, unsigned>> drops;
  for (unsigned v = 0; v != f; ++v)
    if (incumbent[v])
      drops.push_back({-attributable[v], v});
  std::sort(drops.begin(), drops.end());
  LLVM_DEBUG(llvm::dbgs() << "incumbent " << best.sim.recomputeCost
                          << ": recomputes {" << setString(incumbent) << "}\n");
  // 1. The incumbent's own set less one value, the cheapest first: small
  // models, proved empty below the cutoff at the root or solved.
  for (std::vector<bool> &s : dropOneSets(incumbent, drops))
    if (solveMove(std::move(s)))
      return true;
  // 2. The LP's sets, each costliest value dropped in turn, then none.
  std::vector<int> order;
  for (unsigned k = 0; k != std::min<size_t>(drops.size(), options.drops); ++k)
    order.push_back(int(drops[k].second));
  order.push_back(-1);
  for (int d : order) {
    if (left() <= kMinSeconds)
      return false;
    if (std::optional<std::vector<bool>> s = lpSet(d, incumbent))
      if (solveMove(std::move(*s)))
        return true;
  }
  // 3-4. The incumbent's set widened: with its values' operands and
  // consumers, and with the hint values.
  if (solveMove(widenedSet(incumbent)))
    return true;
  if (options.hintValues.empty())
    return false;
  std::vector<bool> s = incumbent;
  for (unsigned v : options.hintValues)
    if (v < f)
      s[v] = true;
  return solveMove(std::move(s));
}

} // namespace
#endif

std::optional<MilpNeighbourhoodResult>
remat::sched::milpNeighbourhoodSearch(const Graph &graph, int64_t budget,
                                      const Schedule &start,
                                      const MilpNeighbourhoodOptions &options) {
#ifndef REMAT_HAVE_CBC
  (void)graph;
  (void)budget;
  (void)start;
  (void)options;
  return std::nullopt;
#else
  if (graph.validate() || milpForwardFirstViolation(graph) ||
      milpOutsideStageModel(start) || graph.size() > kMilpMaxNodes)
    return std::nullopt;
  MilpNeighbourhoodResult best;
  if (simulate(graph, start, best.sim) || best.sim.peakBytes > budget)
    return std::nullopt;
  best.schedule = start;
  NeighbourhoodSearch(graph, budget, options, best).run();
  return best;
#endif
}

const char *MilpNeighbourhoodResult::stopReason() const {
  switch (stop) {
  case Stop::NoGain:
    return "a round gained nothing";
  case Stop::MoveLimit:
    return "the move limit";
  case Stop::Time:
    return "time";
  }
  return "";
}
