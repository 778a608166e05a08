//===- PlanArena.cpp - place the static buffers of a function in one arena ===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/Diagnostics.h"
#include "remat/Dialect/Remat/Transforms/Reports.h"
#include "remat/Transforms/ArenaPacking.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"

namespace remat {
#define GEN_PASS_DEF_REMATPLANARENA
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// One planned buffer: an alloc, its aliases and its lifetime.
struct Buffer {
  memref::AllocOp alloc;
  int64_t size = 0;
  int64_t alignment = 64;
  int64_t start = 0;
  /// Position of the first use (of it or an alias) after the alloc.
  int64_t firstUse = 0;
  int64_t end = 0;
  /// Reaches a func.return.
  bool returned = false;
  /// The alloc result and every alias of it.
  llvm::SetVector<Value> aliases;
  /// In-place group: index of the buffer whose slot this one shares.
  size_t group = 0;
};

/// The per-function result, for the report.
struct FunctionReport {
  std::string name;
  int64_t arenaBytes = 0;
  int64_t lowerBound = 0;
  int64_t buffers = 0;
  int64_t inPlace = 0;
  int64_t unplanned = 0;
};

/// Returns true if `type` can live in the arena: static shape, identity
/// layout, default memory space.
/// Largest arena (and buffer) the planner lays out: offsets, sizes and
/// alignments then stay far from int64_t overflow.
constexpr int64_t kMaxArenaBytes = int64_t(1) << 60;

static bool isPlannable(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return false;
  Attribute space = type.getMemorySpace();
  if (!space)
    return true;
  auto intSpace = dyn_cast<IntegerAttr>(space);
  return intSpace && intSpace.getInt() == 0;
}

/// Returns true if `op` produces an alias of its first memref operand and
/// nothing else (the view-like ops).
static bool isAliasOp(Operation *op) {
  return isa<ViewLikeOpInterface, memref::CastOp, memref::CollapseShapeOp,
             memref::ExpandShapeOp, memref::ReinterpretCastOp,
             memref::TransposeOp, memref::AssumeAlignmentOp>(op);
}

/// Returns true if `generic` is elementwise: identity indexing maps only,
/// parallel iterators only, every operand of the same shape, and the payload
/// does not read the outputs.
static bool isElementwise(linalg::GenericOp generic) {
  if (!generic.hasPureBufferSemantics())
    return false;
  if (generic.getNumLoops() != generic.getNumParallelLoops())
    return false;
  for (AffineMap map : generic.getIndexingMapsArray())
    if (!map.isIdentity())
      return false;
  for (OpOperand &init : generic.getDpsInitsMutable())
    if (generic.payloadUsesValueFromOperand(&init))
      return false;
  return true;
}

class ArenaPlanner {
public:
  ArenaPlanner(func::FuncOp func, int64_t alignment, bool inPlace)
      : func(func), alignment(alignment), inPlace(inPlace) {}

  /// Plans and rewrites the function; fills `report`.
  LogicalResult run(FunctionReport &report);

private:
  Block &body() { return func.getBody().front(); }

  /// Position of the top-level op of the body that contains `op`.
  int64_t positionOf(Operation *op) {
    Operation *top = body().findAncestorOpInBlock(*op);
    return top ? positions.lookup(top) : endPosition;
  }

  /// Collects the aliases of the buffer and its lifetime; returns failure if
  /// the buffer cannot be planned (escapes a nested region's iteration).
  LogicalResult analyze(Buffer &buffer);

  /// Finds the in-place pairs and merges their groups.
  void planInPlace(std::vector<Buffer> &buffers, int64_t &count);

  func::FuncOp func;
  int64_t alignment;
  bool inPlace;
  llvm::DenseMap<Operation *, int64_t> positions;
  int64_t endPosition = 0;
};

} // namespace

