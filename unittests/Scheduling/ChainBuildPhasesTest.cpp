//===- ChainBuildPhasesTest.cpp - Tests of buildStageChain's phases -------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Each phase of ChainBuild.h alone, on hand-made inputs; ChainBuildTest.cpp
// tests the whole builder.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/ChainBuild.h"

#include "TestGraphs.h"

#include "gtest/gtest.h"

using namespace remat::sched;
using namespace remat::sched::chainbuild;
using remat::sched::test::makeNode;

namespace {

/// Reads of a backward node of fine stages lo..hi.
BackwardReads reads(unsigned lo, unsigned hi) {
  BackwardReads r;
  r.lo = lo;
  r.hi = hi;
  return r;
}

TEST(ChainBuildPhasesTest, FineStagesEndAtSeparators) {
  // a <- b <- c, and d reads b and c: a, b and d are separators (c is not:
  // b's value is read after it), so the fine stages are {a}, {b}, {c, d}.
  Graph g;
  g.addNode(makeNode("a", 10, {}));
  g.addNode(makeNode("b", 10, {0}));
  g.addNode(makeNode("c", 10, {1}));
  g.addNode(makeNode("d", 10, {1, 2}));
  g.addNode(makeNode("gd", 10, {3}, /*backward=*/true));
  std::vector<char> pinned(g.size(), 0);
  FineStages fine = findFineStages(g, 4, pinned);
  EXPECT_EQ(fine.boundary, (std::vector<unsigned>{0, 1, 3}));
  EXPECT_EQ(fine.stageOf, (std::vector<unsigned>{0, 1, 2, 2}));
  EXPECT_TRUE(fine.isBoundary(1));
  EXPECT_FALSE(fine.isBoundary(2));

  // With b pinned, its edges no longer tie c to d: every node ends a stage.
  pinned[1] = 1;
  fine = findFineStages(g, 4, pinned);
  EXPECT_EQ(fine.boundary, (std::vector<unsigned>{0, 1, 2, 3}));
}

TEST(ChainBuildPhasesTest, SmallCutsEndFineStages) {
  // x feeds p and q, r reads both: only x and r are separators. With cuts of
  // 2 values, {p, q} (after q) ends a stage too; {x, p} (after p) does not,
  // as x belongs to the stage before.
  Graph g;
  g.addNode(makeNode("x", 10, {}));
  g.addNode(makeNode("p", 10, {0}));
  g.addNode(makeNode("q", 10, {0}));
  g.addNode(makeNode("r", 10, {1, 2}));
  g.addNode(makeNode("gr", 10, {3, 1}, /*backward=*/true));
  std::vector<char> pinned(g.size(), 0);
  FineStages single = findFineStages(g, 4, pinned);
  EXPECT_EQ(single.boundary, (std::vector<unsigned>{0, 3}));
  EXPECT_FALSE(single.isBoundary(1));
  FineStages cuts = findFineStages(g, 4, pinned, 2);
  EXPECT_EQ(cuts.boundary, (std::vector<unsigned>{0, 2, 3}));
  EXPECT_EQ(cuts.stageOf, (std::vector<unsigned>{0, 1, 1, 2}));
  EXPECT_EQ(cuts.outputsOf(1), (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(cuts.outputsOf(0), (std::vector<unsigned>{0}));
  EXPECT_TRUE(cuts.isBoundary(1));
  EXPECT_TRUE(cuts.isBoundary(2));
  // gr reads r (stage 2) and p, an output of stage 1: the input of stage 2.
  std::vector<BackwardReads> r = getBackwardReads(g, 4, pinned, cuts);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].lo, 2u);
  EXPECT_EQ(r[0].hi, 2u);
  // Laid out one stage per fine stage: p and q are the inputs of stage 2.
  StageGroups groups;
  groups.groupOf = {0, 1, 2};
  StageLayout layout = layoutStages(cuts, groups);
  ASSERT_EQ(layout.size(), 3u);
  EXPECT_EQ(layout.outputsOf(1), (std::vector<unsigned>{1, 2}));
  EXPECT_TRUE(layout.isInput(2, 1));
  EXPECT_TRUE(layout.isInput(2, 2));
  EXPECT_FALSE(layout.isInput(2, 0));
  EXPECT_TRUE(layout.isInput(1, 0));
}

TEST(ChainBuildPhasesTest, BackwardReadsNameTheirStages) {
  // Fine stages {a}, {b}, {c}; ga reads a and the boundary b, gc reads c
  // and a pinned value (ignored), gg reads only a backward value.
  Graph g;
  g.addNode(makeNode("a", 10, {}));
  g.addNode(makeNode("b", 10, {0}));
  g.addNode(makeNode("c", 10, {1}));
  g.addNode(makeNode("gc", 10, {2, 0}, true));
  g.addNode(makeNode("ga", 10, {0, 1}, true));
  g.addNode(makeNode("gg", 10, {4}, true));
  std::vector<char> pinned(g.size(), 0);
  FineStages fine = findFineStages(g, 3, pinned);
  ASSERT_EQ(fine.size(), 3u);
  pinned[0] = 1;
  std::vector<BackwardReads> r = getBackwardReads(g, 3, pinned, fine);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].hi, 2u);
  EXPECT_EQ(r[0].lo, 3u); // only the boundary c: the stage after it
  EXPECT_EQ(r[1].hi, 1u);
  EXPECT_EQ(r[1].lo, 2u);
  EXPECT_EQ(r[2].hi, kNone);
  EXPECT_EQ(r[2].lo, kNone);
}

