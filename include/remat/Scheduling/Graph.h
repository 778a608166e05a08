//===- Graph.h - Training graph and schedule model for remat ----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The scheduling model shared by every rematerialization strategy. It is
/// independent of MLIR: the passes build a `Graph` from IR, strategies compute
/// a `Schedule`, `simulate` gives its exact peak and cost, and one rewriter
/// materialises the schedule back into IR.
///
/// Semantics of a schedule. The original op order is executed unchanged: every
/// forward node runs once, every backward node runs once, in `Graph::nodes`
/// order. In addition, immediately before node `k`, the forward nodes listed
/// in `Schedule::recomputeBefore[k]` are executed again, in list order. In a
/// training graph (one with at least one backward node) only the first
/// backward node and the nodes after it may have such a list: recomputation
/// serves the backward pass, and the rewriter places a recompute region before
/// the op that needs it. Such an op is usually a backward op; it is a forward
/// op when the input interleaves the phases (an exporter placing a forward op,
/// say a weight transpose or a ReLU mask read only by the backward, among the
/// backward ops: Phases.h). Every listed node must have run once already (its
/// index is smaller than `k`).
/// In a forward-only graph (no backward node at all, e.g. the Moccasin
/// benchmark DAGs) any node may have one, as long as every node it lists has
/// already run once (its index is smaller than `k`): a value may then be
/// freed after a use and recomputed before a later one anywhere in the graph.
/// Every operand reference resolves to the most recent instance of that node
/// at the time of the use. An instance is live from its execution to its last
/// use (or to the end if the node is a graph output); nothing else keeps memory
/// alive. Graph inputs and parameters are not nodes: they are counted apart.
/// The final instances of output nodes (the loss and the parameter gradients)
/// are counted apart too, as resident for the whole step like preallocated
/// gradient buffers: the peak is a peak of activations.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_GRAPH_H
#define REMAT_SCHEDULING_GRAPH_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// One op of the training step producing one value.
struct Node {
  std::string name;
  /// Compute cost in arbitrary but consistent units (FLOPs for dialect ops).
  double cost = 0;
  /// Bytes of the value the node produces.
  int64_t bytes = 0;
  /// Scratch bytes live only while the node executes (padded copies and
  /// accumulators of its lowering), on top of its operands and its result.
  int64_t workspace = 0;
  /// True for backward (gradient) nodes; false for forward and loss nodes.
  bool backward = false;
  /// The value must stay resident (the remat.keep hint; constants too): it
  /// is never dropped to be recomputed, so its one instance lives from its
  /// execution to its last use. `simulate` rejects a schedule that
  /// recomputes it, as it does for `noRecompute`.
  bool keep = false;
  /// The node must never be recomputed (hint, side effects, or randomness that
  /// a recomputation would not reproduce).
  bool noRecompute = false;
  /// The value is a result of the training step: live until the end.
  bool output = false;
  /// For an output node, the bytes actually returned when only some results
  /// of a multi-result op are returned (-1: all of `bytes`). The rest is an
  /// activation freed after its last use.
  int64_t outputBytes = -1;
  /// Node indices of the operands (all smaller than this node's index).
  std::vector<unsigned> operands;

  /// The bytes an output returns (0 for other nodes), counted apart from the
  /// activations, as `simulate` does.
  int64_t returnedBytes() const {
    if (!output)
      return 0;
    return outputBytes >= 0 ? std::min(outputBytes, bytes) : bytes;
  }
  /// The bytes an instance of this node counts as an activation: `bytes`
  /// less what an output returns (its final instance's share).
  int64_t activationBytes() const { return bytes - returnedBytes(); }
};

/// Limits `Graph::validate` enforces: the input bytes plus the bytes of every
/// node at most 2^60 (so sums of a few such totals, as the chain models and
/// the simulator form them, cannot overflow int64_t), and the costs of all
/// nodes summing to at most 1e280 (so a schedule's recompute cost, at most
/// 2^32 recomputations, and the strategies' cost tables stay finite).
constexpr int64_t kMaxGraphBytes = int64_t(1) << 60;
constexpr double kMaxGraphCost = 1e280;

/// A training step in op order. Nodes are topologically ordered.
struct Graph {
  std::vector<Node> nodes;
  /// Bytes of inputs and parameters, resident for the whole step.
  int64_t inputBytes = 0;

