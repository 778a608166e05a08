//===- CostModelTest.cpp - Tests of the remat cost model ------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Compute costs (RematCost.cpp) and result bytes of remat ops, getTensorBytes
// and getTensorElements, and the external models on upstream ops
// (CostExternalModels.cpp). Every expected number is derived in a comment.
//
//===----------------------------------------------------------------------===//

#include "TestContext.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"

#include <limits>

using namespace mlir;
using namespace remat;
using namespace remat::test;

namespace {

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() : ctx(makeRegistry()) { ctx.loadAllAvailableDialects(); }

  /// Parses `source` and returns the compute cost of the `index`-th op named
  /// `name` (NaN and a test failure if it has no cost interface).
  double cost(llvm::StringRef source, llvm::StringRef name,
              unsigned index = 0) {
    module = parse(ctx, source);
    if (!module)
      return std::numeric_limits<double>::quiet_NaN();
    Operation *op = findOp(*module, name, index);
    auto iface = dyn_cast_or_null<RematCostOpInterface>(op);
    EXPECT_TRUE(iface) << name.str() << " has no RematCostOpInterface";
    return iface ? iface.getComputeCost()
                 : std::numeric_limits<double>::quiet_NaN();
  }

  /// Result bytes of the first op named `name` of the last parsed module
  /// (std::nullopt when getResultBytes fails).
  std::optional<int64_t> resultBytes(llvm::StringRef name) {
    auto iface = dyn_cast_or_null<RematCostOpInterface>(findOp(*module, name));
    EXPECT_TRUE(iface);
    if (!iface)
      return std::nullopt;
    FailureOr<int64_t> bytes = iface.getResultBytes();
    if (failed(bytes))
      return std::nullopt;
    return *bytes;
  }

