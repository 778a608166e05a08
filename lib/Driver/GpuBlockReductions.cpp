//===- GpuBlockReductions.cpp - reductions as block-parallel kernels ------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// --remat-gpu-block-reductions: host linalg.generic reductions become
// gpu.launch ops of one block per output element, each block folding its
// reduction with all its threads and combining the partial results by a
// shared-memory tree in a fixed order, or, for many outputs of a moderate
// length, of one warp per output combining by shuffles in the same order
// as a block of 32 threads (of a segment of 8 or 16 lanes for 8-31
// elements; Passes.td, docs/Conventions.md).
//
//===----------------------------------------------------------------------===//

#include "GpuReductions.h"

#include "remat/Driver/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

namespace remat {
#define GEN_PASS_DEF_REMATGPUBLOCKREDUCTIONS
#include "remat/Driver/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// CUDA's limit of static shared memory per block.
constexpr int64_t kMaxSharedBytes = 48 * 1024;

/// The lanes of a warp (NVIDIA GPUs).
constexpr int64_t kWarpSize = 32;

/// The longest reduction given one warp per output: 32 elements per lane.
constexpr int64_t kMaxWarpReduction = kWarpSize * kWarpSize;

/// The shortest reduction given a warp segment per output (8 lanes); shorter
/// ones stay sequential in one thread per output.
constexpr int64_t kMinSegment = 8;

using Reduction = GpuReduction;

/// The identity of `combiner` on `type`, or null when it is not a combiner
/// this pass handles.
FloatAttr identityOf(Operation *combiner, FloatType type) {
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  if (isa<arith::AddFOp>(combiner))
    return FloatAttr::get(type, APFloat::getZero(semantics, /*Negative=*/true));
  if (isa<arith::MulFOp>(combiner))
    return FloatAttr::get(type, 1.0);
  if (isa<arith::MaximumFOp>(combiner))
    return FloatAttr::get(type, APFloat::getInf(semantics, /*Negative=*/true));
  if (isa<arith::MinimumFOp>(combiner))
    return FloatAttr::get(type, APFloat::getInf(semantics));
  if (isa<arith::MaxNumFOp, arith::MinNumFOp>(combiner))
    return FloatAttr::get(type, APFloat::getQNaN(semantics));
  return nullptr;
}

/// Whether `inner`, an op of `op`'s body, is a `memref.load` from a buffer
/// defined outside `op` that is none of `op`'s outputs: a read-only gather
/// (e.g. a loss reading the logit at each label). Every thread of the kernel
/// may run it in any order, since nothing the kernel writes before its last
/// store is visible through it: that store goes to an output, and distinct
/// buffers of the step are disjoint (the arena gives values live at the same
/// time disjoint bytes).
bool isGatherLoad(linalg::GenericOp op, Operation &inner) {
  auto load = dyn_cast<memref::LoadOp>(inner);
  if (!load)
    return false;
  Value source = load.getMemRef();
  if (op->isAncestor(source.getParentRegion()->getParentOp()))
    return false;
  return !llvm::is_contained(op.getDpsInits(), source);
}

} // namespace

std::optional<SmallVector<Reduction>>
remat::matchGpuReductions(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() == 0)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  llvm::SmallDenseSet<unsigned> parallel;
  for (auto [index, type] : llvm::enumerate(iterators))
    if (type == utils::IteratorType::parallel)
      parallel.insert(index);
  if (parallel.size() == iterators.size())
    return std::nullopt; // no reduction
  for (int64_t range : op.getStaticLoopRanges())
    if (ShapedType::isDynamic(range))
      return std::nullopt;
  for (Value operand : op->getOperands())
    if (auto type = dyn_cast<MemRefType>(operand.getType());
        type && !type.hasStaticShape())
      return std::nullopt;

  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (Operation &inner : body.without_terminator())
    if (!isMemoryEffectFree(&inner) && !isa<linalg::IndexOp>(inner) &&
        !isGatherLoad(op, inner))
      return std::nullopt;
  SmallVector<Reduction> reductions;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = dyn_cast<MemRefType>(init.get().getType());
    if (!type)
      return std::nullopt;
    auto element = dyn_cast<FloatType>(type.getElementType());
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (!element || !map.isProjectedPermutation() ||
        map.getNumResults() != parallel.size())
      return std::nullopt;
    for (AffineExpr expr : map.getResults())
      if (!parallel.contains(cast<AffineDimExpr>(expr).getPosition()))
        return std::nullopt;
    BlockArgument acc = op.getMatchingBlockArgument(&init);
    unsigned index = init.getOperandNumber() - op.getNumDpsInputs();
    Operation *combiner = yield.getOperand(index).getDefiningOp();
    if (!combiner || combiner->getBlock() != &body ||
        combiner->getNumOperands() != 2 || !acc.hasOneUse() ||
        acc.getUses().begin()->getOwner() != combiner ||
        !combiner->getResult(0).hasOneUse() ||
        combiner->getResult(0).getType() != element)
      return std::nullopt;
    FloatAttr identity = identityOf(combiner, element);
    if (!identity)
      return std::nullopt;
    Value value = combiner->getOperand(0) == acc ? combiner->getOperand(1)
                                                 : combiner->getOperand(0);
    reductions.push_back({combiner, acc, value, identity});
  }
  return reductions;
}

