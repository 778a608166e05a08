//===- VerifySchedule.cpp - independent check of a rewritten schedule -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An independent verifier for the output of rematerialization rewrites. It
/// deliberately shares no code with the schedulers, the rewriter or
/// MemoryAnalysis: availability, equivalence of every recomputed op with an
/// original op, the values every op reads (against the original function,
/// when given; ValueNumbering.h) and the activation peak are recomputed here
/// with simple loops and hash maps, linear in the size of the function. The
/// peak adds each op's scratch bytes at its step, read from the ops
/// themselves (`RematCostOpInterface::getWorkspaceBytes`).
///
//===----------------------------------------------------------------------===//

#include "ValueNumbering.h"

#include "remat/Dialect/Remat/IR/RematInterfaces.h"
#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Dialect/Remat/Transforms/VerifySchedule.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
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
using namespace remat::verify;

/// Returns `value` as it is printed as an operand (`%3`, `%arg0`).
static std::string printOperand(Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, OpPrintingFlags());
  return text;
}

// The byte sizes below repeat on purpose what remat::getValueBytes
// (RematInterfaces.h) computes for the planner and MemoryAnalysis: a second
// implementation of the accounting is what lets this pass catch a wrong size
// there (it agrees to the byte on every type both accept; it also sizes
// complex elements, which the planner never sees).

/// Returns the bytes of one element of `type`, or std::nullopt.
static std::optional<int64_t> countElementBytes(Type type) {
  if (isa<IndexType>(type))
    return 8;
  if (type.isIntOrFloat())
    return (static_cast<int64_t>(type.getIntOrFloatBitWidth()) + 7) / 8;
  if (auto complex = dyn_cast<ComplexType>(type)) {
    std::optional<int64_t> part = countElementBytes(complex.getElementType());
    if (part)
      return 2 * *part;
  }
  return std::nullopt;
}

/// Returns the bytes a value of `type` occupies, or std::nullopt when the
/// type has no static size or the size overflows 64 bits.
static std::optional<int64_t> countTypeBytes(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!shaped.hasStaticShape())
      return std::nullopt;
    std::optional<int64_t> bytes = countElementBytes(shaped.getElementType());
    if (!bytes)
      return std::nullopt;
    int64_t total = *bytes;
    for (int64_t dim : shaped.getShape())
      if (llvm::MulOverflow(total, dim, total))
        return std::nullopt;
    return total;
  }
  return countElementBytes(type);
}

//===----------------------------------------------------------------------===//
// Structured ops with payload regions and destination passing (the memory
// accounting of docs/Conventions.md, restated here independently).
//===----------------------------------------------------------------------===//

/// Whether every value defined in the regions of `op` (which has some) and
/// every value their terminators yield is a scalar: a structured op such as
/// linalg.generic, one step of its own.
static bool isPayloadRegionOp(Operation *op) {
  bool scalarOnly = true;
  op->walk([&](Operation *nested) {
    if (nested != op)
      for (Type type : nested->getResultTypes())
        scalarOnly &= !isa<ShapedType>(type);
    // Yielding a tensor out of a region would alias it (control flow).
    if (nested != op && nested->hasTrait<OpTrait::IsTerminator>())
      for (Type type : nested->getOperandTypes())
        scalarOnly &= !isa<ShapedType>(type);
    for (Region &region : nested->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          scalarOnly &= !isa<ShapedType>(type);
  });
  return op->getNumRegions() != 0 && scalarOnly;
}

/// The values `op` reads: its operands, then the values its regions use that
/// are defined outside `op`.
static SmallVector<Value> getReadValues(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (Value value : nested->getOperands()) {
      Region *region = value.getParentRegion();
      if (!op->isAncestor(region->getParentOp()) &&
          !llvm::is_contained(values, value))
        values.push_back(value);
    }
  });
  return values;
}

/// Returns the bytes a result occupies in memory: none for tensor.empty
/// (bufferization allocates for the op that writes it) and for scalars.
static std::optional<int64_t> getResultBytes(Value result) {
  if (!isa<ShapedType>(result.getType()) ||
      isa_and_nonnull<tensor::EmptyOp>(result.getDefiningOp()))
    return 0;
  return countTypeBytes(result.getType());
}