LogicalResult ArenaPlanner::analyze(Buffer &buffer) {
  Operation *allocOp = buffer.alloc;
  bool nested = allocOp->getBlock() != &body();
  buffer.start = positionOf(allocOp);
  buffer.end = buffer.start;
  buffer.firstUse = endPosition;
  buffer.aliases.insert(buffer.alloc.getResult());

  auto addMemRefValues = [&](auto values) {
    for (Value value : values)
      if (isa<BaseMemRefType>(value.getType()))
        buffer.aliases.insert(value);
  };
  auto addRegionArguments = [&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        addMemRefValues(block.getArguments());
  };

  for (size_t i = 0; i < buffer.aliases.size(); ++i) {
    Value value = buffer.aliases[i];
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp>(user))
        continue;
      int64_t position = positionOf(user);
      buffer.end = std::max(buffer.end, position);
      if (user != allocOp)
        buffer.firstUse = std::min(buffer.firstUse, position);
      if (isa<func::ReturnOp>(user) &&
          user->getParentOp() == func.getOperation()) {
        buffer.returned = true;
        buffer.end = endPosition;
        continue;
      }
      if (auto copy = dyn_cast<memref::CopyOp>(user)) {
        auto target = dyn_cast<BlockArgument>(copy.getTarget());
        if (use.getOperandNumber() == 0 && target &&
            target.getOwner() == &body())
          buffer.end = endPosition;
        continue;
      }
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        // Yielded out of a region: the parent's results and the block
        // arguments of its regions may be the buffer. A buffer allocated in
        // a nested region that escapes its iteration cannot have one slot.
        if (nested)
          return failure();
        Operation *parent = user->getParentOp();
        addMemRefValues(parent->getResults());
        addRegionArguments(parent);
        continue;
      }
      // View-like ops, and conservatively any op with memref results or
      // memref region arguments, may alias the buffer.
      addMemRefValues(user->getResults());
      if (!isAliasOp(user))
        addRegionArguments(user);
    }
  }
  return success();
}

void ArenaPlanner::planInPlace(std::vector<Buffer> &buffers, int64_t &count) {
  llvm::DenseMap<Value, size_t> bufferOf;
  for (auto [index, buffer] : llvm::enumerate(buffers))
    bufferOf[buffer.alloc.getResult()] = index;
  // The end of each group's lifetime and whether a buffer already joined
  // another group.
  std::vector<int64_t> groupEnd(buffers.size());
  for (auto [index, buffer] : llvm::enumerate(buffers))
    groupEnd[index] = buffer.end;

  for (Operation &op : body()) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || !isElementwise(generic))
      continue;
    int64_t position = positions.lookup(&op);
    llvm::SmallPtrSet<size_t, 4> usedGroups;
    for (OpOperand &init : generic.getDpsInitsMutable()) {
      auto out = bufferOf.find(init.get());
      if (out == bufferOf.end())
        continue;
      Buffer &b = buffers[out->second];
      // B must be fresh: alone in its group and not used before this op.
      if (b.group != out->second || b.firstUse != position ||
          b.start >= position)
        continue;
      for (OpOperand *input : generic.getDpsInputOperands()) {
        auto in = bufferOf.find(input->get());
        if (in == bufferOf.end() || in->second == out->second)
          continue;
        Buffer &a = buffers[in->second];
        size_t group = a.group;
        if (a.end != position || groupEnd[group] != position ||
            usedGroups.contains(group) ||
            a.alloc.getType() != b.alloc.getType() || a.size != b.size)
          continue;
        b.group = group;
        groupEnd[group] = std::max(groupEnd[group], b.end);
        usedGroups.insert(group);
        ++count;
        break;
      }
    }
  }
}

