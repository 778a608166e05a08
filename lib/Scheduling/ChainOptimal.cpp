//===- ChainOptimal.cpp - Optimal checkpointing of heterogeneous chains ---===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The dynamic program of ChainOptimal.h. Stages are 1-based here, as in the
/// documentation; position p is the state after stage p. Every table row is
/// Opt(v, s, t, .) over the memory slots 0..S, stored from its first finite
/// entry to the start of its constant tail; v = kOwn when the subproblem owns
/// (and frees) its input position s-1, v = kCovered when an outer tape covers
/// it. Costs are floats (the table is O(L^2 S)); the reported cost is
/// recomputed in double from the chosen schedule.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/ChainOptimal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace remat::sched;

namespace {
constexpr int kOwn = 0;
constexpr int kCovered = 1;
constexpr float kInf = std::numeric_limits<float>::infinity();

/// The chain's sizes in some unit (bytes or slots), 1-based.
template <typename T> struct Sizes {
  unsigned L = 0;
  std::vector<T> x, aw, tw, tp, bp, g;
  std::vector<double> fc, tc;
  std::vector<char> readsInput;

  template <typename Convert>
  Sizes(const StageChain &chain, Convert convert) : L(chain.size()) {
    x.assign(L + 1, 0);
    aw = tw = tp = bp = g = x;
    fc.assign(L + 1, 0);
    tc = fc;
    readsInput.assign(L + 1, 0);
    for (unsigned s = 1; s <= L; ++s) {
      const ChainStage &st = chain.stages[s - 1];
      x[s] = convert(st.boundaryBytes);
      aw[s] = convert(st.advancePeakBytes);
      tw[s] = convert(st.tapePeakBytes);
      tp[s] = convert(st.tapeBytes);
      bp[s] = convert(st.backwardPeakBytes);
      g[s] = convert(st.gradientBytes);
      fc[s] = st.forwardCost;
      tc[s] = st.tapeCost;
      readsInput[s] = st.backwardReadsInput;
    }
  }
  T input(int v, unsigned s) const { return v == kOwn ? x[s - 1] : 0; }
  /// What stays live with the tape of stage s until its backward: the tape,
  /// and the owned input if the backward reads it.
  T tapeHold(int v, unsigned s) const {
    return tp[s] + (readsInput[s] ? input(v, s) : 0);
  }
  /// Memory needed to tape stage s (first) and reverse it (last).
  T tapeNeed(int v, unsigned s, unsigned t) const {
    T in = input(v, s);
    return std::max(in + tw[s] + g[t], bp[s] + (readsInput[s] ? in : 0));
  }
  double mul(unsigned t) const { return t == L ? 0.0 : 1.0; }
};

size_t pairIndex(unsigned L, unsigned s, unsigned t) {
  size_t len = t - s;
  return len * L - len * (len - 1) / 2 + (s - 1);
}

/// ceil(bytes * S / M), capped at S + 1 (infeasible on its own).
int toSlots(int64_t bytes, int64_t budget, int S) {
  if (bytes <= 0)
    return 0;
  if (budget <= 0 || S == 0)
    return S + 1;
  if (bytes >= budget)
    return bytes == budget ? S : S + 1;
  // bytes < budget: rem * S fits unless budget is enormous.
  if (bytes <= std::numeric_limits<int64_t>::max() / S) {
    int64_t num = bytes * S;
    int64_t slots = num / budget + (num % budget != 0);
    return static_cast<int>(std::min<int64_t>(slots, S + 1));
  }
  long double exact = static_cast<long double>(bytes) * S / budget;
  int64_t slots = static_cast<int64_t>(std::ceil(exact)) + 1;
  return static_cast<int>(std::min<int64_t>(slots, S + 1));
}

struct Row {
  /// First finite slot, and first slot from which the row is constant.
  int lo = 0;
  int hi = 0;
  /// vals[m - lo] for m in [lo, hi]; the value at hi holds up to S.
  std::vector<float> vals;
};

class ChainDP {
public:
  ChainDP(const Sizes<int> &z, int S) : z(z), S(S), L(z.L) {
    size_t pairs = static_cast<size_t>(L) * (L + 1) / 2;
    rows.resize(2 * pairs);
    buf.resize(S + 1);
  }

