//===- ValueNumbering.cpp - hash-consed terms of a function body ----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "ValueNumbering.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace remat;
using namespace remat::verify;

namespace {
/// The first word of every key says what kind of term it is.
enum TermKind : uintptr_t { kArgument = 1, kOperation, kResult, kUnique };
} // namespace

bool verify::isBookkeepingAttr(StringRef name) {
  return name == RematDialect::getPhaseAttrName() ||
         name == RematDialect::getNoRecomputeAttrName();
}

SmallVector<NamedAttribute> verify::getSemanticAttrs(Operation *op) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (!isBookkeepingAttr(attr.getName().strref()))
      attrs.push_back(attr);
  return attrs;
}

//===----------------------------------------------------------------------===//
// TermTable
//===----------------------------------------------------------------------===//

TermId TermTable::intern(ArrayRef<uintptr_t> key) {
  auto it = ids.find(key);
  if (it != ids.end())
    return it->second;
  // The map keeps a copy of the key that lives as long as the table.
  uintptr_t *copy = allocator.Allocate<uintptr_t>(key.size());
  llvm::copy(key, copy);
  TermId id = numTerms++;
  ids.try_emplace(ArrayRef<uintptr_t>(copy, key.size()), id);
  return id;
}

TermId TermTable::getArgument(unsigned index) {
  uintptr_t key[] = {kArgument, index};
  return intern(key);
}

TermId TermTable::getOperation(Operation *op, ArrayRef<TermId> operands,
                               uint64_t instance) {
  scratch.clear();
  scratch.push_back(kOperation);
  scratch.push_back(
      reinterpret_cast<uintptr_t>(op->getName().getAsOpaquePointer()));
  scratch.push_back(static_cast<uintptr_t>(instance));
  scratch.push_back(op->getNumResults());
  for (Type type : op->getResultTypes())
    scratch.push_back(reinterpret_cast<uintptr_t>(type.getAsOpaquePointer()));
  // Attributes are sorted by name in the dictionary, so equal sets give
  // equal sequences.
  size_t countAt = scratch.size();
  scratch.push_back(0);
  for (NamedAttribute attr : op->getAttrs()) {
    if (isBookkeepingAttr(attr.getName().strref()))
      continue;
    scratch.push_back(
        reinterpret_cast<uintptr_t>(attr.getName().getAsOpaquePointer()));
    scratch.push_back(
        reinterpret_cast<uintptr_t>(attr.getValue().getAsOpaquePointer()));
    ++scratch[countAt];
  }
  scratch.append(operands.begin(), operands.end());
  return intern(scratch);
}

TermId TermTable::getResult(TermId op, unsigned index) {
  uintptr_t key[] = {kResult, op, index};
  return intern(key);
}

TermId TermTable::getUnique() {
  uintptr_t key[] = {kUnique, static_cast<uintptr_t>(numUnique++)};
  return intern(key);
}

//===----------------------------------------------------------------------===//
// FunctionNumbering
//===----------------------------------------------------------------------===//

FunctionNumbering::FunctionNumbering(func::FuncOp func, TermTable &table)
    : table(table) {
  if (func.getBody().empty())
    return;
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments())
    assign(arg, table.getArgument(arg.getArgNumber()));
  numberBlock(body, /*topLevel=*/true);
}