  Type parseType(llvm::StringRef text) {
    Type t = mlir::parseType(text, &ctx);
    EXPECT_TRUE(t) << text.str();
    return t;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

//===----------------------------------------------------------------------===//
// Matmul: 2 M N K, K taken from the right dimension under transposes
//===----------------------------------------------------------------------===//

// M = 4, K = 8, N = 6 in every layout: 2 * 4 * 6 * 8 = 384. Using the wrong
// lhs dimension for K under transpose_a would give 2 * 4 * 6 * 4 = 192.
TEST_F(CostModelTest, MatmulAllTransposes) {
  const char *src = R"mlir(
    func.func @f(%a: tensor<4x8xf32>, %at: tensor<8x4xf32>, %b: tensor<8x6xf32>, %bt: tensor<6x8xf32>) {
      %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
      %1 = remat.matmul %a, %bt {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
      %2 = remat.matmul %at, %b {transpose_a} : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
      %3 = remat.matmul %at, %bt {transpose_a, transpose_b} : (tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
      return
    })mlir";
  for (unsigned i = 0; i < 4; ++i)
    EXPECT_DOUBLE_EQ(cost(src, "remat.matmul", i), 384.0) << "matmul #" << i;
}

// Batch 3: 3 * 384 = 1152, for equal-rank operands, a transposed batched lhs
// and a 2-D rhs shared by the batch.
TEST_F(CostModelTest, MatmulBatched) {
  const char *src = R"mlir(
    func.func @f(%a: tensor<3x4x8xf32>, %at: tensor<3x8x4xf32>, %b: tensor<3x8x6xf32>, %w: tensor<8x6xf32>) {
      %0 = remat.matmul %a, %b : (tensor<3x4x8xf32>, tensor<3x8x6xf32>) -> tensor<3x4x6xf32>
      %1 = remat.matmul %at, %b {transpose_a} : (tensor<3x8x4xf32>, tensor<3x8x6xf32>) -> tensor<3x4x6xf32>
      %2 = remat.matmul %a, %w : (tensor<3x4x8xf32>, tensor<8x6xf32>) -> tensor<3x4x6xf32>
      return
    })mlir";
  for (unsigned i = 0; i < 3; ++i)
    EXPECT_DOUBLE_EQ(cost(src, "remat.matmul", i), 1152.0) << "matmul #" << i;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// Input 2x4x9x9, filter 6x2x3x3 (groups 2), stride 2, padding 1, dilation 2:
// OH = (9 + 2 - 2 * 2 - 1) / 2 + 1 = 4, output 2x6x4x4 = 192 elements, each
// 2 * (C/groups = 2) * 3 * 3 = 36 flops: 6912. Both gradients do the same
// arithmetic. Default attributes, 1x3x5x5 * 4x3x3x3: output 1x4x3x3 = 36
// elements, 2 * 3 * 3 * 3 = 54 flops each: 1944.
TEST_F(CostModelTest, Conv2D) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<2x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %g: tensor<2x6x4x4xf32>, %y: tensor<1x3x5x5xf32>, %v: tensor<4x3x3x3xf32>) {
      %0 = remat.conv2d %x, %w {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
      %1 = remat.conv2d_input_grad %g, %w {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
      %2 = remat.conv2d_filter_grad %g, %x {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32>
      %3 = remat.conv2d %y, %v : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
      return
    })mlir";
  EXPECT_DOUBLE_EQ(cost(src, "remat.conv2d"), 6912.0);
  EXPECT_DOUBLE_EQ(cost(src, "remat.conv2d_input_grad"), 6912.0);
  EXPECT_DOUBLE_EQ(cost(src, "remat.conv2d_filter_grad"), 6912.0);
  EXPECT_DOUBLE_EQ(cost(src, "remat.conv2d", 1), 1944.0);
}

// Pooling: output elements times the window. 2x3x8x8 with kernel 3, stride 2,
// padding 1 gives 2x3x4x4 = 96 outputs * 9 = 864; kernel 2 (default) gives
// 96 * 4 = 384. The gradients count the output-gradient elements the same way.
TEST_F(CostModelTest, Pooling) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<2x3x8x8xf32>, %g: tensor<2x3x4x4xf32>) {
      %0 = remat.max_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
      %1 = remat.avg_pool2d %x : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
      %2 = remat.max_pool2d_grad %g, %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
      %3 = remat.avg_pool2d_grad %g : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
      %4 = remat.global_avg_pool %x : (tensor<2x3x8x8xf32>) -> tensor<2x3xf32>
      return
    })mlir";
  EXPECT_DOUBLE_EQ(cost(src, "remat.max_pool2d"), 864.0);
  EXPECT_DOUBLE_EQ(cost(src, "remat.avg_pool2d"), 384.0);
  EXPECT_DOUBLE_EQ(cost(src, "remat.max_pool2d_grad"), 864.0);
  EXPECT_DOUBLE_EQ(cost(src, "remat.avg_pool2d_grad"), 384.0);
  // No override: one op per result element, 2 * 3 = 6.
  EXPECT_DOUBLE_EQ(cost(src, "remat.global_avg_pool"), 6.0);
}

//===----------------------------------------------------------------------===//
// Other overrides and the default
//===----------------------------------------------------------------------===//

TEST_F(CostModelTest, PerElementOverridesAndDefault) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %y: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %l: tensor<4x10xf32>, %i: tensor<4xi32>) {
      %0 = remat.softmax %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %1 = remat.log_softmax %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %2 = remat.layer_norm %x, %s, %s : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %3 = remat.batch_norm %y, %c, %c : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
      %4:3 = remat.layer_norm_grad %x, %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
      %5:3 = remat.batch_norm_grad %y, %y, %c : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
      %6 = remat.softmax_cross_entropy %l, %i : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
      %7 = remat.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %8 = remat.softmax_grad %x, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      %9 = remat.add %x, %s : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      return
    })mlir";
  // 4x8 = 32 elements, 2x3x4x4 = 96, 4x10 = 40.
  EXPECT_DOUBLE_EQ(cost(src, "remat.softmax"), 5.0 * 32);
  EXPECT_DOUBLE_EQ(cost(src, "remat.log_softmax"), 5.0 * 32);
  EXPECT_DOUBLE_EQ(cost(src, "remat.layer_norm"), 8.0 * 32);
  EXPECT_DOUBLE_EQ(cost(src, "remat.batch_norm"), 8.0 * 96);
  EXPECT_DOUBLE_EQ(cost(src, "remat.layer_norm_grad"), 14.0 * 32);
  EXPECT_DOUBLE_EQ(cost(src, "remat.batch_norm_grad"), 14.0 * 96);
  EXPECT_DOUBLE_EQ(cost(src, "remat.softmax_cross_entropy"), 5.0 * 40);
  EXPECT_DOUBLE_EQ(cost(src, "remat.relu"), 32.0);
  EXPECT_DOUBLE_EQ(cost(src, "remat.softmax_grad"), 32.0);
  EXPECT_DOUBLE_EQ(cost(src, "remat.add"), 32.0);
}