LogicalResult ArenaPlanner::run(FunctionReport &report) {
  report.name = func.getSymName().str();
  for (Operation &op : body())
    positions[&op] = endPosition++;

  DataLayout layout = DataLayout::closest(func);
  std::vector<Buffer> buffers;
  bool tooLarge = false;
  func.walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    // Allocs below an isolated op (e.g. a GPU kernel) cannot see the arena.
    Operation *isolated =
        alloc->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
    if (!isPlannable(type) || isolated != func.getOperation() ||
        !alloc.getDynamicSizes().empty() ||
        !alloc.getSymbolOperands().empty()) {
      ++report.unplanned;
      return WalkResult::advance();
    }
    Buffer buffer;
    buffer.alloc = alloc;
    // Sizes in checked arithmetic: a memref type may claim any shape.
    std::optional<int64_t> size = static_cast<int64_t>(
        layout.getTypeSize(type.getElementType()).getFixedValue());
    for (int64_t d : type.getShape())
      if (size)
        size = llvm::checkedMul(*size, d);
    if (!size || *size > kMaxArenaBytes) {
      alloc.emitError() << "remat-plan-arena: the buffer of type " << type
                        << " is larger than the arena limit of 2^60 bytes";
      tooLarge = true;
      return WalkResult::interrupt();
    }
    buffer.size = *size;
    // Natural alignment: buffers smaller than the arena alignment only need
    // their own size rounded up to a power of two (never less than one
    // element), so that tiny buffers are not padded to a cache line.
    int64_t eltBytes = static_cast<int64_t>(
        layout.getTypeSize(type.getElementType()).getFixedValue());
    int64_t requested = std::max<int64_t>(
        alignment, static_cast<int64_t>(alloc.getAlignment().value_or(1)));
    int64_t natural =
        std::max<int64_t>(std::max<int64_t>(1, eltBytes),
                          static_cast<int64_t>(llvm::PowerOf2Ceil(
                              std::max<int64_t>(1, buffer.size))));
    buffer.alignment = std::min(requested, natural);
    buffers.push_back(std::move(buffer));
    return WalkResult::advance();
  });
  if (tooLarge)
    return failure();

  std::vector<Buffer> planned;
  for (Buffer &buffer : buffers) {
    if (failed(analyze(buffer))) {
      ++report.unplanned;
      continue;
    }
    buffer.group = planned.size();
    planned.push_back(std::move(buffer));
  }
  report.buffers = planned.size();
  if (planned.empty())
    return success();

  if (inPlace)
    planInPlace(planned, report.inPlace);

  // One packing item per group: the union of the members' lifetimes.
  std::vector<ArenaItem> items;
  std::vector<size_t> itemOfGroup(planned.size(), SIZE_MAX);
  for (auto [index, buffer] : llvm::enumerate(planned)) {
    size_t &item = itemOfGroup[buffer.group];
    if (item == SIZE_MAX) {
      item = items.size();
      items.push_back(
          {buffer.size, buffer.start, buffer.end, buffer.alignment});
      continue;
    }
    ArenaItem &merged = items[item];
    merged.size = std::max(merged.size, buffer.size);
    merged.start = std::min(merged.start, buffer.start);
    merged.end = std::max(merged.end, buffer.end);
    merged.alignment = std::max(merged.alignment, buffer.alignment);
  }
  // Every offset the packer computes is at most the sum of the aligned
  // sizes: bound it so that no offset overflows.
  int64_t worstCase = 0;
  for (const ArenaItem &item : items)
    if (llvm::AddOverflow(worstCase, item.size + item.alignment, worstCase) ||
        worstCase > kMaxArenaBytes)
      return emitCompactError(func)
             << "remat-plan-arena: the buffers of this function need more "
                "than the arena limit of 2^60 bytes";
  ArenaPacking packing = packArena(items);
  report.arenaBytes = packing.arenaBytes;
  report.lowerBound = livenessLowerBound(items);

  // Rewrite: the arena at the top of the body, one view per buffer.
  OpBuilder builder(func.getContext());
  builder.setInsertionPointToStart(&body());
  Location loc = func.getLoc();
  auto arenaType = MemRefType::get({std::max<int64_t>(packing.arenaBytes, 1)},
                                   builder.getI8Type());
  auto arena = memref::AllocOp::create(builder, loc, arenaType);
  arena.setAlignment(static_cast<uint64_t>(alignment));
  arena->setAttr("remat_arena", builder.getUnitAttr());
  bool escapes = false;
  for (Buffer &buffer : planned) {
    escapes |= buffer.returned;
    int64_t offset = packing.offsets[itemOfGroup[buffer.group]];
    builder.setInsertionPoint(buffer.alloc);
    Location allocLoc = buffer.alloc.getLoc();
    Value shift = arith::ConstantIndexOp::create(builder, allocLoc, offset);
    auto view = memref::ViewOp::create(
        builder, allocLoc, buffer.alloc.getType(), arena, shift, ValueRange{});
    // Deallocs of the buffer or of an alias go away with it.
    SmallVector<Operation *> deallocs;
    for (Value alias : buffer.aliases)
      for (Operation *user : alias.getUsers())
        if (isa<memref::DeallocOp>(user))
          deallocs.push_back(user);
    for (Operation *dealloc : deallocs)
      dealloc->erase();
    buffer.alloc.getResult().replaceAllUsesWith(view.getResult());
    buffer.alloc.erase();
  }
  if (!escapes) {
    for (Operation &op : body())
      if (isa<func::ReturnOp>(op)) {
        builder.setInsertionPoint(&op);
        memref::DeallocOp::create(builder, loc, arena);
      }
  } else {
    emitCompactRemark(func)
        << "a returned buffer lives in the arena; the arena is "
           "not deallocated";
  }
  return success();
}

