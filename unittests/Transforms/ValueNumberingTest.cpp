//===- ValueNumberingTest.cpp - Tests of the verifier's value numbering ---===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The hash-consed terms behind --remat-verify-schedule=original=
// (lib/Dialect/Remat/Transforms/ValueNumbering.h): which values get equal
// terms within and across functions, and what validateTranslation accepts.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/TestContext.h"

#include "ValueNumbering.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

using namespace mlir;
using namespace remat;
using namespace remat::test;
using namespace remat::verify;

namespace {

class ValueNumberingTest : public ::testing::Test {
protected:
  ValueNumberingTest() : ctx(makeRegistry(/*costModels=*/false)) {
    ctx.loadAllAvailableDialects();
  }

  /// Parses `source` into `module`; false (and a test failure) if it does
  /// not parse.
  bool load(StringRef source) {
    module = parse(ctx, source);
    return static_cast<bool>(module);
  }

  /// The function `name` of the loaded module.
  func::FuncOp getFunc(StringRef name) {
    return module->lookupSymbol<func::FuncOp>(name);
  }

  /// The value returned as operand `index` of the return of `func`.
  static Value returned(func::FuncOp func, unsigned index) {
    return func.getBody().front().getTerminator()->getOperand(index);
  }

  /// Expects `func` to return four values of which the first two have one
  /// term and the last two each have another.
  static void expectOnlyFirstTwoEqual(func::FuncOp func,
                                      const FunctionNumbering &terms) {
    TermId first = terms.lookup(returned(func, 0));
    EXPECT_EQ(first, terms.lookup(returned(func, 1)));
    EXPECT_NE(first, terms.lookup(returned(func, 2)));
    EXPECT_NE(first, terms.lookup(returned(func, 3)));
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  TermTable table;
};

TEST_F(ValueNumberingTest, StructureDecidesEquality) {
  ASSERT_TRUE(load(R"mlir(
    func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %a = remat.sub %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %b = remat.sub %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %c = remat.sub %y, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %d = remat.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    })mlir"));
  func::FuncOp f = getFunc("f");
  FunctionNumbering terms(f, table);
  // The same op on the same operands: one term (a pure op is a function of
  // its operands). Swapped operands or another op: another term.
  expectOnlyFirstTwoEqual(f, terms);
  // The representative of a term is its first value.
  EXPECT_EQ(terms.getRepresentative(terms.lookup(returned(f, 1))),
            returned(f, 0));
  EXPECT_EQ(terms.getSteps().size(), 5u);
}

TEST_F(ValueNumberingTest, RecomputeRegionsAreTransparent) {
  // @orig computes t = tanh(tanh(x)); @rewritten recomputes the inner tanh
  // in a region and yields both its block argument and the recomputation.
  ASSERT_TRUE(load(R"mlir(
    func.func @orig(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
      %b = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
      return %b, %a : tensor<4xf32>, tensor<4xf32>
    }
    func.func @rewritten(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
      %b = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
      %r:2 = remat.recompute(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      ^bb0(%in: tensor<4xf32>):
        %t = remat.tanh %in : (tensor<4xf32>) -> tensor<4xf32>
        remat.yield %t, %in : tensor<4xf32>, tensor<4xf32>
      }
      return %b, %r#0 : tensor<4xf32>, tensor<4xf32>
    })mlir"));
  func::FuncOp orig = getFunc("orig");
  func::FuncOp rewritten = getFunc("rewritten");
  FunctionNumbering origTerms(orig, table);
  FunctionNumbering terms(rewritten, table);
  auto recompute = cast<RecomputeOp>(*rewritten.getOps<RecomputeOp>().begin());
  // Across functions: equal terms for equal computations.
  EXPECT_EQ(terms.lookup(returned(rewritten, 0)),
            origTerms.lookup(returned(orig, 0)));
  // The recomputed tanh(x) equals the original %a; the yielded block
  // argument equals the input %x.
  EXPECT_EQ(terms.lookup(recompute.getResult(0)),
            origTerms.lookup(returned(orig, 1)));
  EXPECT_EQ(terms.lookup(recompute.getResult(1)),
            origTerms.lookup(orig.getArgument(0)));
  // Steps skip the region: tanh, tanh, return.
  EXPECT_EQ(terms.getSteps().size(), 3u);
  EXPECT_TRUE(
      succeeded(validateTranslation(orig, origTerms, rewritten, terms)));
}

TEST_F(ValueNumberingTest, BookkeepingAttributesOnly) {
  // remat.phase and remat.no_recompute do not count; any other attribute,
  // discardable or not, does (the dialect rejects unknown remat.* ones).
  ASSERT_TRUE(load(R"mlir(
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
      %b = remat.tanh %x {remat.phase = #remat.phase<backward>, remat.no_recompute} : (tensor<4xf32>) -> tensor<4xf32>
      %c = remat.tanh %x {test.mark} : (tensor<4xf32>) -> tensor<4xf32>
      %d = remat.tanh %x {tag = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
      return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    })mlir"));
  func::FuncOp f = getFunc("f");
  FunctionNumbering terms(f, table);
  expectOnlyFirstTwoEqual(f, terms);
  EXPECT_TRUE(isBookkeepingAttr("remat.phase"));
  EXPECT_FALSE(isBookkeepingAttr("remat.other"));
}

TEST_F(ValueNumberingTest, DropoutDependsOnSeedAndRate) {
  ASSERT_TRUE(load(R"mlir(
    func.func @f(%x: tensor<4xf32>, %s0: tensor<i64>, %s1: tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %a = remat.dropout %x, %s0 {rate = 0.5 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
      %b = remat.dropout %x, %s0 {rate = 0.5 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
      %c = remat.dropout %x, %s1 {rate = 0.5 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
      %d = remat.dropout %x, %s0 {rate = 0.25 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
      return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    })mlir"));
  func::FuncOp f = getFunc("f");
  FunctionNumbering terms(f, table);
  // Same input, seed and rate: the same mask, so one term; another seed or
  // rate: another mask.
  expectOnlyFirstTwoEqual(f, terms);
}

TEST_F(ValueNumberingTest, SideEffectsAreNeverMerged) {
  // Two unregistered ops (which may have any effect) on the same operand
  // are two executions; the same op at the same position of another
  // function is the same execution.
  ctx.allowUnregisteredDialects();
  ASSERT_TRUE(load(R"mlir(
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %a = "test.effect"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %b = "test.effect"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %a, %b : tensor<4xf32>, tensor<4xf32>
    }
    func.func @g(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %a = "test.effect"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %b = "test.effect"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %b, %a : tensor<4xf32>, tensor<4xf32>
    })mlir"));
  func::FuncOp f = getFunc("f");
  func::FuncOp g = getFunc("g");
  FunctionNumbering fTerms(f, table);
  FunctionNumbering gTerms(g, table);
  EXPECT_NE(fTerms.lookup(returned(f, 0)), fTerms.lookup(returned(f, 1)));
  EXPECT_EQ(fTerms.lookup(returned(f, 0)), gTerms.lookup(returned(g, 1)));
  // @g returns them swapped: not the values @f returns.
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(validateTranslation(f, fTerms, g, gTerms)));
}

} // namespace