/// A structured op whose regions are a pure scalar payload: every value
/// defined in them and every value their terminators yield is a scalar, and
/// the op and every nested op are free of memory effects.
static bool isPurePayloadOp(Operation *op) {
  if (op->getNumRegions() == 0 || !isMemoryEffectFree(op))
    return false;
  auto scalar = [](Type type) { return !isa<ShapedType>(type); };
  WalkResult walk = op->walk([&](Operation *nested) {
    if (nested == op)
      return WalkResult::advance();
    bool ok = isMemoryEffectFree(nested) &&
              llvm::all_of(nested->getResultTypes(), scalar) &&
              (!nested->hasTrait<OpTrait::IsTerminator>() ||
               llvm::all_of(nested->getOperandTypes(), scalar));
    for (Region &region : nested->getRegions())
      for (Block &block : region)
        ok &= llvm::all_of(block.getArgumentTypes(), scalar);
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (!llvm::all_of(block.getArgumentTypes(), scalar))
        return false;
  return !walk.wasInterrupted();
}

void FunctionNumbering::assign(Value value, TermId term) {
  terms[value] = term;
  representatives.try_emplace(term, value);
}

TermId FunctionNumbering::lookup(Value value) const {
  auto it = terms.find(value);
  return it == terms.end() ? table.getUnique() : it->second;
}

TermId FunctionNumbering::lookupOp(Operation *op) const {
  auto it = opTerms.find(op);
  return it == opTerms.end() ? table.getUnique() : it->second;
}

Value FunctionNumbering::getRepresentative(TermId term) const {
  return representatives.lookup(term);
}

void FunctionNumbering::numberBlock(Block &block, bool topLevel) {
  for (Operation &op : block) {
    if (auto recompute = dyn_cast<RecomputeOp>(&op)) {
      // Transparent: block arguments are the inputs, results the yields.
      Region &region = recompute.getBody();
      if (!region.hasOneBlock()) {
        for (Value result : recompute.getResults())
          assign(result, table.getUnique());
        continue;
      }
      Block &inner = region.front();
      for (auto [index, arg] : llvm::enumerate(inner.getArguments()))
        assign(arg, index < recompute.getInputs().size()
                        ? lookup(recompute.getInputs()[index])
                        : table.getUnique());
      numberBlock(inner, /*topLevel=*/false);
      Operation *terminator = inner.empty() ? nullptr : &inner.back();
      for (auto [index, result] : llvm::enumerate(recompute.getResults())) {
        bool yields = isa_and_nonnull<YieldOp>(terminator) &&
                      index < terminator->getNumOperands();
        assign(result, yields ? lookup(terminator->getOperand(index))
                              : table.getUnique());
      }
      continue;
    }
    if (topLevel)
      steps.push_back(&op);
    // Ops with effects or regions are distinct executions: a top-level one
    // is numbered by its position among the steps (the same in the original
    // and in a faithful rewrite), any other one uniquely.
    uint64_t instance = 0;
    bool payload = isPurePayloadOp(&op);
    if (!isMemoryEffectFree(&op) || (op.getNumRegions() != 0 && !payload))
      instance =
          topLevel ? steps.size() : (uint64_t(1) << 62) + table.getUnique();
    TermId payloadTerm = payload ? numberPayload(&op) : 0;
    operandScratch.clear();
    for (Value operand : op.getOperands())
      operandScratch.push_back(lookup(operand));
    if (payload)
      operandScratch.push_back(payloadTerm);
    TermId opTerm = table.getOperation(&op, operandScratch, instance);
    opTerms[&op] = opTerm;
    for (OpResult result : op.getResults())
      assign(result, table.getResult(opTerm, result.getResultNumber()));
  }
}

/// Leaves for the block arguments of payload regions start here, far from
/// the positions of function arguments.
static constexpr unsigned kPayloadArgumentBase = 1u << 30;

TermId FunctionNumbering::numberPayload(Operation *op) {
  SmallVector<TermId, 4> regionTerms;
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      for (auto [index, arg] : llvm::enumerate(block.getArguments()))
        assign(arg, table.getArgument(kPayloadArgumentBase + index));
      for (Operation &nested : block) {
        SmallVector<TermId, 8> operands;
        for (Value operand : nested.getOperands())
          operands.push_back(lookup(operand));
        if (nested.getNumRegions() != 0)
          operands.push_back(numberPayload(&nested));
        TermId term = table.getOperation(&nested, operands, 0);
        opTerms[&nested] = term;
        for (OpResult result : nested.getResults())
          assign(result, table.getResult(term, result.getResultNumber()));
        if (&nested == &block.back())
          regionTerms.push_back(term);
      }
    }
  return table.getOperation(op, regionTerms, 0);
}

//===----------------------------------------------------------------------===//
// Descriptions
//===----------------------------------------------------------------------===//

std::string verify::describeOp(Operation *op) {
  std::string text = "'" + op->getName().getStringRef().str() + "'";
  if (auto name = op->getAttrOfType<StringAttr>("name"))
    text += " \"" + name.getValue().str() + "\"";
  return text;
}

std::string verify::describeLoc(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    os << loc;
  return text;
}

std::string verify::describeValue(Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (isa_and_nonnull<RecomputeOp>(parent))
      os << "block argument #" << arg.getArgNumber()
         << " of the remat.recompute at " << describeLoc(parent->getLoc());
    else
      os << "function argument #" << arg.getArgNumber();
    return text;
  }
  auto result = cast<OpResult>(value);
  Operation *op = result.getOwner();
  os << "result #" << result.getResultNumber() << " of ";
  if (isa<RecomputeOp>(op)) {
    os << "the remat.recompute";
  } else {
    if (isa_and_nonnull<RecomputeOp>(op->getParentOp()))
      os << "the recomputed ";
    os << describeOp(op);
  }
  os << " at " << describeLoc(op->getLoc());
  return text;
}

