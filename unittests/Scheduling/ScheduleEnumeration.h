//===- ScheduleEnumeration.h - Every schedule of a tiny graph ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Exhaustive enumeration of the schedules of tiny training graphs, the
/// reference that the lower-bound tests (LowerBoundTest, StepProgramTest,
/// CaseSplitBoundTest) compare against: `allSchedules` covers the MILP's
/// stage model, `forEachScheduleVariant` and `allScheduleVariants` remat's
/// whole schedule model (Graph.h) with lists of bounded length.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_SCHEDULING_SCHEDULEENUMERATION_H
#define REMAT_UNITTESTS_SCHEDULING_SCHEDULEENUMERATION_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/KeptSet.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace remat {
namespace sched {
namespace test {

/// Calls `visit(schedule, sim)` for every schedule that recomputes each
/// recomputable forward node at most once per list, lists before the
/// backward nodes only; in a forward-only graph, lists before every node of
/// the earlier recomputable nodes (the schedules of the MILP's model on these
/// graphs). Each is simulated; none may be rejected.
template <typename Visit>
void forEachStageSchedule(const Graph &g, Visit visit) {
  std::vector<std::pair<unsigned, unsigned>> slots; // (list before k, node)
  if (g.isForwardOnly()) {
    for (unsigned k = 0; k != g.size(); ++k)
      for (unsigned i = 0; i != k; ++i)
        if (!isAlwaysKept(g.nodes[i]))
          slots.push_back({k, i});
  } else {
    std::vector<unsigned> fwd;
    for (unsigned v = 0; v != g.size(); ++v)
      if (!g.nodes[v].backward && !isAlwaysKept(g.nodes[v]))
        fwd.push_back(v);
    for (unsigned k = 0; k != g.size(); ++k)
      if (g.nodes[k].backward)
        for (unsigned v : fwd)
          slots.push_back({k, v});
  }
  EXPECT_LE(slots.size(), 18u) << "graph too large for enumeration";
  for (uint64_t mask = 0; mask < (uint64_t(1) << slots.size()); ++mask) {
    Schedule s(g.size());
    for (unsigned q = 0; q != slots.size(); ++q)
      if ((mask >> q) & 1)
        s.recomputeBefore[slots[q].first].push_back(slots[q].second);
    SimResult sim;
    std::optional<std::string> err = simulate(g, s, sim);
    EXPECT_FALSE(err) << *err;
    if (!err)
      visit(s, sim);
  }
}

/// Every (peak, recompute) pair of `forEachStageSchedule`'s schedules.
inline std::vector<std::pair<int64_t, double>> allSchedules(const Graph &g) {
  std::vector<std::pair<int64_t, double>> points;
  forEachStageSchedule(g, [&](const Schedule &, const SimResult &sim) {
    points.push_back({sim.peakBytes, sim.recomputeCost});
  });
  return points;
}

/// The lists `forEachScheduleVariant` tries before one node: every sequence
/// of at most `maxListLen` values of `values` (any order, repeats allowed),
/// and every longer subset of `values` in index order (the stage model's
/// lists), each once. `values` must be sorted.
inline std::vector<std::vector<unsigned>>
listVariants(const std::vector<unsigned> &values, unsigned maxListLen) {
  std::vector<std::vector<unsigned>> lists(1), last(1);
  for (unsigned len = 1; len <= maxListLen; ++len) {
    std::vector<std::vector<unsigned>> next;
    for (const std::vector<unsigned> &prefix : last)
      for (unsigned v : values) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    lists.insert(lists.end(), next.begin(), next.end());
    last = std::move(next);
  }
  if (values.size() < 64)
    for (uint64_t mask = 0; mask < (uint64_t(1) << values.size()); ++mask) {
      std::vector<unsigned> subset;
      for (unsigned q = 0; q != values.size(); ++q)
        if ((mask >> q) & 1)
          subset.push_back(values[q]);
      if (subset.size() > maxListLen)
        lists.push_back(std::move(subset));
    }
  return lists;
}

/// The nodes of `g` that `simulate` lets a schedule recompute: those whose
/// one recomputation before the last node it accepts. Whether a node may be
/// recomputed at all depends on the node only (Graph.h: forward, neither
/// `noRecompute` nor `keep`; outputs may be), so the enumerators below take
/// the simulator's word for it instead of restating the rule.
inline std::vector<bool> recomputableNodes(const Graph &g) {
  unsigned n = g.size();
  std::vector<bool> recomputable(n, false);
  if (n == 0)
    return recomputable;
  Simulator simulator(g);
  Schedule s(n);
  for (unsigned v = 0; v + 1 < n; ++v) {
    s.recomputeBefore[n - 1] = {v};
    SimResult sim;
    recomputable[v] = !simulator.simulate(s, sim);
  }
  return recomputable;
}

/// Calls `visit(schedule, sim)` for every schedule of remat's whole schedule
/// model (Graph.h) whose lists are `listVariants(.., maxListLen)`: a list
/// before every node where `simulate` accepts one (from the first backward
/// node on; in a forward-only graph before every node), each a sequence of
/// at most `maxListLen` recomputable values made before that node, in any
/// order and with repeats, or a longer set of them in index order. So it
/// covers `allSchedules` (the stage model) and every schedule of the whole
/// model whose lists are that short. Recomputable: as `simulate` decides
/// (`recomputableNodes`: forward nodes that are neither `noRecompute` nor
/// `keep`, outputs included), the model the bounds claim
/// (docs/Scheduling.md "The model it is valid for"). Schedules the
/// simulator rejects are skipped. Returns the number of schedules
/// simulated; above `maxSchedules` an EXPECT fails and none is enumerated.
template <typename Visit>
size_t forEachScheduleVariant(const Graph &g, unsigned maxListLen,
                              Visit &&visit, size_t maxSchedules = 600000) {
  unsigned n = g.size(), firstBackward = n;
  for (unsigned v = 0; v != n; ++v)
    if (g.nodes[v].backward) {
      firstBackward = v;
      break;
    }
  std::vector<bool> recomputable = recomputableNodes(g);
  std::vector<unsigned> positions;
  std::vector<std::vector<std::vector<unsigned>>> lists;
  std::vector<unsigned> values;
  size_t total = 1;
  for (unsigned k = 0; k != n; ++k) {
    if (k > 0 && recomputable[k - 1])
      values.push_back(k - 1);
    if ((firstBackward != n && k < firstBackward) || values.empty())
      continue;
    positions.push_back(k);
    lists.push_back(listVariants(values, maxListLen));
    total *= lists.back().size();
    if (total > maxSchedules)
      break;
  }
  EXPECT_LE(total, maxSchedules) << "graph too large for enumeration";
  if (total > maxSchedules)
    return 0;
  Simulator simulator(g);
  Schedule s(n);
  std::vector<size_t> choice(positions.size(), 0);
  size_t simulated = 0;
  for (size_t i = 0; i != total; ++i) {
    for (unsigned p = 0; p != positions.size(); ++p)
      s.recomputeBefore[positions[p]] = lists[p][choice[p]];
    SimResult sim;
    if (!simulator.simulate(s, sim)) {
      ++simulated;
      visit(static_cast<const Schedule &>(s),
            static_cast<const SimResult &>(sim));
    }
    for (unsigned p = 0; p != positions.size(); ++p) {
      if (++choice[p] != lists[p].size())
        break;
      choice[p] = 0;
    }
  }
  return simulated;
}

/// The (peak, cost) points that no other point dominates, one per peak, in
/// increasing peak and decreasing cost: enough for `leastWithin` and for
/// `peakRange`'s least peak (its largest is then the peak of the cheapest
/// schedule).
class ParetoFront {
public:
  void add(int64_t peak, double cost) {
    auto [it, inserted] = least.insert({peak, cost});
    if (!inserted)
      it->second = std::min(it->second, cost);
  }
  std::vector<std::pair<int64_t, double>> points() const {
    std::vector<std::pair<int64_t, double>> front;
    for (auto [peak, cost] : least)
      if (front.empty() || cost < front.back().second)
        front.push_back({peak, cost});
    return front;
  }

private:
  std::map<int64_t, double> least;
};

/// The Pareto front of `forEachScheduleVariant(g, maxListLen)`'s schedules;
/// `numSchedules`, if given, receives how many were simulated.
inline std::vector<std::pair<int64_t, double>>
allScheduleVariants(const Graph &g, unsigned maxListLen,
                    size_t *numSchedules = nullptr,
                    size_t maxSchedules = 600000) {
  ParetoFront front;
  size_t count = forEachScheduleVariant(
      g, maxListLen,
      [&](const Schedule &, const SimResult &sim) {
        front.add(sim.peakBytes, sim.recomputeCost);
      },
      maxSchedules);
  if (numSchedules)
    *numSchedules = count;
  return front.points();
}

/// True if some list of `s` executes a node twice (outside the stage model,
/// where each list holds a node at most once).
inline bool repeatsInAList(const Schedule &s) {
  for (std::vector<unsigned> list : s.recomputeBefore) {
    std::sort(list.begin(), list.end());
    if (std::adjacent_find(list.begin(), list.end()) != list.end())
      return true;
  }
  return false;
}

/// `g` without its `keep` hints: its schedules are those of `g` and those
/// that recompute `g`'s keep nodes, which `simulate` rejects on `g`.
inline Graph withoutKeepHints(Graph g) {
  for (Node &node : g.nodes)
    node.keep = false;
  return g;
}

/// True if some node of `g` is hinted `keep`.
inline bool hasKeepHint(const Graph &g) {
  return std::any_of(g.nodes.begin(), g.nodes.end(),
                     [](const Node &node) { return node.keep; });
}

/// Least recompute within `budget` among `points` (infinity if none).
inline double leastWithin(const std::vector<std::pair<int64_t, double>> &points,
                   int64_t budget) {
  double best = std::numeric_limits<double>::infinity();
  for (auto [peak, cost] : points)
    if (peak <= budget)
      best = std::min(best, cost);
  return best;
}

/// The least and the largest peak among `points`.
inline std::pair<int64_t, int64_t>
peakRange(const std::vector<std::pair<int64_t, double>> &points) {
  int64_t minPeak = std::numeric_limits<int64_t>::max(), maxPeak = 0;
  for (auto [peak, cost] : points) {
    minPeak = std::min(minPeak, peak);
    maxPeak = std::max(maxPeak, peak);
  }
  return {minPeak, maxPeak};
}

} // namespace test
} // namespace sched
} // namespace remat

#endif // REMAT_UNITTESTS_SCHEDULING_SCHEDULEENUMERATION_H