  const Row &row(int v, unsigned s, unsigned t) const {
    return rows[2 * pairIndex(L, s, t) + v];
  }
  float at(const Row &r, int m) const {
    if (m < r.lo || m > S)
      return kInf;
    return m >= r.hi ? r.vals.back() : r.vals[m - r.lo];
  }

  void solve() {
    // Opt(., s, t) reads Opt(., j+1, t) for j >= s and Opt(., s, j) for
    // j < t. The t range is tiled: within a tile of columns, s descends and t
    // ascends, so the rows (s, j < tile) are read for every t of the tile
    // while they are in cache, and the tile's columns stay in cache across s.
    const unsigned tile = 8;
    for (unsigned t0 = 1; t0 <= L; t0 += tile) {
      unsigned t1 = std::min(L, t0 + tile - 1);
      for (unsigned s = t1; s >= 1; --s)
        for (unsigned t = std::max(s, t0); t <= t1; ++t)
          computePair(s, t);
    }
  }

  void computePair(unsigned s, unsigned t) {
    computeRow(kCovered, s, t);
    // A free input makes both variants the same.
    if (z.input(kOwn, s) == 0)
      rows[2 * pairIndex(L, s, t) + kOwn] =
          rows[2 * pairIndex(L, s, t) + kCovered];
    else
      computeRow(kOwn, s, t);
  }

  /// Appends the actions of Opt(v, s, t, m) (which must be finite).
  void emit(int v, unsigned s, unsigned t, int m, ChainSchedule &out) const {
    Choice c = best(v, s, t, m);
    if (c.j == 0) {
      out.push_back(ChainAction::tape(s));
      if (v == kOwn && s > 1)
        out.push_back(ChainAction::free(s - 1));
      if (s < t)
        emit(kCovered, s + 1, t, m - z.tapeHold(v, s), out);
      out.push_back(ChainAction::backward(s));
      return;
    }
    unsigned j = c.j;
    int in = z.input(v, s);
    out.push_back(ChainAction::advance(s - 1, j));
    out.push_back(ChainAction::checkpoint(j));
    emit(kOwn, j + 1, t, m - in, out);
    emit(v, s, j, m, out);
  }

private:
  struct Choice {
    unsigned j = 0; // 0: tape stage s; else checkpoint position j
    float value = kInf;
  };

  Choice best(int v, unsigned s, unsigned t, int m) const {
    Choice c;
    int in = z.input(v, s);
    float mul = z.mul(t);
    int need = z.tapeNeed(v, s, t);
    if (m >= need) {
      float val = s == t
                      ? static_cast<float>(mul * z.tc[s])
                      : static_cast<float>(mul * z.tc[s]) +
                            at(row(kCovered, s + 1, t), m - z.tapeHold(v, s));
      if (val < c.value)
        c = {0, val};
    }
    int peak = 0;
    double fwd = 0;
    for (unsigned j = s; j < t; ++j) {
      peak = std::max(peak, z.aw[j] + (j > s ? z.x[j - 1] : 0));
      fwd += mul * z.fc[j];
      if (m < in + z.g[t] + peak)
        break; // the advance only gets longer
      float val = static_cast<float>(fwd) + at(row(kOwn, j + 1, t), m - in) +
                  at(row(v, s, j), m);
      if (val < c.value)
        c = {j, val};
    }
    return c;
  }

