//===- TimeModelTest.cpp - Tests of the calibrated time model -------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// parseTimeModel, ThroughputCurve::rateAt, classifyOp and the calibrated
// step estimate (lib/Driver/TimeModel.cpp, TimeEstimate.cpp). Every expected
// number is derived in a comment.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/TestContext.h"

#include "remat/Driver/TimeEstimate.h"
#include "remat/Driver/TimeModel.h"

#include <string>

using namespace mlir;
using namespace remat;
using namespace remat::driver;
using namespace remat::test;

namespace {

// gemm: 1 GFLOP/s at 1,000 flops, 4 GFLOP/s at 4,000 and above;
// elementwise: 1 GB/s flat; the others 2 (GFLOP/s or GB/s) flat.
constexpr const char *kTable = R"json({
  "format": "remat-time-model-1",
  "machine": "ignored",
  "classes": {
    "gemm": [[1000, 1e9], [4000, 4e9]],
    "conv": [[1, 2e9]],
    "conv_grad": [[1, 2e9]],
    "grouped_conv": [[1, 2e9]],
    "elementwise": [[1, 1e9]],
    "exp_log": [[1, 2e9]],
    "tanh": [[1, 2e9]],
    "reduction": [[1, 2e9]]
  }
})json";

std::string errorOf(llvm::StringRef json) {
  llvm::Expected<CalibratedTimeModel> model = parseTimeModel(json, "t.json");
  if (model)
    return "(parsed)";
  return llvm::toString(model.takeError());
}

TEST(TimeModel, ReadsTheTable) {
  llvm::Expected<CalibratedTimeModel> model = parseTimeModel(kTable, "t.json");
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  EXPECT_EQ(model->source, "t.json");
  const ThroughputCurve &gemm =
      model->curves[static_cast<size_t>(OpClass::Gemm)];
  ASSERT_EQ(gemm.points.size(), 2u);
  EXPECT_DOUBLE_EQ(gemm.points[1].first, 4000);
  EXPECT_DOUBLE_EQ(gemm.points[1].second, 4e9);
  // Clamped outside the points, log2-linear between them: 2,000 flops is
  // half way from 1,000 to 4,000 in log2, so 2.5 GFLOP/s.
  EXPECT_DOUBLE_EQ(gemm.rateAt(10), 1e9);
  EXPECT_DOUBLE_EQ(gemm.rateAt(1e6), 4e9);
  EXPECT_DOUBLE_EQ(gemm.rateAt(2000), 2.5e9);
  // 2,000 flops at 2.5 GFLOP/s: 800 ns; 8,000 at 4: 2 us; nothing: 0.
  EXPECT_DOUBLE_EQ(model->seconds(OpClass::Gemm, 2000), 800e-9);
  EXPECT_DOUBLE_EQ(model->seconds(OpClass::Gemm, 8000), 2e-6);
  EXPECT_DOUBLE_EQ(model->seconds(OpClass::Elementwise, 0), 0);
}

TEST(TimeModel, MalformedTables) {
  // Not JSON: llvm::json says where.
  EXPECT_NE(errorOf("{\"format\": ").find("t.json: "), std::string::npos);
  EXPECT_NE(errorOf("{\"format\": ").find("[1:"), std::string::npos);
  EXPECT_EQ(errorOf("[]"), "t.json: expected a JSON object");
  EXPECT_EQ(errorOf(R"({"format": "v0", "classes": {}})"),
            "t.json: 'format' must be \"remat-time-model-1\"");
  EXPECT_EQ(errorOf(R"({"format": "remat-time-model-1"})"),
            "t.json: no object 'classes'");
  std::string table = kTable;
  auto replaced = [&](llvm::StringRef from, llvm::StringRef to) {
    std::string copy = table;
    size_t at = copy.find(from.str());
    EXPECT_NE(at, std::string::npos) << from.str();
    return copy.replace(at, from.size(), to.str());
  };
  EXPECT_EQ(errorOf(replaced("\"tanh\": [[1, 2e9]],", "")),
            "t.json: no class 'classes.tanh' (every class needs its "
            "measured points)");
  EXPECT_EQ(errorOf(replaced("[[1000, 1e9], [4000, 4e9]]", "[]")),
            "t.json: classes.gemm: expected a non-empty array of [size, "
            "rate] pairs");
  EXPECT_EQ(errorOf(replaced("[4000, 4e9]", "[4000]")),
            "t.json: classes.gemm[1]: expected [size, rate], two numbers");
  EXPECT_EQ(errorOf(replaced("[4000, 4e9]", "[4000, 0]")),
            "t.json: classes.gemm[1]: size and rate must be positive and "
            "finite");
  EXPECT_EQ(errorOf(replaced("[4000, 4e9]", "[1000, 4e9]")),
            "t.json: classes.gemm[1]: sizes must increase");
  EXPECT_EQ(errorOf(replaced("\"classes\": {", "\"classes\": {\"fft\": [],")),
            "t.json: unknown class 'classes.fft'");
  llvm::Expected<CalibratedTimeModel> missing =
      loadTimeModel("/nonexistent/time-model.json");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError())
                .find("/nonexistent/time-model.json: cannot read the time "
                      "model"),
            std::string::npos);
}

