//===- MinCut.cpp - Saved-set selection by minimum cut --------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/MinCut.h"

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/KeptSetSearch.h"
#include "remat/Scheduling/MaxFlow.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <set>

using namespace remat::sched;

std::vector<bool> remat::sched::minCutKeptSet(const Graph &graph,
                                              const MinCutOptions &options) {
  const double inf = std::numeric_limits<double>::infinity();
  unsigned n = graph.size();
  // Vertices: 2v = v_in, 2v+1 = v_out, then source and sink.
  unsigned source = 2 * n, sink = 2 * n + 1;
  FlowNetwork net(2 * n + 2);
  // Reads from each forward node to the nearest backward node.
  std::vector<unsigned> dist(n, 0);
  if (options.distanceBase != 1) {
    const unsigned far = 1000;
    for (unsigned v = 0; v != n; ++v)
      dist[v] = graph.nodes[v].backward ? 0 : far;
    for (unsigned v = n; v-- > 0;)
      for (unsigned op : graph.nodes[v].operands)
        if (!graph.nodes[op].backward)
          dist[op] = std::min(dist[op], dist[v] + 1);
  }
  for (unsigned v = 0; v != n; ++v) {
    const Node &node = graph.nodes[v];
    if (node.backward) {
      // Values the backward reads must be saved or recomputed.
      for (unsigned op : node.operands)
        if (!graph.nodes[op].backward)
          net.addEdge(2 * op + 1, sink, inf);
      continue;
    }
    // Recomputing v needs its operands: saved or recomputed themselves
    // (graph inputs are resident, nothing to pay).
    for (unsigned op : node.operands)
      net.addEdge(2 * op + 1, 2 * v, inf);
    bool banned = node.noRecompute ||
                  node.cost > options.banCostPerByte * double(node.bytes);
    if (isAlwaysKept(node)) {
      // Resident anyway: "saving" it costs nothing (no v_in -> v_out edge,
      // so v_out is on the sink side and its readers may be recomputed).
      net.addEdge(source, 2 * v, inf);
      continue;
    }
    net.addEdge(source, 2 * v,
                banned ? inf : options.recomputeWeight * node.cost);
    double scale = options.distanceBase == 1
                       ? 1
                       : std::pow(options.distanceBase,
                                  std::min(std::max(dist[v], 1u), 100u));
    net.addEdge(2 * v, 2 * v + 1, double(node.bytes) * scale);
  }
  net.maxFlow(source, sink);
  std::vector<bool> side = net.sourceSide(source);
  std::vector<bool> kept(n, false);
  for (unsigned v = 0; v != n; ++v)
    if (!graph.nodes[v].backward)
      kept[v] = side[2 * v] && !side[2 * v + 1];
  return kept;
}

double remat::sched::medianCostPerByte(const Graph &graph) {
  std::vector<double> ratios;
  for (const Node &node : graph.nodes)
    if (!node.backward && node.bytes > 0)
      ratios.push_back(node.cost / double(node.bytes));
  if (ratios.empty())
    return 0;
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2,
                   ratios.end());
  return ratios[ratios.size() / 2];
}

/// Simulate-guided repair of a kept set: while the peak falls in a
/// recomputation, keep the values recomputed in that list instead (at most
/// `rounds` times), as long as the peak goes down. The cut's objective
/// (saved bytes) is only a proxy for the peak; this moves it towards what
/// `simulate` measures.
static std::vector<bool> refineKeptSet(const Graph &graph,
                                       Simulator &simulator,
                                       std::vector<bool> kept,
                                       unsigned rounds) {
  // The lowering and simulation of `kept` carry over from one round to the
  // next: each round lowers and simulates its trial only.
  Schedule s = lowerKeptSet(graph, kept);
  SimResult sim;
  if (simulator.simulate(s, sim))
    return kept;
  for (unsigned r = 0; r < rounds && sim.peakInRecompute; ++r) {
    std::vector<bool> next = kept;
    for (unsigned v : s.recomputeBefore[sim.peakStep])
      next[v] = true;
    Schedule trialSchedule = lowerKeptSet(graph, next);
    SimResult trial;
    if (simulator.simulate(trialSchedule, trial) ||
        trial.peakBytes >= sim.peakBytes)
      break;
    kept = std::move(next);
    s = std::move(trialSchedule);
    sim = trial;
  }
  return kept;
}

/// Recompute limits, as fractions of the forward cost, up to which the
/// search spends recompute from the best cut within each.
static constexpr double kSearchLimits[] = {0.01, 0.05, 0.1, 0.2,
                                           0.35, 0.5,  1.0};

/// Evaluations the search may spend per sweep, times the graph's size
/// (nodes + operand references): about a second of simulation on any graph
/// (clamped to 100 .. 50,000 evaluations).
static constexpr double kSearchWork = 4e7;

