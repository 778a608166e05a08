//===- ChainBuild.cpp - Cutting a graph into a stage chain ----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `buildStageChain` in the phases of ChainBuild.h, and `coarsen`; see
/// Chain.h for the model.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/ChainBuild.h"
#include "remat/Scheduling/Chain.h"
#include "remat/Scheduling/Cuts.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Separators.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>
#include <set>

using namespace remat::sched;

//===----------------------------------------------------------------------===//
// Phases
//===----------------------------------------------------------------------===//

using namespace remat::sched::chainbuild;

/// For each forward position p, the values read across it if they are at
/// most `maxValues`: the values u <= p (pinned ones aside) that a forward
/// node after p reads in `filtered`, and p itself, ascending; empty when
/// there are more.
static std::vector<std::vector<unsigned>>
smallCuts(const Graph &filtered, unsigned numForward,
          const std::vector<char> &pinned, unsigned maxValues) {
  std::vector<unsigned> lastReader(numForward, kNone);
  for (unsigned v = 0; v < numForward; ++v)
    for (unsigned u : filtered.nodes[v].operands)
      lastReader[u] = v;
  std::vector<std::vector<unsigned>> endsAt(numForward);
  for (unsigned u = 0; u < numForward; ++u)
    if (!pinned[u] && lastReader[u] != kNone)
      endsAt[lastReader[u]].push_back(u);
  std::vector<std::vector<unsigned>> result(numForward);
  std::set<unsigned> live;
  for (unsigned p = 0; p < numForward; ++p) {
    for (unsigned u : endsAt[p])
      live.erase(u);
    if (!pinned[p] && lastReader[p] != kNone)
      live.insert(p);
    if (live.size() + !live.count(p) > maxValues)
      continue;
    result[p].assign(live.begin(), live.end());
    if (!live.count(p))
      result[p].push_back(p);
  }
  return result;
}

FineStages chainbuild::findFineStages(const Graph &graph, unsigned numForward,
                                      const std::vector<char> &pinned,
                                      unsigned maxCutValues) {
  const std::vector<Node> &nodes = graph.nodes;
  unsigned n = graph.size();
  // Separators of the forward pass with the edges out of pinned nodes
  // removed: a pinned value is resident, it does not tie segments together.
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
  std::vector<char> isSeparator(numForward, 0);
  for (unsigned s : findSeparators(filtered))
    if (s < numForward)
      isSeparator[s] = 1;
  isSeparator[numForward - 1] = 1;

  FineStages fine;
  fine.stageOf.resize(numForward);
  if (maxCutValues <= 1) {
    for (unsigned v = 0; v < numForward; ++v) {
      fine.stageOf[v] = fine.boundary.size();
      if (isSeparator[v])
        fine.boundary.push_back(v);
    }
    return fine;
  }

  // Small cuts: a position ends a stage if its cut is small and reads
  // nothing before the previous stage's end (`prev`); among the qualifying
  // positions within kCutWindow of the first (up to a separator, which
  // always qualifies: its cut is itself), the fewest bytes.
  std::vector<std::vector<unsigned>> cuts =
      smallCuts(filtered, numForward, pinned, maxCutValues);
  auto cutBytes = [&](unsigned p) {
    int64_t total = 0;
    for (unsigned u : cuts[p])
      total += pinned[u] ? 0 : nodes[u].bytes;
    return total;
  };
  fine.isOutput.assign(numForward, 0);
  int64_t prev = -1;
  while (prev + 1 < int64_t(numForward)) {
    auto qualifies = [&](unsigned p) {
      return !cuts[p].empty() && int64_t(cuts[p].front()) > prev;
    };
    unsigned first = unsigned(prev + 1);
    while (!isSeparator[first] && !qualifies(first))
      ++first;
    unsigned best = first;
    // A separator in the window ends the next stage anyway: stop before it.
    for (unsigned p = first + 1; !isSeparator[best] && p < numForward &&
                                 p < first + kCutWindow && !isSeparator[p];
         ++p)
      if (qualifies(p) && cutBytes(p) < cutBytes(best))
        best = p;
    for (unsigned v = unsigned(prev + 1); v <= best; ++v)
      fine.stageOf[v] = fine.boundary.size();
    fine.boundary.push_back(best);
    std::vector<unsigned> outputs =
        isSeparator[best] ? std::vector<unsigned>{best} : cuts[best];
    for (unsigned u : outputs)
      fine.isOutput[u] = 1;
    fine.outputs.push_back(std::move(outputs));
    prev = best;
  }
  return fine;
}

