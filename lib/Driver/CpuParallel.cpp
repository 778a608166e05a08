//===- CpuParallel.cpp - parallel outer loops for the CPU -----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// remat-cpu-parallel-loops: large linalg ops become loop nests whose
// outermost loop is an scf.parallel (OpenMP threads after
// convert-scf-to-openmp), taken when the step runs on more than one
// thread; on one thread the same nest with a sequential outer loop runs
// instead. Everything inside the outer loop stays sequential.
//
//===----------------------------------------------------------------------===//

#include "CpuParallel.h"

#include "remat/Driver/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include <limits>
#include <optional>

namespace remat {
#define GEN_PASS_DEF_REMATCPUPARALLELLOOPS
#include "remat/Driver/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

/// Work of one body operation, in units of one cheap scalar operation (an
/// add, a multiply, a compare, one element loaded or stored). A division
/// takes several such units on the development machine's cores, and a
/// math function (exp, tanh, log, erf, ...: a polynomial after libm's or
/// LLVM's expansion) a dozen or more.
static constexpr int64_t kDivideWork = 4;
static constexpr int64_t kMathWork = 16;

/// Returns the work of one iteration point of `op`: one unit per operand
/// element read or written (each input and output operand), plus the work
/// of every operation of its body (kDivideWork, kMathWork, else one).
static int64_t workPerPoint(linalg::LinalgOp op) {
  int64_t work = op->getNumOperands();
  for (Operation &inner : op.getBlock()->without_terminator()) {
    if (isa<arith::DivFOp, arith::RemFOp, arith::DivSIOp, arith::DivUIOp,
            arith::RemSIOp, arith::RemUIOp>(inner))
      work += kDivideWork;
    else if (inner.getName().getDialectNamespace() == "math" &&
             !isa<math::AbsFOp, math::FmaOp, math::CopySignOp>(inner))
      work += kMathWork;
    else
      work += 1;
  }
  return work;
}

/// Returns the static work estimate of `op`: its iteration points (the
/// product of its loop trip counts), times workPerPoint with `bodyWork`,
/// saturated at INT64_MAX; std::nullopt when a loop range is dynamic or
/// empty.
static std::optional<int64_t> estimateWork(linalg::LinalgOp op, bool bodyWork) {
  int64_t work = bodyWork ? workPerPoint(op) : 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range) || range <= 0)
      return std::nullopt;
    // Saturates instead of overflowing: only the comparison matters.
    if (work > std::numeric_limits<int64_t>::max() / range)
      return std::numeric_limits<int64_t>::max();
    work *= range;
  }
  return work;
}

/// Returns true if `op` is worth running on several threads: static loop
/// ranges, an estimated work (estimateWork) of at least `minWork` and a
/// parallel first loop of at least two iterations.
static bool isWorthParallel(linalg::LinalgOp op, int64_t minWork,
                            bool bodyWork = false) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      !linalg::isParallelIterator(op.getIteratorTypesArray().front()))
    return false;
  if (op.getStaticLoopRanges().front() < 2)
    return false;
  std::optional<int64_t> work = estimateWork(op, bodyWork);
  return work && *work >= minWork;
}

/// Bytes of a cache line: threads that store into the same line at the same
/// time take it from each other on every store.
static constexpr int64_t kCacheLineBytes = 64;

/// Returns the most threads among which `op`'s parallel outer loop is worth
/// sharing, or std::nullopt when any number is. An op with a reduction
/// stores each output element once per reduction step, so the threads of a
/// static schedule must write output ranges a cache line apart: each
/// thread's block of outer iterations must cover at least kCacheLineBytes of
/// every output. The batch-norm statistics of a narrow layer (8 channels,
/// sums in f64: one line for all of them) shared by two threads made every
/// store of both threads a cache miss, and the step twice as slow as on one
/// thread. An elementwise op writes each element once; its threads meet at
/// most at one line at the edge of their blocks.
static std::optional<int64_t> maxUsefulThreads(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return std::nullopt;
  int64_t trips = op.getStaticLoopRanges().front();
  std::optional<int64_t> most;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = dyn_cast<MemRefType>(init.get().getType());
    if (!type || !type.getElementType().isIntOrFloat())
      continue;
    // The output dimension the outer loop indexes, and its stride: the
    // distance between the elements of consecutive outer iterations.
    AffineMap map = op.getMatchingIndexingMap(&init);
    std::optional<unsigned> dim;
    for (auto [position, result] : llvm::enumerate(map.getResults()))
      if (auto expr = dyn_cast<AffineDimExpr>(result);
          expr && expr.getPosition() == 0)
        dim = position;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!dim || failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(strides[*dim]))
      continue;
    int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    int64_t span = trips * std::max<int64_t>(strides[*dim], 1) *
                   std::max<int64_t>(bytes, 1);
    int64_t threads = span / kCacheLineBytes;
    most = most ? std::min(*most, threads) : threads;
  }
  return most;
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

