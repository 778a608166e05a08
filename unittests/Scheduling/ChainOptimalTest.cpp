//===- ChainOptimalTest.cpp - The chain DP against exhaustive search ------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/ChainOptimal.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <queue>
#include <random>

using namespace remat::sched;

namespace {

/// A random chain with small integer sizes satisfying the invariants that
/// buildStageChain guarantees (advance peak >= boundary, tape >= boundary,
/// tape peak >= tape, backward peak >= tape + gradient).
StageChain randomChain(std::mt19937 &rng, unsigned L) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  StageChain chain;
  chain.reversible = true;
  chain.numFineStages = L;
  for (unsigned s = 0; s < L; ++s) {
    ChainStage st;
    st.boundaryBytes = pick(0, 4);
    st.tapeBytes = st.boundaryBytes + pick(0, 4);
    st.advancePeakBytes = st.boundaryBytes + pick(0, 3);
    st.tapePeakBytes = st.tapeBytes + pick(0, 3);
    st.gradientBytes = pick(0, 3);
    st.backwardPeakBytes = st.tapeBytes + st.gradientBytes + pick(0, 3);
    st.forwardCost = pick(1, 5);
    st.tapeCost = st.forwardCost + pick(0, 3);
    st.backwardReadsInput = s > 0 && pick(0, 1);
    chain.stages.push_back(st);
  }
  return chain;
}

/// Exhaustive search (Dijkstra) over the states of the chain memory model of
/// Chain.h, written independently of the library: (next stage to reverse,
/// checkpoints, taped stages, current position, stages run so far). Returns
/// the least recompute cost within `limit` bytes, or -1 if none.
///
/// With `nested`, only the schedules the DP ranges over are searched
/// (nested persistent schedules): no stage k runs forward while a tape of a
/// later stage or a checkpoint at a position >= k is held (nothing is
/// computed ahead for a later backward phase), and a checkpoint at position p
/// is only freed once stage p+1 is taped or reversed (it is not dropped and
/// recomputed later). Without it the search may do both, which can pay off,
/// e.g. when a later phase holds more gradient bytes.
double bruteForce(const StageChain &chain, int64_t limit, bool nested = true) {
  const unsigned L = chain.size();
  const unsigned kNoCur = 7;
  struct State {
    unsigned n, K, T, cur, f;
  };
  auto encode = [](const State &s) {
    return s.n | s.K << 3 | s.T << 10 | s.cur << 17 | s.f << 20;
  };
  auto decode = [](uint32_t code) {
    return State{code & 7, code >> 3 & 127, code >> 10 & 127, code >> 17 & 7,
                 code >> 20 & 7};
  };
  auto x = [&](unsigned pos) -> int64_t {
    return pos == 0 ? 0 : chain.stages[pos - 1].boundaryBytes;
  };
  auto st = [&](unsigned s) -> const ChainStage & {
    return chain.stages[s - 1];
  };
  auto mem = [&](const State &s) {
    int64_t m = 0;
    for (unsigned j = 1; j <= L; ++j)
      if (s.T >> j & 1)
        m += st(j).tapeBytes;
    // Live positions not covered by their own stage's tape.
    for (unsigned p = 0; p <= L; ++p) {
      bool live =
          (s.K >> p & 1) || s.cur == p ||
          (p < L && (s.T >> (p + 1) & 1) && st(p + 1).backwardReadsInput);
      if (live && !(s.T >> p & 1))
        m += x(p);
    }
    if (s.n >= 1)
      m += st(s.n).gradientBytes;
    return m;
  };

  // Dense distance table over the 23-bit state codes, reset by stamping.
  static std::vector<double> distValue(1u << 23);
  static std::vector<uint32_t> distStamp(1u << 23, 0);
  static uint32_t stamp = 0;
  ++stamp;
  struct DistRef {
    uint32_t code;
    double get() const {
      return distStamp[code] == stamp ? distValue[code] : HUGE_VAL;
    }
    void set(double d) const {
      distStamp[code] = stamp;
      distValue[code] = d;
    }
  };
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  auto push = [&](const State &s, double d, int64_t peak) {
    if (peak > limit || mem(s) > limit)
      return;
    uint32_t code = encode(s);
    if (DistRef{code}.get() <= d)
      return;
    DistRef{code}.set(d);
    queue.push({d, code});
  };
  State start{L, 0, 0, 0, 0};
  push(start, 0, mem(start));
  while (!queue.empty()) {
    auto [d, code] = queue.top();
    queue.pop();
    if (DistRef{code}.get() < d)
      continue;
    State s = decode(code);
    if (s.n == 0)
      return d;
    int64_t m = mem(s);
    // Forward over stage cur + 1 (advance or tape).
    bool ahead = false;
    if (nested && s.cur != kNoCur)
      ahead = (s.T >> (s.cur + 2)) != 0 || (s.K >> (s.cur + 1)) != 0;
    if (s.cur != kNoCur && s.cur + 1 <= s.n && !(s.T >> (s.cur + 1) & 1) &&
        (s.f == L || s.cur == s.f) && !ahead) {
      unsigned k = s.cur + 1;
      bool first = k > s.f;
      State a = s;
      a.cur = k;
      a.f = std::max(s.f, k);
      push(a, d + (first ? 0 : st(k).forwardCost), m + st(k).advancePeakBytes);
      State t = a;
      t.T |= 1u << k;
      push(t, d + (first ? 0 : st(k).tapeCost), m + st(k).tapePeakBytes);
    }
    // Restore an available position (only after the first sweep).
    if (s.f == L)
      for (unsigned p = 0; p <= L; ++p)
        if (p != s.cur && (p == 0 || (s.K >> p & 1) || (s.T >> p & 1))) {
          State r = s;
          r.cur = p;
          push(r, d, m);
        }
    // Checkpoint the current position; free any checkpoint.
    if (s.cur != kNoCur && !(s.K >> s.cur & 1)) {
      State c = s;
      c.K |= 1u << s.cur;
      push(c, d, m);
    }
    for (unsigned p = 0; p <= L; ++p)
      if ((s.K >> p & 1) &&
          (!nested || p == L || p + 1 > s.n || (s.T >> (p + 1) & 1))) {
        State fr = s;
        fr.K &= ~(1u << p);
        push(fr, d, m);
      }
    // Backward of stage n.
    if (s.f == L && s.n >= 1 && (s.T >> s.n & 1)) {
      const ChainStage &b = st(s.n);
      State nb = s;
      nb.T &= ~(1u << s.n);
      if (nb.cur == s.n && !(s.K >> s.n & 1))
        nb.cur = kNoCur;
      nb.n = s.n - 1;
      push(nb, d, m - b.tapeBytes - b.gradientBytes + b.backwardPeakBytes);
    }
  }
  return -1;
}