TEST_F(CostModelTest, OpaqueRecomputeAndHints) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<16xi8>) {
      %0 = remat.opaque "block"(%b) {cost = 3.850000e+02 : f64} : (tensor<16xi8>) -> tensor<64xi8>
      %1:2 = remat.recompute(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
      ^bb0(%a: tensor<4x8xf32>, %v: tensor<8x8xf32>):
        %2 = remat.matmul %a, %v : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
        %3 = remat.relu %2 : (tensor<4x8xf32>) -> tensor<4x8xf32>
        remat.yield %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>
      }
      remat.keep %x : tensor<4x8xf32>
      return
    })mlir";
  EXPECT_DOUBLE_EQ(cost(src, "remat.opaque"), 385.0);
  // The sum of the body: matmul 2 * 4 * 8 * 8 = 512 and relu 32.
  EXPECT_DOUBLE_EQ(cost(src, "remat.recompute"), 544.0);
  // Two 4x8 f32 results: 2 * 128 bytes.
  EXPECT_EQ(resultBytes("remat.recompute"), 256);
  // The opaque result tensor<64xi8> is 64 bytes.
  EXPECT_EQ(resultBytes("remat.opaque"), 64);
  // Hints are not computations.
  EXPECT_FALSE(isa<RematCostOpInterface>(findOp(*module, "remat.keep")));
  EXPECT_FALSE(isa<RematCostOpInterface>(findOp(*module, "remat.yield")));
}

// Multi-result ops: the bytes of all results. layer_norm_grad over 4x8 f16:
// 4 * 8 * 2 + 8 * 2 + 8 * 2 = 96.
TEST_F(CostModelTest, MultiResultBytes) {
  module = parse(ctx, R"mlir(
    func.func @f(%x: tensor<4x8xf16>, %s: tensor<8xf16>) {
      %0:3 = remat.layer_norm_grad %x, %x, %s : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<8xf16>) -> (tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>)
      return
    })mlir");
  ASSERT_TRUE(module);
  EXPECT_EQ(resultBytes("remat.layer_norm_grad"), 96);
}

// Two results of 2^62 bytes each: the sum 2^63 overflows int64.
TEST_F(CostModelTest, ResultBytesOverflow) {
  module = parse(ctx, R"mlir(
    func.func @f(%x: tensor<4611686018427387904xi8>) {
      %0:2 = remat.recompute(%x, %x) : (tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>) -> (tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>) {
      ^bb0(%a: tensor<4611686018427387904xi8>, %b: tensor<4611686018427387904xi8>):
        remat.yield %a, %b : tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>
      }
      return
    })mlir");
  ASSERT_TRUE(module);
  EXPECT_EQ(resultBytes("remat.recompute"), std::nullopt);
  Operation *op = findOp(*module, "remat.recompute");
  EXPECT_TRUE(failed(getResultBytesOf(op)));
}

//===----------------------------------------------------------------------===//
// getTensorBytes / getTensorElements
//===----------------------------------------------------------------------===//