/// Name of libomp's omp_get_max_threads: the number of threads the next
/// parallel region of the calling thread gets.
static constexpr StringLiteral kMaxThreads = "omp_get_max_threads";

/// Returns `func.func private @omp_get_max_threads() -> i32` of `module`,
/// declaring it first if need be; fails (with an error) when the name
/// already holds something else.
static FailureOr<func::FuncOp> getMaxThreadsFunc(ModuleOp module) {
  OpBuilder builder(module.getContext());
  auto type = builder.getFunctionType({}, {builder.getI32Type()});
  if (Operation *existing = module.lookupSymbol(kMaxThreads)) {
    auto func = dyn_cast<func::FuncOp>(existing);
    if (!func || func.getFunctionType() != type)
      return existing->emitError("remat-cpu-parallel-loops: '")
             << kMaxThreads << "' must be a function () -> i32";
    return func;
  }
  builder.setInsertionPointToStart(module.getBody());
  auto func = func::FuncOp::create(builder, module.getLoc(), kMaxThreads, type);
  func.setPrivate();
  return func;
}

bool remat::shouldRunParallel(linalg::LinalgOp op, int64_t minWork,
                              bool bodyWork) {
  if (!isWorthParallel(op, minWork, bodyWork))
    return false;
  // One thread at most: left sequential.
  std::optional<int64_t> most = maxUsefulThreads(op);
  return !most || *most >= 2;
}

FailureOr<Value> remat::getThreadCount(RewriterBase &rewriter,
                                       func::FuncOp func) {
  Block &entry = func.getBody().front();
  for (auto call : entry.getOps<func::CallOp>())
    if (call.getCallee() == kMaxThreads && call.getNumResults() == 1)
      return call.getResult(0);
  FailureOr<func::FuncOp> maxThreads =
      getMaxThreadsFunc(func->getParentOfType<ModuleOp>());
  if (failed(maxThreads))
    return failure();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&entry);
  return func::CallOp::create(rewriter, func.getLoc(), *maxThreads,
                              ValueRange{})
      .getResult(0);
}

Value remat::buildParallelTest(RewriterBase &rewriter, linalg::LinalgOp op,
                               Value threads) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value one = arith::ConstantIntOp::create(rewriter, loc, 1, 32);
  Value parallel = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sgt, threads, one);
  std::optional<int64_t> most = maxUsefulThreads(op);
  if (!most || *most >= std::numeric_limits<int32_t>::max())
    return parallel;
  // Parallel only while the thread count is at most *most.
  Value bound = arith::ConstantIntOp::create(rewriter, loc, *most, 32);
  Value within = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle,
                                       threads, bound);
  return arith::AndIOp::create(rewriter, loc, parallel, within);
}

scf::ParallelOp remat::makeParallelLoop(RewriterBase &rewriter,
                                        scf::ForOp loop) {
  scf::ParallelOp parallel = makeParallel(rewriter, loop);
  sinkViews(rewriter, parallel);
  return parallel;
}

