//===- GpuSplitReductions.cpp - few-output reductions split in slices -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// --remat-gpu-split-reductions: a host reduction of few outputs and many
// elements becomes a reduction of contiguous slices into a buffer of
// partial results (planned into the arena by remat-plan-arena) and a
// reduction of those partial results, so that
// --remat-gpu-block-reductions gives the first one a block per (output,
// slice) instead of one block per output (Passes.td, docs/Conventions.md).
//
//===----------------------------------------------------------------------===//

#include "GpuReductions.h"

#include "remat/Driver/Passes.h"

#include "mlir/IR/IRMapping.h"

#include <algorithm>

namespace remat {
#define GEN_PASS_DEF_REMATGPUSPLITREDUCTIONS
#include "remat/Driver/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// How an op is split: the reduction loops taken whole (in loop order) and,
/// optionally, the loop after them split `ways` ways.
struct Split {
  SmallVector<unsigned> whole;
  std::optional<unsigned> splitLoop;
  int64_t ways = 1;
  /// The number of slices G.
  int64_t slices = 1;
};

/// The split of `op` (`outputs` outputs, a reduction of `length` elements
/// over the loops `reductionDims`): the most slices G with
/// outputs * G <= targetBlocks and length / G >= minSlice, taking the
/// reduction loops in order, whole while they fit, then the next one split
/// by its largest divisor that fits.
Split chooseSplit(linalg::GenericOp op, ArrayRef<unsigned> reductionDims,
                  int64_t outputs, int64_t length, int64_t targetBlocks,
                  int64_t minSlice) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  Split split;
  auto fits = [&](int64_t slices) {
    return outputs * slices <= targetBlocks && length / slices >= minSlice;
  };
  for (unsigned dim : reductionDims) {
    int64_t extent = ranges[dim];
    if (fits(split.slices * extent)) {
      split.whole.push_back(dim);
      split.slices *= extent;
      continue;
    }
    // The most ways that fit: at most targetBlocks / (outputs x slices).
    int64_t most =
        std::min<int64_t>(extent - 1, targetBlocks / (outputs * split.slices));
    for (int64_t ways = most; ways >= 2; --ways)
      if (extent % ways == 0 && fits(split.slices * ways)) {
        split.splitLoop = dim;
        split.ways = ways;
        split.slices *= ways;
        break;
      }
    break;
  }
  return split;
}

/// `value` (a memref indexed by `map`'s results) expanded at the result
/// that is loop `dim` into [ways, extent / ways].
Value expandAt(OpBuilder &b, Location loc, Value value, AffineMap map,
               unsigned dim, int64_t ways) {
  auto type = cast<MemRefType>(value.getType());
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (auto [index, expr] : llvm::enumerate(map.getResults())) {
    int64_t extent = type.getDimSize(index);
    if (expr.isFunctionOfDim(dim)) {
      groups.push_back({next, next + 1});
      shape.append({ways, extent / ways});
      next += 2;
      continue;
    }
    groups.push_back({next++});
    shape.push_back(extent);
  }
  FailureOr<MemRefType> expanded =
      memref::ExpandShapeOp::computeExpandedType(type, shape, groups);
  assert(succeeded(expanded) && "a static dimension always splits");
  return memref::ExpandShapeOp::create(b, loc, *expanded, value, groups);
}

