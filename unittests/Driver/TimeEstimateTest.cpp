//===- TimeEstimateTest.cpp - Tests of the step time estimate -------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// estimateOp and estimateStepTime (lib/Driver/TimeEstimate.cpp) on a small
// step with one remat.recompute region. Every expected number is derived in
// a comment; the model is 1 GFLOP/s and 1 GB/s so that flops and bytes read
// as nanoseconds.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/TestContext.h"

#include "remat/Dialect/Remat/IR/RematOps.h"
#include "remat/Driver/TimeEstimate.h"

using namespace mlir;
using namespace remat;
using namespace remat::driver;
using namespace remat::test;

namespace {

// x: 4x8 (128 bytes), w: 8x8 (256 bytes). The matmul's result 4x8 is kept
// as %r and recomputed in the region; the reshape and keep move nothing.
constexpr const char *kStep = R"mlir(
func.func @step(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<32xf32> {
  %m = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %r = remat.relu %m : (tensor<4x8xf32>) -> tensor<4x8xf32>
  remat.keep %r : tensor<4x8xf32>
  %again = remat.recompute(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    remat.yield %0 : tensor<4x8xf32>
  }
  %s = remat.add %again, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %flat = remat.reshape %s : (tensor<4x8xf32>) -> tensor<32xf32>
  return %flat : tensor<32xf32>
}
)mlir";

class TimeEstimateTest : public ::testing::Test {
protected:
  TimeEstimateTest() : ctx(makeRegistry()) { ctx.loadAllAvailableDialects(); }
  MLIRContext ctx;
  TimeModel model{1e9, 1e9};
};

TEST_F(TimeEstimateTest, OpsAndStep) {
  OwningOpRef<ModuleOp> module = parse(ctx, kStep);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();

  // The matmul: 2 * 4 * 8 * 8 = 512 flops; 128 + 256 + 128 = 512 bytes.
  OpTotals matmul = estimateOp(findOp(*module, "remat.matmul"), model);
  EXPECT_DOUBLE_EQ(matmul.flops, 512);
  EXPECT_DOUBLE_EQ(matmul.bytes, 512);
  EXPECT_DOUBLE_EQ(matmul.seconds, 1024e-9);
  // Views and markers: nothing.
  EXPECT_DOUBLE_EQ(estimateOp(findOp(*module, "remat.reshape"), model).seconds,
                   0);
  EXPECT_DOUBLE_EQ(estimateOp(findOp(*module, "remat.keep"), model).bytes, 0);

  // Outside the region: the matmul (512 flops, 512 bytes), the ReLU (32
  // flops, 128 + 128 bytes), the add (32 flops, 3 * 128 bytes): 576 flops,
  // 1152 bytes, 1728 ns. Inside: one matmul, 512 + 512 ns (the yield moves
  // nothing).
  StepTimeEstimate estimate = estimateStepTime(func, model);
  EXPECT_DOUBLE_EQ(estimate.step.flops, 576);
  EXPECT_DOUBLE_EQ(estimate.step.bytes, 1152);
  EXPECT_DOUBLE_EQ(estimate.step.seconds, 1728e-9);
  EXPECT_DOUBLE_EQ(estimate.recompute.flops, 512);
  EXPECT_DOUBLE_EQ(estimate.recompute.bytes, 512);
  EXPECT_EQ(estimate.recomputedOps, 1);
  // 1024 / 1728 = 59.26%; by flops 512 / 576 = 88.89%.
  EXPECT_NEAR(estimate.recomputePercentOfStep(), 100.0 * 1024 / 1728, 1e-9);
  EXPECT_NEAR(estimate.recomputeFlopsPercentOfStep(), 100.0 * 512 / 576, 1e-9);
  EXPECT_EQ(describeStepTime(estimate, model),
            "time estimate: step without recompute 0.002 ms (576 flops, 1152 "
            "bytes), recompute 0.001 ms (512 flops, 512 bytes) in 1 ops: "
            "59.3% of the step by time, 88.9% by flops (one thread at 1 "
            "GFLOP/s and 1 GB/s)");

  // Twice the bandwidth halves the bytes' share: step 576 + 576 = 1152 ns,
  // recompute 512 + 256 = 768 ns, 66.67%.
  StepTimeEstimate faster = estimateStepTime(func, TimeModel{1e9, 2e9});
  EXPECT_NEAR(faster.recomputePercentOfStep(), 100.0 * 768 / 1152, 1e-9);
}

TEST_F(TimeEstimateTest, NoRecompute) {
  OwningOpRef<ModuleOp> module = parse(ctx, R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = remat.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
)mlir");
  ASSERT_TRUE(module);
  StepTimeEstimate estimate =
      estimateStepTime(*module->getOps<func::FuncOp>().begin(), model);
  // 4 flops, 16 + 16 bytes.
  EXPECT_DOUBLE_EQ(estimate.step.seconds, 36e-9);
  EXPECT_EQ(estimate.recomputedOps, 0);
  EXPECT_DOUBLE_EQ(estimate.recomputePercentOfStep(), 0);
}

} // namespace