namespace {
struct PlanArenaPass : public remat::impl::RematPlanArenaBase<PlanArenaPass> {
  using Base::Base;

  /// Checks the options once per pipeline run; errors have no location.
  LogicalResult initialize(MLIRContext *context) override {
    if (alignment <= 0 || (alignment & (alignment - 1)) != 0 ||
        alignment > (1 << 30))
      return emitError(UnknownLoc::get(context))
             << "alignment must be a power of two, at most 2^30";
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // With json-file=, every function asks for the file, so that it is
    // written (as an empty array) even when nothing is planned.
    std::string json;
    auto finish = [&] {
      if (!jsonFile.empty())
        addFunctionReport(func, "remat-plan-arena json-file", jsonFile,
                          ReportFormat::Json, json);
    };
    if (func.isExternal())
      return finish();
    if (!func.getBody().hasOneBlock()) {
      emitCompactRemark(func)
          << "remat-plan-arena: skipped (more than one block)";
      return finish();
    }
    FunctionReport report;
    ArenaPlanner planner(func, alignment, inPlace);
    if (failed(planner.run(report)))
      return signalPassFailure();
    Builder builder(func.getContext());
    func->setAttr("remat_arena_bytes",
                  builder.getI64IntegerAttr(report.arenaBytes));
    func->setAttr("remat_arena_lower_bound",
                  builder.getI64IntegerAttr(report.lowerBound));
    emitCompactRemark(func)
        << "remat-plan-arena: arena " << report.arenaBytes
        << " bytes, liveness lower bound " << report.lowerBound
        << " bytes, ratio " << formatRatio(report) << ", " << report.buffers
        << " buffers, " << report.inPlace << " in place, " << report.unplanned
        << " not planned";
    if (!jsonFile.empty()) {
      llvm::raw_string_ostream os(json);
      writeJSON(os, report);
    }
    finish();
  }

  static std::string formatRatio(const FunctionReport &report) {
    double ratio = report.lowerBound == 0
                       ? 1.0
                       : static_cast<double>(report.arenaBytes) /
                             static_cast<double>(report.lowerBound);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::format("%.3f", ratio);
    return text;
  }

  /// Writes the JSON object of one function. llvm::json escapes the
  /// function name (a symbol may hold quotes and backslashes); the ratio
  /// keeps the remark's three decimals.
  static void writeJSON(raw_ostream &os, const FunctionReport &report) {
    llvm::json::OStream j(os, 2);
    j.object([&] {
      j.attribute("function", report.name);
      j.attribute("arena_bytes", report.arenaBytes);
      j.attribute("lower_bound_bytes", report.lowerBound);
      j.attributeBegin("ratio");
      j.rawValue(formatRatio(report));
      j.attributeEnd();
      j.attribute("buffers", report.buffers);
      j.attribute("in_place", report.inPlace);
      j.attribute("not_planned", report.unplanned);
    });
  }
};
} // namespace