int64_t storeAllBytes(const StageChain &chain) {
  int64_t total = 0;
  for (const ChainStage &st : chain.stages)
    total += st.tapePeakBytes + st.backwardPeakBytes + st.advancePeakBytes;
  return total;
}

} // namespace

TEST(ChainOptimalTest, MatchesExhaustiveSearch) {
  std::mt19937 rng(20240611);
  unsigned compared = 0, infeasibleChecked = 0, precomputeWins = 0,
           unrestrictedRuns = 0;
  for (int instance = 0; instance < 60; ++instance) {
    unsigned L = 1 + instance % 6;
    StageChain chain = randomChain(rng, L);
    int64_t minModel = chainMinModelBytes(chain);

    // The exact minimum memory agrees with the search: infeasible just below.
    if (minModel > 0) {
      EXPECT_LT(bruteForce(chain, minModel - 1), 0) << "instance " << instance;
      ChainSolution below = solveChainOptimal(chain, minModel - 1);
      EXPECT_FALSE(below.feasible);
      EXPECT_EQ(below.minModelBytes, minModel);
      ++infeasibleChecked;
    }
    // The minimum-memory schedule reaches it in the model.
    {
      ChainSchedule minSched = chainMinMemorySchedule(chain);
      ChainRunStats stats;
      std::optional<std::string> error =
          checkChainSchedule(minSched, L, stats, &chain);
      ASSERT_FALSE(error) << *error;
      EXPECT_EQ(stats.modelPeakBytes, minModel);
    }

    int64_t top = storeAllBytes(chain);
    std::vector<int64_t> limits = {
        minModel,     minModel + 1,         minModel + 2,
        minModel + 4, (minModel + top) / 2, top};
    for (int64_t limit : limits) {
      double expected = bruteForce(chain, limit);
      ChainSolution sol = solveChainOptimal(chain, limit);
      ASSERT_EQ(sol.feasible, expected >= 0)
          << "instance " << instance << " limit " << limit;
      // Leaving the nested persistent class never hurts and sometimes helps
      // (searched up to 5 stages, to keep the test fast).
      if (L <= 5) {
        double unrestricted = bruteForce(chain, limit, /*nested=*/false);
        ASSERT_EQ(unrestricted >= 0, expected >= 0);
        EXPECT_LE(unrestricted, expected);
        precomputeWins += unrestricted < expected;
        ++unrestrictedRuns;
      }
      // One slot: the budget exceeds it, so the DP runs over exact bytes
      // (step-function rows) rather than the slotted table.
      ChainSolution inBytes = solveChainOptimal(chain, limit, /*slots=*/1);
      ASSERT_EQ(inBytes.feasible, expected >= 0)
          << "instance " << instance << " limit " << limit;
      if (limit > 1) {
        EXPECT_TRUE(inBytes.exact);
        EXPECT_EQ(inBytes.slots, 0u);
      }
      if (inBytes.feasible) {
        EXPECT_DOUBLE_EQ(inBytes.cost, expected)
            << "bytes: instance " << instance << " limit " << limit;
        ChainRunStats stats;
        ASSERT_FALSE(checkChainSchedule(inBytes.actions, L, stats, &chain));
        EXPECT_LE(stats.modelPeakBytes, limit);
      }
      if (!sol.feasible)
        continue;
      EXPECT_DOUBLE_EQ(sol.cost, expected)
          << "instance " << instance << " L=" << L << " limit " << limit;
      // The returned actions are valid, fit and cost what the DP says.
      ChainRunStats stats;
      std::optional<std::string> error =
          checkChainSchedule(sol.actions, L, stats, &chain);
      ASSERT_FALSE(error) << *error;
      EXPECT_LE(stats.modelPeakBytes, limit);
      EXPECT_DOUBLE_EQ(stats.recomputeCost, sol.cost);
      ++compared;
    }
  }
  EXPECT_GT(compared, 300u);
  EXPECT_GT(infeasibleChecked, 40u);
  // Informational: how often the model admits a better non-nested schedule.
  std::printf("non-nested schedules beat the DP in %u of %u cases\n",
              precomputeWins, unrestrictedRuns);
}

