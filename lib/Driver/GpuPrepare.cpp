//===- GpuPrepare.cpp - memref-level rewrites for the driver --------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Small module passes the driver runs between upstream passes: copies as
// linalg ops, host globals materialized, host allocations in managed GPU
// memory, parallel loops collapsed to one dimension, kernels merged into
// one GPU module.
//
//===----------------------------------------------------------------------===//

#include "remat/Driver/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

#include <numeric>

namespace remat {
#define GEN_PASS_DEF_REMATCOPIESTOLINALG
#define GEN_PASS_DEF_REMATMATERIALIZEGLOBALS
#define GEN_PASS_DEF_REMATHOSTALLOCSTOGPU
#define GEN_PASS_DEF_REMATPARALLELFIRST
#define GEN_PASS_DEF_REMATCOLLAPSEPARALLELLOOPS
#define GEN_PASS_DEF_REMATMERGEGPUMODULES
#include "remat/Driver/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

/// Returns true if `op` is in host code (not inside a gpu.module).
static bool isHostOp(Operation *op) {
  return !op->getParentOfType<gpu::GPUModuleOp>();
}

namespace {

struct CopiesToLinalgPass
    : public remat::impl::RematCopiesToLinalgBase<CopiesToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (!source || !target || !isHostOp(copy) ||
          copy.getSource().getDefiningOp<memref::GetGlobalOp>())
        return;
      if (!allCopies && source.getLayout().isIdentity() &&
          target.getLayout().isIdentity())
        return;
      copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(),
                             ValueRange{copy.getSource()},
                             ValueRange{copy.getTarget()});
      copy.erase();
    }
  }
};

struct MaterializeGlobalsPass
    : public remat::impl::RematMaterializeGlobalsBase<MaterializeGlobalsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::GetGlobalOp> globals;
    getOperation().walk([&](memref::GetGlobalOp op) {
      if (isHostOp(op) && op.getType().hasStaticShape() &&
          op.getType().getLayout().isIdentity())
        globals.push_back(op);
    });
    for (memref::GetGlobalOp op : globals) {
      OpBuilder builder(op);
      builder.setInsertionPointAfter(op);
      auto alloc = memref::AllocOp::create(builder, op.getLoc(), op.getType());
      auto copy =
          memref::CopyOp::create(builder, op.getLoc(), op.getResult(), alloc);
      op.getResult().replaceAllUsesExcept(alloc.getResult(),
                                          copy.getOperation());
    }
  }
};

struct HostAllocsToGpuPass
    : public remat::impl::RematHostAllocsToGpuBase<HostAllocsToGpuPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp>(op) && isHostOp(op))
        ops.push_back(op);
    });
    MLIRContext *context = &getContext();
    Type token = gpu::AsyncTokenType::get(context);
    for (Operation *op : ops) {
      OpBuilder builder(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto gpuAlloc = gpu::AllocOp::create(
            builder, loc, alloc.getType(), /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange{}, alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), /*hostShared=*/true);
        // The arena stays recognizable (the driver's `<entry>_arena`).
        if (alloc->hasAttr("remat_arena"))
          gpuAlloc->setAttr("remat_arena", builder.getUnitAttr());
        alloc.getResult().replaceAllUsesWith(gpuAlloc.getMemref());
      } else {
        auto dealloc = cast<memref::DeallocOp>(op);
        auto start = gpu::WaitOp::create(builder, loc, token, ValueRange{});
        auto free = gpu::DeallocOp::create(builder, loc, token,
                                           ValueRange{start.getAsyncToken()},
                                           dealloc.getMemref());
        gpu::WaitOp::create(builder, loc, Type(),
                            ValueRange{free.getAsyncToken()});
      }
      op->erase();
    }
  }
};

struct ParallelFirstPass
    : public remat::impl::RematParallelFirstBase<ParallelFirstPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isHostOp(op) && op.hasPureBufferSemantics() &&
          !op->getParentOfType<scf::ParallelOp>())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      SmallVector<unsigned> order;
      for (auto [index, type] : llvm::enumerate(iterators))
        if (type == utils::IteratorType::parallel)
          order.push_back(index);
      size_t numParallel = order.size();
      for (auto [index, type] : llvm::enumerate(iterators))
        if (type != utils::IteratorType::parallel)
          order.push_back(index);
      bool identity = llvm::all_of(llvm::enumerate(order), [](auto pair) {
        return pair.index() == pair.value();
      });
      Operation *current = op;
      if (numParallel > 0 && !identity) {
        // Parallel loops outermost: they become the grid, the reductions run
        // in each thread.
        rewriter.setInsertionPoint(op);
        auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
        if (!generic) {
          FailureOr<linalg::GenericOp> generalized =
              linalg::generalizeNamedOp(rewriter, op);
          if (failed(generalized))
            continue;
          generic = *generalized;
        }
        if (failed(linalg::interchangeGenericOp(rewriter, generic, order)))
          continue;
        current = generic;
      }
      if (numParallel == 0) {
        // No parallel loop (rank 0, full reductions): one GPU thread.
        rewriter.setInsertionPoint(current);
        Location loc = current->getLoc();
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
        auto wrapper = scf::ParallelOp::create(
            rewriter, loc, ValueRange{zero}, ValueRange{one}, ValueRange{one});
        current->moveBefore(wrapper.getBody()->getTerminator());
      }
    }
  }
};

struct CollapseParallelLoopsPass
    : public remat::impl::RematCollapseParallelLoopsBase<
          CollapseParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (isHostOp(loop) && !loop->getParentOfType<scf::ParallelOp>() &&
          loop.getNumLoops() > 1)
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : loops) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      rewriter.setInsertionPoint(loop);
      mlir::collapseParallelLoops(rewriter, loop, {all});
    }
  }
};

struct MergeGpuModulesPass
    : public remat::impl::RematMergeGpuModulesBase<MergeGpuModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.size() < 2)
      return;
    gpu::GPUModuleOp target = gpuModules.front();
    SymbolTable targetSymbols(target);
    // (module, symbol) -> new symbol in `target`.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    for (gpu::GPUModuleOp source : llvm::drop_begin(gpuModules)) {
      for (Operation &op :
           llvm::make_early_inc_range(source.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        op.remove();
        if (!symbol) {
          target.getBody()->push_back(&op);
          continue;
        }
        StringAttr oldName = symbol.getNameAttr();
        StringAttr newName = targetSymbols.insert(&op);
        renamed[{source.getSymNameAttr(), oldName}] = newName;
      }
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it =
          renamed.find({launch.getKernelModuleName(), launch.getKernelName()});
      if (it == renamed.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          target.getSymNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
    for (gpu::GPUModuleOp source : llvm::drop_begin(gpuModules))
      source.erase();
  }
};

} // namespace
