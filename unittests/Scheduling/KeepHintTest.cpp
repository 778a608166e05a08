//===- KeepHintTest.cpp - `keep` nodes are never recomputed ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/ForwardOnly.h"
#include "remat/Scheduling/ForwardRebuild.h"
#include "remat/Scheduling/MilpLarge.h"
#include "remat/Scheduling/MilpNeighbourhood.h"
#include "remat/Scheduling/MilpWindows.h"
#include "remat/Scheduling/Phases.h"
#include "remat/Scheduling/Planner.h"
#include "remat/Scheduling/Strategies.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace remat::sched;

namespace {

/// The first node hinted `keep` that `schedule` recomputes, if any.
std::optional<unsigned> recomputedKeepNode(const Graph &g,
                                           const Schedule &schedule) {
  for (const std::vector<unsigned> &list : schedule.recomputeBefore)
    for (unsigned v : list)
      if (v < g.size() && g.nodes[v].keep)
        return v;
  return std::nullopt;
}

/// Hints `keep` on about one in `oneIn` forward nodes that are not outputs,
/// at least one (if there is any).
void addKeepHints(std::mt19937 &rng, Graph &g, unsigned oneIn) {
  std::vector<unsigned> forward;
  for (unsigned v = 0; v != g.size(); ++v)
    if (!g.nodes[v].backward && !g.nodes[v].output)
      forward.push_back(v);
  if (forward.empty())
    return;
  auto pick = [&](size_t bound) {
    return std::uniform_int_distribution<size_t>(0, bound - 1)(rng);
  };
  bool any = false;
  for (unsigned v : forward)
    if (pick(oneIn) == 0)
      g.nodes[v].keep = any = true;
  if (!any)
    g.nodes[forward[pick(forward.size())]].keep = true;
}

/// Training graphs (random DAGs, a gradient chain, graphs with late forward
/// ops) and forward-only DAGs, each with some forward nodes hinted `keep`.
std::vector<Graph> keepGraphs() {
  std::mt19937 rng(611);
  std::vector<Graph> graphs;
  for (unsigned iter = 0; iter != 6; ++iter) {
    Graph g = test::makeRandomGraph(rng, 6 + iter, 5 + iter);
    addKeepHints(rng, g, 4);
    graphs.push_back(std::move(g));
  }
  // The chain methods pin keep nodes (Chain.h).
  test::GradChain c = test::makeGradChain(10, 16, 2);
  c.graph.nodes[c.f[3]].keep = c.graph.nodes[c.f[6]].keep = true;
  graphs.push_back(c.graph);
  // Late forward ops: auto drops late forward values (Phases.h).
  for (unsigned keep : {0u, 1u, 4u}) {
    Graph g = test::makeLateCdf();
    g.nodes[keep].keep = true;
    graphs.push_back(std::move(g));
  }
  for (unsigned iter = 0; iter != 4; ++iter) {
    Graph g = test::makeTinyDag(rng, 10 + 2 * iter, iter % 2);
    addKeepHints(rng, g, 4);
    graphs.push_back(std::move(g));
  }
  return graphs;
}

} // namespace

/// Every strategy of the registry (`--remat-compare-strategies`'s list),
/// without a budget and at 0.5-0.9 of store-all's peak and at the least
/// peak `planAllStrategies` reaches, on training graphs and forward-only
/// DAGs with `keep` nodes: every plan it returns and every candidate `auto`
/// collects simulates (on the order it carries) and recomputes no `keep`
/// node, and no strategy declines with a malformed schedule; so do the
/// plans of `planAllStrategies` and `planFrontier`. Counted: plans checked
/// and plans that recompute something (so that the lists are not all
/// empty).
TEST(KeepHint, EveryStrategyLeavesKeepNodesResident) {
  unsigned checked = 0, recomputing = 0;
  auto check = [&](const Graph &g, const PlanResult &plan,
                   const std::string &where) {
    Graph ordered = plan.order.empty() ? g : reorderGraph(g, plan.order);
    SimResult sim;
    std::optional<std::string> error = simulate(ordered, plan.schedule, sim);
    EXPECT_FALSE(error) << where << ": " << plan.strategy << " (" << plan.detail
                        << "): " << *error;
    std::optional<unsigned> keep = recomputedKeepNode(ordered, plan.schedule);
    EXPECT_FALSE(keep) << where << ": " << plan.strategy << " (" << plan.detail
                       << ") recomputes keep node " << *keep;
    ++checked;
    recomputing += plan.schedule.numRecomputed() > 0;
  };
  auto checkNotes = [&](const std::vector<std::string> &notes,
                        const std::string &where) {
    for (const std::string &note : notes)
      EXPECT_EQ(note.find("malformed schedule"), std::string::npos)
          << where << ": " << note;
  };
  std::vector<Graph> graphs = keepGraphs();
  for (unsigned iter = 0; iter != graphs.size(); ++iter) {
    const Graph &g = graphs[iter];
    ASSERT_FALSE(g.validate()) << "graph " << iter;
    std::string where = "graph " + std::to_string(iter);
    std::vector<std::string> notes;
    std::vector<PlanResult> all = planAllStrategies(g, notes);
    checkNotes(notes, where);
    int64_t least = INT64_MAX;
    for (const PlanResult &plan : all) {
      check(g, plan, where + " planAllStrategies");
      least = std::min(least, plan.sim.peakBytes);
    }
    notes.clear();
    for (const PlanResult &plan : planFrontier(g, notes))
      check(g, plan, where + " planFrontier");
    checkNotes(notes, where);
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    std::vector<int64_t> budgets = {0, least, (least + storeAll.peakBytes) / 2,
                                    storeAll.peakBytes * 7 / 10};
    for (const StrategyInfo &info : getStrategies()) {
      if (!(info.accepts & (g.isForwardOnly() ? ForwardOnly : TrainingStep)))
        continue;
      for (int64_t budget : budgets) {
        PlannerOptions options;
        options.strategy = info.name.str();
        options.budget = budget;
        options.timeLimitSeconds = 2;
        std::string at = where + " " + options.strategy + " budget " +
                         std::to_string(budget);
        llvm::Expected<PlannerResult> result =
            planRematerialization(g, options);
        if (!result) {
          std::string message = llvm::toString(result.takeError());
          EXPECT_EQ(message.find("malformed schedule"), std::string::npos)
              << at << ": " << message;
          continue;
        }
        check(g, result->plan, at);
        for (const PlanResult &plan : result->candidates)
          check(g, plan, at + " candidate");
        checkNotes(result->notes, at);
      }
    }
  }
  EXPECT_GT(recomputing, checked / 4) << "of " << checked;
  std::cout << checked << " plans checked, " << recomputing
            << " recompute something\n";
}

