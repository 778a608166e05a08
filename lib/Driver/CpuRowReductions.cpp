//===- CpuRowReductions.cpp - row reductions in vector lanes --------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// remat-cpu-row-reductions: a host linalg.generic whose one reduction is its
// last loop dimension, read with a unit stride (softmax, layer-norm and
// cross-entropy rows), becomes loops over its parallel dimensions whose body
// folds the row in `lanes` vector lanes and then the lanes in a fixed tree:
// the lane order of docs/Conventions.md ("Row reductions (CPU)"), the same
// for every --cpu-vectorize choice, strategy and thread count.
//
//===----------------------------------------------------------------------===//

#include "CpuParallel.h"
#include "GpuReductions.h"

#include "remat/Driver/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace remat {
#define GEN_PASS_DEF_REMATCPUROWREDUCTIONS
#include "remat/Driver/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

/// Returns true if `op` indexes its last loop dimension, if at all, only in
/// the last (unit-stride) dimension of each input, as that dimension itself,
/// and its body is elementwise arithmetic: every op of the body but the
/// folds (`reductions`) then maps lane by lane onto vectors.
static bool isRowReduction(linalg::GenericOp op,
                           ArrayRef<GpuReduction> reductions) {
  unsigned last = op.getNumLoops() - 1;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [index, type] : llvm::enumerate(iterators))
    if ((type == utils::IteratorType::reduction) != (index == last))
      return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type || !type.getElementType().isIntOrFloat())
      return false;
    AffineMap map = op.getMatchingIndexingMap(input);
    for (auto [position, result] : llvm::enumerate(map.getResults())) {
      if (!result.isFunctionOfDim(last))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(result);
      if (!dim || position + 1 != map.getNumResults())
        return false;
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(type.getStridesAndOffset(strides, offset)) ||
          strides.back() != 1)
        return false;
    }
  }
  Block &body = op.getRegion().front();
  for (Operation &inner : body.without_terminator()) {
    if (llvm::any_of(reductions, [&](const GpuReduction &reduction) {
          return reduction.combiner == &inner;
        }))
      continue;
    if (inner.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (!inner.hasTrait<OpTrait::Elementwise>() ||
        !isMemoryEffectFree(&inner) || inner.getNumRegions() != 0 ||
        !llvm::all_of(inner.getResultTypes(),
                      [](Type type) { return type.isIntOrFloat(); }))
      return false;
  }
  return true;
}

/// The indices of `map`'s results at the loop indices `loops`.
static SmallVector<Value> indicesOf(OpBuilder &b, Location loc, AffineMap map,
                                    ArrayRef<Value> loops) {
  SmallVector<Value> indices;
  for (unsigned i = 0; i < map.getNumResults(); ++i) {
    AffineMap result = map.getSubMap({i});
    if (auto dim = dyn_cast<AffineDimExpr>(result.getResult(0)))
      indices.push_back(loops[dim.getPosition()]);
    else
      indices.push_back(
          affine::AffineApplyOp::create(b, loc, result, loops).getResult());
  }
  return indices;
}

/// Applies `combiner` (a fold of `op`'s body) to `acc` and `value`, which
/// take the places of its accumulator and folded value.
static Value combine(OpBuilder &b, Location loc, const GpuReduction &reduction,
                     Value acc, Value value) {
  Operation *combiner = reduction.combiner;
  bool accFirst = combiner->getOperand(0) == reduction.accumulator;
  IRMapping mapping;
  mapping.map(combiner->getOperand(accFirst ? 0 : 1), acc);
  mapping.map(combiner->getOperand(accFirst ? 1 : 0), value);
  Operation *clone = b.clone(*combiner, mapping);
  clone->getResult(0).setType(acc.getType());
  return clone->getResult(0);
}

namespace {

/// Rewrites one row reduction (isRowReduction).
class RowReductionRewriter {
public:
  RowReductionRewriter(linalg::GenericOp op, ArrayRef<GpuReduction> reductions,
                       int64_t lanes)
      : op(op), reductions(reductions), lanes(lanes),
        length(op.getStaticLoopRanges().back()) {}

  /// Builds the loop nest over the parallel dimensions at the builder's
  /// insertion point and returns its outermost loop (null without parallel
  /// dimensions).
  scf::ForOp build(OpBuilder &b) {
    Location loc = op.getLoc();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<Value> lower, upper, steps;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t range : ArrayRef<int64_t>(ranges).drop_back()) {
      lower.push_back(zero);
      upper.push_back(arith::ConstantIndexOp::create(b, loc, range));
      steps.push_back(one);
    }
    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lower, upper, steps,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange ivs) {
          buildRow(nested, nestedLoc, ivs);
        });
    return nest.loops.empty() ? scf::ForOp() : nest.loops.front();
  }