  void computeRow(int v, unsigned s, unsigned t) {
    std::fill(buf.begin(), buf.end(), kInf);
    int in = z.input(v, s);
    float mul = z.mul(t);
    float *b = buf.data();

    // Tape stage s.
    int need = z.tapeNeed(v, s, t);
    if (s == t) {
      float val = static_cast<float>(mul * z.tc[s]);
      for (int m = need; m <= S; ++m)
        b[m] = val;
    } else {
      const Row &sub = row(kCovered, s + 1, t);
      int hold = z.tapeHold(v, s);
      float base = static_cast<float>(mul * z.tc[s]);
      int start = std::max(need, sub.lo + hold);
      int flat = std::min(S + 1, std::max(start, sub.hi + hold));
      if (start <= S) {
        const float *sv = sub.vals.data() + (start - hold - sub.lo);
        for (int i = 0, e = flat - start; i < e; ++i)
          b[start + i] = base + sv[i];
        float last = base + sub.vals.back();
        for (int m = flat; m <= S; ++m)
          b[m] = last;
      }
    }

    // Advance to j and checkpoint it.
    int peak = 0;
    double fwd = 0;
    for (unsigned j = s; j < t; ++j) {
      peak = std::max(peak, z.aw[j] + (j > s ? z.x[j - 1] : 0));
      fwd += mul * z.fc[j];
      int advNeed = in + z.g[t] + peak;
      if (advNeed > S)
        break;
      const Row &right = row(kOwn, j + 1, t);
      const Row &left = row(v, s, j);
      int start = std::max({advNeed, right.lo + in, left.lo});
      if (start > S)
        continue;
      // The right row is an array for m < endR and constant after, the left
      // one for m < endL; the part where both are constant is a tail.
      float f = static_cast<float>(fwd);
      float lastR = right.vals.back(), lastL = left.vals.back();
      int endR = right.hi + in, endL = left.hi;
      int end1 = std::min({endR, endL, S + 1});
      if (start < end1) {
        const float *rv = right.vals.data() + (start - in - right.lo);
        const float *lv = left.vals.data() + (start - left.lo);
        float *out = b + start;
        for (int i = 0, e = end1 - start; i < e; ++i) {
          float val = f + rv[i] + lv[i];
          out[i] = val < out[i] ? val : out[i];
        }
      }
      int from2 = std::max(start, end1);
      int end2 = std::min(std::max(endR, endL), S + 1);
      if (from2 < end2) {
        float *out = b + from2;
        if (endR < endL) {
          const float *lv = left.vals.data() + (from2 - left.lo);
          for (int i = 0, e = end2 - from2; i < e; ++i) {
            float val = f + lastR + lv[i];
            out[i] = val < out[i] ? val : out[i];
          }
        } else {
          const float *rv = right.vals.data() + (from2 - in - right.lo);
          for (int i = 0, e = end2 - from2; i < e; ++i) {
            float val = f + rv[i] + lastL;
            out[i] = val < out[i] ? val : out[i];
          }
        }
      }
      int from3 = std::max(start, end2);
      if (from3 <= S)
        tails.push_back({from3, f + lastR + lastL});
    }
    // Constant tails: one sweep with the running minimum of the tails begun.
    if (!tails.empty()) {
      std::sort(tails.begin(), tails.end(),
                [](const Tail &a, const Tail &b) { return a.from < b.from; });
      float runMin = kInf;
      size_t k = 0;
      for (int m = tails.front().from; m <= S; ++m) {
        while (k < tails.size() && tails[k].from <= m)
          runMin = std::min(runMin, tails[k++].value);
        b[m] = runMin < b[m] ? runMin : b[m];
      }
      tails.clear();
    }

    Row &r = rows[2 * pairIndex(L, s, t) + v];
    int lo = 0;
    while (lo <= S && b[lo] == kInf)
      ++lo;
    int hi = S + 1;
    if (lo <= S) {
      hi = S;
      while (hi > lo && b[hi - 1] == b[S])
        --hi;
    }
    r.lo = lo;
    r.hi = hi;
    // Up to the first entry of the constant tail.
    if (lo <= S)
      r.vals.assign(buf.begin() + lo, buf.begin() + hi + 1);
    else
      r.vals.clear();
  }

  struct Tail {
    int from;
    float value;
  };