  unsigned size() const { return nodes.size(); }
  /// Nodes plus operand references: what one pass over the graph (a
  /// simulation, a search evaluation) costs, used to scale work limits.
  size_t workSize() const;
  /// Adds a node and returns its index.
  unsigned addNode(Node node);
  /// Returns a diagnostic message if the graph is malformed (operand out of
  /// order, negative size or cost, a forward node using a backward node) or
  /// exceeds kMaxGraphBytes or kMaxGraphCost.
  std::optional<std::string> validate() const;
  /// Sum of the compute cost of all forward nodes.
  double forwardCost() const;
  /// True if no node is a backward node: the graph has no forward/backward
  /// split, and a schedule may recompute before any node (see above).
  bool isForwardOnly() const;
};

/// A rematerialization schedule: for every node index `k`, the forward nodes
/// recomputed right before it (in a training graph only nodes from the first
/// backward node on may have a non-empty list; in a forward-only graph any
/// node may). An empty
/// schedule (all lists empty) is store-all.
struct Schedule {
  std::vector<std::vector<unsigned>> recomputeBefore;

  explicit Schedule(unsigned numNodes = 0) : recomputeBefore(numNodes) {}
  /// Total number of recomputed op executions.
  size_t numRecomputed() const;
};

/// The result of executing a schedule symbolically.
struct SimResult {
  /// Peak live bytes of nodes' values (activations and intermediate
  /// gradients), excluding graph inputs, parameters and outputs.
  int64_t peakBytes = 0;
  /// Bytes of the final instances of output nodes.
  int64_t outputBytes = 0;
  /// `peakBytes + Graph::inputBytes + outputBytes`.
  int64_t peakTotalBytes = 0;
  /// Index of the node (original op order) during whose execution the peak is
  /// reached; the peak is measured with the node's operands, its result and
  /// its workspace live at the same time.
  unsigned peakAt = 0;
  /// The step of the original op order in which the peak falls: equal to
  /// `peakAt` unless the peak is reached by a recomputation, in which case it
  /// is the node whose `recomputeBefore` list holds it.
  unsigned peakStep = 0;
  /// True if the peak is reached while executing a recomputation.
  bool peakInRecompute = false;
  /// Cost of all recomputed executions.
  double recomputeCost = 0;
  /// Number of recomputed executions.
  size_t recomputeCount = 0;
};

/// Simulates `schedule` on `graph`. Returns an error message if the schedule
/// is malformed: wrong length, a recomputation of a backward node, of a
/// no-recompute node or of a keep node, an index out of range, a recomputed
/// node whose operand has no instance yet, a non-empty list before the first
/// backward node of a training graph, a node recomputed before its own first
/// execution; or if the graph is malformed (`Graph::validate`). Runs in
/// O(nodes + recomputations + operand references of all executions).
std::optional<std::string>
simulate(const Graph &graph, const Schedule &schedule, SimResult &result);

/// Like `simulate`, and also fills `stepPeakBytes[k]` with the largest live
/// byte count (nodes' values only) measured during step `k` of the original
/// op order, that is, during node `k` or a recomputation listed before it.
std::optional<std::string> liveBytesTrace(const Graph &graph,
                                          const Schedule &schedule,
                                          SimResult &result,
                                          std::vector<int64_t> &stepPeakBytes);

/// Simulates many schedules on one graph: the graph is validated once, when
/// the simulator is made, instead of on every run, and the run's buffers are
/// reused. A run gives exactly what `simulate` / `liveBytesTrace` give (they
/// are one run of a fresh simulator); strategies that evaluate many schedules
/// of one graph use one simulator. `graph` must outlive the simulator and
/// stay unchanged while it is in use.
class Simulator {
public:
  explicit Simulator(const Graph &graph);

  /// `simulate(graph, schedule, result)`.
  std::optional<std::string> simulate(const Schedule &schedule,
                                      SimResult &result);
  /// `liveBytesTrace(graph, schedule, result, stepPeakBytes)`.
  std::optional<std::string> liveBytesTrace(const Schedule &schedule,
                                            SimResult &result,
                                            std::vector<int64_t> &stepPeakBytes);

private:
  std::optional<std::string> run(const Schedule &schedule, SimResult &result,
                                 std::vector<int64_t> *stepPeakBytes);

  const Graph &graph;
  /// `graph.validate()`, computed once.
  std::optional<std::string> graphError;
  /// The index of the first backward node (the graph's size if none).
  unsigned firstBackward;
  /// Per execution: node, original step, last reader; per node: its latest
  /// instance; the free lists (see Simulate.cpp).
  std::vector<uint32_t> execNode, execStep, lastUse, latest, freeStart,
      freeList, fill;
  std::vector<int64_t> counted;
};

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_GRAPH_H