private:
  /// The values of the body at lane-vector position `offset` of the row at
  /// parallel indices `ivs`: each input that the row indexes a vector load
  /// (with `mask`, of its lanes only; zeros in the others) and each other
  /// input a broadcast, then the body's ops on vectors; returns the folded
  /// values of `reductions`, in order.
  SmallVector<Value> buildValues(OpBuilder &b, Location loc, ValueRange ivs,
                                 Value offset, Value mask) {
    SmallVector<Value> loops(ivs.begin(), ivs.end());
    loops.push_back(offset);
    unsigned last = op.getNumLoops() - 1;
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      SmallVector<Value> indices = indicesOf(b, loc, map, loops);
      Value memref = input->get();
      Type element = cast<MemRefType>(memref.getType()).getElementType();
      auto vectorType = VectorType::get({lanes}, element);
      Value value;
      if (map.isFunctionOfDim(last) && mask) {
        Value pass = arith::ConstantOp::create(b, loc, vectorType,
                                               b.getZeroAttr(vectorType));
        value = vector::MaskedLoadOp::create(b, loc, vectorType, memref,
                                             indices, mask, pass);
      } else if (map.isFunctionOfDim(last)) {
        value = vector::LoadOp::create(b, loc, vectorType, memref, indices);
      } else {
        Value scalar = memref::LoadOp::create(b, loc, memref, indices);
        value = vector::BroadcastOp::create(b, loc, vectorType, scalar);
      }
      mapping.map(op.getMatchingBlockArgument(input), value);
    }
    Block &body = op.getRegion().front();
    for (Operation &inner : body.without_terminator()) {
      if (llvm::any_of(reductions, [&](const GpuReduction &reduction) {
            return reduction.combiner == &inner;
          }))
        continue;
      if (inner.hasTrait<OpTrait::ConstantLike>()) {
        Value scalar = b.clone(inner)->getResult(0);
        mapping.map(
            inner.getResult(0),
            vector::BroadcastOp::create(
                b, loc, VectorType::get({lanes}, scalar.getType()), scalar));
        continue;
      }
      // Scalars from above the body (constants) as vectors.
      for (Value operand : inner.getOperands())
        if (!mapping.contains(operand))
          mapping.map(operand,
                      vector::BroadcastOp::create(
                          b, loc, VectorType::get({lanes}, operand.getType()),
                          operand));
      Operation *clone = b.clone(inner, mapping);
      for (OpResult result : clone->getResults())
        result.setType(VectorType::get({lanes}, result.getType()));
    }
    SmallVector<Value> values;
    for (const GpuReduction &reduction : reductions) {
      Value value = reduction.value;
      if (!mapping.contains(value))
        mapping.map(
            value,
            vector::BroadcastOp::create(
                b, loc, VectorType::get({lanes}, value.getType()), value));
      values.push_back(mapping.lookup(value));
    }
    return values;
  }

  /// The lanes of `vector` folded in the tree of docs/Conventions.md: lane
  /// l with lane l + width / 2 while the width is above 1.
  Value foldLanes(OpBuilder &b, Location loc, const GpuReduction &reduction,
                  Value vector) {
    for (int64_t width = lanes; width > 1; width /= 2) {
      int64_t half = width / 2;
      Value low = vector::ExtractStridedSliceOp::create(b, loc, vector, {0},
                                                        {half}, {1});
      Value high = vector::ExtractStridedSliceOp::create(b, loc, vector, {half},
                                                         {half}, {1});
      vector = combine(b, loc, reduction, low, high);
    }
    return vector::ExtractOp::create(b, loc, vector, ArrayRef<int64_t>{0});
  }

  /// One row: the lanes from the identity over the whole vectors, the
  /// partial last vector (masked) into the first lanes, the lane tree, then
  /// the output's value folded with the tree's result.
  void buildRow(OpBuilder &b, Location loc, ValueRange ivs) {
    SmallVector<Value> inits;
    for (const GpuReduction &reduction : reductions) {
      auto type = VectorType::get({lanes}, reduction.identity.getType());
      inits.push_back(arith::ConstantOp::create(
          b, loc, type,
          DenseElementsAttr::get(type,
                                 ArrayRef<Attribute>(reduction.identity))));
    }
    int64_t whole = length / lanes * lanes;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value end = arith::ConstantIndexOp::create(b, loc, whole);
    Value step = arith::ConstantIndexOp::create(b, loc, lanes);
    auto loop = scf::ForOp::create(
        b, loc, zero, end, step, inits,
        [&](OpBuilder &inner, Location innerLoc, Value offset,
            ValueRange accs) {
          SmallVector<Value> values =
              buildValues(inner, innerLoc, ivs, offset, Value());
          SmallVector<Value> next;
          for (auto [reduction, acc, value] :
               llvm::zip_equal(reductions, accs, values))
            next.push_back(combine(inner, innerLoc, reduction, acc, value));
          scf::YieldOp::create(inner, innerLoc, next);
        });
    SmallVector<Value> accs(loop.getResults());
    if (int64_t rest = length - whole) {
      auto maskType = VectorType::get({lanes}, b.getI1Type());
      SmallVector<bool> first(lanes, false);
      std::fill_n(first.begin(), rest, true);
      Value mask = arith::ConstantOp::create(
          b, loc, maskType, DenseElementsAttr::get(maskType, first));
      SmallVector<Value> values = buildValues(b, loc, ivs, end, mask);
      for (auto [reduction, acc, value] :
           llvm::zip_equal(reductions, accs, values)) {
        Value folded = combine(b, loc, reduction, acc, value);
        acc = arith::SelectOp::create(b, loc, mask, folded, acc);
      }
    }
    for (auto [reduction, acc] : llvm::zip_equal(reductions, accs)) {
      Value total = foldLanes(b, loc, reduction, acc);
      OpOperand *init = op.getDpsInitOperand(
          reduction.accumulator.getArgNumber() - op.getNumDpsInputs());
      SmallVector<Value> loops(ivs.begin(), ivs.end());
      SmallVector<Value> indices =
          indicesOf(b, loc, op.getMatchingIndexingMap(init), loops);
      Value old = memref::LoadOp::create(b, loc, init->get(), indices);
      Value result = combine(b, loc, reduction, old, total);
      memref::StoreOp::create(b, loc, result, init->get(), indices);
    }
  }

  linalg::GenericOp op;
  ArrayRef<GpuReduction> reductions;
  int64_t lanes;
  int64_t length;
};