/// If bufferization writes `result` into the buffer of a destination-passing
/// init (the init has no other use and is the only result of an op that is
/// not a constant), returns that init.
static Value getWrittenInit(Value result) {
  auto opResult = dyn_cast<OpResult>(result);
  if (!opResult)
    return nullptr;
  auto dps = dyn_cast<DestinationStyleOpInterface>(opResult.getOwner());
  if (!dps || !dps.hasPureTensorSemantics())
    return nullptr;
  Value init = dps.getDpsInitOperand(opResult.getResultNumber())->get();
  Operation *def = init.getDefiningOp();
  if (!def || !init.hasOneUse() || def->getNumResults() != 1 ||
      def->hasTrait<OpTrait::ConstantLike>() ||
      init.getType() != result.getType())
    return nullptr;
  return init;
}


namespace {

/// Checks one function. Every check stops at the first problem, which is
/// emitted as an error; `check()` then returns failure.
class ScheduleChecker {
public:
  ScheduleChecker(func::FuncOp func, func::FuncOp originalFunc)
      : func(func), originalFunc(originalFunc) {}

  LogicalResult check(int64_t budget, ScheduleStats *stats) {
    // Diagnostics on the function use its location only: printing the
    // function with the diagnostic would dump its whole body.
    if (failed(checkShape(func, "")))
      return failure();
    if (originalFunc && failed(checkShape(originalFunc, "the original ")))
      return failure();
    Block &body = func.getBody().front();
    if (failed(checkAvailability(body)))
      return failure();
    // Availability holds, so every operand has been numbered.
    FunctionNumbering terms(func, table);
    if (originalFunc) {
      FunctionNumbering originalTerms(originalFunc, table);
      if (failed(validateTranslation(originalFunc, originalTerms, func, terms)))
        return failure();
    }
    if (failed(checkEquivalence(body, terms)) || failed(checkKeepHints(body)) ||
        failed(computePeak(body)))
      return failure();
    if (budget > 0 && peakBytes > budget) {
      InFlightDiagnostic diag = peakOp->emitError()
                                << "schedule exceeds the memory budget: peak "
                                << peakBytes << " activation bytes > budget "
                                << budget << " bytes in @" << func.getSymName()
                                << ", reached at " << describeOp(peakOp);
      return diag;
    }
    if (stats) {
      stats->peakBytes = peakBytes;
      stats->recomputedOps = numRecomputed;
      stats->consumersChecked = originalFunc ? terms.getSteps().size() : 0;
    }
    InFlightDiagnostic remark = mlir::emitRemark(func.getLoc())
                                << "schedule verified: peak " << peakBytes
                                << " bytes, " << numRecomputed
                                << " recomputed ops; ";
    if (originalFunc)
      remark << "every value its " << terms.getSteps().size()
             << " ops outside recompute regions read (the return included) "
                "equals the original's";
    else
      remark << "the values its ops read were not compared with the "
                "original (no original given)";
    return success();
  }

private:
  /// Both functions need one block ending in func.return; `which` is ""
  /// or "the original ".
  static LogicalResult checkShape(func::FuncOp f, StringRef which) {
    if (!f.getBody().hasOneBlock())
      return emitError(f.getLoc())
             << "schedule verification needs " << which << "@" << f.getSymName()
             << " to have a body of exactly one block";
    Block &body = f.getBody().front();
    if (body.empty() || !isa<func::ReturnOp>(body.back()))
      return emitError(f.getLoc())
             << "schedule verification needs the body of " << which << "@"
             << f.getSymName() << " to end with func.return";
    return success();
  }

  //===--------------------------------------------------------------------===//
  // 1. Availability and what may be recomputed.
  //===--------------------------------------------------------------------===//

