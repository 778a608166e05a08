//===- MilpCases.cpp - The case tree's leaves solved by CBC ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The branch and bound of MilpCases.h: the case tree's leaves, each the
/// compact MILP with its ranges as rows (MilpBuilder.h, `recomputeRanges`),
/// solved by CBC under a node limit and split again where it stays open.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/MilpCases.h"
#include "MilpBuilder.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/MilpClaims.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#define DEBUG_TYPE "remat-milp-cases"

using namespace remat::sched;

std::string remat::sched::formatRanges(const Graph &graph,
                                       llvm::ArrayRef<RecomputeRange> ranges) {
  std::string out;
  for (const RecomputeRange &r : ranges) {
    if (!out.empty())
      out += ", ";
    out += std::to_string(r.node);
    if (r.node < graph.size())
      out += " '" + graph.nodes[r.node].name + "'";
    out += " " + std::to_string(r.lo) + "..";
    out += r.hi == ~0u ? std::string("inf") : std::to_string(r.hi);
  }
  return out;
}

const char *remat::sched::milpCaseCloseName(MilpCaseClose how) {
  switch (how) {
  case MilpCaseClose::Bound:
    return "closed by its bound";
  case MilpCaseClose::NoneBelowCutoff:
    return "no solution below the cutoff";
  case MilpCaseClose::Optimum:
    return "the leaf's optimum";
  case MilpCaseClose::Split:
    return "split";
  case MilpCaseClose::Open:
    return "open";
  }
  return "";
}

std::optional<MilpCaseLeafSolve>
remat::sched::milpCaseLeaf(const Graph &graph, int64_t budget,
                           llvm::ArrayRef<RecomputeRange> ranges,
                           std::optional<double> cutoff, int64_t maxNodes,
                           double seconds, bool knapsackRows) {
#ifndef REMAT_HAVE_CBC
  (void)graph;
  (void)budget;
  (void)ranges;
  (void)cutoff;
  (void)maxNodes;
  (void)seconds;
  (void)knapsackRows;
  return std::nullopt;
#else
  using namespace remat::sched::detail;
  if (graph.validate() || milpForwardFirstViolation(graph) ||
      graph.size() > kMilpMaxNodes)
    return std::nullopt;
  unsigned n = graph.size(), f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  MilpBuilder builder(graph, f, /*compact=*/true);
  builder.knapsackRows = knapsackRows && milpKnapsackRowsApply(graph);
  builder.costFixing = cutoff.has_value();
  builder.recomputeRanges.assign(ranges.begin(), ranges.end());
  builder.maxNodes = maxNodes;
  SolveOutcome out = builder.solve(/*peakMode=*/false, budget, seconds, cutoff);
  MilpCaseLeafSolve leaf;
  leaf.finished = out.finished;
  leaf.infeasible = out.finished && out.infeasible;
  leaf.optimal = out.finished && out.optimal;
  leaf.found = out.found;
  leaf.objective = out.objective;
  leaf.schedule = std::move(out.schedule);
  leaf.bound = out.bound;
  leaf.nodes = out.nodes;
  return leaf;
#endif
}