//===----------------------------------------------------------------------===//
// Translation validation
//===----------------------------------------------------------------------===//

/// Returns why `op` and `original` differ as ops (ignoring their operands),
/// or an empty string.
static std::string describeOpMismatch(Operation *op, Operation *original) {
  if (op->getName() != original->getName())
    return "it is a different op";
  if (op->getResultTypes() != original->getResultTypes())
    return "its result types differ from the original's";
  if (op->getNumOperands() != original->getNumOperands())
    return "it has " + std::to_string(op->getNumOperands()) +
           " operands, the original " +
           std::to_string(original->getNumOperands());
  SmallVector<NamedAttribute> mine = getSemanticAttrs(op);
  SmallVector<NamedAttribute> theirs = getSemanticAttrs(original);
  if (mine == theirs)
    return "";
  for (NamedAttribute attr : mine) {
    auto it = llvm::find_if(theirs, [&](NamedAttribute other) {
      return other.getName() == attr.getName();
    });
    if (it == theirs.end())
      return "the original has no attribute '" + attr.getName().str() + "'";
    if (it->getValue() != attr.getValue())
      return "attribute '" + attr.getName().str() + "' differs";
  }
  for (NamedAttribute attr : theirs)
    if (!llvm::is_contained(mine, attr))
      return "it lacks the original's attribute '" + attr.getName().str() + "'";
  return "its attributes differ from the original's";
}

LogicalResult verify::validateTranslation(
    func::FuncOp original, const FunctionNumbering &originalTerms,
    func::FuncOp rewritten, const FunctionNumbering &rewrittenTerms) {
  if (original.getFunctionType() != rewritten.getFunctionType())
    return emitError(rewritten.getLoc())
           << "@" << rewritten.getSymName() << " has type "
           << rewritten.getFunctionType() << " but the original step has "
           << original.getFunctionType();

  ArrayRef<Operation *> originalSteps = originalTerms.getSteps();
  ArrayRef<Operation *> steps = rewrittenTerms.getSteps();
  for (auto [index, op] : llvm::enumerate(steps)) {
    if (index >= originalSteps.size())
      return op->emitError()
             << describeOp(op)
             << " has no counterpart in the original step, which ends "
                "earlier (a rewrite keeps every original op, in order, and "
                "only adds remat.recompute regions)";
    Operation *originalOp = originalSteps[index];
    std::string mismatch = describeOpMismatch(op, originalOp);
    if (!mismatch.empty())
      return op->emitError()
             << describeOp(op) << " does not correspond to op #" << index
             << " of the original step, " << describeOp(originalOp) << " at "
             << describeLoc(originalOp->getLoc()) << ": " << mismatch
             << " (a rewrite keeps every original op, in order, and only "
                "adds remat.recompute regions)";
    for (auto [number, operand] : llvm::enumerate(op->getOperands())) {
      Value expected = originalOp->getOperand(number);
      TermId want = originalTerms.lookup(expected);
      TermId got = rewrittenTerms.lookup(operand);
      if (want == got)
        continue;
      InFlightDiagnostic diag = op->emitError();
      diag << "operand #" << number << " of " << describeOp(op)
           << " is not the value the original step reads: it should be "
           << describeValue(expected) << " in the original, but it is ";
      if (Value same = originalTerms.getRepresentative(got))
        diag << "equal to " << describeValue(same) << " in the original";
      else
        diag << describeValue(operand)
             << ", a value the original step never computes";
      return diag;
    }
  }
  if (steps.size() != originalSteps.size())
    return emitError(rewritten.getLoc())
           << "@" << rewritten.getSymName() << " has " << steps.size()
           << " ops outside recompute regions, the original step "
           << originalSteps.size();
  return success();
}
