//===- Simulate.cpp - Symbolic execution of a schedule --------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `simulate` flattens a schedule into its execution sequence (the original op
/// order with every `recomputeBefore` list spliced in front of its node),
/// resolves every operand reference to the most recent instance, and records
/// the last use of every instance. A second sweep then accumulates the
/// live bytes: an execution sees every live instance plus its own result and
/// its node's workspace, and afterwards the workspace and the instances whose
/// last use it was are freed. Both sweeps are
/// linear in the number of executions plus operand references.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Graph.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace remat::sched;

namespace {
constexpr uint32_t kNoInstance = std::numeric_limits<uint32_t>::max();
} // namespace

static std::string describe(const Graph &graph, unsigned index) {
  return "'" + graph.nodes[index].name + "' (#" + std::to_string(index) + ")";
}

/// Checks the shape of `schedule` and the legality of every recomputation;
/// `firstBackward` is the index of the graph's first backward node (its size
/// if none).
static std::optional<std::string> checkSchedule(const Graph &graph,
                                                const Schedule &schedule,
                                                unsigned firstBackward) {
  unsigned n = graph.size();
  if (schedule.recomputeBefore.size() != n)
    return "schedule has " + std::to_string(schedule.recomputeBefore.size()) +
           " recompute lists for a graph of " + std::to_string(n) + " nodes";
  // In a training graph recomputation serves the backward pass only: it may
  // precede the first backward node and any node after it; in a forward-only
  // graph it may precede any node (Graph.h).
  bool forwardOnly = firstBackward == n;
  for (unsigned k = 0; k != n; ++k) {
    const std::vector<unsigned> &list = schedule.recomputeBefore[k];
    if (list.empty())
      continue;
    if (!forwardOnly && k < firstBackward)
      return "recomputations are listed before forward node " +
             describe(graph, k) +
             "; in a training graph only backward nodes and nodes after the "
             "first backward node may have them";
    for (unsigned u : list) {
      if (u >= n)
        return "recomputation before " + describe(graph, k) + " names node #" +
               std::to_string(u) + " which is out of range";
      if (u >= k)
        return "recomputation of " + describe(graph, u) + " before " +
               describe(graph, k) + ", which precedes its first execution";
      if (graph.nodes[u].backward)
        return "recomputation of backward node " + describe(graph, u) +
               " before " + describe(graph, k);
      if (graph.nodes[u].noRecompute)
        return "recomputation of no-recompute node " + describe(graph, u) +
               " before " + describe(graph, k);
      // A keep value stays resident from its one execution on (Graph.h):
      // the bounds, the MILP and the IR verifier exclude its recomputation.
      if (graph.nodes[u].keep)
        return "recomputation of keep node " + describe(graph, u) + " before " +
               describe(graph, k);
    }
  }
  return std::nullopt;
}

Simulator::Simulator(const Graph &graph)
    : graph(graph), graphError(graph.validate()), firstBackward(graph.size()) {
  for (unsigned k = 0, n = graph.size(); k != n; ++k)
    if (graph.nodes[k].backward) {
      firstBackward = k;
      break;
    }
}