namespace {

struct CpuParallelLoopsPass
    : public remat::impl::RematCpuParallelLoopsBase<CpuParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Outermost ops only: an op inside a loop or region already runs in
    // whatever thread runs its parent.
    SmallVector<std::pair<func::FuncOp, SmallVector<linalg::LinalgOp>>> work;
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<linalg::LinalgOp> ops;
      func.walk([&](linalg::LinalgOp op) {
        if (op->getParentOp() != func.getOperation())
          return;
        bool worth = isWorthParallel(op, minWork, bodyWork);
        // One thread at most: left for convert-linalg-to-loops.
        std::optional<int64_t> most;
        bool parallel = false;
        if (worth) {
          most = maxUsefulThreads(op);
          parallel = !most || *most >= 2;
        }
        if (remarks)
          remarkDecision(op, parallel, most);
        if (parallel)
          ops.push_back(op);
      });
      if (!ops.empty())
        work.emplace_back(func, std::move(ops));
    }
    if (work.empty())
      return;
    IRRewriter rewriter(&getContext());
    for (auto &[func, ops] : work) {
      // Once per call of the function (remat-cpu-vectorize may have asked
      // already): whether its loops get more than one thread.
      FailureOr<Value> count = getThreadCount(rewriter, func);
      if (failed(count))
        return signalPassFailure();
      Value threads = *count;
      rewriter.setInsertionPointAfterValue(threads);
      Location loc = func.getLoc();
      Value one = arith::ConstantIntOp::create(rewriter, loc, 1, 32);
      Value several = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::sgt, threads, one);
      for (linalg::LinalgOp op : ops) {
        std::optional<int64_t> most = maxUsefulThreads(op);
        Value parallel = several;
        if (most && *most < std::numeric_limits<int32_t>::max()) {
          // Parallel only while the thread count is at most *most.
          rewriter.setInsertionPoint(op);
          Value bound = arith::ConstantIntOp::create(rewriter, op.getLoc(),
                                                     *most, 32);
          Value within = arith::CmpIOp::create(rewriter, op.getLoc(),
                                               arith::CmpIPredicate::sle,
                                               threads, bound);
          parallel =
              arith::AndIOp::create(rewriter, op.getLoc(), several, within);
        }
        if (failed(parallelize(rewriter, op, parallel)))
          return signalPassFailure();
      }
    }
  }

  /// Says whether `op` runs in parallel, and why: its work against
  /// min-work (points, and the work of one point, which counts with
  /// body-work), or the thread bound of its reduction.
  void remarkDecision(linalg::LinalgOp op, bool parallel,
                      std::optional<int64_t> most) {
    InFlightDiagnostic remark = op.emitRemark("remat-cpu-parallel-loops: ");
    remark << (parallel ? "parallel" : "serial") << ", work ";
    std::optional<int64_t> work = estimateWork(op, bodyWork);
    std::optional<int64_t> points = estimateWork(op, /*bodyWork=*/false);
    if (work && points)
      remark << *work << " (" << *points << " points, " << workPerPoint(op)
             << " per point)";
    else
      remark << "unknown (dynamic sizes)";
    remark << ", min-work " << static_cast<int64_t>(minWork)
           << (bodyWork ? " (body-work)" : "");
    if (most)
      remark << ", at most " << *most << " threads";
  }

  /// Replaces `op` by `scf.if %several` whose then-branch holds its loop
  /// nest with a parallel outer loop, and whose else-branch the same nest
  /// with a sequential one: one thread pays no fork and no outlined body.
  LogicalResult parallelize(IRRewriter &rewriter, linalg::LinalgOp op,
                            Value several) {
    rewriter.setInsertionPoint(op);
    auto branch = scf::IfOp::create(rewriter, op.getLoc(), several,
                                    /*withElseRegion=*/true);
    rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
    FailureOr<linalg::LinalgLoops> loops =
        linalg::linalgOpToLoops(rewriter, op);
    if (failed(loops) || loops->empty()) {
      // Left for convert-linalg-to-loops.
      rewriter.eraseOp(branch);
      return success();
    }
    auto outer = dyn_cast<scf::ForOp>(loops->front());
    if (!outer || outer.getNumRegionIterArgs() != 0)
      return op.emitError("remat-cpu-parallel-loops: unexpected loop nest");
    // The sequential copy: the whole then-block (the nest and the constants
    // its bounds take) but its terminator.
    rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
    IRMapping copies;
    for (Operation &inner : branch.thenBlock()->without_terminator())
      rewriter.clone(inner, copies);
    rewriter.eraseOp(op);
    sinkViews(rewriter, makeParallel(rewriter, outer));
    return success();
  }
};

} // namespace
