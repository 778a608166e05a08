//===- Strategies.h - Chen et al. checkpointing strategies ------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The general-graph strategies of Chen et al. 2016: store-all, sqrt(n)
/// segmentation (their Algorithm 1) and the greedy memory-threshold planner
/// with its search over the threshold (Algorithm 2). Chen's segment boundaries
/// are single separators (Separators.h), of which a graph carrying two values
/// across every layer boundary (an unrolled LSTM's h and c, a U-Net's skips)
/// has none; so both strategies are built twice, once with separators and
/// once with small multi-value cuts (Cuts.h), keeping whole cut sets, and the
/// kept set that simulates better is used. Kept sets are lowered with
/// `lowerKeptSet`. The graph must be valid (`Graph::validate`).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_STRATEGIES_H
#define REMAT_SCHEDULING_STRATEGIES_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/Plan.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat {
namespace sched {

/// Keeps every value: no recomputation.
Schedule storeAll(const Graph &graph);

/// Number of forward (non-backward) nodes.
unsigned numForwardNodes(const Graph &graph);

/// The segment count sqrtN uses: ceil(sqrt(#forward nodes)).
unsigned sqrtNSegments(const Graph &graph);

/// Kept set of Chen's sqrt(n) segmentation with single separators as segment
/// boundaries (Separators.h): the forward nodes are split into `numSegments`
/// segments (0 means `sqrtNSegments(graph)`) of equal forward node count; each
/// of the `numSegments - 1` interior boundaries is the separator closest (by
/// forward position) to the evenly spaced target, ties towards the earlier
/// one. Boundaries that would coincide are merged.
std::vector<bool> sqrtNSeparatorKeptSet(const Graph &graph,
                                        unsigned numSegments = 0);

/// Kept set of Chen's sqrt(n) segmentation with cuts as segment boundaries
/// (Cuts.h), for graphs where several values cross every layer boundary.
/// Each evenly spaced target (as in `sqrtNSeparatorKeptSet`) takes, among the
/// candidate cuts (`cutCandidates` with its defaults) at most a quarter of a
/// segment (floor(#forward / (4 * numSegments)) positions) away, the one with
/// the least cut bytes (ties: the closest, then the earlier); if there is none
/// that near, the closest candidate (ties: the earlier). The whole cut set of
/// every chosen boundary is kept; coinciding boundaries are merged.
std::vector<bool> sqrtNCutKeptSet(const Graph &graph, unsigned numSegments = 0);

/// True if lowering `candidate` (`lowerKeptSet`) simulates to a smaller peak
/// than lowering `incumbent`, or to the same peak with a smaller recompute
/// cost. False if the graph is invalid.
bool lowersBetter(const Graph &graph, const std::vector<bool> &candidate,
                  const std::vector<bool> &incumbent);

/// Kept set of the sqrt(n) strategy: `sqrtNCutKeptSet` or
/// `sqrtNSeparatorKeptSet`, whichever `lowersBetter` (ties: the separator
/// one). Separator boundaries keep one value each and, on graphs with few
/// separators, coincide and merge, which can beat a full set of multi-value
/// cuts; cuts are what works when no separator exists (unrolled LSTMs).
/// Comparing both costs two lowerings and simulations.
std::vector<bool> sqrtNKeptSet(const Graph &graph, unsigned numSegments = 0);

/// Chen's Algorithm 1: `lowerKeptSet(graph, sqrtNKeptSet(graph))`.
Schedule sqrtN(const Graph &graph);

/// Kept set of Chen's Algorithm 2 with single separators as segment
/// boundaries: walks the forward nodes in order adding their bytes to an
/// accumulator; at a separator whose accumulator (itself included) exceeds
/// `thresholdBytes`, keeps it and resets the accumulator. If `keptBytes` /
/// `maxSegmentBytes` are given they receive the bytes kept (Chen's x) and the
/// largest accumulator reached (Chen's y).
std::vector<bool> greedySeparatorKeptSet(const Graph &graph,
                                         int64_t thresholdBytes,
                                         int64_t *keptBytes = nullptr,
                                         int64_t *maxSegmentBytes = nullptr);

/// Kept set of Chen's Algorithm 2 with cuts as segment boundaries: as
/// `greedySeparatorKeptSet`, walking the forward positions, but a segment
/// closes at the first candidate cut (`cutCandidates` with its defaults,
/// which include every separator) whose accumulator exceeds the threshold,
/// and the whole cut set is kept. `keptBytes` counts each kept value once.
std::vector<bool> greedyCutKeptSet(const Graph &graph, int64_t thresholdBytes,
                                   int64_t *keptBytes = nullptr,
                                   int64_t *maxSegmentBytes = nullptr);

/// Kept set of Chen's Algorithm 2 at `thresholdBytes`: `greedyCutKeptSet` or
/// `greedySeparatorKeptSet`, whichever `lowersBetter` (ties: the separator
/// one); `keptBytes` and `maxSegmentBytes` are those of the one returned. As
/// for sqrt(n), more candidate boundaries do not make Chen's accumulation
/// better at every threshold (a multi-value cut inside a residual block can
/// close a segment that a separator a few nodes later would have closed more
/// cheaply), so both are simulated: two lowerings and simulations, O(nodes +
/// operand references + recomputations) each.
std::vector<bool> greedyKeptSet(const Graph &graph, int64_t thresholdBytes,
                                int64_t *keptBytes = nullptr,
                                int64_t *maxSegmentBytes = nullptr);

/// Chen's Algorithm 2 lowered: `lowerKeptSet(graph, greedyKeptSet(...))`.
Schedule greedy(const Graph &graph, int64_t thresholdBytes);

/// `greedy(graph, t)` at every threshold t of `thresholds`, as "greedy"
/// plans with detail "threshold=t" and their simulation (none where the
/// schedule does not simulate, only on an invalid graph). Shares what does
/// not depend on the threshold (separators, forward cuts) and the simulation
/// of kept sets several thresholds give. `planSeconds`: each threshold's own
/// time.
std::vector<std::optional<PlanResult>>
greedyPlans(const Graph &graph, const std::vector<int64_t> &thresholds);

/// The thresholds greedySearch tries, ascending and distinct: 0, `points`
/// values spaced geometrically from the smallest positive forward node size to
/// the total forward bytes, plus Chen's estimate sqrt(x * y), where x and y
/// are the kept bytes and the largest segment of a first greedy pass with the
/// threshold total / ceil(sqrt(#forward nodes)), once for
/// `greedySeparatorKeptSet` and once for `greedyCutKeptSet`.
std::vector<int64_t> greedyThresholdGrid(const Graph &graph,
                                         unsigned points = 60);

/// Outcome of greedySearch.
struct GreedySearchResult {
  Schedule schedule;
  int64_t threshold = 0;
  SimResult sim;
  /// Number of thresholds simulated.
  unsigned tried = 0;
};

/// Chen's search over the memory threshold: simulates `greedy` for every
/// threshold of `greedyThresholdGrid`, then for 15 evenly spaced thresholds
/// between the grid neighbours of the best one, and returns the plan with the
/// smallest peak (ties: smallest recompute cost, then smallest threshold).
/// It also refines, the same way, around the threshold where
/// `greedySeparatorKeptSet` alone does best on the grid without the cut
/// estimate: those are the thresholds Chen's separator-only search tried, and
/// as `greedy` is never worse than the separator plan of its threshold, the
/// result is never worse than that search. `greedy(graph, threshold)`
/// reproduces the returned plan. On a graph with no forward node this is
/// store-all with threshold 0.
GreedySearchResult greedySearch(const Graph &graph);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_STRATEGIES_H