std::vector<BackwardReads>
chainbuild::getBackwardReads(const Graph &graph, unsigned numForward,
                             const std::vector<char> &pinned,
                             const FineStages &fine) {
  const std::vector<Node> &nodes = graph.nodes;
  std::vector<BackwardReads> reads(graph.size() - numForward);
  for (unsigned b = numForward; b < graph.size(); ++b) {
    BackwardReads &r = reads[b - numForward];
    for (unsigned u : nodes[b].operands) {
      if (nodes[u].backward || pinned[u])
        continue;
      unsigned st = fine.stageOf[u];
      unsigned lo = fine.isBoundary(u) ? st + 1 : st;
      if (r.hi == kNone || st > r.hi)
        r.hi = st;
      if (r.lo == kNone || lo < r.lo)
        r.lo = lo;
    }
  }
  return reads;
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

/// Rule 1: the fine stages one backward node reads form one group.
void mergeAcrossReads(IntervalGroups &groups,
                      const std::vector<BackwardReads> &reads,
                      StageGroups &result) {
  for (unsigned i = 0; i < reads.size(); ++i) {
    const BackwardReads &r = reads[i];
    if (r.hi == kNone || r.lo > r.hi)
      continue;
    if (groups.find(r.lo) == groups.find(r.hi))
      continue;
    unsigned m = groups.merge(r.lo, r.hi);
    if (m && result.firstReadMerge == kNone)
      result.firstReadMerge = i;
    result.mergedReads += m;
  }
}

/// Rule 2: the groups of the backward nodes never increase. With
/// `boundaryReadsLate`, a node reading only outputs of fine stage hi joins
/// the group after hi's when the order allows (`StageGroups::lateRead`).
void mergeInterleaved(IntervalGroups &groups, unsigned numFine,
                      const std::vector<BackwardReads> &reads,
                      bool boundaryReadsLate, StageGroups &result) {
  unsigned runningMin = kNone;
  result.lateRead.assign(reads.size(), 0);
  for (unsigned i = 0; i < reads.size(); ++i) {
    unsigned hi = reads[i].hi;
    if (hi == kNone)
      continue;
    unsigned g = groups.find(hi);
    if (boundaryReadsLate && reads[i].lo > hi && hi + 1 < numFine) {
      unsigned late = groups.find(hi + 1);
      if (late != g && (runningMin == kNone || late <= runningMin)) {
        result.lateRead[i] = 1;
        g = late;
      }
    }
    if (runningMin != kNone && g > runningMin) {
      unsigned m = groups.merge(runningMin, hi);
      if (m && result.firstOrderMerge == kNone)
        result.firstOrderMerge = i;
      result.mergedOrder += m;
      g = groups.find(hi);
    }
    runningMin = runningMin == kNone ? g : std::min(runningMin, g);
  }
}

/// Rule 3: a group no backward node reads joins the next group; those after
/// the last read group join it. Returns false if no group is read.
bool mergeUnread(IntervalGroups &groups, unsigned numFine,
                 const std::vector<BackwardReads> &reads, StageGroups &result) {
  std::vector<char> hasReader(numFine, 0);
  for (unsigned i = 0; i < reads.size(); ++i) {
    if (reads[i].hi == kNone)
      continue;
    bool late = !result.lateRead.empty() && result.lateRead[i];
    hasReader[groups.find(reads[i].hi + late)] = 1;
  }
  int lastRead = -1;
  for (unsigned k = 0; k < numFine; ++k)
    if (groups.find(k) == k && hasReader[k])
      lastRead = k;
  if (lastRead < 0)
    return false;
  // Walk the groups from the end: an unread group merges with its
  // successor; unread groups after the last read one merge backwards.
  for (unsigned k = numFine; k-- > 0;) {
    unsigned g = groups.find(k);
    if (g != k)
      continue;
    if (hasReader[g])
      continue;
    if (static_cast<int>(g) > lastRead) {
      result.mergedUnread += groups.merge(lastRead, g);
      continue;
    }
    // Merge with the following group (exists since g < lastRead).
    unsigned end = k;
    while (end + 1 < numFine && groups.find(end + 1) == g)
      ++end;
    unsigned nextStart = end + 1;
    bool nextRead = hasReader[groups.find(nextStart)];
    result.mergedUnread += groups.merge(g, nextStart);
    hasReader[groups.find(g)] = nextRead;
  }
  return true;
}
} // namespace

