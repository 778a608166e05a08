//===- RevolveTest.cpp - Tests of the binomial Revolve schedule -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Revolve.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace remat::sched;

namespace {

/// C(n, k) by Pascal's rule, independent of the library.
uint64_t pascal(unsigned n, unsigned k) {
  static std::vector<std::vector<uint64_t>> table;
  while (table.size() <= n) {
    unsigned row = table.size();
    std::vector<uint64_t> r(row + 1, 1);
    for (unsigned i = 1; i < row; ++i)
      r[i] = table[row - 1][i - 1] + table[row - 1][i];
    table.push_back(r);
  }
  return k > n ? 0 : table[n][k];
}

/// Replays a Revolve action list on its own (independently of
/// checkChainSchedule): returns an error or counts forwards and the largest
/// number of slots in use.
std::string replay(const ChainSchedule &actions, unsigned l, uint64_t &forwards,
                   unsigned &maxSlots) {
  std::set<unsigned> slots;
  int cur = 0;        // current state, -1 if none
  unsigned next = l;  // next step to reverse
  bool taped = false; // the step `next` has been taped
  forwards = 0;
  maxSlots = 0;
  auto have = [&](unsigned p) {
    return static_cast<int>(p) == cur || slots.count(p);
  };
  for (const ChainAction &a : actions) {
    switch (a.kind) {
    case ChainActionKind::Advance:
      if (a.from >= a.to || a.to >= next || !have(a.from))
        return "bad " + toString(a);
      forwards += a.to - a.from;
      cur = a.to;
      break;
    case ChainActionKind::Checkpoint:
      if (static_cast<int>(a.to) != cur || slots.count(a.to))
        return "bad " + toString(a);
      slots.insert(a.to);
      maxSlots = std::max<unsigned>(maxSlots, slots.size());
      break;
    case ChainActionKind::Free:
      if (!slots.erase(a.to))
        return "bad " + toString(a);
      break;
    case ChainActionKind::Tape:
      // Revolve tapes exactly the next step to reverse, from its input.
      if (a.to != next || taped || !have(a.to - 1))
        return "bad " + toString(a);
      taped = true;
      cur = a.to;
      break;
    case ChainActionKind::Backward:
      if (a.to != next || !taped)
        return "bad " + toString(a);
      taped = false;
      --next;
      cur = -1;
      break;
    }
  }
  if (next != 0)
    return "not all steps reversed";
  if (!slots.empty())
    return "slots left in use";
  return "";
}

} // namespace

TEST(RevolveTest, BetaIsBinomial) {
  EXPECT_EQ(revolveBeta(3, -1), 0u);
  for (unsigned s = 0; s < 20; ++s)
    for (int r = 0; r < 20; ++r)
      EXPECT_EQ(revolveBeta(s, r), pascal(s + r, s)) << s << "," << r;
}

TEST(RevolveTest, ClosedFormKnownValues) {
  // One slot: every step is reached from the start again.
  for (uint64_t l = 1; l < 50; ++l)
    EXPECT_EQ(revolveMinForwards(l, 1), l * (l - 1) / 2) << l;
  // At least l slots: the initial sweep alone (l - 1 forwards).
  for (uint64_t l = 1; l < 30; ++l)
    EXPECT_EQ(revolveMinForwards(l, l + 3), l - 1) << l;
  EXPECT_EQ(revolveMinForwards(3, 2), 2u);
  EXPECT_EQ(revolveMinForwards(4, 2), 4u);
  EXPECT_EQ(revolveMinForwards(6, 2), 8u);
  EXPECT_EQ(revolveMinForwards(7, 2), 11u);
}

// The closed form equals the optimum of the split recursion
// t(l, s) = min_{0 < m < l} m + t(l - m, s - 1) + t(m, s), computed here by
// brute force.
TEST(RevolveTest, ClosedFormMatchesSplitRecursion) {
  const unsigned maxL = 120, maxS = 8;
  std::vector<std::vector<uint64_t>> t(maxS + 1,
                                       std::vector<uint64_t>(maxL + 1, 0));
  for (unsigned l = 1; l <= maxL; ++l)
    t[1][l] = static_cast<uint64_t>(l) * (l - 1) / 2;
  for (unsigned s = 2; s <= maxS; ++s)
    for (unsigned l = 2; l <= maxL; ++l) {
      uint64_t best = UINT64_MAX;
      for (unsigned m = 1; m < l; ++m)
        best = std::min(best, m + t[s - 1][l - m] + t[s][m]);
      t[s][l] = best;
    }
  for (unsigned s = 1; s <= maxS; ++s)
    for (unsigned l = 1; l <= maxL; ++l)
      ASSERT_EQ(revolveMinForwards(l, s), t[s][l]) << "l=" << l << " c=" << s;
}