/// Rewrites `op` (whose reductions are `reductions`) as `split` says.
void rewriteSplit(linalg::GenericOp op, ArrayRef<GpuReduction> reductions,
                  const Split &split) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = op.getNumLoops();
  bool splitting = split.splitLoop.has_value();
  unsigned k = splitting ? *split.splitLoop : numLoops;
  int64_t sliceExtent = splitting ? ranges[k] / split.ways : 1;

  // The slices' op: loop k (if split) becomes the slice g (at k) and the
  // position a in it (at k + 1); later loops move up by one.
  unsigned numSliceLoops = numLoops + (splitting ? 1 : 0);
  auto sliceDim = [&](unsigned dim) {
    return splitting && dim > k ? dim + 1 : dim;
  };
  SmallVector<AffineExpr> oldToNew;
  for (unsigned dim = 0; dim < numLoops; ++dim) {
    if (splitting && dim == k)
      oldToNew.push_back(getAffineDimExpr(k, ctx) * sliceExtent +
                         getAffineDimExpr(k + 1, ctx));
    else
      oldToNew.push_back(getAffineDimExpr(sliceDim(dim), ctx));
  }
  SmallVector<utils::IteratorType> sliceIterators;
  for (unsigned dim = 0; dim < numLoops; ++dim) {
    bool parallel = iterators[dim] == utils::IteratorType::parallel ||
                    llvm::is_contained(split.whole, dim);
    if (splitting && dim == k) {
      sliceIterators.append(
          {utils::IteratorType::parallel, utils::IteratorType::reduction});
      continue;
    }
    sliceIterators.push_back(parallel ? utils::IteratorType::parallel
                                      : utils::IteratorType::reduction);
  }

  SmallVector<Value> inputs;
  SmallVector<AffineMap> sliceMaps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    Value value = input->get();
    if (!splitting || !isa<MemRefType>(value.getType()) ||
        !llvm::any_of(map.getResults(),
                      [&](AffineExpr e) { return e.isFunctionOfDim(k); })) {
      inputs.push_back(value);
      sliceMaps.push_back(
          map.replaceDimsAndSymbols(oldToNew, {}, numSliceLoops, 0));
      continue;
    }
    inputs.push_back(expandAt(b, loc, value, map, k, split.ways));
    SmallVector<AffineExpr> results;
    for (AffineExpr expr : map.getResults()) {
      if (expr.isFunctionOfDim(k)) {
        results.append(
            {getAffineDimExpr(k, ctx), getAffineDimExpr(k + 1, ctx)});
        continue;
      }
      results.push_back(expr.replaceDimsAndSymbols(oldToNew, {}));
    }
    sliceMaps.push_back(AffineMap::get(numSliceLoops, 0, results, ctx));
  }

  // The partial results: [parallel loops..., whole loops..., slices], all
  // loops of the slices' op that are parallel, in that order.
  SmallVector<unsigned> parallelDims;
  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (iterators[dim] == utils::IteratorType::parallel)
      parallelDims.push_back(dim);
  SmallVector<int64_t> partialShape;
  SmallVector<AffineExpr> partialIndex;
  for (unsigned dim : llvm::concat<const unsigned>(parallelDims, split.whole)) {
    partialShape.push_back(ranges[dim]);
    partialIndex.push_back(getAffineDimExpr(sliceDim(dim), ctx));
  }
  if (splitting) {
    partialShape.push_back(split.ways);
    partialIndex.push_back(getAffineDimExpr(k, ctx));
  }
  AffineMap partialMap = AffineMap::get(numSliceLoops, 0, partialIndex, ctx);
  SmallVector<Value> partials;
  for (const GpuReduction &reduction : reductions) {
    auto type = MemRefType::get(partialShape, reduction.identity.getType());
    Value partial = memref::AllocOp::create(b, loc, type);
    Value identity = arith::ConstantOp::create(b, loc, reduction.identity);
    linalg::FillOp::create(b, loc, ValueRange{identity}, ValueRange{partial});
    partials.push_back(partial);
    sliceMaps.push_back(partialMap);
  }
  auto slicesOp = linalg::GenericOp::create(
      b, loc, TypeRange{}, inputs, partials, sliceMaps, sliceIterators);
  IRMapping mapping;
  op.getRegion().cloneInto(&slicesOp.getRegion(), mapping);
  // linalg.index of an old loop: the new loop, or g * extent + a.
  SmallVector<linalg::IndexOp> indices;
  slicesOp.getRegion().walk(
      [&](linalg::IndexOp index) { indices.push_back(index); });
  for (linalg::IndexOp index : indices) {
    OpBuilder ib(index);
    unsigned dim = index.getDim();
    Value replacement;
    if (splitting && dim == k) {
      Value slice = linalg::IndexOp::create(ib, loc, k);
      Value position = linalg::IndexOp::create(ib, loc, k + 1);
      replacement = affine::AffineApplyOp::create(
          ib, loc,
          AffineMap::get(2, 0,
                         getAffineDimExpr(0, ctx) * sliceExtent +
                             getAffineDimExpr(1, ctx)),
          ValueRange{slice, position});
    } else {
      replacement = linalg::IndexOp::create(ib, loc, sliceDim(dim));
    }
    index.replaceAllUsesWith(replacement);
    index.erase();
  }

  // The partial results folded over the slices into the outputs: loops
  // [parallel loops..., whole loops..., slices], the last ones reductions.
  unsigned numParallel = parallelDims.size();
  unsigned numFoldLoops = partialShape.size();
  SmallVector<AffineExpr> parallelToFold(numLoops,
                                         getAffineConstantExpr(0, ctx));
  for (auto [position, dim] : llvm::enumerate(parallelDims))
    parallelToFold[dim] = getAffineDimExpr(position, ctx);
  SmallVector<AffineMap> foldMaps(
      reductions.size(), AffineMap::getMultiDimIdentityMap(numFoldLoops, ctx));
  SmallVector<Value> outputs;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    outputs.push_back(init.get());
    foldMaps.push_back(op.getMatchingIndexingMap(&init).replaceDimsAndSymbols(
        parallelToFold, {}, numFoldLoops, 0));
  }
  SmallVector<utils::IteratorType> foldIterators(
      numFoldLoops, utils::IteratorType::reduction);
  std::fill_n(foldIterators.begin(), numParallel,
              utils::IteratorType::parallel);
  auto foldOp = linalg::GenericOp::create(
      b, loc, TypeRange{}, partials, outputs, foldMaps, foldIterators,
      [&](OpBuilder &fb, Location l, ValueRange args) {
        SmallVector<Value> results;
        for (auto [index, reduction] : llvm::enumerate(reductions)) {
          IRMapping combine;
          combine.map(reduction.value, args[index]);
          combine.map(reduction.accumulator, args[reductions.size() + index]);
          results.push_back(
              fb.clone(*reduction.combiner, combine)->getResult(0));
        }
        linalg::YieldOp::create(fb, l, results);
      });
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    slicesOp->setAttr(attr.getName(), attr.getValue());
    foldOp->setAttr(attr.getName(), attr.getValue());
  }
  b.setInsertionPointAfter(foldOp);
  for (Value partial : partials)
    memref::DeallocOp::create(b, loc, partial);
  op.erase();
}