TEST(ChainOptimalTest, DiscretisationIsConservative) {
  // Large sizes with few slots: rounding up may lose optimality but a
  // solution found always fits the budget in bytes.
  std::mt19937 rng(7);
  for (int instance = 0; instance < 40; ++instance) {
    StageChain chain = randomChain(rng, 2 + instance % 12);
    for (ChainStage &st : chain.stages) {
      st.boundaryBytes = st.boundaryBytes * 1000 + 17;
      st.tapeBytes = st.tapeBytes * 1000 + 33;
      st.advancePeakBytes = st.advancePeakBytes * 1000 + 40;
      st.tapePeakBytes = st.tapePeakBytes * 1000 + 50;
      st.gradientBytes = st.gradientBytes * 1000 + 3;
      st.backwardPeakBytes = st.backwardPeakBytes * 1000 + 90;
    }
    int64_t minModel = chainMinModelBytes(chain);
    for (int64_t limit : {minModel, minModel + minModel / 5, 3 * minModel}) {
      for (unsigned slots : {7u, 50u, 500u}) {
        ChainSolution sol =
            solveChainOptimal(chain, limit, slots, /*tryExact=*/false);
        if (!sol.feasible)
          continue;
        ChainRunStats stats;
        ASSERT_FALSE(
            checkChainSchedule(sol.actions, chain.size(), stats, &chain));
        EXPECT_LE(stats.modelPeakBytes, limit);
      }
    }
    // Plenty of memory: nothing needs recomputing.
    ChainSolution roomy = solveChainOptimal(chain, 100 * minModel + 100000);
    ASSERT_TRUE(roomy.feasible);
    EXPECT_EQ(roomy.cost, 0);
  }
}

TEST(ChainOptimalTest, LongChainIsFast) {
  // 300 stages, 500 slots: the default maximum the strategy solves.
  std::mt19937 rng(3);
  StageChain chain = randomChain(rng, 300);
  int64_t minModel = chainMinModelBytes(chain);
  ChainSolution sol = solveChainOptimal(chain, 3 * minModel, 500);
  ASSERT_TRUE(sol.feasible);
  ChainRunStats stats;
  ASSERT_FALSE(checkChainSchedule(sol.actions, 300, stats, &chain));
  EXPECT_LE(stats.modelPeakBytes, 3 * minModel);
}