namespace {

/// Builds the loop indices of the dimensions `dims` (row-major, the last
/// fastest) from the linear index `linear` (less than the product of their
/// ranges) into `indices`.
void delinearize(OpBuilder &b, Location loc, Value linear,
                 ArrayRef<unsigned> dims, ArrayRef<int64_t> ranges,
                 SmallVectorImpl<Value> &indices) {
  if (dims.empty())
    return;
  for (unsigned dim : llvm::reverse(dims.drop_front())) {
    Value range = arith::ConstantIndexOp::create(b, loc, ranges[dim]);
    indices[dim] = arith::RemUIOp::create(b, loc, linear, range);
    linear = arith::DivUIOp::create(b, loc, linear, range);
  }
  indices[dims.front()] = linear;
}

/// The indices of `map`'s results at the loop indices `loops`.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> loops) {
  SmallVector<Value> result;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      result.push_back(loops[dim.getPosition()]);
      continue;
    }
    result.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, expr), loops));
  }
  return result;
}

/// `reduction`'s combiner applied to (accumulator `acc`, value `value`),
/// operands in the body's order.
Value combine(OpBuilder &b, const Reduction &reduction, Value acc,
              Value value) {
  IRMapping mapping;
  mapping.map(reduction.accumulator, acc);
  mapping.map(reduction.value, value);
  return b.clone(*reduction.combiner, mapping)->getResult(0);
}

/// Emits the code of one block: `forThreads(b, count, barrier, fn)` emits
/// `fn` for every thread t < count (followed by a barrier when `barrier`),
/// so that the same order comes out as a kernel or as host loops.
using ForThreads = llvm::function_ref<void(
    OpBuilder &, int64_t, bool,
    llvm::function_ref<void(OpBuilder &, Value thread)>)>;

/// The parallel and the reduction loops of `op`, and the number of
/// reduction elements (the product of the reduction extents).
int64_t splitLoops(linalg::GenericOp op, SmallVectorImpl<unsigned> &parallel,
                   SmallVectorImpl<unsigned> &reduction) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t length = 1;
  for (auto [index, type] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (type == utils::IteratorType::parallel) {
      parallel.push_back(index);
      continue;
    }
    reduction.push_back(index);
    length *= ranges[index];
  }
  return length;
}

