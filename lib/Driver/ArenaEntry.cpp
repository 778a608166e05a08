//===- ArenaEntry.cpp - an entry point that takes its arena ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// `<entry>_arena(uint8_t *arena, buffers...)`: the entry's body with the
// arena remat-plan-arena allocated replaced by a caller-provided buffer, so
// that a caller running many steps allocates it once. `<entry>` keeps its
// ABI: it allocates the arena, calls `<entry>_arena` and frees it.
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace remat;
using namespace remat::driver;

/// The arena of `func` (remat-plan-arena's `memref.alloc {remat_arena}` at
/// the top level), if every use of it is a view or a dealloc.
static memref::AllocOp findArena(func::FuncOp func) {
  memref::AllocOp arena;
  for (auto alloc : func.front().getOps<memref::AllocOp>())
    if (alloc->hasAttr("remat_arena"))
      arena = alloc;
  if (!arena)
    return nullptr;
  for (Operation *user : arena->getUsers())
    if (!isa<memref::ViewOp, memref::DeallocOp>(user))
      return nullptr;
  return arena;
}

LogicalResult driver::addArenaEntry(ModuleOp module, StringRef entryName,
                                    std::string &arenaEntry) {
  arenaEntry.clear();
  auto entry = module.lookupSymbol<func::FuncOp>(entryName);
  if (!entry || entry.isExternal() || !entry.getBody().hasOneBlock())
    return success();
  memref::AllocOp arena = findArena(entry);
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
  memref::AllocOp variantArena = findArena(variant);
  MemRefType arenaType = variantArena.getType();
  if (failed(variant.insertArgument(0, arenaType, {}, variantArena.getLoc())))
    return failure();
  for (Operation *user : llvm::make_early_inc_range(variantArena->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  variantArena.replaceAllUsesWith(variant.getArgument(0));
  variantArena.erase();

  // The entry: allocate, call, free.
  Block &body = entry.front();
  Location loc = entry.getLoc();
  uint64_t alignment = arena.getAlignment().value_or(64);
  while (!body.empty()) {
    body.back().dropAllUses();
    body.back().erase();
  }
  OpBuilder builder = OpBuilder::atBlockEnd(&body);
  auto alloc = memref::AllocOp::create(builder, loc, arenaType);
  alloc.setAlignment(alignment);
  alloc->setAttr("remat_arena", builder.getUnitAttr());
  SmallVector<Value> operands = {alloc};
  llvm::append_range(operands, body.getArguments());
  func::CallOp::create(builder, loc, variant, operands);
  memref::DeallocOp::create(builder, loc, alloc);
  func::ReturnOp::create(builder, loc);
  arenaEntry = name;
  return success();
}
