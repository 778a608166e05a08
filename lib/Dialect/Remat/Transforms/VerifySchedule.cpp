//===- VerifySchedule.cpp - independent check of a rewritten schedule -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An independent verifier for the output of rematerialization rewrites. It
/// deliberately shares no code with the schedulers or with MemoryAnalysis:
/// availability, equivalence of every recomputed op with an original op, and
/// the activation peak are recomputed here with simple quadratic loops that
/// are easy to check by reading.
///
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace remat {
#define GEN_PASS_DEF_REMATVERIFYSCHEDULE
#include "remat/Dialect/Remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

/// Returns `'op.name'`, followed by the `name` string attribute when the op
/// has one (remat.opaque), for diagnostics.
static std::string describe(Operation *op) {
  std::string text = "'" + op->getName().getStringRef().str() + "'";
  if (auto name = op->getAttrOfType<StringAttr>("name"))
    text += " \"" + name.getValue().str() + "\"";
  return text;
}

/// Returns `value` as it is printed as an operand (`%3`, `%arg0`).
static std::string printOperand(Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, OpPrintingFlags());
  return text;
}

/// Returns the bytes of one element of `type`, or std::nullopt.
static std::optional<int64_t> getElementBytes(Type type) {
  if (isa<IndexType>(type))
    return 8;
  if (type.isIntOrFloat())
    return (static_cast<int64_t>(type.getIntOrFloatBitWidth()) + 7) / 8;
  if (auto complex = dyn_cast<ComplexType>(type)) {
    std::optional<int64_t> part = getElementBytes(complex.getElementType());
    if (part)
      return 2 * *part;
  }
  return std::nullopt;
}

/// Returns the bytes a value of `type` occupies, or std::nullopt when the
/// type has no static size or the size overflows 64 bits.
static std::optional<int64_t> getTypeBytes(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!shaped.hasStaticShape())
      return std::nullopt;
    std::optional<int64_t> bytes = getElementBytes(shaped.getElementType());
    if (!bytes)
      return std::nullopt;
    int64_t total = *bytes;
    for (int64_t dim : shaped.getShape())
      if (llvm::MulOverflow(total, dim, total))
        return std::nullopt;
    return total;
  }
  return getElementBytes(type);
}

/// Returns the attributes of `op` (inherent and discardable) without the
/// discardable `remat.*` ones, sorted by name.
static SmallVector<NamedAttribute> getComparedAttrs(Operation *op) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (!attr.getName().strref().starts_with("remat."))
      attrs.push_back(attr);
  return attrs;
}

namespace {

/// Checks one function. Every check stops at the first problem, which is
/// emitted as an error; `check()` then returns failure.
class ScheduleChecker {
public:
  explicit ScheduleChecker(func::FuncOp func) : func(func) {}

  LogicalResult check(int64_t budget) {
    if (!func.getBody().hasOneBlock())
      return func.emitError("schedule verification needs a function body "
                            "with exactly one block");
    Block &body = func.getBody().front();
    if (body.empty() || !isa<func::ReturnOp>(body.back()))
      return func.emitError("schedule verification needs a function body "
                            "that ends with func.return");
    if (failed(checkAvailability(body)) || failed(checkEquivalence(body)) ||
        failed(checkKeepHints(body)) || failed(computePeak(body)))
      return failure();
    if (budget > 0 && peakBytes > budget) {
      InFlightDiagnostic diag =
          peakOp->emitError()
          << "schedule exceeds the memory budget: peak " << peakBytes
          << " activation bytes > budget " << budget << " bytes in @"
          << func.getSymName() << ", reached at " << describe(peakOp);
      return diag;
    }
    func.emitRemark() << "schedule verified: peak " << peakBytes << " bytes, "
                      << numRecomputed << " recomputed ops";
    return success();
  }

private:
  //===--------------------------------------------------------------------===//
  // 1. Availability and what may be recomputed.
  //===--------------------------------------------------------------------===//

  LogicalResult checkAvailability(Block &body) {
    // Values available so far, in execution order.
    llvm::DenseSet<Value> defined(body.args_begin(), body.args_end());
    for (Operation &op : body) {
      for (auto [index, operand] : llvm::enumerate(op.getOperands()))
        if (!defined.contains(operand))
          return op.emitError()
                 << "operand #" << index << " of " << describe(&op)
                 << " is not available: it is not a function argument or a "
                    "value defined earlier in the function body";
      if (auto recompute = dyn_cast<RecomputeOp>(&op)) {
        if (failed(checkRegion(recompute)))
          return failure();
      } else if (op.getNumRegions() != 0) {
        return op.emitError()
               << "schedule verification does not support " << describe(&op)
               << ": only remat.recompute may hold a region";
      }
      defined.insert(op.result_begin(), op.result_end());
    }
    return success();
  }