/// Emits, at `b`, the fold of thread `thread` of `threads`: the reduction
/// elements thread, thread + threads, ... (row-major over the reduction
/// loops) of the output element whose parallel loop indices are in `outer`,
/// folded in increasing order into each reduction's identity. Returns the
/// partial result of each reduction.
SmallVector<Value> emitFold(OpBuilder &b, Location loc, linalg::GenericOp op,
                            ArrayRef<Reduction> reductions,
                            ArrayRef<Value> outer, Value thread,
                            int64_t threads) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> parallelDims, reductionDims;
  int64_t length = splitLoops(op, parallelDims, reductionDims);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  SmallVector<Value> identities;
  for (const Reduction &reduction : reductions)
    identities.push_back(arith::ConstantOp::create(b, loc, reduction.identity));
  Block &body = op.getRegion().front();
  auto fold = scf::ForOp::create(
      b, loc, thread, constant(length), constant(threads), identities,
      [&](OpBuilder &fb, Location l, Value linear, ValueRange accs) {
        SmallVector<Value> loops(outer);
        delinearize(fb, l, linear, reductionDims, ranges, loops);
        IRMapping mapping;
        for (OpOperand *input : op.getDpsInputOperands()) {
          BlockArgument arg = op.getMatchingBlockArgument(input);
          if (!isa<MemRefType>(input->get().getType())) {
            mapping.map(arg, input->get());
            continue;
          }
          SmallVector<Value> indices =
              applyMap(fb, l, op.getMatchingIndexingMap(input), loops);
          mapping.map(arg,
                      memref::LoadOp::create(fb, l, input->get(), indices));
        }
        for (auto [reduction, acc] : llvm::zip(reductions, accs))
          mapping.map(reduction.accumulator, acc);
        for (Operation &inner : body.without_terminator()) {
          if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
            mapping.map(index.getResult(), loops[index.getDim()]);
            continue;
          }
          fb.clone(inner, mapping);
        }
        SmallVector<Value> next;
        for (const Reduction &reduction : reductions)
          next.push_back(mapping.lookup(reduction.combiner->getResult(0)));
        scf::YieldOp::create(fb, l, next);
      });
  return SmallVector<Value>(fold.getResults());
}

/// Emits, at `b`, the update of the output element at the parallel loop
/// indices `outer`: output = combine(output, totalOf(i)) for reduction i.
void emitOutputUpdate(OpBuilder &b, Location loc, linalg::GenericOp op,
                      ArrayRef<Reduction> reductions, ArrayRef<Value> outer,
                      llvm::function_ref<Value(unsigned)> totalOf) {
  for (auto [index, reduction, init] :
       llvm::enumerate(reductions, op.getDpsInitsMutable())) {
    SmallVector<Value> indices =
        applyMap(b, loc, op.getMatchingIndexingMap(&init), outer);
    Value current = memref::LoadOp::create(b, loc, init.get(), indices);
    Value total = totalOf(index);
    memref::StoreOp::create(b, loc, combine(b, reduction, current, total),
                            init.get(), indices);
  }
}

/// Emits, at `b`, the block of output element `block` (linear over the
/// parallel loops) of `op`'s reductions with `threads` threads whose partial
/// results live in `partials` (one buffer of `threads` elements per
/// reduction).
void emitBlock(OpBuilder &b, Location loc, linalg::GenericOp op,
               ArrayRef<Reduction> reductions, int64_t threads, Value block,
               ValueRange partials, ForThreads forThreads) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> parallelDims, reductionDims;
  splitLoops(op, parallelDims, reductionDims);

  // This block's output element.
  SmallVector<Value> outer(op.getNumLoops());
  delinearize(b, loc, block, parallelDims, ranges, outer);

  // Thread t folds elements t, t + B, ... in increasing order.
  forThreads(b, threads, /*barrier=*/true, [&](OpBuilder &tb, Value thread) {
    SmallVector<Value> folded =
        emitFold(tb, loc, op, reductions, outer, thread, threads);
    for (auto [partial, result] : llvm::zip(partials, folded))
      memref::StoreOp::create(tb, loc, result, partial, ValueRange{thread});
  });

  // The tree: p[t] = combine(p[t], p[t + s]) for s = B/2, ..., 1.
  for (int64_t stride = threads / 2; stride >= 1; stride /= 2) {
    forThreads(b, stride, /*barrier=*/true, [&](OpBuilder &sb, Value thread) {
      Value other = arith::AddIOp::create(
          sb, loc, thread, arith::ConstantIndexOp::create(sb, loc, stride));
      for (auto [reduction, partial] : llvm::zip(reductions, partials)) {
        Value mine = memref::LoadOp::create(sb, loc, partial, thread);
        Value theirs = memref::LoadOp::create(sb, loc, partial, other);
        memref::StoreOp::create(sb, loc, combine(sb, reduction, mine, theirs),
                                partial, ValueRange{thread});
      }
    });
  }

  // Thread 0 folds the block's result into the output.
  forThreads(b, 1, /*barrier=*/false, [&](OpBuilder &lb, Value) {
    Value zero = arith::ConstantIndexOp::create(lb, loc, 0);
    emitOutputUpdate(lb, loc, op, reductions, outer, [&](unsigned index) {
      return memref::LoadOp::create(lb, loc, partials[index], zero)
          .getResult();
    });
  });
}

