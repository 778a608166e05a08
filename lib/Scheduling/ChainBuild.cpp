//===- ChainBuild.cpp - Cutting a graph into a stage chain ----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `buildStageChain` and `coarsen`, see Chain.h for the model.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Chain.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Separators.h"

#include <algorithm>
#include <numeric>

using namespace remat::sched;

static std::string describe(const Graph &graph, unsigned index) {
  return "'" + graph.nodes[index].name + "' (#" + std::to_string(index) + ")";
}

namespace {
/// Consecutive fine stages grouped into intervals; `find(k)` is the first
/// fine stage of k's group. Merging a range joins every group it touches.
class IntervalGroups {
public:
  explicit IntervalGroups(unsigned n) : parent(n) {
    std::iota(parent.begin(), parent.end(), 0u);
  }
  unsigned find(unsigned k) {
    unsigned root = k;
    while (parent[root] != root)
      root = parent[root];
    while (parent[k] != root) {
      unsigned next = parent[k];
      parent[k] = root;
      k = next;
    }
    return root;
  }
  /// Merges the groups of fine stages lo..hi (lo <= hi). Returns the number of
  /// groups that disappeared.
  unsigned merge(unsigned lo, unsigned hi) {
    unsigned merged = 0;
    unsigned target = find(lo);
    unsigned cur = find(hi);
    while (cur != target) {
      unsigned prev = find(cur - 1);
      parent[cur] = prev;
      cur = prev;
      ++merged;
    }
    return merged;
  }

private:
  std::vector<unsigned> parent;
};
} // namespace

