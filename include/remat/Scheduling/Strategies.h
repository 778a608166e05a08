//===- Strategies.h - Chen et al. checkpointing strategies ------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The general-graph strategies of Chen et al. 2016: store-all, sqrt(n)
/// segmentation (their Algorithm 1) and the greedy memory-threshold planner
/// with its search over the threshold (Algorithm 2). All of them pick a kept
/// set among the separators of the forward pass (see Separators.h) and lower
/// it with `lowerKeptSet`. The graph must be valid (`Graph::validate`).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_STRATEGIES_H
#define REMAT_SCHEDULING_STRATEGIES_H

#include "remat/Scheduling/Graph.h"

#include <cstdint>
#include <vector>

namespace remat {
namespace sched {

/// Keeps every value: no recomputation.
Schedule storeAll(const Graph &graph);

/// Number of forward (non-backward) nodes.
unsigned numForwardNodes(const Graph &graph);

/// The segment count sqrtN uses: ceil(sqrt(#forward nodes)).
unsigned sqrtNSegments(const Graph &graph);

/// Kept set of the sqrt(n) strategy: the forward nodes are split into
/// `numSegments` segments (0 means `sqrtNSegments(graph)`) of equal forward
/// node count; each of the `numSegments - 1` interior boundaries is the
/// separator closest (by forward position) to the evenly spaced target, ties
/// towards the earlier one. Boundaries that would coincide are merged.
std::vector<bool> sqrtNKeptSet(const Graph &graph, unsigned numSegments = 0);

/// Chen's Algorithm 1: `lowerKeptSet(graph, sqrtNKeptSet(graph))`.
Schedule sqrtN(const Graph &graph);

/// Kept set of Chen's Algorithm 2: walks the forward nodes in order adding
/// their bytes to an accumulator; at a separator whose accumulator (itself
/// included) exceeds `thresholdBytes`, keeps it and resets the accumulator.
/// If `keptBytes` / `maxSegmentBytes` are given they receive the bytes kept
/// (Chen's x) and the largest accumulator reached (Chen's y).
std::vector<bool> greedyKeptSet(const Graph &graph, int64_t thresholdBytes,
                                int64_t *keptBytes = nullptr,
                                int64_t *maxSegmentBytes = nullptr);

/// Chen's Algorithm 2 lowered: `lowerKeptSet(graph, greedyKeptSet(...))`.
Schedule greedy(const Graph &graph, int64_t thresholdBytes);

/// The thresholds greedySearch tries, ascending and distinct: `points` values
/// spaced geometrically from the smallest positive forward node size to the
/// total forward bytes, plus Chen's estimate sqrt(x * y), where x and y are
/// the kept bytes and the largest segment of a first greedy pass with the
/// threshold total / ceil(sqrt(#forward nodes)).
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
/// smallest peak (ties: smallest recompute cost, then smallest threshold). On
/// a graph with no forward node this is store-all with threshold 0.
GreedySearchResult greedySearch(const Graph &graph);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_STRATEGIES_H