/// The number of output elements of `op` (the product of its parallel
/// extents).
int64_t numOutputs(linalg::GenericOp op) {
  int64_t outputs = 1;
  for (auto [range, type] :
       llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
    if (type == utils::IteratorType::parallel)
      outputs *= range;
  return outputs;
}

/// A builder at the end of `launch`'s body, before its terminator (created
/// first if the body has none).
OpBuilder kernelBodyBuilder(gpu::LaunchOp launch, Location loc) {
  Block &kernel = launch.getBody().front();
  if (kernel.empty() || !kernel.back().hasTrait<OpTrait::IsTerminator>()) {
    OpBuilder end = OpBuilder::atBlockEnd(&kernel);
    gpu::TerminatorOp::create(end, loc);
  }
  return OpBuilder(&kernel.back());
}

/// Replaces `op` by the block-parallel kernel of `reductions` with blocks of
/// `threads` threads (a power of two).
void rewriteAsKernel(linalg::GenericOp op, ArrayRef<Reduction> reductions,
                     int64_t threads) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  SmallVector<Type> shared;
  for (const Reduction &reduction : reductions)
    shared.push_back(MemRefType::get({threads}, reduction.identity.getType(),
                                     MemRefLayoutAttrInterface(), workgroup));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, numOutputs(op)), one,
      one, arith::ConstantIndexOp::create(b, loc, threads), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/ValueRange{}, shared);
  OpBuilder kb = kernelBodyBuilder(launch, loc);
  Value thread = launch.getThreadIds().x;
  auto forThreads = [&](OpBuilder &tb, int64_t count, bool barrier,
                        llvm::function_ref<void(OpBuilder &, Value)> fn) {
    if (count == threads) {
      fn(tb, thread);
    } else {
      // Threads below `count` only; thread 0 alone for the output.
      bool first = count == 1 && !barrier;
      Value active = arith::CmpIOp::create(
          tb, loc, first ? arith::CmpIPredicate::eq : arith::CmpIPredicate::ult,
          thread, arith::ConstantIndexOp::create(tb, loc, first ? 0 : count));
      auto guard = scf::IfOp::create(tb, loc, active, /*withElseRegion=*/false);
      OpBuilder gb = guard.getThenBodyBuilder();
      fn(gb, thread);
    }
    if (barrier)
      gpu::BarrierOp::create(tb, loc);
  };
  emitBlock(kb, loc, op, reductions, threads, launch.getBlockIds().x,
            launch.getWorkgroupAttributions(), forThreads);
  op.erase();
}

