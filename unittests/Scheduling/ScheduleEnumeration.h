//===- ScheduleEnumeration.h - Every schedule of a tiny graph ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Exhaustive enumeration of the schedules of tiny training graphs, the
/// reference that the lower-bound tests (LowerBoundTest, StepProgramTest)
/// compare against.
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
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace remat {
namespace sched {
namespace test {

/// Every (peak, recompute) pair of every schedule that recomputes each
/// recomputable forward node at most once per list, lists before the
/// backward nodes only (the schedules of the MILP's model on these graphs).
inline std::vector<std::pair<int64_t, double>> allSchedules(const Graph &g) {
  std::vector<unsigned> fwd, bwd;
  for (unsigned v = 0; v != g.size(); ++v) {
    if (g.nodes[v].backward)
      bwd.push_back(v);
    else if (!isAlwaysKept(g.nodes[v]))
      fwd.push_back(v);
  }
  unsigned bits = fwd.size() * bwd.size();
  EXPECT_LE(bits, 18u) << "graph too large for enumeration";
  std::vector<std::pair<int64_t, double>> points;
  for (uint64_t mask = 0; mask < (uint64_t(1) << bits); ++mask) {
    Schedule s(g.size());
    for (unsigned t = 0; t != bwd.size(); ++t)
      for (unsigned q = 0; q != fwd.size(); ++q)
        if ((mask >> (t * fwd.size() + q)) & 1)
          s.recomputeBefore[bwd[t]].push_back(fwd[q]);
    SimResult sim;
    std::optional<std::string> err = simulate(g, s, sim);
    EXPECT_FALSE(err) << *err;
    if (!err)
      points.push_back({sim.peakBytes, sim.recomputeCost});
  }
  return points;
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
