//===- CpuParallel.cpp - parallel outer loops for the CPU -----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// remat-cpu-parallel-loops: large linalg ops become loop nests whose
// outermost loop is an scf.parallel (OpenMP threads after
// convert-scf-to-openmp); everything inside stays sequential.
//
//===----------------------------------------------------------------------===//

#include "remat/Driver/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace remat {
#define GEN_PASS_DEF_REMATCPUPARALLELLOOPS
#include "remat/Driver/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

/// Returns true if `op` is worth running on several threads: static loop
/// ranges with at least `minWork` points in all and a parallel first loop
/// of at least two iterations.
static bool isWorthParallel(linalg::LinalgOp op, int64_t minWork) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      !linalg::isParallelIterator(op.getIteratorTypesArray().front()))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.front() < 2)
    return false;
  int64_t work = 1;
  for (int64_t range : ranges) {
    if (ShapedType::isDynamic(range) || range <= 0)
      return false;
    // Saturates instead of overflowing: only the comparison matters.
    if (work > std::numeric_limits<int64_t>::max() / range)
      return true;
    work *= range;
  }
  return work >= minWork;
}

/// Replaces the loop `loop` (no iteration arguments) by a one-dimensional
/// scf.parallel with the same bounds and body, and returns it.
static scf::ParallelOp makeParallel(RewriterBase &rewriter,
                                    scf::ForOp loop) {
  rewriter.setInsertionPoint(loop);
  auto parallel = scf::ParallelOp::create(
      rewriter, loop.getLoc(), ValueRange{loop.getLowerBound()},
      ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()});
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, parallel.getBody()->getTerminator(),
                             parallel.getInductionVars());
  rewriter.eraseOp(loop);
  return parallel;
}

/// Clones into the body of `loop` the views (memref.view, expand_shape,
/// subview, ...) defined outside it that it uses, theirs in turn, and the
/// constants they take (offsets, sizes), so that after
/// convert-scf-to-openmp the outlined body computes every buffer from the
/// arena base at a constant offset instead of loading a separate pointer per
/// buffer from its captured context. LLVM then sees that the loop's stores
/// do not alias its loads, as in the sequential loops: a reduction keeps
/// its running sum in a register rather than reloading it after every
/// store.
static void sinkViews(RewriterBase &rewriter, scf::ParallelOp loop) {
  auto inside = [&](Operation *op) { return loop->isProperAncestor(op); };
  bool changed = true;
  while (changed) {
    changed = false;
    SetVector<Value> outside;
    getUsedValuesDefinedAbove(loop.getRegion(), outside);
    for (Value value : outside) {
      Operation *def = value.getDefiningOp();
      if (!def || def->getNumRegions() != 0 || !isMemoryEffectFree(def))
        continue;
      bool feedsView =
          def->hasTrait<OpTrait::ConstantLike>() &&
          llvm::any_of(value.getUsers(), [&](Operation *user) {
            return isa<ViewLikeOpInterface>(user) && inside(user);
          });
      if (!isa<ViewLikeOpInterface>(def) && !feedsView)
        continue;
      rewriter.setInsertionPointToStart(loop.getBody());
      Operation *clone = rewriter.clone(*def);
      rewriter.replaceUsesWithIf(
          def->getResults(), clone->getResults(),
          [&](OpOperand &use) { return inside(use.getOwner()); });
      changed = true;
    }
  }
}

namespace {

struct CpuParallelLoopsPass
    : public remat::impl::RematCpuParallelLoopsBase<CpuParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      // Outermost ops only: an op inside a loop or region already runs in
      // whatever thread runs its parent.
      if (op->getParentOp() == getOperation().getOperation() &&
          isWorthParallel(op, minWork))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops) || loops->empty())
        continue; // left for convert-linalg-to-loops
      auto outer = dyn_cast<scf::ForOp>(loops->front());
      if (!outer || outer.getNumRegionIterArgs() != 0) {
        op.emitError("remat-cpu-parallel-loops: unexpected loop nest");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
      sinkViews(rewriter, makeParallel(rewriter, outer));
    }
  }
};

} // namespace