StageGroups chainbuild::groupFineStages(unsigned numFine,
                                        const std::vector<BackwardReads> &reads,
                                        bool boundaryReadsLate) {
  StageGroups result;
  IntervalGroups groups(numFine);
  mergeAcrossReads(groups, reads, result);
  mergeInterleaved(groups, numFine, reads, boundaryReadsLate, result);
  result.anyRead = mergeUnread(groups, numFine, reads, result);
  result.groupOf.resize(numFine);
  for (unsigned k = 0; k < numFine; ++k)
    result.groupOf[k] = groups.find(k);
  return result;
}

StageLayout chainbuild::layoutStages(const FineStages &fine,
                                     const StageGroups &groups) {
  StageLayout layout;
  for (unsigned k = 0; k < fine.size(); ++k) {
    if (groups.groupOf[k] == k) {
      layout.first.push_back(k == 0 ? 0 : fine.boundary[k - 1] + 1);
      layout.boundary.push_back(fine.boundary[k]);
      layout.outputs.emplace_back();
    } else {
      layout.boundary.back() = fine.boundary[k];
    }
    if (k < fine.outputs.size())
      layout.outputs.back() = fine.outputs[k];
  }
  layout.stageOf.resize(fine.stageOf.size());
  for (unsigned s = 0; s < layout.size(); ++s)
    for (unsigned v = layout.first[s]; v <= layout.boundary[s]; ++v)
      layout.stageOf[v] = s;
  return layout;
}

static std::string describe(const Graph &graph, unsigned index) {
  return "'" + graph.nodes[index].name + "' (#" + std::to_string(index) + ")";
}

