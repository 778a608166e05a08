//===- LivenessTest.cpp - Tests of MemoryAnalysis -------------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// MemoryAnalysis on small parsed functions: the live bytes of every step, the
// peak and the op where it is first reached, argument and parameter bytes,
// the flattening of remat.recompute regions, returned values, errors. Every
// expected number is derived in a comment (see MemoryAnalysis.h for the
// rules).
//
//===----------------------------------------------------------------------===//

#include "TestContext.h"

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace remat;
using namespace remat::test;

namespace {

class LivenessTest : public ::testing::Test {
protected:
  LivenessTest() : ctx(makeRegistry()) { ctx.loadAllAvailableDialects(); }

  /// Parses `source` and returns its first function.
  func::FuncOp parseFunc(llvm::StringRef source) {
    module = parse(ctx, source);
    if (!module)
      return nullptr;
    auto funcs = module->getOps<func::FuncOp>();
    return funcs.empty() ? nullptr : *funcs.begin();
  }

  static std::vector<int64_t> liveBytes(const MemoryAnalysis &a) {
    std::vector<int64_t> out;
    for (const MemoryAnalysis::Step &s : a.getSteps())
      out.push_back(s.liveBytes);
    return out;
  }

  static std::vector<std::string> opNames(const MemoryAnalysis &a) {
    std::vector<std::string> out;
    for (const MemoryAnalysis::Step &s : a.getSteps())
      out.push_back(s.op->getName().getStringRef().str());
    return out;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

// A chain with a fan-out (16xf32 = 64 bytes per value):
//   step 0 exp     %0                       = 64
//   step 1 neg     %0 + %1                  = 128
//   step 2 tanh    %0 + %1 (last) + %2      = 192  <- peak, first reached
//   step 3 add     %0 (last) + %2 + %3      = 192
//   step 4 sigmoid %3 (last) + %4 (unused)  = 128
TEST_F(LivenessTest, ChainWithFanOut) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%x: tensor<16xf32>, %w: tensor<4x4xf32> {remat.param}) {
      %0 = remat.exp %x : (tensor<16xf32>) -> tensor<16xf32>
      %1 = remat.neg %0 : (tensor<16xf32>) -> tensor<16xf32>
      %2 = remat.tanh %1 : (tensor<16xf32>) -> tensor<16xf32>
      %3 = remat.add %2, %0 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
      %4 = remat.sigmoid %3 : (tensor<16xf32>) -> tensor<16xf32>
      return
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_TRUE(a.isValid()) << a.getError();
  EXPECT_EQ(liveBytes(a), (std::vector<int64_t>{64, 128, 192, 192, 128}));
  EXPECT_EQ(opNames(a),
            (std::vector<std::string>{"remat.exp", "remat.neg", "remat.tanh",
                                      "remat.add", "remat.sigmoid"}));
  EXPECT_EQ(a.getPeakBytes(), 192);
  ASSERT_TRUE(a.getPeakOp());
  EXPECT_EQ(a.getPeakOp(), a.getSteps()[2].op);
  // Arguments: %x 64 + %w 4x4xf32 = 64 -> 128; the parameter is %w.
  EXPECT_EQ(a.getArgumentBytes(), 128);
  EXPECT_EQ(a.getParameterBytes(), 64);
  EXPECT_EQ(a.getPeakTotalBytes(), 192 + 128);
  EXPECT_EQ(a.getTotalActivationBytes(), 5 * 64);
}

// While an op runs its operands and results are live together, and an unused
// result is live at its own step: a matmul of two 8x8xf32 activations (256
// bytes each) into an 8x8xf32 result (256 bytes).
//   step 0 exp    %0                          = 256
//   step 1 tanh   %0 + %1                     = 512
//   step 2 matmul %0 + %1 (both last) + %2    = 768 (%2 unused)
TEST_F(LivenessTest, OperandsAndResultsLiveTogether) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%x: tensor<8x8xf32>) {
      %0 = remat.exp %x : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %1 = remat.tanh %0 : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %2 = remat.matmul %0, %1 : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      return
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_TRUE(a.isValid()) << a.getError();
  EXPECT_EQ(liveBytes(a), (std::vector<int64_t>{256, 512, 768}));
  EXPECT_EQ(a.getPeakBytes(), 768);
  EXPECT_EQ(a.getPeakOp()->getName().getStringRef(), "remat.matmul");
}

// remat.keep is not a step and not a use (8xf16 = 16 bytes per value):
//   step 0 exp  %0           = 16
//   step 1 neg  %0 + %1      = 32  <- peak
//   step 2 tanh %1 + %2      = 32  (%0 is dead although kept below)
TEST_F(LivenessTest, KeepIsNotAUse) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%x: tensor<8xf16>) {
      %0 = remat.exp %x : (tensor<8xf16>) -> tensor<8xf16>
      %1 = remat.neg %0 : (tensor<8xf16>) -> tensor<8xf16>
      %2 = remat.tanh %1 : (tensor<8xf16>) -> tensor<8xf16>
      remat.keep %0 : tensor<8xf16>
      return
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_TRUE(a.isValid()) << a.getError();
  EXPECT_EQ(liveBytes(a), (std::vector<int64_t>{16, 32, 32}));
  EXPECT_EQ(a.getPeakOp()->getName().getStringRef(), "remat.neg");
  EXPECT_EQ(a.getArgumentBytes(), 16);
  EXPECT_EQ(a.getParameterBytes(), 0);
}