  LogicalResult checkRegion(RecomputeOp recompute) {
    Region &region = recompute.getBody();
    if (!region.hasOneBlock())
      return recompute.emitError("recompute region must have one block");
    Block &block = region.front();
    if (block.getNumArguments() != recompute.getInputs().size())
      return recompute.emitError("recompute region has ")
             << block.getNumArguments() << " block arguments for "
             << recompute.getInputs().size() << " inputs";
    // Block arguments are used only inside the region.
    for (BlockArgument arg : block.getArguments())
      for (Operation *user : arg.getUsers())
        if (!region.isAncestor(user->getParentRegion()))
          return user->emitError()
                 << describe(user) << " uses block argument #"
                 << arg.getArgNumber()
                 << " of a remat.recompute region outside that region";

    llvm::DenseSet<Value> defined(block.args_begin(), block.args_end());
    for (Operation &op : block) {
      for (auto [index, operand] : llvm::enumerate(op.getOperands()))
        if (!defined.contains(operand))
          return op.emitError()
                 << "operand #" << index << " of " << describe(&op)
                 << " is not available in the recompute region: it is "
                    "neither a block argument of the region nor defined "
                    "earlier in it";
      if (&op == block.getTerminator()) {
        if (!isa<YieldOp>(op))
          return op.emitError("recompute region must end with remat.yield");
        if (op.getOperandTypes() != recompute.getResultTypes())
          return op.emitError("yielded types do not match the results of the "
                              "remat.recompute");
        continue;
      }
      if (op.getNumRegions() != 0)
        return op.emitError() << describe(&op)
                              << " cannot be recomputed: it has regions";
      if (getPhase(&op) == Phase::backward)
        return op.emitError() << "backward op " << describe(&op)
                              << " inside a recompute region";
      if (op.hasAttr(RematDialect::getNoRecomputeAttrName()))
        return op.emitError() << describe(&op)
                              << " inside a recompute region is marked "
                                 "remat.no_recompute";
      if (!isMemoryEffectFree(&op))
        return op.emitError() << describe(&op)
                              << " inside a recompute region has side effects";
      defined.insert(op.result_begin(), op.result_end());
    }
    if (block.empty() || !isa<YieldOp>(block.back()))
      return recompute.emitError("recompute region must end with remat.yield");
    return success();
  }

  //===--------------------------------------------------------------------===//
  // 2. Every recomputed op is a clone of an original op.
  //===--------------------------------------------------------------------===//

  /// Returns the original value that `value` stands for: recompute block
  /// arguments and results map to originals, other values to themselves.
  Value original(Value value) const {
    auto it = originalOf.find(value);
    return it == originalOf.end() ? value : it->second;
  }

  /// Whether `candidate` (an original op) is a clone of `op` reading
  /// `operands` (already mapped to originals). The candidate's operands are
  /// mapped to originals too: in a forward-only function an original op may
  /// itself read a recomputed value (placed before it). Cheap: the reason for
  /// a mismatch is only spelled out by `mismatch()` for the diagnostic.
  bool isClone(Operation *op, ArrayRef<Value> operands,
               Operation *candidate) const {
    return candidate->getName() == op->getName() &&
           llvm::equal(operands,
                       llvm::map_range(candidate->getOperands(),
                                       [&](Value v) { return original(v); })) &&
           candidate->getResultTypes() == op->getResultTypes() &&
           getComparedAttrs(candidate) == getComparedAttrs(op);
  }