StageChain remat::sched::buildStageChain(const Graph &graph) {
  StageChain chain;
  chain.numNodes = graph.size();
  auto fail = [&](std::string reason) {
    chain.stages.clear();
    chain.reversible = false;
    chain.reason = std::move(reason);
    return chain;
  };
  if (std::optional<std::string> error = graph.validate())
    return fail("malformed graph: " + *error);

  const std::vector<Node> &nodes = graph.nodes;
  unsigned n = graph.size();

  // Forward nodes must all precede the backward ones: then they are exactly
  // the indices [0, numForward).
  unsigned numForward = 0;
  while (numForward < n && !nodes[numForward].backward)
    ++numForward;
  for (unsigned v = numForward; v < n; ++v)
    if (!nodes[v].backward)
      return fail("forward node " + describe(graph, v) +
                  " comes after backward node " + describe(graph, numForward));

  // Bytes a node holds as an activation: the returned part of an output is
  // counted apart (Graph.h), exactly as simulate does.
  auto activationBytes = [&](unsigned v) -> int64_t {
    const Node &node = nodes[v];
    if (!node.output)
      return node.bytes;
    int64_t returned = node.outputBytes >= 0
                           ? std::min(node.outputBytes, node.bytes)
                           : node.bytes;
    return node.bytes - returned;
  };
  std::vector<char> pinned(n, 0);
  for (unsigned v = 0; v < numForward; ++v) {
    pinned[v] = isAlwaysKept(nodes[v]);
    if (pinned[v])
      chain.pinnedBytes += activationBytes(v);
  }
  chain.reversible = true;
  if (numForward == 0 || numForward == n)
    return chain;

  // Separators of the forward pass with the edges out of pinned nodes
  // removed: a pinned value is resident, it does not tie segments together.
  std::vector<unsigned> separators;
  {
    Graph filtered;
    filtered.nodes.resize(n);
    for (unsigned v = 0; v < n; ++v) {
      filtered.nodes[v].backward = nodes[v].backward;
      if (nodes[v].backward)
        continue;
      for (unsigned u : nodes[v].operands)
        if (!pinned[u])
          filtered.nodes[v].operands.push_back(u);
    }
    separators = findSeparators(filtered);
  }
  std::vector<char> isSeparator(numForward, 0);
  for (unsigned s : separators)
    if (s < numForward)
      isSeparator[s] = 1;
  isSeparator[numForward - 1] = 1;

  // Fine stages: segments between consecutive separators.
  std::vector<unsigned> fineStage(numForward);
  std::vector<unsigned> fineBoundary;
  for (unsigned v = 0; v < numForward; ++v) {
    fineStage[v] = fineBoundary.size();
    if (isSeparator[v])
      fineBoundary.push_back(v);
  }
  unsigned numFine = fineBoundary.size();
  chain.numSegments = numFine;
  auto isFineBoundary = [&](unsigned u) {
    return fineBoundary[fineStage[u]] == u;
  };

  // Per backward node: the highest fine stage it reads (hi) and the lowest
  // fine stage its group must start at (lo): a read of a stage's boundary
  // only needs the group to start right after that stage.
  const unsigned kNone = ~0u;
  std::vector<unsigned> hiStage(n, kNone), loStage(n, kNone);
  for (unsigned b = numForward; b < n; ++b) {
    for (unsigned u : nodes[b].operands) {
      if (nodes[u].backward || pinned[u])
        continue;
      unsigned st = fineStage[u];
      unsigned lo = isFineBoundary(u) ? st + 1 : st;
      if (hiStage[b] == kNone || st > hiStage[b])
        hiStage[b] = st;
      if (loStage[b] == kNone || lo < loStage[b])
        loStage[b] = lo;
    }
  }

  IntervalGroups groups(numFine);
  unsigned mergedReads = 0, mergedOrder = 0, mergedUnread = 0;
  std::string firstReadNote, firstOrderNote;
  // 1. A backward node's reads must lie in one stage (plus its input).
  for (unsigned b = numForward; b < n; ++b) {
    if (hiStage[b] == kNone || loStage[b] > hiStage[b])
      continue;
    if (groups.find(loStage[b]) == groups.find(hiStage[b]))
      continue;
    unsigned m = groups.merge(loStage[b], hiStage[b]);
    if (m && firstReadNote.empty())
      firstReadNote = describe(graph, b);
    mergedReads += m;
  }
  // 2. The stages of the backward nodes must not increase.
  unsigned runningMin = kNone;
  for (unsigned b = numForward; b < n; ++b) {
    if (hiStage[b] == kNone)
      continue;
    unsigned g = groups.find(hiStage[b]);
    if (runningMin != kNone && g > runningMin) {
      unsigned m = groups.merge(runningMin, hiStage[b]);
      if (m && firstOrderNote.empty())
        firstOrderNote = describe(graph, b);
      mergedOrder += m;
      g = groups.find(hiStage[b]);
    }
    runningMin = runningMin == kNone ? g : std::min(runningMin, g);
  }
  // 3. Groups no backward node is attributed to join the next group.
  {
    std::vector<char> hasReader(numFine, 0);
    for (unsigned b = numForward; b < n; ++b)
      if (hiStage[b] != kNone)
        hasReader[groups.find(hiStage[b])] = 1;
    int lastRead = -1;
    for (unsigned k = 0; k < numFine; ++k)
      if (groups.find(k) == k && hasReader[k])
        lastRead = k;
    if (lastRead < 0) {
      // No backward node reads a forward value: nothing to recompute.
      chain.notes = "no backward node reads a forward value";
      return chain;
    }
    // Walk the groups from the end: an unread group merges with its
    // successor; unread groups after the last read one merge backwards.
    for (unsigned k = numFine; k-- > 0;) {
      unsigned g = groups.find(k);
      if (g != k)
        continue;
      if (hasReader[g])
        continue;
      if (static_cast<int>(g) > lastRead) {
        mergedUnread += groups.merge(lastRead, g);
        continue;
      }
      // Merge with the following group (exists since g < lastRead).
      unsigned end = k;
      while (end + 1 < numFine && groups.find(end + 1) == g)
        ++end;
      unsigned nextStart = end + 1;
      bool nextRead = hasReader[groups.find(nextStart)];
      mergedUnread += groups.merge(g, nextStart);
      hasReader[groups.find(g)] = nextRead;
    }
  }
  if (mergedReads || mergedOrder || mergedUnread) {
    std::string &notes = chain.notes;
    auto add = [&](const std::string &text) {
      notes += notes.empty() ? text : "; " + text;
    };
    if (mergedReads)
      add("merged " + std::to_string(mergedReads) +
          " stages into the stages of backward nodes reading across "
          "separators (first: " +
          firstReadNote + ")");
    if (mergedOrder)
      add("merged " + std::to_string(mergedOrder) +
          " stages whose backward nodes interleave (first: " + firstOrderNote +
          ")");
    if (mergedUnread)
      add("merged " + std::to_string(mergedUnread) +
          " stages no backward node reads");
  }

  // Final stages.
  std::vector<unsigned> stageOf(numForward);
  std::vector<unsigned> boundaryOf; // per stage
  std::vector<unsigned> firstOf;
  for (unsigned k = 0; k < numFine; ++k) {
    if (groups.find(k) == k) {
      firstOf.push_back(k == 0 ? 0 : fineBoundary[k - 1] + 1);
      boundaryOf.push_back(fineBoundary[k]);
    } else {
      boundaryOf.back() = fineBoundary[k];
    }
  }
  unsigned numStages = boundaryOf.size();
  for (unsigned s = 0; s < numStages; ++s)
    for (unsigned v = firstOf[s]; v <= boundaryOf[s]; ++v)
      stageOf[v] = s;
  chain.numFineStages = numStages;
  auto inputOf = [&](unsigned s) { return s == 0 ? kNone : boundaryOf[s - 1]; };

  // Check: forward reads stay in the stage or read its input boundary.
  for (unsigned v = 0; v < numForward; ++v)
    for (unsigned u : nodes[v].operands)
      if (!pinned[u] && stageOf[u] != stageOf[v] && u != inputOf(stageOf[v]))
        return fail("forward node " + describe(graph, v) + " reads " +
                    describe(graph, u) + " across a separator");
  // Check: backward attribution and order.
  std::vector<unsigned> sigma(n, kNone);
  std::vector<unsigned> firstBackward(numStages, kNone);
  std::vector<char> readsInput(numStages, 0), readByBackward(numForward, 0);
  unsigned prevSigma = kNone;
  for (unsigned b = numForward; b < n; ++b) {
    unsigned s = kNone;
    for (unsigned u : nodes[b].operands)
      if (!nodes[u].backward && !pinned[u])
        s = s == kNone ? stageOf[u] : std::max(s, stageOf[u]);
    if (s == kNone)
      continue;
    for (unsigned u : nodes[b].operands) {
      if (nodes[u].backward || pinned[u])
        continue;
      readByBackward[u] = 1;
      if (stageOf[u] == s)
        continue;
      if (u != inputOf(s))
        return fail("backward node " + describe(graph, b) + " reads " +
                    describe(graph, u) + " of stage " +
                    std::to_string(stageOf[u] + 1) +
                    " besides values of stage " + std::to_string(s + 1));
      readsInput[s] = 1;
    }
    if (prevSigma != kNone && s > prevSigma)
      return fail("backward node " + describe(graph, b) + " reads stage " +
                  std::to_string(s + 1) + " after the backward of stage " +
                  std::to_string(prevSigma + 1) + " began");
    prevSigma = s;
    sigma[b] = s;
    if (firstBackward[s] == kNone)
      firstBackward[s] = b;
  }
  for (unsigned s = 0; s < numStages; ++s)
    if (firstBackward[s] == kNone)
      return fail("stage " + std::to_string(s + 1) +
                  " has no backward node (internal error)");

  // Last in-stage forward use of every forward value (consumers that are
  // pinned count: they run in the original forward pass).
  std::vector<unsigned> lastUse(numForward, kNone);
  for (unsigned v = 0; v < numForward; ++v)
    for (unsigned u : nodes[v].operands)
      if (!pinned[u] && stageOf[u] == stageOf[v])
        lastUse[u] = lastUse[u] == kNone ? v : std::max(lastUse[u], v);

  // Backward liveness (schedule independent): live bytes before and during
  // every backward node.
  std::vector<unsigned> lastUseB(n, kNone);
  for (unsigned b = numForward; b < n; ++b)
    for (unsigned u : nodes[b].operands)
      if (nodes[u].backward)
        lastUseB[u] = b;
  std::vector<int64_t> liveBefore(n + 1, 0), liveDuring(n, 0);
  {
    int64_t live = 0;
    std::vector<unsigned> freedAt(n, kNone);
    for (unsigned b = numForward; b < n; ++b) {
      liveBefore[b] = live;
      live += activationBytes(b);
      liveDuring[b] = live;
      for (unsigned u : nodes[b].operands)
        if (nodes[u].backward && lastUseB[u] == b && freedAt[u] != b) {
          freedAt[u] = b;
          live -= activationBytes(u);
        }
      if (lastUseB[b] == kNone)
        live -= activationBytes(b);
    }
  }

  chain.stages.resize(numStages);
  std::vector<char> need(numForward, 0), retained(numForward, 0);
  std::vector<unsigned> freedAt(numForward, kNone);
  auto bytesOf = [&](unsigned v) -> int64_t {
    return pinned[v] ? 0 : nodes[v].bytes;
  };
  // Peak of the stage's own values over its original execution, keeping
  // `retained` values to the end.
  auto stagePeak = [&](unsigned first, unsigned last) {
    int64_t live = 0, peak = 0;
    for (unsigned v = first; v <= last; ++v) {
      if (!pinned[v]) {
        live += nodes[v].bytes;
        peak = std::max(peak, live);
      }
      for (unsigned u : nodes[v].operands)
        if (!pinned[u] && u >= first && lastUse[u] == v && !retained[u] &&
            freedAt[u] != v) {
          freedAt[u] = v;
          live -= nodes[u].bytes;
        }
      if (!pinned[v] && lastUse[v] == kNone && !retained[v])
        live -= nodes[v].bytes;
    }
    return peak;
  };
  // Nodes of [first, last] that the seeds need, pinned ones excluded.
  auto closure = [&](unsigned first, unsigned last, std::vector<unsigned> &out,
                     double &cost) {
    out.clear();
    cost = 0;
    for (unsigned v = last + 1; v-- > first;) {
      if (!need[v] || pinned[v])
        continue;
      for (unsigned u : nodes[v].operands)
        if (u >= first && !pinned[u])
          need[u] = 1;
    }
    for (unsigned v = first; v <= last; ++v)
      if (need[v] && !pinned[v]) {
        out.push_back(v);
        cost += nodes[v].cost;
      }
  };

  for (unsigned s = 0; s < numStages; ++s) {
    ChainStage &st = chain.stages[s];
    unsigned first = firstOf[s], last = boundaryOf[s];
    st.firstNode = first;
    st.boundaryNode = last;
    st.firstBackward = firstBackward[s];
    st.boundaryBytes = bytesOf(last);

    // Tape: values read by backward nodes and the boundary. The input
    // boundary, if this stage's backward reads it, is accounted as a live
    // position by the model.
    int64_t tape = 0;
    for (unsigned v = first; v <= last; ++v)
      if (!pinned[v] && (readByBackward[v] || v == last))
        tape += nodes[v].bytes;
    st.tapeBytes = tape;
    st.backwardReadsInput = readsInput[s] && bytesOf(inputOf(s)) > 0;

    // Advance: the boundary's in-stage ancestors.
    std::fill(need.begin() + first, need.begin() + last + 1, 0);
    need[last] = 1;
    closure(first, last, st.advanceNodes, st.forwardCost);
    // Taped forward: ancestors of the tape values and the boundary.
    std::fill(need.begin() + first, need.begin() + last + 1, 0);
    for (unsigned v = first; v <= last; ++v)
      need[v] = readByBackward[v] || v == last;
    closure(first, last, st.tapeNodes, st.tapeCost);

    std::fill(retained.begin() + first, retained.begin() + last + 1, 0);
    retained[last] = 1;
    st.advancePeakBytes = std::max(stagePeak(first, last), st.boundaryBytes);
    for (unsigned v = first; v <= last; ++v)
      retained[v] = readByBackward[v] || v == last;
    st.tapePeakBytes = std::max(stagePeak(first, last), st.tapeBytes);

    // Backward segment: from this stage's first backward node (the very first
    // backward node for the last stage) to the next stage's first one.
    unsigned segBegin = s + 1 == numStages ? numForward : firstBackward[s];
    unsigned segEnd = s == 0 ? n : firstBackward[s - 1];
    int64_t bwPeak = 0;
    double bwCost = 0;
    for (unsigned b = segBegin; b < segEnd; ++b) {
      bwPeak = std::max(bwPeak, liveDuring[b]);
      bwCost += nodes[b].cost;
    }
    st.backwardCost = bwCost;
    st.gradientBytes = liveBefore[firstBackward[s]];
    st.backwardPeakBytes =
        std::max(st.tapeBytes + bwPeak, st.tapeBytes + st.gradientBytes);
  }
  return chain;
}