// remat.recompute is flattened: its body ops are steps, its block argument
// aliases the input %0 (extending %0 to step 3) and its result aliases the
// yielded %4 (extending %4 to the mul). 16xf32 = 64, 4x16xf32 = 256.
//   step 0 exp          %0                          = 64
//   step 1 neg          %0 + %1                     = 128
//   step 2 relu         %0 + %1 + %2                = 192
//   step 3 broadcast_to %0 + %2 + %3                = 384  <- peak
//   step 4 sum_to       %2 + %3 + %4                = 384
//   step 5 mul          %2 + %4 + %5                = 192
TEST_F(LivenessTest, RecomputeRegionFlattened) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%x: tensor<16xf32>) {
      %0 = remat.exp %x : (tensor<16xf32>) -> tensor<16xf32>
      %1 = remat.neg %0 : (tensor<16xf32>) -> tensor<16xf32>
      %2 = remat.relu %1 : (tensor<16xf32>) -> tensor<16xf32>
      %r = remat.recompute(%0) : (tensor<16xf32>) -> tensor<16xf32> {
      ^bb0(%a: tensor<16xf32>):
        %3 = remat.broadcast_to %a : (tensor<16xf32>) -> tensor<4x16xf32>
        %4 = remat.sum_to %3 : (tensor<4x16xf32>) -> tensor<16xf32>
        remat.yield %4 : tensor<16xf32>
      }
      %5 = remat.mul %r, %2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
      return
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_TRUE(a.isValid()) << a.getError();
  EXPECT_EQ(liveBytes(a), (std::vector<int64_t>{64, 128, 192, 384, 384, 192}));
  EXPECT_EQ(opNames(a),
            (std::vector<std::string>{"remat.exp", "remat.neg", "remat.relu",
                                      "remat.broadcast_to", "remat.sum_to",
                                      "remat.mul"}));
  // The steps are the body ops themselves, not the region op.
  Operation *peak = a.getPeakOp();
  ASSERT_TRUE(peak);
  EXPECT_EQ(peak->getName().getStringRef(), "remat.broadcast_to");
  EXPECT_TRUE(isa<RecomputeOp>(peak->getParentOp()));
  EXPECT_EQ(a.getPeakBytes(), 384);
  // Every value defined by an op once: 5 * 64 + 256 (the recompute result
  // is the yielded value, not a buffer of its own).
  EXPECT_EQ(a.getTotalActivationBytes(), 576);
}

// Returned values are counted apart from activations (like preallocated
// gradient buffers); a returned argument is neither.
//   %0 8xf32 (32) and %1 tensor<f32> (4) are returned; %2 (32) is not.
//   live: step 0 = 0, step 1 = 0, step 2 = 32.
TEST_F(LivenessTest, ReturnedValuesAreOutputs) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%x: tensor<8xf32> {remat.param}) -> (tensor<8xf32>, tensor<f32>, tensor<8xf32>) {
      %0 = remat.exp %x : (tensor<8xf32>) -> tensor<8xf32>
      %1 = remat.mse %0, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
      %2 = remat.neg %x : (tensor<8xf32>) -> tensor<8xf32>
      return %0, %1, %x : tensor<8xf32>, tensor<f32>, tensor<8xf32>
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_TRUE(a.isValid()) << a.getError();
  EXPECT_EQ(liveBytes(a), (std::vector<int64_t>{0, 0, 32}));
  EXPECT_EQ(a.getOutputBytes(), 36);
  EXPECT_EQ(a.getArgumentBytes(), 32);
  EXPECT_EQ(a.getParameterBytes(), 32);
  EXPECT_EQ(a.getPeakTotalBytes(), 32 + 32 + 36);
  EXPECT_EQ(a.getTotalActivationBytes(), 32 + 4 + 32);
}

