//===- ChainSchedule.cpp - Abstract chain schedules -----------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Checking, evaluating and materialising abstract chain schedules, and
/// Chen's log(n) recursion. See Chain.h for the model.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Chain.h"

#include <algorithm>
#include <cmath>

using namespace remat::sched;

std::string remat::sched::toString(const ChainAction &action) {
  switch (action.kind) {
  case ChainActionKind::Advance:
    return "advance " + std::to_string(action.from) + "->" +
           std::to_string(action.to);
  case ChainActionKind::Checkpoint:
    return "checkpoint " + std::to_string(action.to);
  case ChainActionKind::Tape:
    return "tape " + std::to_string(action.to);
  case ChainActionKind::Backward:
    return "backward " + std::to_string(action.to);
  case ChainActionKind::Free:
    return "free " + std::to_string(action.to);
  }
  return "?";
}

namespace {
/// Executes an abstract schedule, checking it and evaluating the memory
/// model. `onForward(stage, taped, recomputed)` and `onBackward(stage)` are
/// called for every stage-level step.
class ChainInterpreter {
public:
  ChainInterpreter(unsigned numStages, const StageChain *chain,
                   ChainRunStats &stats)
      : numStages(numStages), chain(chain), stats(stats),
        held(numStages + 1, 0), taped(numStages + 1, 0),
        inputRefs(numStages + 1, 0), next(numStages) {
    stats = ChainRunStats();
  }

  template <typename OnForward, typename OnBackward>
  std::optional<std::string> run(const ChainSchedule &schedule,
                                 OnForward &&onForward,
                                 OnBackward &&onBackward) {
    if (chain && chain->size() != numStages)
      return "chain has " + std::to_string(chain->size()) +
             " stages, schedule is for " + std::to_string(numStages);
    notePeak(stateBytes());
    for (size_t i = 0, e = schedule.size(); i != e; ++i) {
      const ChainAction &action = schedule[i];
      if (std::optional<std::string> error =
              step(action, onForward, onBackward))
        return "action " + std::to_string(i) + " (" + toString(action) +
               "): " + *error;
    }
    if (next != 0)
      return "schedule ends with stage " + std::to_string(next) +
             " not reversed";
    return std::nullopt;
  }

private:
  int64_t boundary(unsigned pos) const {
    return chain ? chain->boundaryBytes(pos) : 0;
  }
  const ChainStage *stage(unsigned s) const {
    return chain ? &chain->stages[s - 1] : nullptr;
  }
  bool available(unsigned pos) const {
    return pos == 0 || held[pos] || taped[pos] || (hasCur && cur == pos);
  }
  /// Bytes position `pos` contributes: its boundary if it is live (a
  /// checkpoint, the current position, or the input of a held tape whose
  /// backward reads it) and not covered by its own stage's tape.
  int64_t positionBytes(unsigned pos) const {
    bool live = held[pos] || inputRefs[pos] || (hasCur && cur == pos);
    return live && !taped[pos] ? boundary(pos) : 0;
  }
  /// Applies `change` to the state of positions `a` and `b`, keeping
  /// `positionTotal` up to date.
  template <typename Change>
  void update(unsigned a, unsigned b, Change change) {
    positionTotal -= positionBytes(a);
    if (b != a)
      positionTotal -= positionBytes(b);
    change();
    positionTotal += positionBytes(a);
    if (b != a)
      positionTotal += positionBytes(b);
  }
  int64_t stateBytes() const {
    if (!chain)
      return 0;
    int64_t bytes = tapeBytes + positionTotal;
    if (next > 0)
      bytes += stage(next)->gradientBytes;
    return bytes;
  }
  void notePeak(int64_t bytes) {
    stats.modelPeakBytes = std::max(stats.modelPeakBytes, bytes);
  }

  void setCur(unsigned pos) {
    unsigned old = hasCur ? cur : pos;
    update(old, pos, [&] {
      cur = pos;
      hasCur = true;
    });
  }

  /// Makes `pos` the current position (a restore if it was not).
  std::optional<std::string> moveTo(unsigned pos) {
    if (pos > numStages)
      return "position out of range";
    if (!available(pos))
      return "position " + std::to_string(pos) + " is not available";
    if (hasCur && cur == pos)
      return std::nullopt;
    if (frontier < numStages)
      return "restores position " + std::to_string(pos) +
             " before the first forward sweep reached stage " +
             std::to_string(numStages);
    setCur(pos);
    return std::nullopt;
  }