/// Replaces `op` by a kernel of one segment of `lanes` lanes (a power of two
/// dividing kWarpSize: a whole warp, or 8 or 16 lanes for reductions of
/// fewer than 32 elements) per output element, `warps` warps per block:
/// lane l of a segment folds the elements l, l + lanes, ... like thread l of
/// a block of `lanes` threads, then the lanes combine their partial results
/// by `gpu.shuffle down` (width 32) with offsets lanes/2, ..., 1 (lane l
/// takes lane l + s's value: the shared-memory tree of `lanes` threads
/// without shared memory or barriers; a lane that reads across its segment's
/// end is one whose value no later step reads), and lane 0 of the segment
/// updates the output. With whole warps, warps past the last output (the
/// last block's) skip everything, so every warp that shuffles has all its
/// lanes; with segments, a segment past the last output folds nothing (its
/// loop reads output 0's elements, not an out-of-bounds one), shuffles with
/// its warp and stores nothing.
void rewriteAsWarpKernel(linalg::GenericOp op, ArrayRef<Reduction> reductions,
                         int64_t warps, int64_t lanes = kWarpSize) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t outputs = numOutputs(op);
  int64_t perBlock = warps * (kWarpSize / lanes);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc,
      arith::ConstantIndexOp::create(b, loc,
                                     llvm::divideCeil(outputs, perBlock)),
      one, one, arith::ConstantIndexOp::create(b, loc, warps * kWarpSize), one,
      one);
  OpBuilder kb = kernelBodyBuilder(launch, loc);
  auto constant = [&](OpBuilder &cb, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(cb, loc, value);
  };
  Value thread = launch.getThreadIds().x;
  Value lane = arith::RemUIOp::create(kb, loc, thread, constant(kb, lanes));
  Value segment = arith::DivUIOp::create(kb, loc, thread, constant(kb, lanes));
  Value output = arith::AddIOp::create(
      kb, loc,
      arith::MulIOp::create(kb, loc, launch.getBlockIds().x,
                            constant(kb, perBlock)),
      segment);
  OpBuilder wb = kb;
  // Segments: whether this one has an output (the last block may have
  // fewer), and the output its loads use.
  Value inside;
  if (outputs % perBlock != 0) {
    inside = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, output,
                                   constant(kb, outputs));
    if (lanes == kWarpSize) {
      auto guard = scf::IfOp::create(kb, loc, inside, /*withElseRegion=*/false);
      wb = guard.getThenBodyBuilder();
      inside = nullptr;
    } else {
      output =
          arith::SelectOp::create(kb, loc, inside, output, constant(kb, 0));
    }
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> parallelDims, reductionDims;
  splitLoops(op, parallelDims, reductionDims);
  SmallVector<Value> outer(op.getNumLoops());
  delinearize(wb, loc, output, parallelDims, ranges, outer);
  SmallVector<Value> partials =
      emitFold(wb, loc, op, reductions, outer, lane, lanes);
  for (int32_t offset = lanes / 2; offset >= 1; offset /= 2)
    for (auto [reduction, partial] : llvm::zip(reductions, partials)) {
      Value theirs = gpu::ShuffleOp::create(wb, loc, partial, offset,
                                            int32_t(kWarpSize),
                                            gpu::ShuffleMode::DOWN)
                         .getShuffleResult();
      partial = combine(wb, reduction, partial, theirs);
    }
  Value first = arith::CmpIOp::create(wb, loc, arith::CmpIPredicate::eq, lane,
                                      constant(wb, 0));
  if (inside)
    first = arith::AndIOp::create(wb, loc, first, inside);
  auto leader = scf::IfOp::create(wb, loc, first, /*withElseRegion=*/false);
  OpBuilder lb = leader.getThenBodyBuilder();
  emitOutputUpdate(lb, loc, op, reductions, outer,
                   [&](unsigned index) { return partials[index]; });
  op.erase();
}

/// Replaces `op` by host loops that compute what rewriteAsKernel's kernel
/// computes, in the same order: a loop over the blocks, in each one loop
/// over the threads per step between two barriers; the partial results in a
/// heap buffer per reduction.
void rewriteAsLoops(linalg::GenericOp op, ArrayRef<Reduction> reductions,
                    int64_t threads) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> partials;
  for (const Reduction &reduction : reductions)
    partials.push_back(memref::AllocOp::create(
        b, loc, MemRefType::get({threads}, reduction.identity.getType())));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto blocks = scf::ForOp::create(
      b, loc, zero, arith::ConstantIndexOp::create(b, loc, numOutputs(op)),
      one);
  OpBuilder bb = OpBuilder::atBlockBegin(blocks.getBody());
  bb.setInsertionPoint(blocks.getBody()->getTerminator());
  auto forThreads = [&](OpBuilder &tb, int64_t count, bool,
                        llvm::function_ref<void(OpBuilder &, Value)> fn) {
    if (count == 1) {
      fn(tb, arith::ConstantIndexOp::create(tb, loc, 0));
      return;
    }
    auto loop = scf::ForOp::create(
        tb, loc, arith::ConstantIndexOp::create(tb, loc, 0),
        arith::ConstantIndexOp::create(tb, loc, count),
        arith::ConstantIndexOp::create(tb, loc, 1));
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    lb.setInsertionPoint(loop.getBody()->getTerminator());
    fn(lb, loop.getInductionVar());
  };
  emitBlock(bb, loc, op, reductions, threads, blocks.getInductionVar(),
            partials, forThreads);
  b.setInsertionPointAfter(blocks);
  for (Value partial : partials)
    memref::DeallocOp::create(b, loc, partial);
  op.erase();
}