// Element sizes: i32 4 bytes, bf16 2 bytes.
//   step 0 reshape   %0 24xi32 = 96                 = 96
//   step 1 slice     %0 + %1 12xi32 = 48            = 144  <- peak
//   step 2 transpose %2 4x6xbf16 = 48               = 48
//   step 3 gelu      %2 + %3 4x6xbf16 = 48          = 96
TEST_F(LivenessTest, ElementSizes) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%i: tensor<4x6xi32>, %h: tensor<6x4xbf16> {remat.param}) {
      %0 = remat.reshape %i : (tensor<4x6xi32>) -> tensor<24xi32>
      %1 = remat.slice %0 {offsets = array<i64: 0>, strides = array<i64: 2>} : (tensor<24xi32>) -> tensor<12xi32>
      %2 = remat.transpose %h {permutation = array<i64: 1, 0>} : (tensor<6x4xbf16>) -> tensor<4x6xbf16>
      %3 = remat.gelu %2 : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
      return
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_TRUE(a.isValid()) << a.getError();
  EXPECT_EQ(liveBytes(a), (std::vector<int64_t>{96, 144, 48, 96}));
  EXPECT_EQ(a.getPeakOp()->getName().getStringRef(), "remat.slice");
  EXPECT_EQ(a.getArgumentBytes(), 96 + 48);
  EXPECT_EQ(a.getParameterBytes(), 48);
}

TEST_F(LivenessTest, EmptyFunction) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
      return %x : tensor<3xf32>
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_TRUE(a.isValid()) << a.getError();
  EXPECT_TRUE(a.getSteps().empty());
  EXPECT_EQ(a.getPeakBytes(), 0);
  EXPECT_EQ(a.getPeakOp(), nullptr);
  EXPECT_EQ(a.getArgumentBytes(), 12);
  EXPECT_EQ(a.getTotalActivationBytes(), 0);
}

// writeJSON: the same numbers as the accessors.
TEST_F(LivenessTest, JSON) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%x: tensor<16xf32>, %w: tensor<4x4xf32> {remat.param}) {
      %0 = remat.exp %x : (tensor<16xf32>) -> tensor<16xf32>
      %1 = remat.neg %0 : (tensor<16xf32>) -> tensor<16xf32>
      return
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_TRUE(a.isValid()) << a.getError();
  std::string text;
  llvm::raw_string_ostream os(text);
  a.writeJSON(os, "f");
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *obj = parsed->getAsObject();
  ASSERT_TRUE(obj);
  EXPECT_EQ(obj->getString("function"), "f");
  // Step 0: %0 = 64; step 1: %0 + %1 = 128.
  EXPECT_EQ(obj->getInteger("peak_activation_bytes"), 128);
  EXPECT_EQ(obj->getInteger("argument_bytes"), 128);
  EXPECT_EQ(obj->getInteger("parameter_bytes"), 64);
  EXPECT_EQ(obj->getInteger("peak_total_bytes"), 256);
  EXPECT_EQ(obj->getInteger("total_activation_bytes"), 128);
  EXPECT_EQ(obj->getString("peak_op"), "remat.neg");
  const llvm::json::Array *ops = obj->getArray("ops");
  ASSERT_TRUE(ops);
  ASSERT_EQ(ops->size(), 2u);
  EXPECT_EQ((*ops)[0].getAsObject()->getInteger("live_bytes"), 64);
  EXPECT_EQ((*ops)[1].getAsObject()->getString("op"), "remat.neg");
  EXPECT_EQ((*ops)[1].getAsObject()->getInteger("live_bytes"), 128);
}

//===----------------------------------------------------------------------===//
// getValueBytes
//===----------------------------------------------------------------------===//

