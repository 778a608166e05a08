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
#include "remat/Scheduling/Revolve.h"

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

/// The options of subproblem (v, s, t) that advance from position s-1 to a
/// checkpoint j (s <= j < t): calls `visit(j, fwd, need)` for each j in
/// increasing order, where `fwd` is the cost of the advance and `need` the
/// memory it needs (the owned input, the final gradient and the advance's
/// peak, which only grows with j). Stops when `visit` returns false.
template <typename T, typename Visit>
void forEachAdvance(const Sizes<T> &z, int v, unsigned s, unsigned t,
                    Visit visit) {
  T in = z.input(v, s), peak = 0;
  double mul = z.mul(t), fwd = 0;
  for (unsigned j = s; j < t; ++j) {
    peak = std::max(peak, z.aw[j] + (j > s ? z.x[j - 1] : 0));
    fwd += mul * z.fc[j];
    if (!visit(j, fwd, in + z.g[t] + peak))
      return;
  }
}

/// Appends the actions of subproblem (v, s, t) with memory `m`, where
/// `choose(v, s, t, m)` is the option the table took: 0 tapes stage s (its
/// backward runs last, the rest of the chain in between with the tape
/// held), j > 0 advances to position j and checkpoints it (the right part
/// (j+1, t) runs first, owning j, then the left part (s, j)). Each of the
/// three tables (slotted, exact, least memory) emits its schedule this way.
template <typename T, typename Choose>
void emitChoices(const Sizes<T> &z, int v, unsigned s, unsigned t, T m,
                 const Choose &choose, ChainSchedule &out) {
  unsigned j = choose(v, s, t, m);
  if (j == 0) {
    out.push_back(ChainAction::tape(s));
    if (v == kOwn && s > 1)
      out.push_back(ChainAction::free(s - 1));
    if (s < t)
      emitChoices(z, kCovered, s + 1, t, m - z.tapeHold(v, s), choose, out);
    out.push_back(ChainAction::backward(s));
    return;
  }
  out.push_back(ChainAction::advance(s - 1, j));
  out.push_back(ChainAction::checkpoint(j));
  emitChoices(z, kOwn, j + 1, t, m - z.input(v, s), choose, out);
  emitChoices(z, v, s, j, m, choose, out);
}