  LogicalResult checkAvailability(Block &body) {
    // Values available so far, in execution order.
    llvm::DenseSet<Value> defined(body.args_begin(), body.args_end());
    for (Operation &op : body) {
      for (auto [index, operand] : llvm::enumerate(getReadValues(&op)))
        if (!defined.contains(operand))
          return op.emitError()
                 << "operand #" << index << " of " << describeOp(&op)
                 << " is not available: it is not a function argument or a "
                    "value defined earlier in the function body";
      if (auto recompute = dyn_cast<RecomputeOp>(&op)) {
        if (failed(checkRegion(recompute)))
          return failure();
      } else if (op.getNumRegions() != 0 && !isPayloadRegionOp(&op)) {
        return op.emitError()
               << "schedule verification does not support " << describeOp(&op)
               << ": only remat.recompute and structured ops with scalar "
                  "payload regions may hold a region";
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
                 << describeOp(user) << " uses block argument #"
                 << arg.getArgNumber()
                 << " of a remat.recompute region outside that region";

    llvm::DenseSet<Value> defined(block.args_begin(), block.args_end());
    for (Operation &op : block) {
      for (auto [index, operand] : llvm::enumerate(op.getOperands()))
        if (!defined.contains(operand))
          return op.emitError()
                 << "operand #" << index << " of " << describeOp(&op)
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
      if (op.getNumRegions() != 0 && !isPayloadRegionOp(&op))
        return op.emitError() << describeOp(&op)
                              << " cannot be recomputed: it has regions that "
                                 "are not a scalar payload";
      if (getPhase(&op) == Phase::backward)
        return op.emitError() << "backward op " << describeOp(&op)
                              << " inside a recompute region";
      if (op.hasAttr(RematDialect::getNoRecomputeAttrName()))
        return op.emitError() << describeOp(&op)
                              << " inside a recompute region is marked "
                                 "remat.no_recompute";
      if (!isMemoryEffectFree(&op))
        return op.emitError() << describeOp(&op)
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
  /// Only for diagnostics: equivalence itself is decided on terms.
  Value original(Value value) const {
    auto it = originalOf.find(value);
    return it == originalOf.end() ? value : it->second;
  }

  /// Why `candidate` (an original op) is not a clone of `op` reading
  /// `operands` (already mapped to originals); empty if it is one.
  std::string mismatch(Operation *op, ArrayRef<Value> operands,
                       Operation *candidate) const {
    if (candidate->getNumOperands() != operands.size())
      return "it has " + std::to_string(candidate->getNumOperands()) +
             " operands, the recomputed op " + std::to_string(operands.size());
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
    SmallVector<NamedAttribute> mine = getSemanticAttrs(op);
    SmallVector<NamedAttribute> theirs = getSemanticAttrs(candidate);
    for (NamedAttribute attr : mine) {
      auto it = llvm::find_if(theirs, [&](NamedAttribute other) {
        return other.getName() == attr.getName();
      });
      if (it == theirs.end())
        return "the original has no attribute '" + attr.getName().str() + "'";
      if (it->getValue() != attr.getValue()) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "attribute '" << attr.getName().strref()
           << "' differs: " << attr.getValue() << " here, " << it->getValue()
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

  /// A recomputed op is a clone of an original op (a top-level op of the
  /// function) when both have the same term (ValueNumbering.h): same name,
  /// result types and attributes (but for remat.phase and
  /// remat.no_recompute), and operands that compute the same values. One
  /// hash lookup per recomputed op.
  LogicalResult checkEquivalence(Block &body, const FunctionNumbering &terms) {
    llvm::DenseMap<TermId, Operation *> originalByTerm;
    for (Operation *op : terms.getSteps())
      if (!isa<KeepOp>(op) && op != body.getTerminator())
        originalByTerm.try_emplace(terms.lookupOp(op), op);

    for (Operation &top : body) {
      auto recompute = dyn_cast<RecomputeOp>(&top);
      if (!recompute)
        continue;
      Block &block = recompute.getBody().front();
      for (auto [arg, input] :
           llvm::zip(block.getArguments(), recompute.getInputs()))
        originalOf[arg] = original(input);
      for (Operation &op : block.without_terminator()) {
        Operation *match = originalByTerm.lookup(terms.lookupOp(&op));
        if (!match)
          return reportNoOriginal(&op, body);
        if (getPhase(match) == Phase::backward) {
          InFlightDiagnostic diag = op.emitError()
                                    << "recomputed op " << describeOp(&op)
                                    << " is a clone of a backward op";
          diag.attachNote(match->getLoc()) << "original op";
          return diag;
        }
        if (match->hasAttr(RematDialect::getNoRecomputeAttrName())) {
          InFlightDiagnostic diag = op.emitError()
                                    << "recomputed op " << describeOp(&op)
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
  /// attributes first, then the most corresponding operands. Only runs on
  /// failure, so a scan over the body is fine.
  LogicalResult reportNoOriginal(Operation *op, Block &body) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(original(operand));
    Operation *closest = nullptr;
    std::pair<int, int> bestScore(-1, -1);
    SmallVector<NamedAttribute> mine = getSemanticAttrs(op);
    for (Operation &candidate : body) {
      if (isa<RecomputeOp, KeepOp>(candidate) ||
          &candidate == body.getTerminator() ||
          candidate.getName() != op->getName() ||
          candidate.getNumOperands() != operands.size())
        continue;
      std::pair<int, int> score(0, 0);
      for (NamedAttribute attr : getSemanticAttrs(&candidate))
        score.first += llvm::is_contained(mine, attr);
      for (auto [value, theirs] : llvm::zip(operands, candidate.getOperands()))
        score.second += value == original(theirs);
      if (score > bestScore) {
        bestScore = score;
        closest = &candidate;
      }
    }
    InFlightDiagnostic diag = op->emitError()
                              << "recomputed op " << describeOp(op)
                              << " is not a clone of any original op";
    if (closest) {
      std::string why = mismatch(op, operands, closest);
      // Same name, attributes, types and corresponding operands, yet a
      // different term: an operand's original is itself a different
      // computation (e.g. an op with side effects, which is never equal to
      // a recomputation).
      if (why.empty())
        why = "its operands correspond, but the original has side effects "
              "or reads values that differ";
      diag.attachNote(closest->getLoc()) << "closest original: " << why;
    }
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
          InFlightDiagnostic diag = op->emitError()
                                    << "recomputed op " << describeOp(op)
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
  /// Values are visited in order, so one lookup of the alias suffices.
  Value storage(Value value) const {
    // Chains (a recompute result yielding a value written into an init)
    // resolve to their end.
    for (auto it = storageOf.find(value);
         it != storageOf.end() && it->second != value;
         it = storageOf.find(value))
      value = it->second;
    return value;
  }

  LogicalResult computePeak(Block &body) {
    // The executed ops in order: recompute bodies in place of the region op;
    // yields and keep hints move no data and are not steps.
    SmallVector<Operation *> steps;
    for (Operation &op : body) {
      if (auto recompute = dyn_cast<RecomputeOp>(&op)) {
        Block &block = recompute.getBody().front();
        for (auto [arg, input] :
             llvm::zip(block.getArguments(), recompute.getInputs()))
          storageOf[arg] = storage(input);
        for (Operation &inner : block.without_terminator())
          steps.push_back(&inner);
        for (auto [result, yielded] : llvm::zip(
                 recompute.getResults(), block.getTerminator()->getOperands()))
          storageOf[result] = storage(yielded);
      } else if (!isa<KeepOp>(op)) {
        steps.push_back(&op);
      }
    }
    // A result written into a destination-passing init's buffer is stored
    // there (getWrittenInit).
    for (Operation *op : steps)
      for (Value result : op->getResults())
        if (Value init = getWrittenInit(result))
          storageOf[result] = storage(init);

    // Returned values are counted apart, like the arguments (the project's
    // memory accounting convention): they are not activations.
    llvm::DenseSet<Value> returned;
    for (Value operand : body.getTerminator()->getOperands())
      returned.insert(storage(operand));

    // Each stored activation (an op result that is not returned) with its
    // size, first and last step.
    struct Interval {
      int64_t bytes;
      size_t first;
      size_t last;
    };
    SmallVector<Interval> intervals;
    llvm::DenseMap<Value, size_t> intervalOf;
    for (auto [index, op] : llvm::enumerate(steps)) {
      for (Value result : op->getResults()) {
        Value stored = storage(result);
        if (returned.contains(stored))
          continue;
        std::optional<int64_t> bytes = getResultBytes(result);
        if (!bytes)
          return op->emitError()
                 << "cannot size result of type " << result.getType() << " of "
                 << describeOp(op) << " (needs a static size below 2^63 bytes)";
        // A result written into an init's buffer makes that buffer as large
        // as the result and keeps it live.
        auto it = intervalOf.find(stored);
        if (it != intervalOf.end()) {
          Interval &interval = intervals[it->second];
          interval.bytes = std::max(interval.bytes, *bytes);
          interval.last = std::max(interval.last, index);
          continue;
        }
        intervalOf[stored] = intervals.size();
        intervals.push_back({*bytes, index, index});
      }
    }
    // A use extends the life of the stored value; the return is the last
    // step, so returned values live to the end.
    for (auto [index, op] : llvm::enumerate(steps))
      for (Value operand : getReadValues(op)) {
        auto it = intervalOf.find(storage(operand));
        if (it != intervalOf.end())
          intervals[it->second].last =
              std::max(intervals[it->second].last, index);
      }

    // Sweep: the live bytes at step i are those of the intervals with
    // first <= i <= last. Every partial sum below is at most the live bytes
    // of one step, so checking each addition catches an overflow at the
    // first step whose live bytes overflow.
    std::vector<SmallVector<int64_t, 2>> startAt(steps.size()),
        endAt(steps.size());
    for (const Interval &interval : intervals) {
      startAt[interval.first].push_back(interval.bytes);
      endAt[interval.last].push_back(interval.bytes);
    }
    int64_t live = 0;
    for (auto [index, op] : llvm::enumerate(steps)) {
      for (int64_t bytes : startAt[index])
        if (llvm::AddOverflow(live, bytes, live))
          return op->emitError("live bytes overflow 64 bits");
      // The op's own scratch (padded copies, accumulators of its lowering)
      // is live during its step only.
      FailureOr<int64_t> scratch = int64_t(0);
      if (auto cost = dyn_cast<RematCostOpInterface>(op))
        scratch = cost.getWorkspaceBytes();
      int64_t during;
      if (failed(scratch) || llvm::AddOverflow(live, *scratch, during))
        return op->emitError("live bytes overflow 64 bits");
      if (!peakOp || during > peakBytes) {
        peakBytes = during;
        peakOp = op;
      }
      for (int64_t bytes : endAt[index])
        live -= bytes;
    }
    if (!peakOp)
      peakOp = func;
    return success();
  }

  func::FuncOp func;
  /// The function before the rewrite, or null.
  func::FuncOp originalFunc;
  /// Terms of both functions (ValueNumbering.h).
  TermTable table;
  /// Original value of every recompute block argument, result and inner value.
  llvm::DenseMap<Value, Value> originalOf;
  /// The storage (see `storage()`) of every recompute block argument and
  /// result.
  llvm::DenseMap<Value, Value> storageOf;
  /// The original op of every recomputed op, in verification order.
  llvm::MapVector<Operation *, Operation *> cloneOf;
  int64_t numRecomputed = 0;
  int64_t peakBytes = 0;
  Operation *peakOp = nullptr;
};

struct VerifySchedulePass
    : public remat::impl::RematVerifyScheduleBase<VerifySchedulePass> {
  using Base::Base;

  /// The module of `original=`, parsed once by `initialize` and shared by
  /// the copies of the pass that run on functions in parallel; null without
  /// `original=` or when the file cannot be read.
  std::shared_ptr<OwningOpRef<ModuleOp>> originalModule;

  LogicalResult initialize(MLIRContext *context) override {
    originalModule.reset();
    if (original.empty())
      return success();
    // Parsed into this context so that its types and attributes compare by
    // identity with the rewritten ones. A file that cannot be read is
    // reported at each function (initialize has no location to report at).
    ParserConfig config(context);
    auto parsed = std::make_shared<OwningOpRef<ModuleOp>>(
        parseSourceFile<ModuleOp>(original, config));
    if (*parsed)
      originalModule = std::move(parsed);
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    markAllAnalysesPreserved();
    if (budget < 0) {
      emitError(func.getLoc(), "budget must be non-negative, got ") << budget;
      return signalPassFailure();
    }
    if (func.isExternal())
      return;
    func::FuncOp originalFunc;
    if (!original.empty()) {
      if (!originalModule) {
        emitError(func.getLoc())
            << "cannot read the original step from '" << original << "'";
        return signalPassFailure();
      }
      originalFunc =
          (*originalModule)->lookupSymbol<func::FuncOp>(func.getSymNameAttr());
      if (!originalFunc || originalFunc.isExternal()) {
        emitError(func.getLoc())
            << "the original step '" << original << "' has no function @"
            << func.getSymName() << " with a body to compare with";
        return signalPassFailure();
      }
    }
    ScheduleStats stats;
    if (failed(verifySchedule(func, originalFunc, budget, &stats)))
      return signalPassFailure();
    ++numVerified;
    numConsumersChecked += stats.consumersChecked;
    numRecomputedChecked += stats.recomputedOps;
  }
};

} // namespace

LogicalResult remat::verifySchedule(func::FuncOp rewritten,
                                    func::FuncOp original, int64_t budget,
                                    ScheduleStats *stats) {
  return ScheduleChecker(rewritten, original).check(budget, stats);
}