struct CpuRowReductionsPass
    : public remat::impl::RematCpuRowReductionsBase<CpuRowReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (lanes < 2 || !llvm::isPowerOf2_64(lanes)) {
      getOperation().emitError("remat-cpu-row-reductions: lanes must be a "
                               "power of 2 above 1, not ")
          << static_cast<int64_t>(lanes);
      return signalPassFailure();
    }
    struct Work {
      func::FuncOp func;
      linalg::GenericOp op;
      SmallVector<GpuReduction> reductions;
    };
    SmallVector<Work> work;
    for (auto func : getOperation().getOps<func::FuncOp>())
      func.walk([&](linalg::GenericOp op) {
        if (op->getParentOfType<linalg::LinalgOp>())
          return;
        std::optional<SmallVector<GpuReduction>> reductions =
            matchGpuReductions(op);
        if (!reductions || !isRowReduction(op, *reductions) ||
            op.getStaticLoopRanges().back() < minLength)
          return;
        work.push_back({func, op, std::move(*reductions)});
      });
    IRRewriter rewriter(&getContext());
    for (Work &item : work) {
      linalg::GenericOp op = item.op;
      RowReductionRewriter row(op, item.reductions, lanes);
      bool parallel = minWork >= 0 && op->getParentOp() == item.func &&
                      op.getNumLoops() > 1 &&
                      shouldRunParallel(op, minWork, bodyWork);
      if (!parallel) {
        rewriter.setInsertionPoint(op);
        row.build(rewriter);
        rewriter.eraseOp(op);
        continue;
      }
      // As remat-cpu-parallel-loops would: the outer loop on threads under
      // its thread test, a sequential copy for one thread.
      FailureOr<Value> threads = getThreadCount(rewriter, item.func);
      if (failed(threads))
        return signalPassFailure();
      Value test = buildParallelTest(rewriter, op, *threads);
      rewriter.setInsertionPoint(op);
      auto branch = scf::IfOp::create(rewriter, op.getLoc(), test,
                                      /*withElseRegion=*/true);
      rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
      row.build(rewriter);
      rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
      makeParallelLoop(rewriter, row.build(rewriter));
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
