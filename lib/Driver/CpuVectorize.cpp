//===- CpuVectorize.cpp - upstream tiling and vectorisation ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// remat-cpu-vectorize: the opt-in upstream alternative to LLVM's loop
// vectorizer for the host linalg ops that do not call a library. Each op is
// tiled by one unit-stride parallel dimension (scf::tileUsingSCF) and every
// tile becomes vector ops (linalg::vectorize). Reductions are tiled by 1,
// so the order of every floating-point reduction is that of
// convert-linalg-to-loops. Ops that remat-cpu-parallel-loops would share
// among OpenMP threads get their outermost tile loop as an scf.parallel
// under its thread test (CpuParallel.h).
//
//===----------------------------------------------------------------------===//

#include "CpuParallel.h"

#include "remat/Driver/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <optional>

namespace remat {
#define GEN_PASS_DEF_REMATCPUVECTORIZE
#include "remat/Driver/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

/// Returns true if `operand` of `op` indexes loop dimension `dim` only in
/// its last dimension, as that dimension itself, with a unit stride, or not
/// at all (a broadcast along `dim`): a tile's lanes then read or write
/// consecutive elements, or one element.
static bool isContiguousIn(linalg::LinalgOp op, OpOperand &operand,
                           unsigned dim) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  bool indexed = false;
  for (auto [position, result] : llvm::enumerate(map.getResults())) {
    if (!result.isFunctionOfDim(dim))
      continue;
    auto expr = dyn_cast<AffineDimExpr>(result);
    if (position + 1 != map.getNumResults() || !expr)
      return false;
    indexed = true;
  }
  if (!indexed)
    // An output must hold one element per lane.
    return !op.isDpsInit(&operand);
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return type && succeeded(type.getStridesAndOffset(strides, offset)) &&
         !strides.empty() && strides.back() == 1;
}

/// Returns the loop dimension of `op` to vectorise by `lanes`: the
/// innermost parallel one whose trip count is a multiple of `lanes` and in
/// which every operand is contiguous or broadcast; std::nullopt if none.
static std::optional<unsigned> chooseVectorDim(linalg::LinalgOp op,
                                               int64_t lanes) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.hasDynamicShape())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned dim = op.getNumLoops(); dim-- > 0;) {
    if (!linalg::isParallelIterator(iterators[dim]) ||
        ShapedType::isDynamic(ranges[dim]) || ranges[dim] % lanes != 0)
      continue;
    if (llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
          return isContiguousIn(op, operand, dim);
        }))
      return dim;
  }
  return std::nullopt;
}

/// Tiles `op` by `lanes` along `dim` and by 1 along every other dimension
/// of more than one iteration, then vectorises the tile. Returns the
/// outermost tile loop (null if there is none), and failure only if the IR
/// could not be rewritten; an op the vectoriser rejects stays a (tiled)
/// linalg op.
static FailureOr<scf::ForOp> tileAndVectorize(RewriterBase &rewriter,
                                              linalg::LinalgOp op, unsigned dim,
                                              int64_t lanes) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<OpFoldResult> sizes;
  for (auto [position, range] : llvm::enumerate(ranges))
    sizes.push_back(rewriter.getIndexAttr(
        position == dim ? lanes : (range == 1 ? 0 : 1)));
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(sizes);
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), tiling);
  if (failed(tiled) || tiled->tiledOps.empty())
    return failure();
  rewriter.eraseOp(op);
  Operation *tile = tiled->tiledOps.back();
  rewriter.setInsertionPoint(tile);
  if (succeeded(linalg::vectorize(rewriter, tile)))
    rewriter.eraseOp(tile);
  if (tiled->loops.empty())
    return scf::ForOp();
  return dyn_cast<scf::ForOp>(tiled->loops.front().getOperation());
}

/// Returns true if the outermost tile loop of `op` (tiled as in
/// tileAndVectorize) is worth sharing among threads: the rule of
/// remat-cpu-parallel-loops (shouldRunParallel, `minWork` points, weighed
/// by the body's work with `bodyWork`), and at least two tiles along the
/// first dimension.
static bool isParallelTiling(linalg::LinalgOp op, unsigned dim, int64_t lanes,
                             int64_t minWork, bool bodyWork) {
  if (minWork < 0 || !shouldRunParallel(op, minWork, bodyWork))
    return false;
  int64_t trips = op.getStaticLoopRanges().front();
  return (dim == 0 ? trips / lanes : trips) >= 2;
}