// The brief's acceptance test: for every l in 1..1000 and c in 1..20 the
// generator attains the closed form; schedules with l <= 200 are also
// materialised and validated twice (own replay and checkChainSchedule).
TEST(RevolveTest, ScheduleAttainsOptimumEverywhere) {
  for (unsigned c = 1; c <= 20; ++c) {
    for (unsigned l = 1; l <= 1000; ++l) {
      uint64_t expected = revolveMinForwards(l, c);
      ASSERT_EQ(revolveScheduleForwards(l, c), expected)
          << "l=" << l << " c=" << c;
      if (l > 200)
        continue;
      ChainSchedule actions = revolveSchedule(l, c);
      uint64_t forwards = 0;
      unsigned maxSlots = 0;
      std::string error = replay(actions, l, forwards, maxSlots);
      ASSERT_EQ(error, "") << "l=" << l << " c=" << c;
      ASSERT_EQ(forwards, expected) << "l=" << l << " c=" << c;
      ASSERT_LE(maxSlots, c) << "l=" << l << " c=" << c;
      ASSERT_FALSE(actions.empty());
      EXPECT_EQ(actions.front(), ChainAction::checkpoint(0));

      ChainRunStats stats;
      std::optional<std::string> check = checkChainSchedule(actions, l, stats);
      ASSERT_FALSE(check) << *check << " (l=" << l << " c=" << c << ")";
      ASSERT_EQ(stats.advanceSteps, expected);
      ASSERT_EQ(stats.tapeSteps, l);
      ASSERT_LE(stats.maxCheckpoints, c);
      // The initial sweep advances l - 1 steps and tapes the last one.
      ASSERT_EQ(stats.firstSweepSteps, l);
    }
  }
}

TEST(RevolveTest, UsesAllSlotsWhenUseful) {
  // 100 steps with 5 slots: fewer slots would cost more, and the generator
  // uses the slots it is given.
  ChainSchedule actions = revolveSchedule(100, 5);
  ChainRunStats stats;
  ASSERT_FALSE(checkChainSchedule(actions, 100, stats));
  EXPECT_EQ(stats.maxCheckpoints, 5u);
  EXPECT_LT(revolveMinForwards(100, 5), revolveMinForwards(100, 4));
}

TEST(RevolveTest, CheckerRejectsBrokenSchedules) {
  ChainSchedule good = revolveSchedule(6, 2);
  ChainRunStats stats;
  ASSERT_FALSE(checkChainSchedule(good, 6, stats));

  // Dropping the checkpoint that a later advance starts from.
  ChainSchedule noSnap;
  bool dropped = false;
  for (const ChainAction &a : good) {
    if (!dropped && a.kind == ChainActionKind::Checkpoint && a.to != 0) {
      dropped = true;
      continue;
    }
    if (dropped && a.kind == ChainActionKind::Free && a.to != 0)
      continue;
    noSnap.push_back(a);
  }
  ASSERT_TRUE(dropped);
  EXPECT_TRUE(checkChainSchedule(noSnap, 6, stats));

  // Backward out of order.
  ChainSchedule swapped = {ChainAction::advance(0, 1), ChainAction::tape(2),
                           ChainAction::backward(1)};
  EXPECT_TRUE(checkChainSchedule(swapped, 2, stats));
  // A stage run forward while its tape is held.
  ChainSchedule twice = {ChainAction::tape(1),       ChainAction::checkpoint(1),
                         ChainAction::tape(2),       ChainAction::backward(2),
                         ChainAction::advance(0, 1), ChainAction::backward(1)};
  EXPECT_TRUE(checkChainSchedule(twice, 2, stats));
  // A restore before the first sweep reached the end.
  ChainSchedule early = {ChainAction::advance(0, 1), ChainAction::advance(0, 1),
                         ChainAction::tape(2),       ChainAction::backward(2),
                         ChainAction::tape(1),       ChainAction::backward(1)};
  EXPECT_TRUE(checkChainSchedule(early, 2, stats));
  // Not finished.
  ChainSchedule unfinished = {ChainAction::advance(0, 1), ChainAction::tape(2),
                              ChainAction::backward(2)};
  EXPECT_TRUE(checkChainSchedule(unfinished, 2, stats));
  // A correct hand-written one.
  ChainSchedule ok = {ChainAction::advance(0, 1), ChainAction::tape(2),
                      ChainAction::backward(2), ChainAction::tape(1),
                      ChainAction::backward(1)};
  EXPECT_FALSE(checkChainSchedule(ok, 2, stats));
  EXPECT_EQ(stats.advanceSteps, 1u);
  EXPECT_EQ(stats.tapeSteps, 2u);
  EXPECT_EQ(stats.firstSweepSteps, 2u);
}

TEST(RevolveTest, LogNScheduleIsLogarithmic) {
  for (unsigned l = 1; l <= 1000; ++l) {
    ChainSchedule actions = logNSchedule(l);
    ChainRunStats stats;
    std::optional<std::string> error = checkChainSchedule(actions, l, stats);
    ASSERT_FALSE(error) << *error << " l=" << l;
    unsigned log2ceil = 0;
    while ((1u << log2ceil) < l)
      ++log2ceil;
    ASSERT_LE(stats.maxCheckpoints, log2ceil) << l;
    // Each level of the recursion advances at most l steps.
    ASSERT_LE(stats.advanceSteps, static_cast<uint64_t>(l) * log2ceil) << l;
    ASSERT_EQ(stats.tapeSteps, l);
  }
}