/// The local search (KeptSetSearch.h) from the cuts: from every cut within
/// its own recompute (least peak first, at most 12 moves), then from the
/// ends no other end dominates within 25% more (best rate of peak saved per
/// recompute added, 64 candidates: small steps along the frontier), then
/// from the least-peak plan within each of `kSearchLimits`, spending up to
/// that limit. Adds the final plans and the plans passed on the way that no
/// other plan of the sweep dominates. `searchWork` scales the evaluation
/// budget (every search still evaluates its start).
static void searchFromCuts(const Graph &graph, std::vector<MinCutPlan> &plans,
                           std::vector<std::vector<bool>> &keptSets,
                           std::set<std::vector<bool>> &seen,
                           double searchWork) {
  size_t numCuts = plans.size();
  std::vector<MinCutPlan> found;
  std::string detail;
  MinCutOptions options;
  KeptSetSearchOptions search;
  search.onMove = [&](const std::vector<bool> &kept, const Schedule &schedule,
                      const SimResult &sim) {
    if (!seen.insert(kept).second)
      return;
    MinCutPlan plan;
    plan.options = options;
    plan.detail = detail;
    plan.schedule = schedule;
    plan.sim = sim;
    found.push_back(std::move(plan));
    keptSets.push_back(kept);
  };
  // The evaluation budget (each evaluation is O(nodes + operands)), split
  // among the three phases; within a phase each search may use its fair
  // share of what is left.
  size_t size = graph.workSize();
  double total = std::clamp(kSearchWork / double(std::max<size_t>(size, 1)),
                            100.0, 50000.0) *
                 searchWork;
  double phaseLeft = 0;
  auto run = [&](std::vector<bool> kept, unsigned searchesLeft) {
    // Every search evaluates its start, so the phase can overdraw by one per
    // search: what is left never goes below none (a negative double cast to
    // unsigned would lift the limit).
    search.maxEvaluations = static_cast<unsigned>(
        std::max(0.0, phaseLeft) / std::max(searchesLeft, 1u));
    KeptSetSearchResult r = improveKeptSet(graph, std::move(kept), search);
    phaseLeft -= r.evaluations;
    return r;
  };

  std::vector<KeptSetSearchResult> ends(numCuts);
  phaseLeft = 0.25 * total;
  search.maxMoves = 12;
  search.maxPolishTries = 32;
  for (size_t i = 0; i != numCuts; ++i) {
    // Within the cut's own recompute.
    options = plans[i].options;
    detail = plans[i].detail + " searched";
    search.maxRecomputeCost = plans[i].sim.recomputeCost;
    ends[i] = run(keptSets[i], 1);
  }
  search.maxMoves = KeptSetSearchOptions().maxMoves;
  // From the ends no other end dominates, within 25% more; cuts that end in
  // the same place go on from there once.
  std::set<std::vector<bool>> started;
  std::vector<size_t> onward;
  for (size_t i = 0; i != numCuts; ++i) {
    const SimResult &a = ends[i].sim;
    bool dominated = false;
    for (size_t j = 0; j != numCuts && !dominated; ++j) {
      const SimResult &b = ends[j].sim;
      dominated = j != i && b.peakBytes <= a.peakBytes &&
                  b.recomputeCost <= a.recomputeCost &&
                  (b.peakBytes < a.peakBytes ||
                   b.recomputeCost < a.recomputeCost);
    }
    if (!dominated && started.insert(ends[i].kept).second)
      onward.push_back(i);
  }
  phaseLeft += 0.5 * total;
  search.bestRate = true;
  search.maxCandidates = 64;
  for (size_t k = 0; k != onward.size(); ++k) {
    size_t i = onward[k];
    options = plans[i].options;
    detail = plans[i].detail + " searched +25%";
    search.maxRecomputeCost = 1.25 * plans[i].sim.recomputeCost;
    run(std::move(ends[i].kept), onward.size() - k);
  }
  search.bestRate = false;
  search.maxCandidates = 32;
  phaseLeft += 0.25 * total;
  double fwdCost = graph.forwardCost();
  unsigned numLimits = std::size(kSearchLimits), limitIndex = 0;
  for (double f : kSearchLimits) {
    ++limitIndex;
    double limit = f * fwdCost;
    // The least peak within the limit so far (ties: least recompute).
    const MinCutPlan *start = nullptr;
    size_t startIndex = 0;
    for (size_t i = 0, e = plans.size() + found.size(); i != e; ++i) {
      const MinCutPlan &p = i < plans.size() ? plans[i] : found[i - plans.size()];
      if (p.sim.recomputeCost > limit * (1 + 1e-12))
        continue;
      if (!start || p.sim.peakBytes < start->sim.peakBytes ||
          (p.sim.peakBytes == start->sim.peakBytes &&
           p.sim.recomputeCost < start->sim.recomputeCost)) {
        start = &p;
        startIndex = i;
      }
    }
    if (!start)
      continue;
    options = start->options;
    char buf[64];
    std::snprintf(buf, sizeof(buf), " searched to %g%%", 100 * f);
    detail = start->detail + buf;
    search.maxRecomputeCost = limit;
    run(keptSets[startIndex < plans.size()
                     ? startIndex
                     : numCuts + (startIndex - plans.size())],
        numLimits - limitIndex + 1);
  }
  // Only the searched plans no other plan dominates, thinned: by least
  // recompute, a plan is kept when its peak is at least 0.1% of store-all's
  // below the last one kept.
  SimResult storeAllSim;
  simulate(graph, Schedule(graph.size()), storeAllSim);
  int64_t step = storeAllSim.peakBytes / 1000;
  std::stable_sort(found.begin(), found.end(),
                   [](const MinCutPlan &a, const MinCutPlan &b) {
                     return a.sim.recomputeCost < b.sim.recomputeCost;
                   });
  auto dominated = [&](const MinCutPlan &p) {
    auto covers = [&](const MinCutPlan &q) {
      return &q != &p && q.sim.peakBytes <= p.sim.peakBytes &&
             q.sim.recomputeCost <= p.sim.recomputeCost &&
             (q.sim.peakBytes < p.sim.peakBytes ||
              q.sim.recomputeCost < p.sim.recomputeCost);
    };
    return std::any_of(plans.begin(), plans.end(), covers) ||
           std::any_of(found.begin(), found.end(), covers);
  };
  std::vector<MinCutPlan> kept;
  for (MinCutPlan &p : found)
    if (!dominated(p) &&
        (kept.empty() || p.sim.peakBytes + step <= kept.back().sim.peakBytes))
      kept.push_back(p);
  for (MinCutPlan &p : kept)
    plans.push_back(std::move(p));
}