/// Tiles and vectorises `op` (tileAndVectorize) twice, under
/// `scf.if %parallel` (buildParallelTest): the then-branch with its
/// outermost tile loop an scf.parallel (OpenMP threads after
/// convert-scf-to-openmp), the else-branch with the same sequential loop.
static LogicalResult tileAndVectorizeParallel(RewriterBase &rewriter,
                                              func::FuncOp func,
                                              linalg::LinalgOp op, unsigned dim,
                                              int64_t lanes) {
  FailureOr<Value> threads = getThreadCount(rewriter, func);
  if (failed(threads))
    return failure();
  Value parallel = buildParallelTest(rewriter, op, *threads);
  rewriter.setInsertionPoint(op);
  auto branch = scf::IfOp::create(rewriter, op.getLoc(), parallel,
                                  /*withElseRegion=*/true);
  rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
  auto sequential = cast<linalg::LinalgOp>(rewriter.clone(*op));
  rewriter.moveOpBefore(op, branch.thenBlock()->getTerminator());
  if (failed(tileAndVectorize(rewriter, sequential, dim, lanes)))
    return failure();
  FailureOr<scf::ForOp> outer = tileAndVectorize(rewriter, op, dim, lanes);
  if (failed(outer) || !*outer || outer->getNumRegionIterArgs() != 0)
    return failure();
  makeParallelLoop(rewriter, *outer);
  return success();
}

namespace {

struct CpuVectorizePass
    : public remat::impl::RematCpuVectorizeBase<CpuVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    if (vectorSize < 1) {
      getOperation().emitError("remat-cpu-vectorize: vector-size must be "
                               "at least 1, not ")
          << static_cast<int64_t>(vectorSize);
      return signalPassFailure();
    }
    struct Work {
      func::FuncOp func;
      linalg::LinalgOp op;
      unsigned dim;
      /// Whether the outermost tile loop goes on threads.
      bool parallel;
    };
    SmallVector<Work> work;
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      unsigned before = work.size();
      func.walk([&](linalg::LinalgOp op) {
        if (op->getParentOfType<linalg::LinalgOp>() ||
            (contractionsOnly && !linalg::isaContractionOpInterface(op)))
          return;
        std::optional<unsigned> dim = chooseVectorDim(op, vectorSize);
        if (!dim || failed(linalg::vectorizeOpPrecondition(op)))
          return;
        // Only an op directly in the function body: one nested in a loop
        // or region runs in whatever thread runs its parent.
        bool parallel =
            op->getParentOp() == func.getOperation() &&
            isParallelTiling(op, *dim, vectorSize, minWork, bodyWork);
        work.push_back({func, op, *dim, parallel});
      });
      if (work.size() != before)
        funcs.push_back(func);
    }
    IRRewriter rewriter(&getContext());
    for (Work &item : work) {
      LogicalResult tiled =
          item.parallel ? tileAndVectorizeParallel(rewriter, item.func, item.op,
                                                   item.dim, vectorSize)
                        : LogicalResult(tileAndVectorize(rewriter, item.op,
                                                         item.dim, vectorSize));
      if (failed(tiled)) {
        item.op.emitError("remat-cpu-vectorize: could not tile this op");
        return signalPassFailure();
      }
    }
    // One-dimensional transfers: unit dimensions dropped, broadcasts and
    // transposed reads as explicit vector ops.
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    vector::populateVectorTransferDropUnitDimsPatterns(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateDropUnitDimWithShapeCastPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    StringRef vectorDialect = vector::VectorDialect::getDialectNamespace();
    for (RegisteredOperationName name : context->getRegisteredOperations())
      if (name.getDialectNamespace() == vectorDialect)
        name.getCanonicalizationPatterns(patterns, context);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (func::FuncOp func : funcs)
      if (failed(applyPatternsGreedily(func, frozen))) {
        func.emitError("remat-cpu-vectorize: vector cleanup did not "
                       "converge");
        return signalPassFailure();
      }
  }
};

} // namespace
