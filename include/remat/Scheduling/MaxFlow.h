//===- MaxFlow.h - Maximum flow on double capacities ------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Dinic's maximum flow on double capacities, infinity allowed: the min-cut
/// saved sets (MinCut.h) and the cut lower bounds (LowerBound.h) both solve
/// their s-t cuts with it.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_MAXFLOW_H
#define REMAT_SCHEDULING_MAXFLOW_H

#include <cstddef>
#include <limits>
#include <vector>

namespace remat {
namespace sched {

/// A flow network on vertices 0 .. numVertices-1. Every source-sink path must
/// contain an edge of finite capacity (an infinite path has no maximum flow).
class FlowNetwork {
public:
  explicit FlowNetwork(unsigned numVertices)
      : adjacency(numVertices), level(numVertices), next(numVertices) {}

  /// Adds an edge; capacities <= 0 add nothing.
  void addEdge(unsigned from, unsigned to, double capacity);

  /// Pushes a maximum flow and returns its value. The flow is feasible (no
  /// edge carries more than its capacity), so the value never exceeds the
  /// capacity of any s-t cut; it equals the minimum up to double rounding
  /// (residuals below 1e-9 of an edge's capacity count as zero).
  double maxFlow(unsigned source, unsigned sink);

  /// Vertices reachable from `source` in the residual network: the source
  /// side of a minimum cut after `maxFlow`.
  std::vector<bool> sourceSide(unsigned source) const;

private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  /// Residual capacities below this fraction of the capacity are zero:
  /// double rounding must not leave phantom residual edges.
  static constexpr double kEps = 1e-9;

  struct Edge {
    unsigned to;
    double capacity;
    double flow = 0;
  };

  double residual(unsigned e) const;
  bool buildLevels(unsigned source, unsigned sink);
  /// One augmenting path of the level graph (iterative DFS).
  double push(unsigned source, unsigned sink, double limit);

  std::vector<Edge> edges;
  std::vector<std::vector<unsigned>> adjacency;
  std::vector<int> level;
  std::vector<size_t> next;
};

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_MAXFLOW_H