std::vector<MinCutPlan> remat::sched::minCutSweep(const Graph &graph,
                                                  double searchWork) {
  const double inf = std::numeric_limits<double>::infinity();
  double median = medianCostPerByte(graph);
  double fwdCost = 0, fwdBytes = 0;
  for (const Node &node : graph.nodes)
    if (!node.backward) {
      fwdCost += node.cost;
      fwdBytes += double(node.bytes);
    }
  double unit = fwdCost > 0 ? fwdBytes / fwdCost : 1;
  std::vector<std::pair<double, std::string>> bans;
  if (median > 0)
    for (double k : {4.0, 16.0, 64.0})
      bans.push_back({k * median, std::to_string(int(k)) + "x median"});
  bans.push_back({inf, "none"});
  std::vector<std::pair<double, std::string>> weights = {
      {0, "0"}, {1e-9 * unit, "eps"}};
  for (int k = -8; k <= 8; ++k) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "2^%d", k);
    weights.push_back({std::ldexp(unit, k), std::string(buf) + " B/cost-unit"});
  }
  std::vector<MinCutPlan> plans;
  std::vector<std::vector<bool>> keptSets; // Parallel to `plans`.
  std::set<std::vector<bool>> seen;
  // Below the default work, every stride-th point of the grid only.
  unsigned stride =
      searchWork < 1
          ? unsigned(std::lround(1 / std::sqrt(std::max(searchWork, 1e-6))))
          : 1;
  unsigned point = 0;
  Simulator simulator(graph);
  std::set<std::vector<bool>> cutsFound;
  for (double base : {1.0, 1.1})
  for (auto &[ban, banName] : bans)
    for (auto &[weight, weightName] : weights) {
      if (point++ % stride)
        continue;
      MinCutOptions options;
      options.recomputeWeight = weight;
      options.banCostPerByte = ban;
      options.distanceBase = base;
      std::vector<bool> cut = minCutKeptSet(graph, options);
      // A cut an earlier grid point found already: its repair is the same
      // (deterministic), and both kept sets are in `seen`.
      if (!cutsFound.insert(cut).second)
        continue;
      std::vector<bool> refined = refineKeptSet(graph, simulator, cut, 8);
      for (const std::vector<bool> *kept : {&cut, &refined}) {
        if (!seen.insert(*kept).second)
          continue;
        MinCutPlan plan;
        plan.options = options;
        plan.detail = "weight=" + weightName + " ban=" + banName +
                      (base == 1 ? "" : " distance=1.1^d") +
                      (kept == &cut ? "" : " refined");
        plan.schedule = lowerKeptSet(graph, *kept);
        if (simulator.simulate(plan.schedule, plan.sim))
          continue; // Cannot happen on a valid graph; never offer it.
        plans.push_back(std::move(plan));
        keptSets.push_back(*kept);
      }
    }
  searchFromCuts(graph, plans, keptSets, seen, searchWork);
  // Plans whose peak falls in a recomputation: the same plan with that
  // recomputation moved earlier, where it lowers the peak.
  for (size_t i = 0, e = plans.size(); i != e; ++i) {
    if (!plans[i].sim.peakInRecompute)
      continue;
    SimResult sim;
    Schedule hoisted = hoistRecomputations(graph, plans[i].schedule, sim);
    if (sim.peakBytes >= plans[i].sim.peakBytes)
      continue;
    MinCutPlan plan;
    plan.options = plans[i].options;
    plan.detail = plans[i].detail + " hoisted";
    plan.schedule = std::move(hoisted);
    plan.sim = sim;
    plans.push_back(std::move(plan));
  }
  return plans;
}