struct GpuSplitReductionsPass
    : public remat::impl::RematGpuSplitReductionsBase<GpuSplitReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (targetBlocks < 2 || minSlice < 2) {
      getOperation().emitError()
          << "remat-gpu-split-reductions: target-blocks and min-slice must "
             "be at least 2, got "
          << static_cast<int64_t>(targetBlocks) << " and "
          << static_cast<int64_t>(minSlice);
      return signalPassFailure();
    }
    // Host ops at the top level of a function (where remat-plan-arena
    // places buffers).
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isa<func::FuncOp>(op->getParentOp()) && op.getNumReductionLoops() > 0)
        ops.push_back(op);
    });
    for (linalg::GenericOp op : ops) {
      std::optional<SmallVector<GpuReduction>> reductions =
          matchGpuReductions(op);
      // Operands indexed by loops only: a convolution's filter gradient
      // (windows) is left to cuDNN or to im2col and a GEMM.
      if (!reductions ||
          !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
            return map.isProjectedPermutation();
          }))
        continue;
      int64_t outputs = 1, length = 1;
      SmallVector<unsigned> reductionDims;
      for (auto [dim, range, type] : llvm::enumerate(
               op.getStaticLoopRanges(), op.getIteratorTypesArray())) {
        if (type == utils::IteratorType::parallel) {
          outputs *= range;
          continue;
        }
        length *= range;
        reductionDims.push_back(dim);
      }
      if (outputs == 0 || 2 * outputs >= targetBlocks || length < 2 * minSlice)
        continue;
      Split split = chooseSplit(op, reductionDims, outputs, length,
                                targetBlocks, minSlice);
      if (split.slices < 2)
        continue;
      if (remarks)
        op->emitRemark() << "reduction of " << outputs << " outputs x "
                         << length << " elements: " << split.slices
                         << " slices of " << length / split.slices
                         << " elements";
      rewriteSplit(op, *reductions, split);
    }
  }
};

} // namespace
