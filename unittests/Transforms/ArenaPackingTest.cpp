//===- ArenaPackingTest.cpp - interval packing of arena buffers -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/ArenaPacking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace remat;

namespace {

ArenaItem item(int64_t size, int64_t start, int64_t end) {
  return ArenaItem{size, start, end, 64};
}

/// No two items with intersecting lifetimes share a byte; offsets aligned;
/// the arena covers every item.
void expectValid(const std::vector<ArenaItem> &items,
                 const ArenaPacking &packing) {
  ASSERT_EQ(packing.offsets.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(packing.offsets[i] % items[i].alignment, 0) << "item " << i;
    EXPECT_LE(packing.offsets[i] + items[i].size, packing.arenaBytes);
    for (size_t j = i + 1; j < items.size(); ++j) {
      if (!lifetimesIntersect(items[i], items[j]) || !items[i].size ||
          !items[j].size)
        continue;
      bool disjoint =
          packing.offsets[i] + items[i].size <= packing.offsets[j] ||
          packing.offsets[j] + items[j].size <= packing.offsets[i];
      EXPECT_TRUE(disjoint) << "items " << i << " and " << j << " overlap";
    }
  }
}

TEST(ArenaPacking, DisjointLifetimesShareOffsetZero) {
  std::vector<ArenaItem> items = {item(100, 0, 2), item(60, 3, 5)};
  ArenaPacking packing = packArena(items);
  EXPECT_EQ(packing.offsets, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(packing.arenaBytes, 100);
  EXPECT_EQ(livenessLowerBound(items), 100);
}

TEST(ArenaPacking, TouchingLifetimesIntersect) {
  // Closed intervals: [0, 3] and [3, 5] are both live at 3.
  std::vector<ArenaItem> items = {item(64, 0, 3), item(64, 3, 5)};
  ArenaPacking packing = packArena(items);
  EXPECT_EQ(packing.arenaBytes, 128);
  EXPECT_EQ(livenessLowerBound(items), 128);
}

TEST(ArenaPacking, DecreasingSizeFirstFitAligned) {
  // The largest goes first at 0; the 40-byte ones at 128 and 192.
  std::vector<ArenaItem> items = {item(40, 0, 6), item(40, 1, 6),
                                  item(128, 2, 7)};
  ArenaPacking packing = packArena(items);
  EXPECT_EQ(packing.offsets, (std::vector<int64_t>{128, 192, 0}));
  EXPECT_EQ(packing.arenaBytes, 232);
  EXPECT_EQ(livenessLowerBound(items), 208);
}

TEST(ArenaPacking, FillsAGapBetweenPlacedItems) {
  // a [0,9] at 0, b [0,9] at 64, c [0,4] at 128, then d [5,9] (64 bytes)
  // fits into c's slot because c is dead by then.
  std::vector<ArenaItem> items = {item(64, 0, 9), item(64, 0, 9),
                                  item(64, 0, 4), item(64, 5, 9)};
  ArenaPacking packing = packArena(items);
  EXPECT_EQ(packing.offsets, (std::vector<int64_t>{0, 64, 128, 128}));
  EXPECT_EQ(packing.arenaBytes, 192);
}

TEST(ArenaPacking, LongLivedFirstWhenItPacksTighter) {
  // By size alone: d at 0, c at 192, a at 0 (d is dead), b above a and c at
  // 320: 448 bytes. By size x lifetime: c at 0, d at 128, a at 128 (d is
  // dead), b at 256: 384, the liveness bound (a, b, c live at 4 and 5).
  std::vector<ArenaItem> items = {item(128, 4, 7), item(128, 4, 5),
                                  item(128, 0, 6), item(192, 1, 3)};
  ArenaPacking packing = packArena(items);
  expectValid(items, packing);
  EXPECT_EQ(packing.offsets, (std::vector<int64_t>{128, 256, 0, 128}));
  EXPECT_EQ(packing.arenaBytes, 384);
  EXPECT_EQ(livenessLowerBound(items), 384);
}

TEST(ArenaPacking, RandomInstancesAreValidAndAboveTheBound) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 1 + static_cast<int>(rng() % 40);
    std::vector<ArenaItem> items;
    for (int i = 0; i < n; ++i) {
      int64_t start = static_cast<int64_t>(rng() % 50);
      int64_t end = start + static_cast<int64_t>(rng() % 20);
      int64_t size = static_cast<int64_t>(rng() % 5 == 0 ? 0 : rng() % 1000);
      items.push_back(item(size, start, end));
    }
    ArenaPacking packing = packArena(items);
    expectValid(items, packing);
    // The bound is the brute-force maximum of live bytes.
    int64_t brute = 0;
    for (int64_t p = 0; p < 80; ++p) {
      int64_t live = 0;
      for (const ArenaItem &it : items)
        if (it.start <= p && p <= it.end)
          live += it.size;
      brute = std::max(brute, live);
    }
    EXPECT_EQ(livenessLowerBound(items), brute);
    EXPECT_GE(packing.arenaBytes, brute);
  }
}

} // namespace
