//===- ArenaEntry.cpp - an entry point that takes its arena ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// `<entry>_arena(uint8_t *arena, buffers...)`: the entry's body with the
// arena remat-plan-arena allocated replaced by a caller-provided buffer, so
// that a caller running many steps allocates it once. `<entry>` keeps its
// ABI: it allocates the arena, calls `<entry>_arena` and frees it. On the
// CUDA path the arena is managed memory (`gpu.alloc host_shared` from
// remat-host-allocs-to-gpu, freed by an asynchronous `gpu.dealloc` between
// two `gpu.wait`s).
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace remat;
using namespace remat::driver;

/// The arena of `func` (remat-plan-arena's `memref.alloc {remat_arena}` at
/// the top level, or on CUDA the `gpu.alloc host_shared {remat_arena}` it
/// became), if every use of it is a view or a dealloc.
static Operation *findArena(func::FuncOp func) {
  Operation *arena = nullptr;
  for (Operation &op : func.front())
    if (isa<memref::AllocOp, gpu::AllocOp>(op) && op.hasAttr("remat_arena"))
      arena = &op;
  if (!arena)
    return nullptr;
  if (auto gpuAlloc = dyn_cast<gpu::AllocOp>(arena))
    if (!gpuAlloc.getHostShared() || gpuAlloc.getAsyncToken())
      return nullptr;
  for (Operation *user : arena->getResult(0).getUsers()) {
    if (isa<memref::ViewOp, memref::DeallocOp>(user))
      continue;
    // CUDA: `%t0 = gpu.wait async; %t1 = gpu.dealloc async [%t0] %arena;
    // gpu.wait [%t1]`.
    auto dealloc = dyn_cast<gpu::DeallocOp>(user);
    if (!dealloc || !dealloc.getAsyncToken() ||
        !llvm::all_of(dealloc.getAsyncToken().getUsers(),
                      [](Operation *op) { return isa<gpu::WaitOp>(op); }))
      return nullptr;
  }
  return arena;
}

/// Erases the deallocation `user` of an arena (and, on CUDA, the waits
/// around it that nothing else uses).
static void eraseDealloc(Operation *user) {
  auto dealloc = dyn_cast<gpu::DeallocOp>(user);
  if (!dealloc) {
    user->erase();
    return;
  }
  for (Operation *wait :
       llvm::make_early_inc_range(dealloc.getAsyncToken().getUsers()))
    wait->erase();
  SmallVector<Value> dependencies(dealloc.getAsyncDependencies());
  dealloc.erase();
  for (Value dependency : dependencies)
    if (dependency.use_empty())
      if (auto start = dependency.getDefiningOp<gpu::WaitOp>())
        if (start.getAsyncDependencies().empty())
          start.erase();
}

LogicalResult driver::addArenaEntry(ModuleOp module, StringRef entryName,
                                    std::string &arenaEntry) {
  arenaEntry.clear();
  auto entry = module.lookupSymbol<func::FuncOp>(entryName);
  if (!entry || entry.isExternal() || !entry.getBody().hasOneBlock())
    return success();
  Operation *arena = findArena(entry);
  if (!arena)
    return success();
  std::string name = (entryName + "_arena").str();
  if (Operation *clash = module.lookupSymbol(name))
    return clash->emitError()
           << "'" << name << "' is reserved for the entry point '"
           << entryName << "' with a caller-provided arena";

  // The variant: a clone whose arena is its first argument.
  auto variant = cast<func::FuncOp>(entry->clone());
  variant.setName(name);
  // Not a second training step; and kept out of line (LLVM would inline
  // the whole step into its only caller, doubling the code to optimize).
  variant->removeAttr(RematDialect::getTrainingStepAttrName());
  OpBuilder attrs(module.getContext());
  variant->setAttr("passthrough",
                   attrs.getArrayAttr({attrs.getStringAttr("noinline")}));
  module.insert(std::next(Block::iterator(entry)), variant);
  Operation *variantArena = findArena(variant);
  auto arenaType = cast<MemRefType>(variantArena->getResult(0).getType());
  if (failed(variant.insertArgument(0, arenaType, {}, variantArena->getLoc())))
    return failure();
  for (Operation *user : llvm::make_early_inc_range(variantArena->getUsers()))
    if (isa<memref::DeallocOp, gpu::DeallocOp>(user))
      eraseDealloc(user);
  variantArena->getResult(0).replaceAllUsesWith(variant.getArgument(0));
  variantArena->erase();

  // The entry: allocate, call, free.
  Block &body = entry.front();
  Location loc = entry.getLoc();
  bool managed = isa<gpu::AllocOp>(arena);
  uint64_t alignment = 64;
  if (auto hostAlloc = dyn_cast<memref::AllocOp>(arena))
    alignment = hostAlloc.getAlignment().value_or(64);
  while (!body.empty()) {
    body.back().dropAllUses();
    body.back().erase();
  }
  OpBuilder builder = OpBuilder::atBlockEnd(&body);
  Value alloc;
  if (managed) {
    // Managed memory (aligned to at least 256 bytes by the driver).
    alloc = gpu::AllocOp::create(builder, loc, arenaType, /*asyncToken=*/Type(),
                                 /*asyncDependencies=*/ValueRange{},
                                 /*dynamicSizes=*/ValueRange{},
                                 /*symbolOperands=*/ValueRange{},
                                 /*hostShared=*/true)
                .getMemref();
  } else {
    auto hostAlloc = memref::AllocOp::create(builder, loc, arenaType);
    hostAlloc.setAlignment(alignment);
    alloc = hostAlloc;
  }
  alloc.getDefiningOp()->setAttr("remat_arena", builder.getUnitAttr());
  SmallVector<Value> operands = {alloc};
  llvm::append_range(operands, body.getArguments());
  func::CallOp::create(builder, loc, variant, operands);
  if (managed) {
    Type token = gpu::AsyncTokenType::get(builder.getContext());
    Value start =
        gpu::WaitOp::create(builder, loc, token, ValueRange{}).getAsyncToken();
    Value freed = gpu::DeallocOp::create(builder, loc, token,
                                         ValueRange{start}, alloc)
                      .getAsyncToken();
    gpu::WaitOp::create(builder, loc, Type(), ValueRange{freed});
  } else {
    memref::DeallocOp::create(builder, loc, alloc);
  }
  func::ReturnOp::create(builder, loc);
  arenaEntry = name;
  return success();
}