  template <typename OnForward>
  std::optional<std::string> forward(unsigned s, bool tape,
                                     OnForward &onForward) {
    if (s > next)
      return "stage " + std::to_string(s) + " runs forward after its backward";
    if (taped[s])
      return "stage " + std::to_string(s) +
             " runs forward while its tape "
             "is held";
    bool first = s > frontier;
    if (first && s != frontier + 1)
      return "stage " + std::to_string(s) + " runs before stage " +
             std::to_string(frontier + 1);
    if (chain) {
      const ChainStage *st = stage(s);
      notePeak(stateBytes() +
               (tape ? st->tapePeakBytes : st->advancePeakBytes));
      double cost = tape ? st->tapeCost : st->forwardCost;
      stats.modelCost += cost;
      if (!first)
        stats.recomputeCost += cost;
    }
    if (first) {
      frontier = s;
      ++stats.firstSweepSteps;
    }
    if (tape) {
      ++stats.tapeSteps;
      bool readsInput = chain && stage(s)->backwardReadsInput;
      update(s - 1, s, [&] {
        taped[s] = 1;
        inputRefs[s - 1] += readsInput;
      });
      if (chain)
        tapeBytes += stage(s)->tapeBytes;
    } else {
      ++stats.advanceSteps;
    }
    setCur(s);
    notePeak(stateBytes());
    onForward(s, tape, !first);
    return std::nullopt;
  }

  template <typename OnForward, typename OnBackward>
  std::optional<std::string> step(const ChainAction &action,
                                  OnForward &onForward,
                                  OnBackward &onBackward) {
    switch (action.kind) {
    case ChainActionKind::Advance: {
      if (action.from >= action.to || action.to > numStages)
        return std::string("bad positions");
      if (std::optional<std::string> error = moveTo(action.from))
        return error;
      for (unsigned s = action.from + 1; s <= action.to; ++s)
        if (std::optional<std::string> error = forward(s, false, onForward))
          return error;
      return std::nullopt;
    }
    case ChainActionKind::Tape: {
      unsigned s = action.to;
      if (s == 0 || s > numStages || action.from + 1 != s)
        return std::string("bad stage");
      if (std::optional<std::string> error = moveTo(s - 1))
        return error;
      return forward(s, true, onForward);
    }
    case ChainActionKind::Checkpoint: {
      unsigned pos = action.to;
      if (pos > numStages)
        return std::string("position out of range");
      if (!hasCur || cur != pos)
        return "position " + std::to_string(pos) + " is not the current one";
      if (held[pos])
        return "position " + std::to_string(pos) + " is already a checkpoint";
      update(pos, pos, [&] { held[pos] = 1; });
      ++numHeld;
      stats.maxCheckpoints = std::max(stats.maxCheckpoints, numHeld);
      notePeak(stateBytes());
      return std::nullopt;
    }
    case ChainActionKind::Free: {
      unsigned pos = action.to;
      if (pos > numStages || !held[pos])
        return "position " + std::to_string(pos) + " is not a checkpoint";
      update(pos, pos, [&] { held[pos] = 0; });
      --numHeld;
      return std::nullopt;
    }
    case ChainActionKind::Backward: {
      unsigned s = action.to;
      if (s != next)
        return "expected the backward of stage " + std::to_string(next);
      if (!taped[s])
        return "stage " + std::to_string(s) + " is not taped";
      bool readsInput = false;
      if (chain) {
        const ChainStage *st = stage(s);
        notePeak(stateBytes() - st->tapeBytes - st->gradientBytes +
                 st->backwardPeakBytes);
        tapeBytes -= st->tapeBytes;
        readsInput = st->backwardReadsInput;
      }
      update(s - 1, s, [&] {
        taped[s] = 0;
        inputRefs[s - 1] -= readsInput;
        if (hasCur && cur == s && !held[s])
          hasCur = false;
      });
      --next;
      notePeak(stateBytes());
      onBackward(s);
      return std::nullopt;
    }
    }
    return std::string("unknown action");
  }

  unsigned numStages;
  const StageChain *chain;
  ChainRunStats &stats;
  std::vector<char> held, taped;
  /// Held tapes whose backward reads this position (their input).
  std::vector<unsigned> inputRefs;
  unsigned numHeld = 0;
  int64_t tapeBytes = 0, positionTotal = 0;
  unsigned cur = 0;
  bool hasCur = true;
  /// Stages run at least once (the first sweep runs them in order).
  unsigned frontier = 0;
  /// Next stage to reverse (0 when done).
  unsigned next;
};
} // namespace

std::optional<std::string>
remat::sched::checkChainSchedule(const ChainSchedule &schedule,
                                 unsigned numStages, ChainRunStats &stats,
                                 const StageChain *chain) {
  ChainInterpreter interp(numStages, chain, stats);
  return interp.run(
      schedule, [](unsigned, bool, bool) {}, [](unsigned) {});
}