  /// Why `candidate` (an original op) is not a clone of `op` reading
  /// `operands` (already mapped to originals); empty if it is one.
  std::string mismatch(Operation *op, ArrayRef<Value> operands,
                       Operation *candidate) const {
    if (candidate->getNumOperands() != operands.size())
      return "it has " + std::to_string(candidate->getNumOperands()) +
             " operands, the recomputed op " +
             std::to_string(operands.size());
    for (auto [index, pair] :
         llvm::enumerate(llvm::zip(operands, candidate->getOperands()))) {
      auto [mine, theirs] = pair;
      if (mine != original(theirs))
        return "operand #" + std::to_string(index) +
               " of the recomputed op corresponds to " + printOperand(mine) +
               ", the original reads " + printOperand(theirs);
    }
    if (candidate->getResultTypes() != op->getResultTypes())
      return "the result types differ";
    SmallVector<NamedAttribute> mine = getComparedAttrs(op);
    SmallVector<NamedAttribute> theirs = getComparedAttrs(candidate);
    for (NamedAttribute attr : mine) {
      auto it = llvm::find_if(theirs, [&](NamedAttribute other) {
        return other.getName() == attr.getName();
      });
      if (it == theirs.end())
        return "the original has no attribute '" + attr.getName().str() + "'";
      if (it->getValue() != attr.getValue()) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "attribute '" << attr.getName().strref() << "' differs: "
           << attr.getValue() << " here, " << it->getValue()
           << " in the original";
        return text;
      }
    }
    for (NamedAttribute attr : theirs)
      if (!llvm::is_contained(mine, attr))
        return "the recomputed op lacks attribute '" + attr.getName().str() +
               "'";
    return "";
  }

  LogicalResult checkEquivalence(Block &body) {
    SmallVector<Operation *> originals;
    for (Operation &op : body)
      if (!isa<RecomputeOp, KeepOp>(op) && &op != body.getTerminator())
        originals.push_back(&op);

    for (Operation &top : body) {
      auto recompute = dyn_cast<RecomputeOp>(&top);
      if (!recompute)
        continue;
      Block &block = recompute.getBody().front();
      for (auto [arg, input] :
           llvm::zip(block.getArguments(), recompute.getInputs()))
        originalOf[arg] = original(input);
      for (Operation &op : block.without_terminator()) {
        SmallVector<Value> operands;
        for (Value operand : op.getOperands())
          operands.push_back(original(operand));
        Operation *match = nullptr;
        for (Operation *candidate : originals)
          if (isClone(&op, operands, candidate)) {
            match = candidate;
            break;
          }
        if (!match)
          return reportNoOriginal(&op, operands, originals);
        if (getPhase(match) == Phase::backward) {
          InFlightDiagnostic diag =
              op.emitError() << "recomputed op " << describe(&op)
                             << " is a clone of a backward op";
          diag.attachNote(match->getLoc()) << "original op";
          return diag;
        }
        if (match->hasAttr(RematDialect::getNoRecomputeAttrName())) {
          InFlightDiagnostic diag =
              op.emitError() << "recomputed op " << describe(&op)
                             << " is a clone of an op marked "
                                "remat.no_recompute";
          diag.attachNote(match->getLoc()) << "original op";
          return diag;
        }
        for (auto [mine, theirs] :
             llvm::zip(op.getResults(), match->getResults()))
          originalOf[mine] = theirs;
        cloneOf[&op] = match;
        ++numRecomputed;
      }
      auto yield = cast<YieldOp>(block.getTerminator());
      for (auto [result, yielded] :
           llvm::zip(recompute.getResults(), yield.getValues()))
        originalOf[result] = original(yielded);
    }
    return success();
  }

  /// Reports that `op` is a clone of no original op, with a note on the
  /// original op with the same name that comes closest: the most equal
  /// attributes first, then the most corresponding operands.
  LogicalResult reportNoOriginal(Operation *op, ArrayRef<Value> operands,
                                 ArrayRef<Operation *> originals) {
    Operation *closest = nullptr;
    std::pair<int, int> bestScore(-1, -1);
    SmallVector<NamedAttribute> mine = getComparedAttrs(op);
    for (Operation *candidate : originals) {
      if (candidate->getName() != op->getName() ||
          candidate->getNumOperands() != operands.size())
        continue;
      std::pair<int, int> score(0, 0);
      for (NamedAttribute attr : getComparedAttrs(candidate))
        score.first += llvm::is_contained(mine, attr);
      for (auto [value, theirs] : llvm::zip(operands, candidate->getOperands()))
        score.second += value == original(theirs);
      if (score > bestScore) {
        bestScore = score;
        closest = candidate;
      }
    }
    InFlightDiagnostic diag =
        op->emitError() << "recomputed op " << describe(op)
                        << " is not a clone of any original op";
    if (closest)
      diag.attachNote(closest->getLoc())
          << "closest original: " << mismatch(op, operands, closest);
    return diag;
  }