TEST_F(LivenessTest, ValueBytes) {
  auto bytes = [&](llvm::StringRef text) {
    Type t = mlir::parseType(text, &ctx);
    EXPECT_TRUE(t) << text.str();
    return getValueBytes(t);
  };
  EXPECT_EQ(bytes("tensor<4x8xf32>"), 128);
  EXPECT_EQ(bytes("tensor<4x8xbf16>"), 64);
  EXPECT_EQ(bytes("tensor<4x8xi1>"), 32);
  EXPECT_EQ(bytes("memref<4x8xf16>"), 64);
  EXPECT_EQ(bytes("memref<3xindex>"), 24);
  EXPECT_EQ(bytes("f64"), 8);
  EXPECT_EQ(bytes("i1"), 1);
  EXPECT_EQ(bytes("index"), 8);
  EXPECT_EQ(bytes("tensor<?xf32>"), std::nullopt);
  EXPECT_EQ(bytes("tensor<*xf32>"), std::nullopt);
  EXPECT_EQ(bytes("vector<4xf32>"), std::nullopt);
  EXPECT_EQ(bytes("tensor<4611686018427387904x4xf32>"), std::nullopt);
  // 2^61 f32 elements: 2^63 bytes overflow.
  EXPECT_EQ(bytes("tensor<2305843009213693952xf32>"), std::nullopt);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(LivenessTest, ResultOverflowIsLocated) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%x: tensor<4xf32>) {
      %0 = remat.exp %x : (tensor<4xf32>) -> tensor<4xf32>
      %1 = tensor.empty() : tensor<4611686018427387904x4xf32>
      return
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_FALSE(a.isValid());
  EXPECT_NE(a.getError().find("overflows 64 bits"), std::string::npos)
      << a.getError();
  ASSERT_TRUE(a.getErrorOp());
  EXPECT_EQ(a.getErrorOp()->getName().getStringRef(), "tensor.empty");
}

TEST_F(LivenessTest, ArgumentErrors) {
  func::FuncOp f = parseFunc(R"mlir(
    func.func @f(%x: tensor<4xf32>, %y: tensor<?xf32>) {
      return
    })mlir");
  ASSERT_TRUE(f);
  MemoryAnalysis a(f);
  ASSERT_FALSE(a.isValid());
  EXPECT_NE(a.getError().find("argument #1"), std::string::npos)
      << a.getError();
  EXPECT_EQ(a.getErrorOp(), f.getOperation());

  // Two arguments of 2^62 bytes each: the sum overflows.
  func::FuncOp g = parseFunc(R"mlir(
    func.func @g(%x: tensor<4611686018427387904xi8>, %y: tensor<4611686018427387904xi8>) {
      return
    })mlir");
  ASSERT_TRUE(g);
  MemoryAnalysis b(g);
  ASSERT_FALSE(b.isValid());
  EXPECT_EQ(b.getError(), "argument bytes overflow 64 bits");
}

TEST_F(LivenessTest, StructuralErrors) {
  module = parse(ctx, R"mlir(
    func.func private @decl(tensor<4xf32>)
    func.func @blocks(%x: tensor<4xf32>) {
      cf.br ^bb1
    ^bb1:
      return
    }
    func.func @region(%x: tensor<4xf32>) {
      %0 = scf.execute_region -> tensor<4xf32> {
        scf.yield %x : tensor<4xf32>
      }
      return
    })mlir");
  ASSERT_TRUE(module);
  auto lookup = [&](llvm::StringRef name) {
    return module->lookupSymbol<func::FuncOp>(name);
  };
  MemoryAnalysis decl(lookup("decl"));
  EXPECT_FALSE(decl.isValid());
  EXPECT_EQ(decl.getError(), "memory analysis needs a function with a body");

  MemoryAnalysis blocks(lookup("blocks"));
  EXPECT_FALSE(blocks.isValid());
  EXPECT_EQ(blocks.getError(),
            "memory analysis needs a single-block function body");

  MemoryAnalysis region(lookup("region"));
  EXPECT_FALSE(region.isValid());
  ASSERT_TRUE(region.getErrorOp());
  EXPECT_EQ(region.getErrorOp()->getName().getStringRef(),
            "scf.execute_region");

  // Not a function at all.
  MemoryAnalysis notFunc(module->getOperation());
  EXPECT_FALSE(notFunc.isValid());
}

} // namespace