/// bytes * S / M in slots, rounded up (`nearest` false: a schedule that fits
/// in slots fits in bytes) or to the nearest integer (`nearest` true: no such
/// guarantee, the caller checks the schedule in bytes), capped at S + 1
/// (infeasible on its own).
int toSlots(int64_t bytes, int64_t budget, int S, bool nearest) {
  if (bytes <= 0)
    return 0;
  if (budget <= 0 || S == 0)
    return S + 1;
  if (bytes >= budget)
    return bytes == budget ? S : S + 1;
  // bytes < budget: bytes * S fits unless budget is enormous; 2 * num +
  // budget and 2 * budget must fit too (a user budget may be near 2^63).
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (bytes <= kMax / (4 * int64_t(S)) && budget <= kMax / 4) {
    int64_t num = bytes * S;
    int64_t slots = nearest ? (2 * num + budget) / (2 * budget)
                            : num / budget + (num % budget != 0);
    return static_cast<int>(std::min<int64_t>(slots, S + 1));
  }
  long double exact = static_cast<long double>(bytes) * S / budget;
  int64_t slots = nearest ? static_cast<int64_t>(std::llround(exact))
                          : static_cast<int64_t>(std::ceil(exact)) + 1;
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
    emitChoices(
        z, v, s, t, m,
        [&](int v, unsigned s, unsigned t, int m) {
          return best(v, s, t, m).j;
        },
        out);
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
    forEachAdvance(z, v, s, t, [&](unsigned j, double fwd, int advNeed) {
      if (m < advNeed)
        return false; // the advance only gets longer
      float val = static_cast<float>(fwd) + at(row(kOwn, j + 1, t), m - in) +
                  at(row(v, s, j), m);
      if (val < c.value)
        c = {j, val};
      return true;
    });
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
    forEachAdvance(z, v, s, t, [&](unsigned j, double fwd, int advNeed) {
      if (advNeed > S)
        return false;
      const Row &right = row(kOwn, j + 1, t);
      const Row &left = row(v, s, j);
      int start = std::max({advNeed, right.lo + in, left.lo});
      if (start > S)
        return true;
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
      return true;
    });
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

/// A non-increasing step function of the memory m in bytes: value vals[k]
/// on [xs[k], xs[k+1]) (the last piece up to the budget), infinite below
/// xs[0]; no points at all means infinite everywhere. Values strictly
/// decrease from one point to the next.
/// Total breakpoints over all rows beyond which the exact DP gives way to
/// the discretised one (16 bytes each).
constexpr size_t kMaxExactPoints = size_t(1) << 22;
/// Mean breakpoints per row beyond which it does so.
constexpr size_t kMaxMeanPoints = 16;

struct StepFn {
  std::vector<int64_t> xs;
  std::vector<double> vals;

  double at(int64_t m) const {
    auto it = std::upper_bound(xs.begin(), xs.end(), m);
    if (it == xs.begin())
      return kInfD;
    return vals[it - xs.begin() - 1];
  }
  size_t size() const { return xs.size(); }
  static constexpr double kInfD = std::numeric_limits<double>::infinity();
};

/// Appends (x, v) to `out` if v is below its last value (ties within a
/// relative 1e-12 are equal: costs are sums of the same numbers in different
/// orders).
void pushPoint(StepFn &out, int64_t x, double v) {
  if (!out.vals.empty()) {
    double last = out.vals.back();
    if (!(v < last - 1e-12 * std::abs(last)))
      return;
    if (out.xs.back() == x) {
      out.vals.back() = v;
      return;
    }
  }
  out.xs.push_back(x);
  out.vals.push_back(v);
}

/// The dynamic program of the file comment in exact bytes: every row is a
/// step function of the memory, so no size is rounded and the result is the
/// optimum of the nested persistent class for the budget. Rows only change
/// where some combination of sizes is reached, so they stay short when the
/// budget holds a few tens of values; `solve` gives up (returns false) when
/// the rows grow beyond `maxPoints` in total.
class ExactChainDP {
public:
  ExactChainDP(const Sizes<int64_t> &z, int64_t budget)
      : z(z), budget(budget), L(z.L) {
    size_t pairs = static_cast<size_t>(L) * (L + 1) / 2;
    rows.resize(2 * pairs);
  }

  const StepFn &row(int v, unsigned s, unsigned t) const {
    return rows[2 * pairIndex(L, s, t) + v];
  }

  bool solve(size_t maxPoints) {
    size_t total = 0, rowsDone = 0;
    for (unsigned len = 0; len < L; ++len) {
      for (unsigned s = 1; s + len <= L; ++s) {
        unsigned t = s + len;
        for (int v : {kCovered, kOwn}) {
          StepFn &r = rows[2 * pairIndex(L, s, t) + v];
          if (v == kOwn && z.input(kOwn, s) == 0)
            r = row(kCovered, s, t);
          else
            r = computeRow(v, s, t);
          total += r.size();
        }
        rowsDone += 2;
      }
      // Long rows make the exact table slower than the discretised one (and
      // rows only grow with the length): give up early.
      if (total > maxPoints || total > kMaxMeanPoints * rowsDone)
        return false;
    }
    return true;
  }

  /// Appends the actions of Opt(v, s, t, m) (which must be finite).
  void emit(int v, unsigned s, unsigned t, int64_t m,
            ChainSchedule &out) const {
    emitChoices(
        z, v, s, t, m,
        [&](int v, unsigned s, unsigned t, int64_t m) {
          return choose(v, s, t, m, row(v, s, t).at(m));
        },
        out);
  }

private:
  /// The option of Opt(v, s, t, m) reaching `target` (0: tape stage s, else
  /// the checkpoint position), the cheapest if none does exactly.
  unsigned choose(int v, unsigned s, unsigned t, int64_t m,
                  double target) const {
    unsigned bestJ = 0;
    double bestVal = StepFn::kInfD;
    auto consider = [&](unsigned j, double val) {
      if (val < bestVal) {
        bestVal = val;
        bestJ = j;
      }
    };
    double mul = z.mul(t);
    if (m >= z.tapeNeed(v, s, t))
      consider(0, mul * z.tc[s] +
                      (s == t ? 0.0
                              : row(kCovered, s + 1, t).at(m - z.tapeHold(v, s))));
    int64_t in = z.input(v, s);
    forEachAdvance(z, v, s, t, [&](unsigned j, double fwd, int64_t advNeed) {
      if (m < advNeed)
        return false;
      consider(j, fwd + row(kOwn, j + 1, t).at(m - in) + row(v, s, j).at(m));
      return !(bestVal <= target + 1e-9 * std::abs(target));
    });
    return bestJ;
  }

  /// out = min(a, b) pointwise.
  static void minOf(const StepFn &a, const StepFn &b, StepFn &out) {
    out.xs.clear();
    out.vals.clear();
    size_t i = 0, k = 0;
    double va = StepFn::kInfD, vb = StepFn::kInfD;
    while (i < a.size() || k < b.size()) {
      int64_t x = std::min(i < a.size() ? a.xs[i] : INT64_MAX,
                           k < b.size() ? b.xs[k] : INT64_MAX);
      while (i < a.size() && a.xs[i] == x)
        va = a.vals[i++];
      while (k < b.size() && b.xs[k] == x)
        vb = b.vals[k++];
      pushPoint(out, x, std::min(va, vb));
    }
  }

  /// Replaces acc by min(acc, opt).
  void accumulate(StepFn &acc, const StepFn &opt) {
    if (!opt.size())
      return;
    if (!acc.size()) {
      acc = opt;
      return;
    }
    minOf(acc, opt, tmp);
    std::swap(acc, tmp);
  }

  StepFn computeRow(int v, unsigned s, unsigned t) {
    StepFn &acc = accBuf;
    acc.xs.clear();
    acc.vals.clear();
    int64_t in = z.input(v, s);
    double mul = z.mul(t);

    // Tape stage s.
    {
      int64_t need = z.tapeNeed(v, s, t);
      double base = mul * z.tc[s];
      if (s == t) {
        if (need <= budget)
          pushPoint(acc, need, base);
      } else {
        const StepFn &sub = row(kCovered, s + 1, t);
        int64_t hold = z.tapeHold(v, s);
        if (sub.size()) {
          int64_t start = std::max(need, sub.xs[0] + hold);
          if (start <= budget) {
            pushPoint(acc, start, base + sub.at(start - hold));
            for (size_t k = 0; k < sub.size(); ++k) {
              int64_t x = sub.xs[k] + hold;
              if (x > start && x <= budget)
                pushPoint(acc, x, base + sub.vals[k]);
            }
          }
        }
      }
    }

    // Advance to j and checkpoint it.
    StepFn &opt = optBuf;
    forEachAdvance(z, v, s, t, [&](unsigned j, double fwd, int64_t advNeed) {
      if (advNeed > budget)
        return false;
      const StepFn &right = row(kOwn, j + 1, t);
      const StepFn &left = row(v, s, j);
      if (!right.size() || !left.size())
        return true;
      int64_t start = std::max({advNeed, right.xs[0] + in, left.xs[0]});
      if (start > budget)
        return true;
      // Dominated everywhere: no value of the option is below what the row
      // already has at the option's first point.
      double floor = fwd + right.vals.back() + left.vals.back();
      if (acc.size() && !(acc.at(start) > floor))
        return true;
      opt.xs.clear();
      opt.vals.clear();
      double vr = right.at(start - in), vl = left.at(start);
      pushPoint(opt, start, fwd + vr + vl);
      size_t i = std::upper_bound(right.xs.begin(), right.xs.end(),
                                  start - in) -
                 right.xs.begin();
      size_t k = std::upper_bound(left.xs.begin(), left.xs.end(), start) -
                 left.xs.begin();
      while (i < right.size() || k < left.size()) {
        int64_t x = std::min(i < right.size() ? right.xs[i] + in : INT64_MAX,
                             k < left.size() ? left.xs[k] : INT64_MAX);
        if (x > budget)
          break;
        while (i < right.size() && right.xs[i] + in == x)
          vr = right.vals[i++];
        while (k < left.size() && left.xs[k] == x)
          vl = left.vals[k++];
        pushPoint(opt, x, fwd + vr + vl);
      }
      accumulate(acc, opt);
      return true;
    });
    return acc;
  }

  const Sizes<int64_t> &z;
  int64_t budget;
  unsigned L;
  std::vector<StepFn> rows;
  StepFn accBuf, optBuf, tmp;
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
    // The least memory of a subproblem does not depend on a memory bound.
    emitChoices(
        z, v, s, t, int64_t(0),
        [&](int v, unsigned s, unsigned t, int64_t) { return best(v, s, t).j; },
        out);
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
    forEachAdvance(z, v, s, t, [&](unsigned j, double, int64_t advNeed) {
      int64_t need =
          std::max({advNeed, in + value(kOwn, j + 1, t), value(v, s, j)});
      if (need < c.value)
        c = {j, need};
      return true;
    });
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
                                              unsigned slots, bool tryExact) {
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
  // When the budget holds at most S units the slotted table is exact and
  // fastest; otherwise exact in bytes first, the discretised table when the
  // rows grow too long.
  if (tryExact && budgetUnits > S) {
    Sizes<int64_t> z(chain, [](int64_t b) { return b; });
    ExactChainDP dp(z, modelBudget);
    if (dp.solve(kMaxExactPoints)) {
      sol.exact = true;
      sol.slots = 0;
      sol.slotBytes = 0;
      if (dp.row(kCovered, 1, L).at(modelBudget) == StepFn::kInfD)
        return sol;
      ChainSchedule actions;
      dp.emit(kCovered, 1, L, modelBudget, actions);
      ChainRunStats stats;
      if (!checkChainSchedule(actions, L, stats, &chain) &&
          stats.modelPeakBytes <= modelBudget) {
        sol.feasible = true;
        sol.cost = stats.recomputeCost;
        sol.actions = std::move(actions);
      }
      return sol;
    }
  }
  // With one slot per unit the sizes are exact. Otherwise round to the
  // nearest slot first (rounding every size up loses up to one slot per value
  // held: six 1000 B layers and a 4 B loss in 500 slots of 12 B fit five
  // layers only) and keep the schedule if it fits in bytes; if it overshoots
  // by d bytes, solve again with ceil(d / slot) slots less (a few times), and
  // finally round every size up, which is conservative.
  bool exact = budgetUnits <= S;
  sol.exact = exact;
  double unitsPerSlot = S ? static_cast<double>(budgetUnits) / S : 1;
  int capacity = S;
  for (int attempt = 0; attempt < 5; ++attempt) {
    bool nearest = !exact && attempt < 4;
    if (!nearest && attempt > 0 && exact)
      break;
    if (!nearest)
      capacity = S;
    Sizes<int> z(chain, [&](int64_t b) {
      return toSlots(b / unit, budgetUnits, S, nearest);
    });
    ChainDP dp(z, capacity);
    dp.solve();
    if (dp.at(dp.row(kCovered, 1, L), capacity) == kInf) {
      if (!nearest)
        break;
      attempt = 3; // Rounding up next.
      continue;
    }
    ChainSchedule actions;
    dp.emit(kCovered, 1, L, capacity, actions);
    ChainRunStats stats;
    if (checkChainSchedule(actions, L, stats, &chain))
      break; // Not expected: the DP emits valid schedules.
    if (stats.modelPeakBytes > modelBudget) {
      double over = static_cast<double>(stats.modelPeakBytes - modelBudget) /
                    unit / unitsPerSlot;
      capacity -= std::max(1, static_cast<int>(std::ceil(over)));
      if (capacity <= 0)
        attempt = 3;
      continue;
    }
    sol.feasible = true;
    sol.cost = stats.recomputeCost;
    sol.actions = std::move(actions);
    break;
  }
  return sol;
}

namespace {
/// The candidates of `chainOptimal`, each materialised and judged by
/// `simulate`: the cheapest whose simulated peak fits the budget wins.
class Judge {
public:
  Judge(const Graph &graph, int64_t budget, std::string what)
      : graph(graph), budget(budget), what(std::move(what)) {}

  /// Simulates `actions` on `chain`; keeps the plan if it fits and is the
  /// cheapest so far. Returns the simulated peak (none if the schedule was
  /// rejected, which is an internal error reported in the final detail).
  std::optional<int64_t> consider(const StageChain &chain,
                                  ChainSchedule actions,
                                  const std::string &how) {
    ChainPlan plan = makeChainPlan(chain, std::move(actions), what + ": " + how);
    if (!plan.ok) {
      error = plan.detail;
      return std::nullopt;
    }
    SimResult sim;
    if (std::optional<std::string> err = simulate(graph, plan.schedule, sim)) {
      error = plan.detail + ": simulate rejected the schedule: " + *err;
      return std::nullopt;
    }
    ++tried;
    if (sim.peakBytes <= budget &&
        (!best || sim.recomputeCost < bestSim.recomputeCost)) {
      plan.detail += ", simulated peak " + std::to_string(sim.peakBytes) +
                     " B, recompute cost " + std::to_string(sim.recomputeCost);
      best = std::move(plan);
      bestSim = sim;
    }
    return sim.peakBytes;
  }

  const Graph &graph;
  int64_t budget;
  std::string what;
  std::optional<ChainPlan> best;
  SimResult bestSim;
  std::string error;
  unsigned tried = 0;
};
} // namespace

/// Binomial schedules with more recomputations than this are judged by the
/// model alone when the model says they exceed the budget.
constexpr uint64_t kMaxJudgedForwards = 2000000;

/// Binomial schedules estimated to recompute more forward ops than this (or
/// than 16 per op of the graph, if that is more) are never materialised:
/// with few slots on a long chain the count grows quadratically (one slot on
/// 6,000 stages: 1.5 * 10^8 recomputations), and simulating, returning or
/// rewriting such a plan is out of proportion to the graph.
constexpr double kMaxMaterialisedRecomputes = 2e6;

/// The model peak of storing every tape in the first sweep (the most memory
/// any useful schedule needs in the model).
static int64_t tapeAllModelPeak(const StageChain &chain) {
  ChainSchedule actions;
  for (unsigned s = 1; s <= chain.size(); ++s)
    actions.push_back(ChainAction::tape(s));
  for (unsigned s = chain.size(); s >= 1; --s)
    actions.push_back(ChainAction::backward(s));
  ChainRunStats stats;
  if (checkChainSchedule(actions, chain.size(), stats, &chain))
    return 0;
  return stats.modelPeakBytes;
}

/// What `searchChain` found below the budget: the least peak it saw (the
/// model's least memory when nothing was simulated lower), and the chain's
/// length for the message.
struct ChainSearch {
  int64_t least = 0;
  unsigned stages = 0, fineStages = 0;
};

/// The candidates of `chainOptimal` on one stage chain `fine` (uncoarsened),
/// each judged by `judge`.
static ChainSearch searchChain(const Graph &graph, const StageChain &fine,
                               int64_t budgetBytes,
                               const ChainOptimalOptions &options,
                               Judge &judge) {
  StageChain chain = coarsen(fine, options.maxStages);
  bool coarsened = chain.size() != fine.size();
  int64_t modelBudget = budgetBytes - chain.pinnedBytes;
  int64_t minModel = chainMinModelBytes(chain);

  // 1. The DP at the budget. The model over-approximates simulate (every
  //    size is a per-stage maximum), so its plan fits; as it can be far from
  //    tight on DAGs, larger model budgets are tried too (bisection, three
  //    solves), each plan judged by simulate.
  auto dpAt = [&](int64_t model) -> std::optional<int64_t> {
    if (model < minModel)
      return std::nullopt;
    ChainSolution sol = solveChainOptimal(chain, model, options.slots);
    std::string how = "dynamic program (model budget " +
                      std::to_string(model + chain.pinnedBytes) + " B)";
    if (sol.feasible)
      return judge.consider(chain, std::move(sol.actions), how);
    return judge.consider(chain, chainMinMemorySchedule(chain),
                          "minimum-memory schedule (the discretised DP "
                          "found none)");
  };
  std::optional<int64_t> minMemoryPeak;
  if (modelBudget < minModel) {
    // Below the model's minimum; its least-memory plan may still fit in
    // simulation.
    minMemoryPeak = judge.consider(chain, chainMinMemorySchedule(chain),
                                   "minimum-memory schedule of the model");
  } else {
    int64_t lo = modelBudget;
    std::optional<int64_t> peak = dpAt(lo);
    if (peak && *peak <= budgetBytes) {
      int64_t hi = std::max(lo, tapeAllModelPeak(chain));
      for (int step = 0; step < 3 && hi - lo > 1 && *peak < budgetBytes;
           ++step) {
        int64_t mid = lo + (hi - lo) / 2;
        std::optional<int64_t> p = dpAt(mid);
        if (p && *p <= budgetBytes)
          lo = mid;
        else
          hi = mid;
      }
    }
  }

  // 2. The binomial schedule on the uncoarsened chain with the most slots
  //    whose simulated peak fits (bisection): optimal on homogeneous chains
  //    of any length (Revolve.h), and what guarantees that chain-opt never
  //    declines a budget Revolve meets nor recomputes more than Revolve at
  //    Revolve's peak.
  // The peak of the binomial schedule with the fewest slots tried that is
  // not too long to materialise (one slot, unless that one is).
  std::optional<int64_t> oneSlotPeak;
  {
    unsigned L = fine.size();
    unsigned lo = 1, hi = L;
    size_t numForward = 0;
    for (const Node &node : graph.nodes)
      numForward += !node.backward;
    double maxRecomputes =
        std::max(kMaxMaterialisedRecomputes, 16.0 * double(graph.size()));
    unsigned fewestSlots = ~0u;
    while (lo <= hi) {
      unsigned mid = lo + (hi - lo) / 2;
      uint64_t forwards = revolveMinForwards(L, mid);
      bool tooLong =
          double(forwards) * double(numForward) / double(L) > maxRecomputes;
      ChainSchedule actions = revolveSchedule(L, mid);
      // The model bounds the simulated peak: a schedule within the budget in
      // the model needs no simulation to decide the bisection, and one far
      // outside it that would materialise millions of recomputations is
      // judged by the model alone.
      ChainRunStats stats;
      bool modelOk = !checkChainSchedule(actions, L, stats, &fine);
      int64_t modelPeak = stats.modelPeakBytes + fine.pinnedBytes;
      std::optional<int64_t> peak;
      if (modelOk && modelPeak > budgetBytes && forwards > kMaxJudgedForwards)
        peak = modelPeak;
      else if (modelOk && tooLong) {
        // It may fit, but is never offered: more slots, fewer
        // recomputations.
        lo = mid + 1;
        continue;
      } else
        peak = judge.consider(fine, std::move(actions),
                              "binomial schedule with " + std::to_string(mid) +
                                  " slots" +
                                  (coarsened ? " on the uncoarsened chain"
                                             : ""));
      if (mid < fewestSlots && !tooLong) {
        fewestSlots = mid;
        oneSlotPeak = peak;
      }
      if (peak && *peak <= budgetBytes)
        lo = mid + 1;
      else if (mid == 1)
        break;
      else
        hi = mid - 1;
    }
  }

  ChainSearch result;
  result.least = minMemoryPeak ? *minMemoryPeak : minModel + chain.pinnedBytes;
  if (oneSlotPeak)
    result.least = std::min(result.least, *oneSlotPeak);
  result.stages = chain.size();
  result.fineStages = fine.size();
  return result;
}

ChainPlan remat::sched::chainOptimal(const Graph &graph, int64_t budgetBytes,
                                     const ChainOptimalOptions &options) {
  std::string what = "chainOptimal(budget=" + std::to_string(budgetBytes) +
                     " B, S=" + std::to_string(options.slots) + ")";
  std::vector<StageChain> chains = buildStageChains(graph);
  const StageChain &fine = chains.front();
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
  if (fine.size() == 1 && chains.size() == 1) {
    // A single stage: its only schedule keeps everything. Say why, so that
    // the planner's notes point at the DAG methods.
    ChainPlan plan;
    plan.detail = what +
                  ": the graph has no useful separators: its forward "
                  "pass is a single stage (" +
                  std::to_string(fine.numSegments) + " separator segment" +
                  (fine.numSegments == 1 ? "" : "s") +
                  (fine.notes.empty() ? std::string() : "; " + fine.notes) +
                  "), where a chain schedule can only keep everything; the "
                  "DAG methods (sqrt, greedy, milp) apply";
    return plan;
  }
  // Every chain: the separator chain and, where small cuts give more
  // stages, that one (its boundaries hold several values); the cheapest
  // plan that fits in simulation wins.
  Judge judge(graph, budgetBytes, what);
  std::optional<ChainSearch> best;
  for (const StageChain &candidate : chains) {
    if (candidate.size() < 2)
      continue;
    ChainSearch found =
        searchChain(graph, candidate, budgetBytes, options, judge);
    if (!best || found.least < best->least)
      best = found;
  }
  if (judge.best)
    return std::move(*judge.best);
  ChainPlan plan;
  if (!judge.error.empty() && judge.tried == 0) {
    plan.detail = judge.error;
    return plan;
  }
  plan.infeasible = true;
  plan.minFeasibleBytes = best->least;
  bool coarsened = best->stages != best->fineStages;
  plan.detail =
      what + ": infeasible: no schedule of the chain model (" +
      std::to_string(best->stages) + " stages" +
      (coarsened ? ", coarsened from " + std::to_string(best->fineStages)
                 : std::string()) +
      ") fits in simulation; the least found needs " +
      std::to_string(best->least) + " B";
  return plan;
}