  /// No value hinted `remat.keep` is recomputed.
  LogicalResult checkKeepHints(Block &body) {
    llvm::DenseMap<Value, KeepOp> kept;
    for (Operation &op : body)
      if (auto keep = dyn_cast<KeepOp>(&op))
        kept.try_emplace(original(keep.getValue()), keep);
    for (auto [op, match] : cloneOf)
      for (Value result : match->getResults())
        if (auto keep = kept.lookup(result)) {
          InFlightDiagnostic diag =
              op->emitError() << "recomputed op " << describe(op)
                              << " recomputes a value hinted remat.keep";
          diag.attachNote(keep.getLoc()) << "keep hint";
          return diag;
        }
    return success();
  }

  //===--------------------------------------------------------------------===//
  // 3. The activation peak.
  //===--------------------------------------------------------------------===//

  /// Returns the value whose memory `value` occupies: recompute block
  /// arguments alias their inputs and recompute results the yielded values.
  Value storage(Value value) const {
    while (true) {
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        auto recompute =
            dyn_cast_or_null<RecomputeOp>(arg.getOwner()->getParentOp());
        if (!recompute)
          return value;
        value = recompute.getInputs()[arg.getArgNumber()];
        continue;
      }
      auto recompute = dyn_cast<RecomputeOp>(value.getDefiningOp());
      if (!recompute)
        return value;
      auto yield = cast<YieldOp>(recompute.getBody().front().getTerminator());
      value = yield.getValues()[cast<OpResult>(value).getResultNumber()];
    }
  }

  LogicalResult computePeak(Block &body) {
    // The executed ops in order: recompute bodies in place of the region op;
    // yields and keep hints move no data and are not steps.
    SmallVector<Operation *> steps;
    for (Operation &op : body) {
      if (auto recompute = dyn_cast<RecomputeOp>(&op)) {
        for (Operation &inner :
             recompute.getBody().front().without_terminator())
          steps.push_back(&inner);
      } else if (!isa<KeepOp>(op)) {
        steps.push_back(&op);
      }
    }

    // Returned values are counted apart, like the arguments (the project's
    // memory accounting convention): they are not activations.
    llvm::DenseSet<Value> returned;
    for (Value operand : body.getTerminator()->getOperands())
      returned.insert(storage(operand));

    // Each stored activation (an op result that is not returned) with its
    // size, first and last step.
    struct Interval {
      Value value;
      int64_t bytes;
      size_t first;
      size_t last;
    };
    SmallVector<Interval> intervals;
    for (auto [index, op] : llvm::enumerate(steps)) {
      for (Value result : op->getResults()) {
        if (returned.contains(result))
          continue;
        std::optional<int64_t> bytes = getTypeBytes(result.getType());
        if (!bytes)
          return op->emitError()
                 << "cannot size result of type " << result.getType() << " of "
                 << describe(op) << " (needs a static size below 2^63 bytes)";
        intervals.push_back({result, *bytes, index, index});
      }
    }
    // A use extends the life of the stored value; the return is the last
    // step, so returned values live to the end.
    for (auto [index, op] : llvm::enumerate(steps)) {
      for (Value operand : op->getOperands()) {
        Value stored = storage(operand);
        for (Interval &interval : intervals)
          if (interval.value == stored)
            interval.last = std::max(interval.last, index);
      }
    }

    for (auto [index, op] : llvm::enumerate(steps)) {
      int64_t live = 0;
      for (const Interval &interval : intervals)
        if (interval.first <= index && index <= interval.last &&
            llvm::AddOverflow(live, interval.bytes, live))
          return op->emitError("live bytes overflow 64 bits");
      if (!peakOp || live > peakBytes) {
        peakBytes = live;
        peakOp = op;
      }
    }
    if (!peakOp)
      peakOp = func;
    return success();
  }

  func::FuncOp func;
  /// Original value of every recompute block argument, result and inner value.
  llvm::DenseMap<Value, Value> originalOf;
  /// The original op of every recomputed op, in verification order.
  llvm::MapVector<Operation *, Operation *> cloneOf;
  int64_t numRecomputed = 0;
  int64_t peakBytes = 0;
  Operation *peakOp = nullptr;
};

struct VerifySchedulePass
    : public remat::impl::RematVerifyScheduleBase<VerifySchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    if (budget < 0) {
      getOperation().emitError("budget must be non-negative, got ") << budget;
      return signalPassFailure();
    }
    bool failedAny = false;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(ScheduleChecker(func).check(budget)))
        failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