StageChain remat::sched::coarsen(const StageChain &chain, unsigned maxStages) {
  unsigned numStages = chain.size();
  if (!chain.reversible || maxStages == 0 || numStages <= maxStages)
    return chain;

  // Split points at equal shares of the total weight (forward cost, or stage
  // count when all costs are 0); every group is non-empty.
  double total = 0;
  for (const ChainStage &st : chain.stages)
    total += st.forwardCost;
  auto weight = [&](unsigned s) {
    return total > 0 ? chain.stages[s].forwardCost : 1.0;
  };
  if (!(total > 0))
    total = numStages;

  StageChain out;
  out.reversible = true;
  out.pinnedBytes = chain.pinnedBytes;
  out.numNodes = chain.numNodes;
  out.numFineStages = chain.numFineStages;
  out.numSegments = chain.numSegments;
  out.notes = chain.notes;

  unsigned begin = 0;
  double acc = 0;
  for (unsigned g = 0; g < maxStages && begin < numStages; ++g) {
    unsigned groupsLeft = maxStages - g;
    unsigned end = begin; // inclusive
    acc += weight(begin);
    double target = total * (g + 1) / maxStages;
    // Extend while below the target, leaving one stage per remaining group.
    while (end + 1 < numStages && numStages - (end + 1) > groupsLeft - 1 &&
           acc + weight(end + 1) <= target) {
      ++end;
      acc += weight(end);
    }
    if (groupsLeft == 1) {
      while (end + 1 < numStages) {
        ++end;
        acc += weight(end);
      }
    }

    ChainStage merged;
    const ChainStage &firstSt = chain.stages[begin];
    const ChainStage &lastSt = chain.stages[end];
    merged.firstNode = firstSt.firstNode;
    merged.boundaryNode = lastSt.boundaryNode;
    merged.firstBackward = lastSt.firstBackward;
    merged.numFineStages = 0;
    merged.boundaryBytes = lastSt.boundaryBytes;
    merged.gradientBytes = lastSt.gradientBytes;
    // Inner inputs are covered by the tapes of the merged stages before.
    merged.backwardReadsInput = firstSt.backwardReadsInput;
    int64_t tapesBefore = 0;
    for (unsigned k = begin; k <= end; ++k) {
      const ChainStage &st = chain.stages[k];
      merged.numFineStages += st.numFineStages;
      merged.forwardCost += st.forwardCost;
      merged.tapeCost += st.tapeCost;
      merged.backwardCost += st.backwardCost;
      int64_t input = k > begin ? chain.stages[k - 1].boundaryBytes : 0;
      merged.advancePeakBytes =
          std::max(merged.advancePeakBytes, input + st.advancePeakBytes);
      merged.tapePeakBytes =
          std::max(merged.tapePeakBytes, tapesBefore + st.tapePeakBytes);
      merged.backwardPeakBytes = std::max(merged.backwardPeakBytes,
                                          tapesBefore + st.backwardPeakBytes);
      tapesBefore += st.tapeBytes;
      merged.advanceNodes.insert(merged.advanceNodes.end(),
                                 st.advanceNodes.begin(),
                                 st.advanceNodes.end());
      merged.tapeNodes.insert(merged.tapeNodes.end(), st.tapeNodes.begin(),
                              st.tapeNodes.end());
    }
    merged.tapeBytes = tapesBefore;
    merged.advancePeakBytes =
        std::max(merged.advancePeakBytes, merged.boundaryBytes);
    merged.tapePeakBytes = std::max(merged.tapePeakBytes, merged.tapeBytes);
    merged.backwardPeakBytes = std::max(
        merged.backwardPeakBytes, merged.tapeBytes + merged.gradientBytes);
    out.stages.push_back(std::move(merged));
    begin = end + 1;
  }
  return out;
}