  const Sizes<int> &z;
  int S;
  unsigned L;
  std::vector<Row> rows;
  std::vector<float> buf;
  std::vector<Tail> tails;
};

/// Exact least memory, in bytes, of every subproblem.
class MinMemory {
public:
  explicit MinMemory(const StageChain &chain)
      : z(chain, [](int64_t b) { return b; }), L(z.L) {
    size_t pairs = static_cast<size_t>(L) * (L + 1) / 2;
    table.assign(2 * pairs, 0);
    for (unsigned len = 0; len < L; ++len)
      for (unsigned s = 1; s + len <= L; ++s)
        for (int v = 0; v < 2; ++v)
          table[2 * pairIndex(L, s, s + len) + v] = best(v, s, s + len).value;
  }

  int64_t value(int v, unsigned s, unsigned t) const {
    return table[2 * pairIndex(L, s, t) + v];
  }

  void emit(int v, unsigned s, unsigned t, ChainSchedule &out) const {
    Choice c = best(v, s, t);
    if (c.j == 0) {
      out.push_back(ChainAction::tape(s));
      if (v == kOwn && s > 1)
        out.push_back(ChainAction::free(s - 1));
      if (s < t)
        emit(kCovered, s + 1, t, out);
      out.push_back(ChainAction::backward(s));
      return;
    }
    out.push_back(ChainAction::advance(s - 1, c.j));
    out.push_back(ChainAction::checkpoint(c.j));
    emit(kOwn, c.j + 1, t, out);
    emit(v, s, c.j, out);
  }

private:
  struct Choice {
    unsigned j = 0;
    int64_t value = std::numeric_limits<int64_t>::max();
  };

  Choice best(int v, unsigned s, unsigned t) const {
    int64_t in = z.input(v, s);
    Choice c;
    int64_t tape = z.tapeNeed(v, s, t);
    if (s < t)
      tape = std::max(tape, z.tapeHold(v, s) + value(kCovered, s + 1, t));
    c = {0, tape};
    int64_t peak = 0;
    for (unsigned j = s; j < t; ++j) {
      peak = std::max(peak, z.aw[j] + (j > s ? z.x[j - 1] : 0));
      int64_t need = std::max(
          {in + z.g[t] + peak, in + value(kOwn, j + 1, t), value(v, s, j)});
      if (need < c.value)
        c = {j, need};
    }
    return c;
  }

  Sizes<int64_t> z;
  unsigned L;
  std::vector<int64_t> table;
};
} // namespace

int64_t remat::sched::chainMinModelBytes(const StageChain &chain) {
  if (chain.size() == 0)
    return 0;
  return MinMemory(chain).value(kCovered, 1, chain.size());
}

ChainSchedule remat::sched::chainMinMemorySchedule(const StageChain &chain) {
  ChainSchedule out;
  if (chain.size() == 0)
    return out;
  MinMemory(chain).emit(kCovered, 1, chain.size(), out);
  return out;
}

ChainSolution remat::sched::solveChainOptimal(const StageChain &chain,
                                              int64_t modelBudget,
                                              unsigned slots) {
  ChainSolution sol;
  unsigned L = chain.size();
  sol.minModelBytes = chainMinModelBytes(chain);
  if (L == 0) {
    sol.feasible = modelBudget >= 0;
    return sol;
  }
  if (modelBudget < sol.minModelBytes)
    return sol;
  // Sizes are measured in their greatest common divisor (tensor sizes often
  // share a large one), so that small budgets are solved exactly.
  int64_t unit = 0;
  for (const ChainStage &st : chain.stages)
    for (int64_t b : {st.boundaryBytes, st.tapeBytes, st.advancePeakBytes,
                      st.tapePeakBytes, st.backwardPeakBytes, st.gradientBytes})
      unit = std::gcd(unit, b);
  unit = std::max<int64_t>(unit, 1);
  int64_t budgetUnits = modelBudget / unit;
  int S = static_cast<int>(std::max<int64_t>(
      0, std::min<int64_t>(std::max(slots, 1u), budgetUnits)));
  sol.slots = S;
  sol.slotBytes = S ? static_cast<double>(budgetUnits) * unit / S : 0;
  Sizes<int> z(chain,
               [&](int64_t b) { return toSlots(b / unit, budgetUnits, S); });
  ChainDP dp(z, S);
  dp.solve();
  if (dp.at(dp.row(kCovered, 1, L), S) == kInf)
    return sol;
  sol.feasible = true;
  dp.emit(kCovered, 1, L, S, sol.actions);
  ChainRunStats stats;
  if (!checkChainSchedule(sol.actions, L, stats, &chain))
    sol.cost = stats.recomputeCost;
  return sol;
}