TEST(ChainBuildPhasesTest, ReadsAcrossStagesMerge) {
  // The second backward node reads fine stages 1..2: they become one group.
  StageGroups groups =
      groupFineStages(4, {reads(3, 3), reads(1, 2), reads(0, 0)});
  EXPECT_EQ(groups.groupOf, (std::vector<unsigned>{0, 1, 1, 3}));
  EXPECT_EQ(groups.mergedReads, 1u);
  EXPECT_EQ(groups.firstReadMerge, 1u);
  EXPECT_EQ(groups.mergedOrder, 0u);
  EXPECT_EQ(groups.mergedUnread, 0u);
  EXPECT_TRUE(groups.anyRead);
}

TEST(ChainBuildPhasesTest, InterleavedBackwardsMerge) {
  // Stage 0's backward runs before stage 2's: stages 0..2 become one.
  StageGroups groups =
      groupFineStages(3, {reads(0, 0), reads(2, 2), reads(1, 1)});
  EXPECT_EQ(groups.groupOf, (std::vector<unsigned>{0, 0, 0}));
  EXPECT_EQ(groups.mergedOrder, 2u);
  EXPECT_EQ(groups.firstOrderMerge, 1u);
  EXPECT_EQ(groups.mergedReads, 0u);
}

TEST(ChainBuildPhasesTest, UnreadStagesJoinTheirSuccessor) {
  // Stage 1 is unread: it joins stage 2; stage 3, after the last read one,
  // joins stage 2 as well.
  StageGroups groups = groupFineStages(4, {reads(2, 2), reads(0, 0)});
  EXPECT_EQ(groups.groupOf, (std::vector<unsigned>{0, 1, 1, 1}));
  EXPECT_EQ(groups.mergedUnread, 2u);
  EXPECT_EQ(groups.mergedReads + groups.mergedOrder, 0u);

  // Nothing read at all.
  StageGroups none = groupFineStages(2, {BackwardReads()});
  EXPECT_FALSE(none.anyRead);
}

TEST(ChainBuildPhasesTest, LayoutFollowsTheGroups) {
  FineStages fine;
  fine.boundary = {1, 3, 4, 6};
  fine.stageOf = {0, 0, 1, 1, 2, 3, 3};
  StageGroups groups;
  groups.groupOf = {0, 1, 1, 3};
  StageLayout layout = layoutStages(fine, groups);
  EXPECT_EQ(layout.first, (std::vector<unsigned>{0, 2, 5}));
  EXPECT_EQ(layout.boundary, (std::vector<unsigned>{1, 4, 6}));
  EXPECT_EQ(layout.stageOf, (std::vector<unsigned>{0, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(layout.inputOf(0), kNone);
  EXPECT_EQ(layout.inputOf(2), 4u);
}

TEST(ChainBuildPhasesTest, AttributionChecksReversibility) {
  // Stages {a}, {b}; gb reads b, ga reads a: reversible.
  Graph g;
  g.addNode(makeNode("a", 10, {}));
  g.addNode(makeNode("b", 10, {0}));
  g.addNode(makeNode("gb", 10, {1}, true));
  g.addNode(makeNode("ga", 10, {0, 2}, true));
  std::vector<char> pinned(g.size(), 0);
  StageLayout layout;
  layout.first = {0, 1};
  layout.boundary = {0, 1};
  layout.stageOf = {0, 1};
  BackwardAttribution attribution;
  ASSERT_EQ(attributeBackward(g, 2, pinned, layout, attribution),
            std::nullopt);
  EXPECT_EQ(attribution.firstBackward, (std::vector<unsigned>{3, 2}));
  EXPECT_EQ(attribution.readsInput, (std::vector<char>{0, 0}));
  EXPECT_EQ(attribution.readByBackward, (std::vector<char>{1, 1}));

  // ga first, then gb: the backward of stage 2 after stage 1's began.
  Graph late;
  late.addNode(makeNode("a", 10, {}));
  late.addNode(makeNode("b", 10, {0}));
  late.addNode(makeNode("ga", 10, {0}, true));
  late.addNode(makeNode("gb", 10, {1, 2}, true));
  std::optional<std::string> error =
      attributeBackward(late, 2, pinned, layout, attribution);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("reads stage 2 after the backward of stage 1"),
            std::string::npos)
      << *error;
}

} // namespace