// x: 4x8, w: 8x8; the matmul (512 flops) is recomputed; relu (32 + 32
// elements moved), add, tanh (class tanh) and a reshape (no class) outside.
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
  %t = remat.tanh %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %flat = remat.reshape %t : (tensor<4x8xf32>) -> tensor<32xf32>
  return %flat : tensor<32xf32>
}
)mlir";

TEST(TimeModel, StepPrediction) {
  MLIRContext ctx(makeRegistry());
  ctx.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parse(ctx, kStep);
  ASSERT_TRUE(module);
  llvm::Expected<CalibratedTimeModel> model = parseTimeModel(kTable, "t.json");
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());

  EXPECT_EQ(classifyOp(findOp(*module, "remat.matmul")), OpClass::Gemm);
  EXPECT_EQ(classifyOp(findOp(*module, "remat.relu")), OpClass::Elementwise);
  EXPECT_EQ(classifyOp(findOp(*module, "remat.tanh")), OpClass::Tanh);
  EXPECT_EQ(classifyOp(findOp(*module, "remat.reshape")), std::nullopt);

  // The matmul: 512 flops, below the first gemm point: 1 GFLOP/s, 512 ns.
  OpTotals matmul = estimateOp(findOp(*module, "remat.matmul"), *model);
  EXPECT_DOUBLE_EQ(matmul.flops, 512);
  EXPECT_DOUBLE_EQ(matmul.seconds, 512e-9);
  // Outside the region: matmul 512 ns; relu 256 bytes at 1 GB/s, 256 ns;
  // add 384 bytes, 384 ns; tanh 256 bytes at 2 GB/s, 128 ns; reshape 0:
  // 1,280 ns. Inside: the matmul, 512 ns: 40.0% of the step.
  StepTimeEstimate estimate =
      estimateStepTime(*module->getOps<func::FuncOp>().begin(), *model);
  EXPECT_DOUBLE_EQ(estimate.step.seconds, 1280e-9);
  EXPECT_DOUBLE_EQ(estimate.recompute.seconds, 512e-9);
  EXPECT_EQ(estimate.recomputedOps, 1);
  EXPECT_DOUBLE_EQ(estimate.recomputePercentOfStep(), 40.0);
  // By class: gemm 512 / 512 ns, elementwise 640 / 0, tanh 128 / 0.
  EXPECT_DOUBLE_EQ(estimate.stepByClass[0], 512e-9);
  EXPECT_DOUBLE_EQ(estimate.recomputeByClass[0], 512e-9);
  EXPECT_DOUBLE_EQ(
      estimate.stepByClass[static_cast<size_t>(OpClass::Elementwise)], 640e-9);
  EXPECT_DOUBLE_EQ(estimate.stepByClass[static_cast<size_t>(OpClass::Tanh)],
                   128e-9);
  EXPECT_EQ(describeStepTime(estimate, *model),
            "calibrated time estimate: step without recompute 0.0013 ms, "
            "recompute 0.0005 ms in 1 ops: 40.0% of the step (table t.json); "
            "ms by class, step / recompute: gemm 0.0005 / 0.0005, conv "
            "0.0000 / 0.0000, conv_grad 0.0000 / 0.0000, grouped_conv 0.0000 / "
            "0.0000, elementwise "
            "0.0006 / 0.0000, exp_log 0.0000 / 0.0000, tanh 0.0001 / 0.0000, "
            "reduction 0.0000 / 0.0000");
}

TEST(TimeModel, ConvolutionClasses) {
  MLIRContext ctx(makeRegistry());
  ctx.loadAllAvailableDialects();
  // The forward (conv), its gradients (conv_grad) and a depthwise forward
  // (grouped_conv): recomputation runs forward convolutions only.
  OwningOpRef<ModuleOp> module = parse(ctx, R"mlir(
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %d: tensor<4x1x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<1x4x6x6xf32>) {
  %y = remat.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  %g = remat.conv2d_filter_grad %y, %x : (tensor<1x4x6x6xf32>, tensor<1x4x8x8xf32>) -> tensor<4x4x3x3xf32>
  %z = remat.conv2d %x, %d {groups = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y, %g, %z : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<1x4x6x6xf32>
}
)mlir");
  ASSERT_TRUE(module);
  SmallVector<std::optional<OpClass>> classes;
  module->walk([&](Operation *op) {
    if (op->getName().getDialectNamespace() == "remat")
      classes.push_back(classifyOp(op));
  });
  ASSERT_EQ(classes.size(), 3u);
  EXPECT_EQ(classes[0], OpClass::Conv);
  EXPECT_EQ(classes[1], OpClass::ConvGrad);
  EXPECT_EQ(classes[2], OpClass::GroupedConv);
  EXPECT_TRUE(isSizedByFlops(OpClass::ConvGrad));
  EXPECT_FALSE(isSizedByFlops(OpClass::Reduction));
  EXPECT_EQ(getOpClassName(OpClass::ConvGrad), "conv_grad");
}

} // namespace