ChainPlan remat::sched::chainOptimal(const Graph &graph, int64_t budgetBytes,
                                     const ChainOptimalOptions &options) {
  std::string what = "chainOptimal(budget=" + std::to_string(budgetBytes) +
                     " B, S=" + std::to_string(options.slots) + ")";
  StageChain fine = buildStageChain(graph);
  if (!fine.reversible) {
    ChainPlan plan;
    plan.detail = what + ": graph is not a reversible chain: " + fine.reason;
    return plan;
  }
  if (fine.size() == 0) {
    // Nothing a backward node reads: store-all is the only schedule.
    ChainPlan plan = makeChainPlan(fine, {}, what);
    SimResult sim;
    if (std::optional<std::string> error =
            simulate(graph, plan.schedule, sim)) {
      plan.ok = false;
      plan.detail += ": simulate rejected the schedule: " + *error;
    } else if (sim.peakBytes > budgetBytes) {
      plan.ok = false;
      plan.infeasible = true;
      plan.minFeasibleBytes = sim.peakBytes;
      plan.detail += ": infeasible: nothing to recompute, store-all peaks at " +
                     std::to_string(sim.peakBytes) + " B";
    }
    return plan;
  }
  StageChain chain = coarsen(fine, options.maxStages);
  int64_t modelBudget = budgetBytes - chain.pinnedBytes;
  int64_t minModel = chainMinModelBytes(chain);
  auto infeasible = [&](int64_t minBytes, const std::string &why) {
    ChainPlan plan;
    plan.infeasible = true;
    plan.minFeasibleBytes = minBytes;
    plan.detail = what + ": infeasible: " + why + "; the chain model (" +
                  std::to_string(chain.size()) + " stages" +
                  (chain.size() != fine.size()
                       ? ", coarsened from " + std::to_string(fine.size())
                       : std::string()) +
                  ") needs at least " + std::to_string(minBytes) + " B";
    return plan;
  };
  if (modelBudget < minModel)
    return infeasible(minModel + chain.pinnedBytes, "budget below the minimum");

  // The model over-approximates simulate, so the first attempt should fit;
  // should it not, retry with the overshoot taken off the model budget.
  std::string note;
  for (int attempt = 0; attempt < 3; ++attempt) {
    ChainSolution sol = solveChainOptimal(chain, modelBudget, options.slots);
    ChainSchedule actions;
    if (sol.feasible) {
      actions = std::move(sol.actions);
    } else {
      // Rounding sizes up to slots lost feasibility; the minimum-memory
      // schedule still fits (modelBudget >= minModel).
      actions = chainMinMemorySchedule(chain);
      note += ", discretised DP infeasible: minimum-memory schedule used";
    }
    ChainPlan plan = makeChainPlan(chain, std::move(actions), what);
    if (!plan.ok)
      return plan;
    SimResult sim;
    if (std::optional<std::string> error =
            simulate(graph, plan.schedule, sim)) {
      plan.ok = false;
      plan.detail += ": simulate rejected the schedule: " + *error;
      return plan;
    }
    plan.detail += note + ", simulated peak " + std::to_string(sim.peakBytes) +
                   " B, recompute cost " + std::to_string(sim.recomputeCost);
    if (sim.peakBytes <= budgetBytes)
      return plan;
    note += ", model exceeded by " +
            std::to_string(sim.peakBytes - budgetBytes) + " B (retried)";
    modelBudget -= sim.peakBytes - budgetBytes;
    if (modelBudget < minModel)
      break;
  }
  return infeasible(minModel + chain.pinnedBytes,
                    "the simulated peak exceeded the budget" + note);
}