std::optional<MilpCasesResult> remat::sched::milpCaseProof(
    const Graph &graph, int64_t budget, const Schedule &plan,
    llvm::ArrayRef<CaseSplitLeaf> leaves, const MilpCasesOptions &options) {
#ifndef REMAT_HAVE_CBC
  (void)graph;
  (void)budget;
  (void)plan;
  (void)leaves;
  (void)options;
  return std::nullopt;
#else
  if (graph.validate() || milpForwardFirstViolation(graph) ||
      milpOutsideStageModel(plan) || graph.size() > kMilpMaxNodes)
    return std::nullopt;
  MilpCasesResult result;
  if (simulate(graph, plan, result.sim) || result.sim.peakBytes > budget)
    return std::nullopt;
  // No leaves given: the whole model as one leaf of bound 0 (an empty list
  // would leave nothing open and so "prove" any plan).
  const CaseSplitLeaf whole;
  if (leaves.empty())
    leaves = llvm::ArrayRef<CaseSplitLeaf>(whole);
  result.schedule = plan;
  std::vector<double> costs;
  for (const Node &node : graph.nodes)
    costs.push_back(node.cost);
  using Clock = std::chrono::steady_clock;
  auto begin = Clock::now();
  auto elapsed = [&](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  auto left = [&] { return options.seconds - elapsed(begin); };
  // The plan's recomputed nodes of positive cost, the costliest (cost times
  // executions) first, with their counts: the splits below the leaves.
  std::vector<std::pair<unsigned, unsigned>> splits =
      recomputationsByCost(graph, plan);
  // A bound reaches the plan's cost: no solution of its leaf is cheaper.
  auto reaches = [&](double bound) {
    double cost = result.sim.recomputeCost;
    return wholeCostBound(costs, bound) >=
           cost - 1e-9 * std::max(1.0, std::fabs(cost));
  };
  struct Leaf {
    std::vector<RecomputeRange> ranges;
    double bound;
    // Order of creation: among equal bounds, the first made first.
    unsigned order;
  };
  unsigned made = 0;
  std::vector<Leaf> pending;
  auto report = [&](const Leaf &leaf, MilpCaseClose how, bool solved,
                    int64_t nodes, double seconds) {
    result.leaves.push_back(
        {leaf.ranges, how, leaf.bound, solved, nodes, seconds});
    if (how == MilpCaseClose::Open)
      ++result.open;
    else if (how != MilpCaseClose::Split)
      ++result.closed;
  };
  // The two leaves of `leaf` split on the first of the plan's nodes it has
  // no range on (at the plan's count c: at most c - 1, at least c), or,
  // unless `fresh`, on the first of the plan's nodes whose range [lo, hi]
  // has lo < hi (exactly lo, at least lo + 1); none when no split is left.
  auto split = [&](const Leaf &leaf,
                   bool fresh) -> std::optional<std::pair<Leaf, Leaf>> {
    // The leaf's range on v (its ranges of v intersected), if any.
    auto rangeOf = [&](unsigned v) -> std::optional<RecomputeRange> {
      std::optional<RecomputeRange> out;
      for (const RecomputeRange &r : leaf.ranges)
        if (r.node == v)
          out = out ? RecomputeRange{v, std::max(out->lo, r.lo),
                                     std::min(out->hi, r.hi)}
                    : r;
      return out;
    };
    auto make = [&](RecomputeRange a, RecomputeRange b) {
      Leaf first = leaf, second = leaf;
      for (Leaf *l : {&first, &second}) {
        llvm::erase_if(l->ranges, [&](const RecomputeRange &r) {
          return r.node == a.node;
        });
        l->ranges.push_back(l == &first ? a : b);
        l->order = made++;
      }
      return std::make_pair(std::move(first), std::move(second));
    };
    for (auto [v, c] : splits)
      if (!rangeOf(v))
        return make({v, 0, c - 1}, {v, c, ~0u});
    if (fresh)
      return std::nullopt;
    for (auto [v, c] : splits) {
      std::optional<RecomputeRange> r = rangeOf(v);
      if (r->lo < r->hi)
        return make({v, r->lo, r->lo}, {v, r->lo + 1, r->hi});
    }
    return std::nullopt;
  };
  // The given leaves, each split `firstSplits` levels before any is solved.
  for (const CaseSplitLeaf &given : leaves) {
    std::vector<Leaf> level = {{given.ranges, given.bound, made++}};
    for (unsigned d = 0; d != options.firstSplits; ++d) {
      std::vector<Leaf> next;
      for (Leaf &leaf : level) {
        if (reaches(leaf.bound)) {
          next.push_back(std::move(leaf));
          continue;
        }
        if (std::optional<std::pair<Leaf, Leaf>> two = split(leaf, true)) {
          next.push_back(std::move(two->first));
          next.push_back(std::move(two->second));
        } else {
          next.push_back(std::move(leaf));
        }
      }
      level = std::move(next);
    }
    for (Leaf &leaf : level)
      pending.push_back(std::move(leaf));
  }
  // The leaf of the least bound first (the first made among equal bounds).
  auto least = [&] {
    return std::min_element(
        pending.begin(), pending.end(), [](const Leaf &a, const Leaf &b) {
          return a.bound < b.bound || (a.bound == b.bound && a.order < b.order);
        });
  };
  double openBound = std::numeric_limits<double>::infinity();
  while (!pending.empty()) {
    auto it = least();
    Leaf leaf = std::move(*it);
    pending.erase(it);
    if (reaches(leaf.bound)) {
      report(leaf, MilpCaseClose::Bound, false, 0, 0);
      continue;
    }
    if (result.solves >= options.maxSolves || left() <= 0.05) {
      result.timeCapped |= result.solves < options.maxSolves;
      report(leaf, MilpCaseClose::Open, false, 0, 0);
      openBound = std::min(openBound, leaf.bound);
      continue;
    }
    auto solveStart = Clock::now();
    double seconds = left();
    std::optional<MilpCaseLeafSolve> out =
        milpCaseLeaf(graph, budget, leaf.ranges, result.sim.recomputeCost,
                     options.leafNodes, seconds, options.knapsackRows);
    double took = elapsed(solveStart);
    ++result.solves;
    if (!out) {
      // The leaf's model was not solved: the leaf stays open.
      report(leaf, MilpCaseClose::Open, true, 0, took);
      openBound = std::min(openBound, leaf.bound);
      continue;
    }
    result.nodes += out->nodes;
    // A solve neither finished nor stopped on its node limit: the cap.
    if (!out->finished && out->nodes < options.leafNodes && took >= seconds)
      result.timeCapped = true;
    LLVM_DEBUG(llvm::dbgs() << "leaf {" << formatRanges(graph, leaf.ranges)
                            << "} (bound " << leaf.bound << "): "
                            << (out->finished ? "finished" : "open") << ", "
                            << (out->found ? std::to_string(out->objective)
                                           : std::string("none"))
                            << ", bound " << out->bound << ", " << out->nodes
                            << " nodes, " << took << " s\n");
    if (out->found) {
      SimResult sim;
      if (!simulate(graph, out->schedule, sim) && sim.peakBytes <= budget &&
          sim.recomputeCost < result.sim.recomputeCost - 1e-9 &&
          !milpOutsideStageModel(out->schedule)) {
        result.schedule = out->schedule;
        result.sim = sim;
      }
    }
    // Nothing below the cutoff, or the leaf's optimum: the leaf's solutions
    // cost at least the plan's (possibly new) cost.
    if (out->finished && out->infeasible) {
      report(leaf, MilpCaseClose::NoneBelowCutoff, true, out->nodes, took);
      continue;
    }
    if (out->finished && out->optimal && reaches(out->objective)) {
      report(leaf, MilpCaseClose::Optimum, true, out->nodes, took);
      continue;
    }
    // CBC's bound less its tolerances (Clp's are about 1e-7, scaled) before
    // `reaches` rounds it up to a whole cost.
    leaf.bound = std::max(
        leaf.bound, out->bound - 1e-6 * std::max(1.0, std::fabs(out->bound)));
    if (reaches(leaf.bound)) {
      report(leaf, MilpCaseClose::Bound, true, out->nodes, took);
      continue;
    }
    std::optional<std::pair<Leaf, Leaf>> two;
    if (leaf.ranges.size() < options.maxRanges)
      two = split(leaf, false);
    if (!two) {
      report(leaf, MilpCaseClose::Open, true, out->nodes, took);
      openBound = std::min(openBound, leaf.bound);
      continue;
    }
    report(leaf, MilpCaseClose::Split, true, out->nodes, took);
    pending.push_back(std::move(two->first));
    pending.push_back(std::move(two->second));
  }
  result.proven = result.open == 0;
  result.bound = std::min(openBound, result.sim.recomputeCost);
  result.seconds = elapsed(begin);
  return result;
#endif
}
