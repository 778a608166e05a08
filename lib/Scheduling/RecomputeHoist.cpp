//===- RecomputeHoist.cpp - Recomputations moved to earlier lists ---------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/RecomputeHoist.h"

#include "remat/Scheduling/Phases.h"

#include <algorithm>

using namespace remat::sched;

namespace {

/// Lists after the peak step whose recomputations are tried, and lists at
/// or before it they may move to.
constexpr unsigned kLaterLists = 4;
constexpr unsigned kEarlierLists = 3;

} // namespace

std::optional<Schedule>
remat::sched::hoistToBudget(const Graph &graph, Schedule schedule,
                            int64_t budgetBytes, unsigned maxEvaluations,
                            unsigned *evaluations) {
  unsigned count = 0;
  auto done = [&](std::optional<Schedule> result) {
    if (evaluations)
      *evaluations = count;
    return result;
  };
  Simulator simulator(graph);
  SimResult sim;
  if (maxEvaluations == 0)
    return done(std::nullopt);
  ++count;
  if (simulator.simulate(schedule, sim))
    return done(std::nullopt);
  unsigned n = graph.size();
  unsigned first = firstBackwardNode(graph);
  while (sim.peakBytes > budgetBytes) {
    unsigned p = sim.peakStep;
    // The move (list, position in it, target list) that lowers the peak
    // most.
    SimResult best = sim;
    unsigned fromList = n, at = 0, toList = n;
    for (unsigned k = p + 1; k < n && k <= p + kLaterLists; ++k) {
      for (unsigned i = 0; i != schedule.recomputeBefore[k].size(); ++i) {
        for (unsigned d = 0; d != kEarlierLists && p >= first + d; ++d) {
          if (count >= maxEvaluations)
            break;
          unsigned target = p - d;
          Schedule moved = schedule;
          std::vector<unsigned> &from = moved.recomputeBefore[k];
          unsigned v = from[i];
          from.erase(from.begin() + i);
          moved.recomputeBefore[target].push_back(v);
          SimResult s;
          ++count;
          // A recomputation whose operand has no instance yet there is no
          // schedule (the simulator says so).
          if (simulator.simulate(moved, s) || s.peakBytes >= best.peakBytes)
            continue;
          best = s;
          fromList = k;
          at = i;
          toList = target;
        }
      }
    }
    if (fromList == n)
      return done(std::nullopt);
    std::vector<unsigned> &from = schedule.recomputeBefore[fromList];
    unsigned v = from[at];
    from.erase(from.begin() + at);
    schedule.recomputeBefore[toList].push_back(v);
    sim = best;
  }
  return done(std::move(schedule));
}