struct GpuBlockReductionsPass
    : public remat::impl::RematGpuBlockReductionsBase<GpuBlockReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024) {
      getOperation().emitError()
          << "remat-gpu-block-reductions: block-size must be in [1, 1024], "
             "got "
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    if (warpMinOutputs < 1) {
      getOperation().emitError()
          << "remat-gpu-block-reductions: warp-min-outputs must be at least "
             "1, got "
          << static_cast<int64_t>(warpMinOutputs);
      return signalPassFailure();
    }
    int64_t maxThreads = int64_t(1) << llvm::Log2_64(blockSize);
    int64_t minThreads = std::min<int64_t>(kWarpSize, maxThreads);
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::GPUModuleOp>() ||
          op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<scf::ParallelOp>() ||
          op.getNumReductionLoops() == 0)
        return;
      if (auto generic = dyn_cast<linalg::GenericOp>(*op))
        ops.push_back(generic);
      else
        remark(op, "sequential (a named op)");
    });
    for (linalg::GenericOp op : ops) {
      std::optional<SmallVector<Reduction>> reductions = matchGpuReductions(op);
      if (!reductions) {
        remark(op, "sequential (not a fold this pass handles)");
        continue;
      }
      SmallVector<unsigned> parallelDims, reductionDims;
      int64_t length = splitLoops(op, parallelDims, reductionDims);
      int64_t outputs = numOutputs(op);
      bool full = outputs == 1;
      if (outputs == 0 || outputs > std::numeric_limits<int32_t>::max()) {
        remark(op, "sequential (too short)");
        continue;
      }
      // Many outputs of fewer than 32 elements (at least kMinSegment): one
      // segment of 8, 16 or 32 lanes each, several per warp.
      if (!full && outputs >= warpMinOutputs && length < minReduction &&
          length >= kMinSegment && length <= kWarpSize &&
          maxThreads >= kWarpSize) {
        int64_t lanes = int64_t(llvm::PowerOf2Ceil(uint64_t(length)));
        int64_t warps = maxThreads / kWarpSize;
        remark(op, "one segment of " + std::to_string(lanes) +
                       " lanes per output, " + std::to_string(warps) +
                       " warps per block");
        if (cpu)
          rewriteAsLoops(op, *reductions, lanes);
        else
          rewriteAsWarpKernel(op, *reductions, warps, lanes);
        continue;
      }
      if (length < 2 || (!full && length < minReduction)) {
        remark(op, "sequential (too short)");
        continue;
      }
      // Many outputs of a moderate length: one warp each, several per block.
      if (!full && outputs >= warpMinOutputs && length <= kMaxWarpReduction &&
          maxThreads >= kWarpSize) {
        int64_t warps = maxThreads / kWarpSize;
        remark(op, "one warp per output, " + std::to_string(warps) +
                       " warps per block");
        if (cpu)
          rewriteAsLoops(op, *reductions, kWarpSize);
        else
          rewriteAsWarpKernel(op, *reductions, warps);
        continue;
      }
      int64_t threads = std::clamp<int64_t>(
          int64_t(llvm::PowerOf2Ceil(uint64_t(length))), minThreads,
          maxThreads);
      // The partial results must fit CUDA's 48 KiB of static shared memory
      // per block; else the op stays sequential.
      int64_t bytes = 0;
      for (const Reduction &reduction : *reductions) {
        Type element = reduction.identity.getType();
        bytes += threads * llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
      }
      if (bytes > kMaxSharedBytes) {
        remark(op, "sequential (shared memory)");
        continue;
      }
      remark(op, "one block of " + std::to_string(threads) +
                     " threads per output");
      if (cpu)
        rewriteAsLoops(op, *reductions, threads);
      else
        rewriteAsKernel(op, *reductions, threads);
    }
  }

  /// With `remarks`, a remark at `op` giving its outputs, its reduction
  /// length and what the pass made of it.
  void remark(linalg::LinalgOp op, const std::string &strategy) {
    if (!remarks)
      return;
    bool known = true;
    int64_t outputs = 1, length = 1;
    for (auto [range, type] :
         llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray())) {
      known &= !ShapedType::isDynamic(range);
      (type == utils::IteratorType::parallel ? outputs : length) *= range;
    }
    InFlightDiagnostic diag = op->emitRemark("reduction of ");
    if (known)
      diag << outputs << " outputs x " << length << " elements";
    else
      diag << "dynamic shape";
    diag << ": " << strategy;
  }
};

} // namespace