std::optional<std::string> chainbuild::attributeBackward(
    const Graph &graph, unsigned numForward, const std::vector<char> &pinned,
    const StageLayout &layout, BackwardAttribution &result,
    bool boundaryReadsLate) {
  const std::vector<Node> &nodes = graph.nodes;
  const std::vector<unsigned> &stageOf = layout.stageOf;
  unsigned n = graph.size();
  // Forward reads stay in the stage or read its input boundary.
  for (unsigned v = 0; v < numForward; ++v)
    for (unsigned u : nodes[v].operands)
      if (!pinned[u] && stageOf[u] != stageOf[v] &&
          !layout.isInput(stageOf[v], u))
        return "forward node " + describe(graph, v) + " reads " +
               describe(graph, u) + " across a separator";
  // Backward attribution and order.
  result.firstBackward.assign(layout.size(), kNone);
  result.readsInput.assign(layout.size(), 0);
  result.readByBackward.assign(numForward, 0);
  unsigned prevStage = kNone;
  for (unsigned b = numForward; b < n; ++b) {
    unsigned s = kNone;
    for (unsigned u : nodes[b].operands)
      if (!nodes[u].backward && !pinned[u])
        s = s == kNone ? stageOf[u] : std::max(s, stageOf[u]);
    if (s == kNone)
      continue;
    if (boundaryReadsLate && s + 1 < layout.size() &&
        (prevStage == kNone || s + 1 <= prevStage) &&
        llvm::all_of(nodes[b].operands, [&](unsigned u) {
          return nodes[u].backward || pinned[u] || layout.isInput(s + 1, u);
        }))
      s = s + 1;
    for (unsigned u : nodes[b].operands) {
      if (nodes[u].backward || pinned[u])
        continue;
      result.readByBackward[u] = 1;
      if (stageOf[u] == s)
        continue;
      if (!layout.isInput(s, u))
        return "backward node " + describe(graph, b) + " reads " +
               describe(graph, u) + " of stage " +
               std::to_string(stageOf[u] + 1) + " besides values of stage " +
               std::to_string(s + 1);
      result.readsInput[s] = 1;
    }
    if (prevStage != kNone && s > prevStage)
      return "backward node " + describe(graph, b) + " reads stage " +
             std::to_string(s + 1) + " after the backward of stage " +
             std::to_string(prevStage + 1) + " began";
    prevStage = s;
    if (result.firstBackward[s] == kNone)
      result.firstBackward[s] = b;
  }
  for (unsigned s = 0; s < layout.size(); ++s)
    if (result.firstBackward[s] == kNone)
      return "stage " + std::to_string(s + 1) +
             " has no backward node (internal error)";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Measuring the stages
//===----------------------------------------------------------------------===//

namespace {
/// Measures the stages of a laid-out, attributed chain (phase 6).
class StageMeasurer {
public:
  StageMeasurer(const Graph &graph, unsigned numForward,
                const std::vector<char> &pinned, const StageLayout &layout,
                const BackwardAttribution &attribution)
      : nodes(graph.nodes), n(graph.size()), numForward(numForward),
        pinned(pinned), layout(layout), attribution(attribution),
        need(numForward, 0), retained(numForward, 0),
        freedAt(numForward, kNone) {
    computeLastForwardUses();
    computeBackwardLiveness();
  }

  /// The sizes, costs and nodes of stage `s`.
  ChainStage measure(unsigned s);

private:
  int64_t activationBytes(unsigned v) const {
    return nodes[v].activationBytes();
  }
  int64_t bytesOf(unsigned v) const { return pinned[v] ? 0 : nodes[v].bytes; }

  void computeLastForwardUses();
  void computeBackwardLiveness();
  int64_t stagePeak(unsigned first, unsigned last);
  void closure(unsigned first, unsigned last, std::vector<unsigned> &out,
               double &cost);

  const std::vector<Node> &nodes;
  unsigned n;
  unsigned numForward;
  const std::vector<char> &pinned;
  const StageLayout &layout;
  const BackwardAttribution &attribution;
  /// Last in-stage forward use of every forward value.
  std::vector<unsigned> lastUse;
  /// Live backward bytes before and during every backward node.
  std::vector<int64_t> liveBefore, liveDuring;
  /// Scratch of `closure` and `stagePeak`.
  std::vector<char> need, retained;
  std::vector<unsigned> freedAt;
};
} // namespace

void StageMeasurer::computeLastForwardUses() {
  // Consumers that are pinned count: they run in the original forward pass.
  const std::vector<unsigned> &stageOf = layout.stageOf;
  lastUse.assign(numForward, kNone);
  for (unsigned v = 0; v < numForward; ++v)
    for (unsigned u : nodes[v].operands)
      if (!pinned[u] && stageOf[u] == stageOf[v])
        lastUse[u] = lastUse[u] == kNone ? v : std::max(lastUse[u], v);
}

void StageMeasurer::computeBackwardLiveness() {
  // Schedule independent: the backward nodes run once, in order.
  std::vector<unsigned> lastUseB(n, kNone);
  for (unsigned b = numForward; b < n; ++b)
    for (unsigned u : nodes[b].operands)
      if (nodes[u].backward)
        lastUseB[u] = b;
  liveBefore.assign(n + 1, 0);
  liveDuring.assign(n, 0);
  int64_t live = 0;
  std::vector<unsigned> freed(n, kNone);
  for (unsigned b = numForward; b < n; ++b) {
    liveBefore[b] = live;
    live += activationBytes(b);
    liveDuring[b] = live;
    for (unsigned u : nodes[b].operands)
      if (nodes[u].backward && lastUseB[u] == b && freed[u] != b) {
        freed[u] = b;
        live -= activationBytes(u);
      }
    if (lastUseB[b] == kNone)
      live -= activationBytes(b);
  }
}

/// Peak of the stage's own values over its original execution, keeping
/// `retained` values to the end.
int64_t StageMeasurer::stagePeak(unsigned first, unsigned last) {
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
}

/// Nodes of [first, last] that the seeds (`need`) need, pinned ones
/// excluded, and their cost.
void StageMeasurer::closure(unsigned first, unsigned last,
                            std::vector<unsigned> &out, double &cost) {
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
}

ChainStage StageMeasurer::measure(unsigned s) {
  const std::vector<char> &readByBackward = attribution.readByBackward;
  const std::vector<unsigned> &firstBackward = attribution.firstBackward;
  unsigned numStages = layout.size();
  ChainStage st;
  unsigned first = layout.first[s], last = layout.boundary[s];
  st.firstNode = first;
  st.boundaryNode = last;
  st.firstBackward = firstBackward[s];
  // The boundary: the stage's outputs (its last node, or a small cut).
  st.boundaryValues = layout.outputsOf(s);
  for (unsigned v : st.boundaryValues)
    st.boundaryBytes += bytesOf(v);
  std::vector<char> isOutput(last - first + 1, 0);
  for (unsigned v : st.boundaryValues)
    isOutput[v - first] = 1;

  // Tape: values read by backward nodes and the boundary. The input
  // boundary, if this stage's backward reads it, is accounted as a live
  // position by the model.
  int64_t tape = 0;
  for (unsigned v = first; v <= last; ++v)
    if (!pinned[v] && (readByBackward[v] || isOutput[v - first]))
      tape += nodes[v].bytes;
  st.tapeBytes = tape;
  int64_t inputBytes = 0;
  if (s > 0)
    for (unsigned v : layout.outputsOf(s - 1))
      inputBytes += bytesOf(v);
  st.backwardReadsInput = attribution.readsInput[s] && inputBytes > 0;

  // Advance: the boundary's in-stage ancestors.
  std::fill(need.begin() + first, need.begin() + last + 1, 0);
  for (unsigned v : st.boundaryValues)
    need[v] = 1;
  closure(first, last, st.advanceNodes, st.forwardCost);
  // Taped forward: ancestors of the tape values and the boundary.
  std::fill(need.begin() + first, need.begin() + last + 1, 0);
  for (unsigned v = first; v <= last; ++v)
    need[v] = readByBackward[v] || isOutput[v - first];
  closure(first, last, st.tapeNodes, st.tapeCost);

  std::fill(retained.begin() + first, retained.begin() + last + 1, 0);
  for (unsigned v : st.boundaryValues)
    retained[v] = 1;
  st.advancePeakBytes = std::max(stagePeak(first, last), st.boundaryBytes);
  for (unsigned v = first; v <= last; ++v)
    retained[v] = readByBackward[v] || isOutput[v - first];
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
  return st;
}

//===----------------------------------------------------------------------===//
// buildStageChain
//===----------------------------------------------------------------------===//

/// What the merges of `groups` did, for StageChain::notes.
static std::string describeMerges(const Graph &graph, unsigned numForward,
                                  const StageGroups &groups) {
  std::string notes;
  auto add = [&](const std::string &text) {
    notes += notes.empty() ? text : "; " + text;
  };
  if (groups.mergedReads)
    add("merged " + std::to_string(groups.mergedReads) +
        " stages into the stages of backward nodes reading across "
        "separators (first: " +
        describe(graph, numForward + groups.firstReadMerge) + ")");
  if (groups.mergedOrder)
    add("merged " + std::to_string(groups.mergedOrder) +
        " stages whose backward nodes interleave (first: " +
        describe(graph, numForward + groups.firstOrderMerge) + ")");
  if (groups.mergedUnread)
    add("merged " + std::to_string(groups.mergedUnread) +
        " stages no backward node reads");
  return notes;
}

StageChain remat::sched::buildStageChain(const Graph &graph,
                                         unsigned maxCutValues) {
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

  // Pinned nodes are resident.
  std::vector<char> pinned(n, 0);
  for (unsigned v = 0; v < numForward; ++v) {
    pinned[v] = isAlwaysKept(nodes[v]);
    if (pinned[v])
      chain.pinnedBytes += nodes[v].activationBytes();
  }
  chain.reversible = true;
  if (numForward == 0 || numForward == n)
    return chain;

  FineStages fine = findFineStages(graph, numForward, pinned, maxCutValues);
  chain.numSegments = fine.size();
  std::vector<BackwardReads> reads =
      getBackwardReads(graph, numForward, pinned, fine);
  bool late = maxCutValues > 1;
  StageGroups groups = groupFineStages(fine.size(), reads, late);
  if (!groups.anyRead) {
    // No backward node reads a forward value: nothing to recompute.
    chain.notes = "no backward node reads a forward value";
    return chain;
  }
  chain.notes = describeMerges(graph, numForward, groups);

  StageLayout layout = layoutStages(fine, groups);
  chain.numFineStages = layout.size();
  BackwardAttribution attribution;
  if (std::optional<std::string> error = attributeBackward(
          graph, numForward, pinned, layout, attribution, late))
    return fail(std::move(*error));

  StageMeasurer measurer(graph, numForward, pinned, layout, attribution);
  for (unsigned s = 0; s < layout.size(); ++s) {
    chain.stages.push_back(measurer.measure(s));
    chain.numMultiValueBoundaries +=
        chain.stages.back().boundaryValues.size() > 1;
  }
  return chain;
}

std::vector<StageChain> remat::sched::buildStageChains(const Graph &graph) {
  std::vector<StageChain> chains;
  chains.push_back(buildStageChain(graph));
  if (!chains.front().reversible)
    return chains;
  StageChain cuts = buildStageChain(graph, kChainCutValues);
  if (cuts.reversible && cuts.size() > chains.front().size())
    chains.push_back(std::move(cuts));
  return chains;
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
  out.numMultiValueBoundaries = chain.numMultiValueBoundaries;

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
    merged.boundaryValues = lastSt.boundaryValues;
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