std::optional<std::string> remat::sched::materializeChainSchedule(
    const StageChain &chain, const ChainSchedule &actions, Schedule &schedule) {
  schedule = Schedule(chain.numNodes);
  std::vector<unsigned> pending;
  ChainRunStats stats;
  ChainInterpreter interp(chain.size(), &chain, stats);
  std::optional<std::string> error = interp.run(
      actions,
      [&](unsigned s, bool tape, bool recomputed) {
        if (!recomputed)
          return;
        const ChainStage &st = chain.stages[s - 1];
        const std::vector<unsigned> &nodes =
            tape ? st.tapeNodes : st.advanceNodes;
        pending.insert(pending.end(), nodes.begin(), nodes.end());
      },
      [&](unsigned s) {
        if (pending.empty())
          return;
        std::vector<unsigned> &list =
            schedule.recomputeBefore[chain.stages[s - 1].firstBackward];
        list.insert(list.end(), pending.begin(), pending.end());
        pending.clear();
      });
  if (error)
    return error;
  if (!pending.empty())
    return std::string("forward actions after the last backward");
  return std::nullopt;
}

static std::string formatBytes(int64_t bytes) {
  return std::to_string(bytes) + " B";
}

ChainPlan remat::sched::makeChainPlan(const StageChain &chain,
                                      ChainSchedule actions,
                                      const std::string &what) {
  ChainPlan plan;
  std::string head = what + ": " + std::to_string(chain.size()) + " stages";
  if (chain.numFineStages != chain.size())
    head += " (coarsened from " + std::to_string(chain.numFineStages) + ")";
  if (chain.numMultiValueBoundaries)
    head += " (" + std::to_string(chain.numMultiValueBoundaries) +
            " with multi-value boundaries)";
  if (!chain.notes.empty())
    head += " [" + chain.notes + "]";
  if (std::optional<std::string> error =
          checkChainSchedule(actions, chain.size(), plan.stats, &chain)) {
    plan.detail = head + ": invalid chain schedule: " + *error;
    return plan;
  }
  if (std::optional<std::string> error =
          materializeChainSchedule(chain, actions, plan.schedule)) {
    plan.detail = head + ": " + *error;
    return plan;
  }
  plan.ok = true;
  plan.actions = std::move(actions);
  plan.detail = head + ", max " + std::to_string(plan.stats.maxCheckpoints) +
                " checkpoints, model peak " +
                formatBytes(plan.stats.modelPeakBytes + chain.pinnedBytes) +
                ", model recompute cost " +
                std::to_string(plan.stats.recomputeCost);
  return plan;
}

static void logNRec(unsigned a, unsigned b, ChainSchedule &out) {
  // Reverses stages a+1..b with position a available.
  while (b - a > 1) {
    unsigned m = a + (b - a) / 2;
    out.push_back(ChainAction::advance(a, m));
    out.push_back(ChainAction::checkpoint(m));
    logNRec(m, b, out);
    out.push_back(ChainAction::free(m));
    b = m;
  }
  out.push_back(ChainAction::tape(b));
  out.push_back(ChainAction::backward(b));
}

ChainSchedule remat::sched::logNSchedule(unsigned numStages) {
  ChainSchedule out;
  if (numStages > 0)
    logNRec(0, numStages, out);
  return out;
}

ChainPlan remat::sched::leastPeakChainPlan(const Graph &graph,
                                           std::vector<ChainPlan> plans) {
  size_t best = 0;
  std::optional<SimResult> bestSim;
  for (size_t i = 0; i < plans.size(); ++i) {
    SimResult sim;
    if (!plans[i].ok || simulate(graph, plans[i].schedule, sim))
      continue;
    if (!bestSim || sim.peakBytes < bestSim->peakBytes ||
        (sim.peakBytes == bestSim->peakBytes &&
         sim.recomputeCost < bestSim->recomputeCost)) {
      best = i;
      bestSim = sim;
    }
  }
  return std::move(plans[best]);
}

ChainPlan remat::sched::logN(const Graph &graph) {
  std::vector<StageChain> chains = buildStageChains(graph);
  if (!chains.front().reversible) {
    ChainPlan plan;
    plan.detail =
        "logN: graph is not a reversible chain: " + chains.front().reason;
    return plan;
  }
  std::vector<ChainPlan> plans;
  for (const StageChain &chain : chains)
    plans.push_back(makeChainPlan(chain, logNSchedule(chain.size()), "logN"));
  return leastPeakChainPlan(graph, std::move(plans));
}