TEST_F(CostModelTest, TensorBytesByElementType) {
  // 4 x 8 = 32 elements.
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xf32>")), 128);
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xf16>")), 64);
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xbf16>")), 64);
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xf64>")), 256);
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xi64>")), 256);
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xi32>")), 128);
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xi8>")), 32);
  // Sub-byte elements round up to a whole byte each.
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xi1>")), 32);
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xi4>")), 32);
  EXPECT_EQ(getTensorBytes(parseType("tensor<4x8xindex>")), 256);
  // Rank 0 and empty tensors.
  EXPECT_EQ(getTensorBytes(parseType("tensor<f32>")), 4);
  EXPECT_EQ(getTensorBytes(parseType("tensor<0x8xf32>")), 0);
  EXPECT_EQ(getTensorElements(parseType("tensor<4x8xi1>")), 32);
  EXPECT_EQ(getTensorElements(parseType("tensor<f16>")), 1);
}

TEST_F(CostModelTest, TensorBytesRejectsNonStaticTensors) {
  EXPECT_EQ(getTensorBytes(parseType("tensor<?x8xf32>")), std::nullopt);
  EXPECT_EQ(getTensorBytes(parseType("tensor<*xf32>")), std::nullopt);
  EXPECT_EQ(getTensorBytes(parseType("memref<4x8xf32>")), std::nullopt);
  EXPECT_EQ(getTensorBytes(parseType("f32")), std::nullopt);
  EXPECT_EQ(getTensorBytes(parseType("tensor<4xcomplex<f32>>")), std::nullopt);
  EXPECT_EQ(getTensorElements(parseType("tensor<?xf32>")), std::nullopt);
}

TEST_F(CostModelTest, TensorBytesOverflow) {
  // 2^62 * 4 = 2^64 elements: the element count already overflows.
  Type huge = parseType("tensor<4611686018427387904x4xf32>");
  EXPECT_EQ(getTensorElements(huge), std::nullopt);
  EXPECT_EQ(getTensorBytes(huge), std::nullopt);
  // 2^60 * 2 = 2^61 elements fit, 2^61 * 4 = 2^63 bytes do not.
  Type bytesOverflow = parseType("tensor<1152921504606846976x2xf32>");
  EXPECT_EQ(getTensorElements(bytesOverflow), int64_t(1) << 61);
  EXPECT_EQ(getTensorBytes(bytesOverflow), std::nullopt);
  // The largest f32 tensor that fits: (2^61 - 1) * 4 = 2^63 - 4 bytes.
  EXPECT_EQ(getTensorBytes(parseType("tensor<2305843009213693951xf32>")),
            std::numeric_limits<int64_t>::max() - 3);
}

//===----------------------------------------------------------------------===//
// External models on upstream ops
//===----------------------------------------------------------------------===//

// Structured ops: iteration points times payload ops. linalg.matmul 4x8 * 8x6
// has 4 * 6 * 8 = 192 points and a mulf + addf payload: 384 = 2 M N K. The
// generic op has 4 * 8 = 32 points and 3 payload ops (linalg.index does not
// count): 96.
TEST_F(CostModelTest, LinalgExternalModels) {
  const char *src = R"mlir(
    func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<4x6xf32>, %ba: tensor<3x4x8xf32>, %bb: tensor<3x8x6xf32>, %bc: tensor<3x4x6xf32>, %x: tensor<4x8xf32>) {
      %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%c : tensor<4x6xf32>) -> tensor<4x6xf32>
      %1 = linalg.batch_matmul ins(%ba, %bb : tensor<3x4x8xf32>, tensor<3x8x6xf32>) outs(%bc : tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
      %2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>) {
      ^bb0(%in: f32, %out: f32):
        %i = linalg.index 0 : index
        %m = arith.mulf %in, %in : f32
        %e = math.exp %m : f32
        %s = arith.addf %e, %out : f32
        linalg.yield %s : f32
      } -> tensor<4x8xf32>
      %cst = arith.constant 0.0 : f32
      %3 = linalg.fill ins(%cst : f32) outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
      return
    })mlir";
  EXPECT_DOUBLE_EQ(cost(src, "linalg.matmul"), 384.0);
  EXPECT_DOUBLE_EQ(cost(src, "linalg.batch_matmul"), 1152.0);
  EXPECT_DOUBLE_EQ(cost(src, "linalg.generic"), 96.0);
  EXPECT_DOUBLE_EQ(cost(src, "linalg.fill"), 32.0);
  // Result bytes: 4x6 f32.
  EXPECT_EQ(resultBytes("linalg.matmul"), 96);
}