/// The searches that `milp` and `forward-min-peak` run only on graphs
/// larger than these (windows of stages, `milpLargePlan`'s repair and
/// descent), only where CBC does not prove its plan (the neighbourhood
/// search) or only where the greedy search misses the budget (the
/// perturbed search, the rebuilding construction), called directly on the
/// graphs above (training graphs forward-first) at the budget halfway
/// between `auto`'s least peak and store-all's and without one: no plan
/// they return recomputes a `keep` node, and each simulates.
TEST(KeepHint, LargeGraphSearchesLeaveKeepNodesResident) {
  unsigned checked = 0, neighbourhoods = 0;
  auto check = [&](const Graph &g, const Schedule &schedule,
                   const std::string &where) {
    SimResult sim;
    std::optional<std::string> error = simulate(g, schedule, sim);
    EXPECT_FALSE(error) << where << ": " << *error;
    std::optional<unsigned> keep = recomputedKeepNode(g, schedule);
    EXPECT_FALSE(keep) << where << " recomputes keep node " << *keep;
    ++checked;
  };
  std::vector<Graph> graphs = keepGraphs();
  for (unsigned iter = 0; iter != graphs.size(); ++iter) {
    Graph g = reorderGraph(graphs[iter], forwardFirstOrder(graphs[iter]));
    std::string where = "graph " + std::to_string(iter);
    PlannerOptions least;
    llvm::Expected<PlannerResult> auto0 = planRematerialization(g, least);
    ASSERT_TRUE(bool(auto0)) << llvm::toString(auto0.takeError());
    int64_t low = auto0->plan.sim.peakBytes;
    for (const PlanResult &plan : auto0->candidates)
      low = std::min(low, plan.sim.peakBytes);
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    int64_t budget = (low + storeAll.peakBytes) / 2;
    PlannerOptions options;
    options.budget = budget;
    llvm::Expected<PlannerResult> start = planRematerialization(g, options);
    ASSERT_TRUE(bool(start)) << llvm::toString(start.takeError());
    MilpWindowSearchOptions windows;
    windows.seconds = 2;
    windows.widths = {2, 4};
    if (std::optional<MilpWindowSearchResult> r =
            milpWindowSearch(g, budget, start->plan.schedule, windows))
      check(g, r->schedule, where + " milpWindowSearch");
    // The neighbourhood search takes a stage-model start: the plan's lists
    // in index order, each value once, where that stays within the budget.
    Schedule staged = start->plan.schedule;
    for (std::vector<unsigned> &list : staged.recomputeBefore) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    SimResult stagedSim;
    if (!simulate(g, staged, stagedSim) && stagedSim.peakBytes <= budget) {
      MilpNeighbourhoodOptions neighbourhood;
      neighbourhood.seconds = 2;
      if (std::optional<MilpNeighbourhoodResult> r =
              milpNeighbourhoodSearch(g, budget, staged, neighbourhood)) {
        check(g, r->schedule, where + " milpNeighbourhoodSearch");
        ++neighbourhoods;
      }
    }
    for (int64_t b : {budget, int64_t(0)}) {
      std::string note;
      if (std::optional<PlanResult> r =
              milpLargePlan(g, b, 2, &start->plan.schedule, "test", note))
        check(g, r->schedule, where + " milpLargePlan");
    }
    if (!g.isForwardOnly())
      continue;
    ForwardPerturbOptions perturb;
    perturb.maxRounds = 8;
    check(g, forwardOnlyPerturbedSearch(g, low - 1, perturb).schedule,
          where + " forwardOnlyPerturbedSearch");
    if (std::optional<Schedule> s = rebuildWithinBudget(g, budget))
      check(g, *s, where + " rebuildWithinBudget");
    if (std::optional<RebuildPlan> r = rebuildLeastPeak(g, storeAll.peakBytes))
      check(g, r->schedule, where + " rebuildLeastPeak");
  }
  EXPECT_GT(checked, 20u);
  EXPECT_GT(neighbourhoods, 0u);
  std::cout << checked << " plans checked (" << neighbourhoods
            << " of the neighbourhood search)\n";
}