std::optional<std::string>
Simulator::run(const Schedule &schedule, SimResult &result,
               std::vector<int64_t> *stepPeakBytes) {
  if (graphError)
    return "malformed graph: " + *graphError;
  if (std::optional<std::string> error =
          checkSchedule(graph, schedule, firstBackward))
    return "malformed schedule: " + *error;

  const std::vector<Node> &nodes = graph.nodes;
  unsigned n = graph.size();
  size_t numExec = n + schedule.numRecomputed();
  if (numExec >= kNoInstance)
    return "schedule has too many executions";

  // The buffers of the last run, resized: every entry below numExec of
  // execNode, execStep, lastUse and counted is written before it is read.
  // Execution sequence: node executed and the original step it belongs to.
  execNode.resize(numExec);
  execStep.resize(numExec);
  // lastUse[p]: last execution that reads the instance produced at p.
  lastUse.resize(numExec);
  latest.assign(n, kNoInstance);

  SimResult res;
  uint32_t pos = 0;
  auto execute = [&](unsigned v, unsigned step) -> std::optional<std::string> {
    for (unsigned op : nodes[v].operands) {
      uint32_t inst = latest[op];
      if (inst == kNoInstance)
        return "malformed schedule: recomputation of " + describe(graph, v) +
               " before " + describe(graph, step) + " uses " +
               describe(graph, op) + " which has no instance yet";
      lastUse[inst] = pos;
    }
    execNode[pos] = v;
    execStep[pos] = step;
    lastUse[pos] = pos;
    latest[v] = pos;
    ++pos;
    return std::nullopt;
  };
  for (unsigned k = 0; k != n; ++k) {
    for (unsigned u : schedule.recomputeBefore[k]) {
      if (std::optional<std::string> error = execute(u, k))
        return error;
      res.recomputeCost += nodes[u].cost;
      ++res.recomputeCount;
    }
    if (std::optional<std::string> error = execute(k, k))
      return error;
  }

  // The final instance of an output lives to the end: never freed, and
  // counted apart from activations (like a preallocated gradient buffer).
  // Only the returned part of a multi-result node is counted apart; its
  // other results are activations freed after their last use.
  counted.resize(numExec);
  for (size_t p = 0; p != numExec; ++p)
    counted[p] = nodes[execNode[p]].bytes;
  for (unsigned v = 0; v != n; ++v)
    if (nodes[v].output && latest[v] != kNoInstance) {
      int64_t returned = nodes[v].returnedBytes();
      res.outputBytes += returned;
      counted[latest[v]] -= returned;
      if (counted[latest[v]] == 0)
        lastUse[latest[v]] = kNoInstance;
    }

  // Bucket the instances by the execution after which they are freed (CSR).
  freeStart.assign(numExec + 1, 0);
  for (size_t p = 0; p != numExec; ++p)
    if (lastUse[p] != kNoInstance)
      ++freeStart[lastUse[p] + 1];
  for (size_t p = 0; p != numExec; ++p)
    freeStart[p + 1] += freeStart[p];
  freeList.resize(freeStart[numExec]);
  fill.assign(freeStart.begin(), freeStart.end() - 1);
  for (size_t p = 0; p != numExec; ++p)
    if (lastUse[p] != kNoInstance)
      freeList[fill[lastUse[p]]++] = p;

  if (stepPeakBytes)
    stepPeakBytes->assign(n, 0);
  int64_t live = 0;
  for (size_t p = 0; p != numExec; ++p) {
    int64_t bytes = counted[p];
    // Graph::validate bounds the bytes of all nodes together, but a schedule
    // may keep several instances of a node live: the sum is checked, and a
    // peak that int64_t cannot hold is an error, never a wrapped value.
    int64_t during, withScratch;
    if (llvm::AddOverflow(live, bytes, during) ||
        llvm::AddOverflow(during, nodes[execNode[p]].workspace, withScratch))
      return "the live bytes during " + describe(graph, execNode[p]) +
             " exceed 2^63 - 1";
    if (withScratch > res.peakBytes) {
      res.peakBytes = withScratch;
      res.peakAt = execNode[p];
      res.peakStep = execStep[p];
      res.peakInRecompute = execNode[p] != execStep[p];
    }
    if (stepPeakBytes)
      (*stepPeakBytes)[execStep[p]] =
          std::max((*stepPeakBytes)[execStep[p]], withScratch);
    live = during;
    for (uint32_t i = freeStart[p], e = freeStart[p + 1]; i != e; ++i)
      live -= counted[freeList[i]];
  }
  if (llvm::AddOverflow(res.peakBytes, graph.inputBytes, res.peakTotalBytes) ||
      llvm::AddOverflow(res.peakTotalBytes, res.outputBytes,
                        res.peakTotalBytes))
    return "the peak including inputs and outputs exceeds 2^63 - 1";
  result = res;
  return std::nullopt;
}

std::optional<std::string> Simulator::simulate(const Schedule &schedule,
                                               SimResult &result) {
  return run(schedule, result, nullptr);
}

std::optional<std::string>
Simulator::liveBytesTrace(const Schedule &schedule, SimResult &result,
                          std::vector<int64_t> &stepPeakBytes) {
  return run(schedule, result, &stepPeakBytes);
}

std::optional<std::string> remat::sched::simulate(const Graph &graph,
                                                  const Schedule &schedule,
                                                  SimResult &result) {
  return Simulator(graph).simulate(schedule, result);
}

std::optional<std::string>
remat::sched::liveBytesTrace(const Graph &graph, const Schedule &schedule,
                             SimResult &result,
                             std::vector<int64_t> &stepPeakBytes) {
  return Simulator(graph).liveBytesTrace(schedule, result, stepPeakBytes);
}