TEST_F(CostModelTest, ArithMathTensorExternalModels) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<4x8xf32>, %d: tensor<?x8xf32>) {
      %0 = arith.addf %x, %x : tensor<4x8xf32>
      %1 = math.exp %x : tensor<4x8xf32>
      %2 = arith.constant dense<1.0> : tensor<4x8xf32>
      %3 = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
      %4 = tensor.extract_slice %x[0, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
      %5 = arith.addf %d, %d : tensor<?x8xf32>
      return
    })mlir";
  EXPECT_DOUBLE_EQ(cost(src, "arith.addf"), 32.0);
  EXPECT_EQ(resultBytes("arith.addf"), 128);
  EXPECT_DOUBLE_EQ(cost(src, "math.exp"), 32.0);
  EXPECT_DOUBLE_EQ(cost(src, "arith.constant"), 0.0);
  EXPECT_DOUBLE_EQ(cost(src, "tensor.expand_shape"), 0.0);
  EXPECT_DOUBLE_EQ(cost(src, "tensor.extract_slice"), 16.0);
  // A dynamic result: no element count to charge, and no byte size.
  EXPECT_DOUBLE_EQ(cost(src, "arith.addf", 1), 0.0);
  auto dynamic = cast<RematCostOpInterface>(findOp(*module, "arith.addf", 1));
  EXPECT_TRUE(failed(dynamic.getResultBytes()));
}

// An op built in C++ (not parsed) gets the model from the registry too.
TEST_F(CostModelTest, ExternalModelOnBuiltOp) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> m = ModuleOp::create(loc);
  b.setInsertionPointToEnd(m->getBody());
  auto type = RankedTensorType::get({3, 5}, b.getF16Type());
  auto cst = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getF16FloatAttr(1.0)));
  auto mul = arith::MulFOp::create(b, loc, cst, cst);
  auto iface = dyn_cast<RematCostOpInterface>(mul.getOperation());
  ASSERT_TRUE(iface);
  EXPECT_DOUBLE_EQ(iface.getComputeCost(), 15.0);
  FailureOr<int64_t> bytes = iface.getResultBytes();
  ASSERT_TRUE(succeeded(bytes));
  EXPECT_EQ(*bytes, 30);
}

// Without registerCostExternalModels the upstream ops have no cost model, and
// the remat ops still do.
TEST(CostModelRegistryTest, ExternalModelsNeedRegistration) {
  MLIRContext bare(makeRegistry(/*costModels=*/false));
  bare.loadAllAvailableDialects();
  auto module = parse(bare, R"mlir(
    func.func @f(%x: tensor<4x8xf32>) {
      %0 = arith.addf %x, %x : tensor<4x8xf32>
      %1 = remat.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
      return
    })mlir");
  ASSERT_TRUE(module);
  EXPECT_FALSE(isa<RematCostOpInterface>(findOp(*module, "arith.addf")));
  EXPECT_TRUE(isa<RematCostOpInterface>(findOp(*module, "remat.relu")));

  MLIRContext full(makeRegistry(/*costModels=*/true));
  full.loadAllAvailableDialects();
  auto module2 = parse(full, R"mlir(
    func.func @f(%x: tensor<4x8xf32>) {
      %0 = arith.addf %x, %x : tensor<4x8xf32>
      return
    })mlir");
  ASSERT_TRUE(module2);
  EXPECT_TRUE(isa<RematCostOpInterface>(findOp(*module2, "arith.addf")));
}

} // namespace
