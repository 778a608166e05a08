//===- GpuStepStream.cpp - one CUDA stream per call of a host function ----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// `--remat-gpu-step-stream`: the kernel launches, cuBLAS calls, copies of
// constant globals and frees of a host function go on one stream, created
// before the first and waited for once, before the function returns or
// before host code that could touch their memory; launch sizes are checked
// against CUDA's limits.
//
//===----------------------------------------------------------------------===//

#include "remat/Driver/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace remat {
#define GEN_PASS_DEF_REMATGPUSTEPSTREAM
#include "remat/Driver/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// CUDA's limits on a launch (compute capability 3.0 and later).
constexpr int64_t kMaxGridX = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxGridYZ = 65535;
constexpr int64_t kMaxBlockThreads = 1024;

/// Fails with an error at `launch` when a constant grid or block size is
/// outside CUDA's limits (the runtime checks the others when it launches).
LogicalResult checkLaunchSizes(gpu::LaunchFuncOp launch) {
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  auto value = [](Value v) -> std::optional<int64_t> {
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant)))
      return constant.getSExtValue();
    return std::nullopt;
  };
  std::pair<Value, int64_t> limits[] = {
      {grid.x, kMaxGridX},        {grid.y, kMaxGridYZ},
      {grid.z, kMaxGridYZ},       {block.x, kMaxBlockThreads},
      {block.y, kMaxBlockThreads}, {block.z, 64}};
  const char *names[] = {"grid x", "grid y", "grid z",
                         "block x", "block y", "block z"};
  for (auto [index, limit] : llvm::enumerate(limits)) {
    std::optional<int64_t> size = value(limit.first);
    if (size && (*size < 1 || *size > limit.second))
      return launch.emitError()
             << "kernel launch " << names[index] << " size " << *size
             << " is outside CUDA's limit [1, " << limit.second
             << "]: the kernel's iteration space is too large for one "
                "launch";
  }
  std::optional<int64_t> bx = value(block.x), by = value(block.y),
                         bz = value(block.z);
  if (bx && by && bz && *bx * *by * *bz > kMaxBlockThreads)
    return launch.emitError() << "kernel launch block of " << *bx * *by * *bz
                              << " threads exceeds CUDA's 1024";
  return success();
}

/// Whether `op`, in host code, can run while the stream's work is pending:
/// it reads and writes no memory that kernels use.
bool independentOfStream(Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  // Allocating managed memory touches no existing buffer.
  if (auto alloc = dyn_cast<gpu::AllocOp>(op))
    return !alloc.getAsyncToken();
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::all_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Allocate>(e.getEffect());
  });
}

/// Puts the GPU work of `block` (a host function's body) on one stream.
LogicalResult threadStream(Block &block) {
  Type tokenType = gpu::AsyncTokenType::get(block.getParentOp()->getContext());
  // The token of the step's stream, or null when no stream is open.
  Value current;
  auto open = [&](Operation *before) {
    if (current)
      return;
    OpBuilder builder(before);
    current = gpu::WaitOp::create(builder, before->getLoc(), tokenType,
                                  ValueRange{})
                  .getAsyncToken();
  };
  auto close = [&](Operation *before) {
    if (!current)
      return;
    OpBuilder builder(before);
    gpu::WaitOp::create(builder, before->getLoc(), Type(),
                        ValueRange{current});
    current = nullptr;
  };
  auto onStream = [&](Value token) { return current && token == current; };

  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      if (failed(checkLaunchSizes(launch)))
        return failure();
      if (!launch.getAsyncToken() && launch.getAsyncDependencies().empty()) {
        // A synchronous launch: enqueue it on the stream instead.
        open(launch);
        OpBuilder builder(launch);
        std::optional<gpu::KernelDim3> cluster;
        if (launch.hasClusterSize())
          cluster = launch.getClusterSizeOperandValues();
        auto async = gpu::LaunchFuncOp::create(
            builder, launch.getLoc(), launch.getKernelAttr(),
            launch.getGridSizeOperandValues(),
            launch.getBlockSizeOperandValues(),
            launch.getDynamicSharedMemorySize(), launch.getKernelOperands(),
            tokenType, ValueRange{current}, cluster);
        async->setDiscardableAttrs(launch->getDiscardableAttrDictionary());
        current = async.getAsyncToken();
        launch.erase();
        continue;
      }
    }
    if (auto wait = dyn_cast<gpu::WaitOp>(op)) {
      if (wait.getAsyncToken() && wait.getAsyncDependencies().empty()) {
        // A new stream (a cuBLAS call's, a free's): the step's instead.
        open(wait);
        wait.getAsyncToken().replaceAllUsesWith(current);
        wait.erase();
        continue;
      }
      if (!wait.getAsyncToken() &&
          llvm::all_of(wait.getAsyncDependencies(), onStream)) {
        // Waits for work on the step's stream: the stream is waited for
        // once, later.
        wait.erase();
        continue;
      }
    }
    if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      if (dealloc.getAsyncToken() &&
          llvm::all_of(dealloc.getAsyncDependencies(), onStream)) {
        // mgpuMemFree waits for the stream's work before freeing.
        current = dealloc.getAsyncToken();
        continue;
      }
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      // A copy of a constant global into a buffer (remat-materialize-
      // globals): a copy on the stream (cuMemcpyAsync reads the host
      // global), ordered after the kernels that used the buffer before.
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (copy.getSource().getDefiningOp<memref::GetGlobalOp>() && source &&
          target && source.hasStaticShape() && source == target &&
          source.getLayout().isIdentity()) {
        open(copy);
        OpBuilder builder(copy);
        current = gpu::MemcpyOp::create(builder, copy.getLoc(), tokenType,
                                        ValueRange{current}, copy.getTarget(),
                                        copy.getSource())
                      .getAsyncToken();
        copy.erase();
        continue;
      }
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      // A runtime call taking the stream (remat_cuda_sgemm) is enqueued
      // on it; it must not take another stream's token.
      if (llvm::any_of(call.getOperands(), onStream) &&
          llvm::all_of(call.getOperands(), [&](Value v) {
            return !isa<gpu::AsyncTokenType>(v.getType()) || onStream(v);
          }))
        continue;
    }
    if (op.hasTrait<OpTrait::IsTerminator>() || !independentOfStream(&op))
      close(&op);
  }
  return success();
}

struct GpuStepStreamPass
    : public remat::impl::RematGpuStepStreamBase<GpuStepStreamPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      if (failed(threadStream(func.front())))
        return signalPassFailure();
    }
  }
};

} // namespace
