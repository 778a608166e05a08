//===- TrainingGraph.cpp - IR to scheduling graph ---------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/TrainingGraph.h"
#include "remat/Dialect/Remat/IR/Diagnostics.h"

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace remat;

bool remat::isTrainingStep(func::FuncOp func) {
  if (func.isExternal())
    return false;
  return func
      .walk([](Operation *op) {
        return getPhase(op) == Phase::backward ? WalkResult::interrupt()
                                               : WalkResult::advance();
      })
      .wasInterrupted();
}

bool remat::isForwardOnlyGraph(func::FuncOp func) {
  return !func.isExternal() &&
         func->hasAttr(RematDialect::getForwardOnlyAttrName()) &&
         !isTrainingStep(func);
}

/// True when recomputing `op` would not reproduce it or is not allowed: a
/// hint, side effects (of the op or of an op in its regions), or regions that
/// are not a scalar payload.
static bool mustNotRecompute(Operation *op) {
  if (op->hasAttr(RematDialect::getNoRecomputeAttrName()) ||
      !isMemoryEffectFree(op))
    return true;
  if (op->getNumRegions() == 0)
    return false;
  if (!hasScalarPayloadRegions(op))
    return true;
  return op
      ->walk([](Operation *nested) {
        return isMemoryEffectFree(nested) ? WalkResult::advance()
                                          : WalkResult::interrupt();
      })
      .wasInterrupted();
}

/// The consumer that `op` only produces a destination-passing init for (its
/// unit), or null.
static Operation *getInitConsumer(Operation *op) {
  if (op->getNumResults() != 1)
    return nullptr;
  OpResult tied = getInPlaceResult(op->getResult(0));
  if (!tied || tied.getOwner()->getBlock() != op->getBlock())
    return nullptr;
  return tied.getOwner();
}

FailureOr<TrainingGraph>
TrainingGraph::build(func::FuncOp func,
                     const llvm::DenseSet<Operation *> *backwardOps) {
  TrainingGraph tg;
  if (!func.getBody().hasOneBlock())
    return emitCompactError(func,
                            "rematerialization needs a single-block function");
  Block &block = func.getBody().front();

  for (BlockArgument arg : block.getArguments()) {
    std::optional<int64_t> bytes = getValueBytes(arg.getType());
    if (!bytes)
      return emitCompactError(func, "argument #")
             << arg.getArgNumber() << " of type " << arg.getType()
             << " has no static size";
    if (llvm::AddOverflow(tg.graph.inputBytes, *bytes, tg.graph.inputBytes))
      return emitCompactError(func, "the arguments' bytes overflow 64 bits");
  }
  auto isBackward = [&](Operation *op) {
    return backwardOps ? backwardOps->contains(op)
                       : getPhase(op) == Phase::backward;
  };

  // The ops that only produce an init of a later op join that op's unit.
  DenseMap<Operation *, SmallVector<Operation *, 1>> absorbed;
  for (Operation &op : block)
    if (Operation *consumer = getInitConsumer(&op))
      absorbed[consumer].push_back(&op);
  DenseSet<Operation *> isAbsorbed;
  for (auto &entry : absorbed)
    isAbsorbed.insert(entry.second.begin(), entry.second.end());

  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>() || isa<KeepOp>(op) ||
        isAbsorbed.contains(&op))
      continue;
    if (isa<RecomputeOp>(op))
      return op.emitError("the function is already rematerialized");
    // The unit: the init producers (transitively), then the op.
    SmallVector<Operation *, 1> unit;
    SmallVector<Operation *> worklist{&op};
    while (!worklist.empty()) {
      Operation *next = worklist.pop_back_val();
      unit.push_back(next);
      auto it = absorbed.find(next);
      if (it != absorbed.end())
        llvm::append_range(worklist, it->second);
    }
    llvm::sort(
        unit, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    DenseSet<Operation *> inUnit(unit.begin(), unit.end());

    sched::Node node;
    if (auto loc = dyn_cast<NameLoc>(op.getLoc()))
      node.name = loc.getName().str();
    else
      node.name = op.getName().getStringRef().str();
    int64_t bytes = 0;
    for (OpResult res : op.getResults()) {
      std::optional<int64_t> b = getActivationBytes(res);
      if (!b || llvm::AddOverflow(bytes, *b, bytes))
        return op.emitError("result type ")
               << res.getType()
               << " has no static size or its size overflows 64 bits";
    }
    node.bytes = bytes;
    node.cost = 0;
    for (Operation *member : unit) {
      if (member->getNumRegions() != 0 && !hasScalarPayloadRegions(member))
        return member->emitError("rematerialization does not support ")
               << member->getName()
               << ": its regions hold tensors (only structured ops with "
                  "scalar payloads, such as linalg.generic, are schedulable)";
      if (auto cost = dyn_cast<RematCostOpInterface>(member)) {
        node.cost += cost.getComputeCost();
        // The unit's ops run one after the other: the largest scratch.
        FailureOr<int64_t> scratch = cost.getWorkspaceBytes();
        if (failed(scratch))
          return member->emitError("workspace bytes overflow 64 bits");
        node.workspace = std::max(node.workspace, *scratch);
      } else {
        node.cost += getDefaultComputeCost(member);
      }
      node.backward |= isBackward(member);
      node.noRecompute |= mustNotRecompute(member);
    }
    // Constants are resident like arguments: recomputing one saves nothing,
    // and a constant read by every layer (an attention scale) must not tie
    // the whole forward pass into one segment.
    node.keep = op.hasTrait<OpTrait::ConstantLike>();
    llvm::SetVector<unsigned> operands;
    Operation *badUser = nullptr;
    Operation *badDef = nullptr;
    bool outside = false;
    for (Operation *member : unit)
      forEachUsedValue(member, [&](Value v) {
        Operation *def = v.getDefiningOp();
        if (!def || inUnit.contains(def) || outside || badDef)
          return;
        auto it = tg.nodeOf.find(def);
        if (it == tg.nodeOf.end()) {
          outside = true;
          badUser = member;
          return;
        }
        if (!node.backward && tg.graph.nodes[it->second].backward) {
          badDef = def;
          badUser = member;
          return;
        }
        operands.insert(it->second);
      });
    if (outside)
      return badUser->emitError("operand defined outside the function body");
    if (badDef)
      return badUser->emitError("forward op reads the backward value of '")
             << badDef->getName() << "'; backward ops must come last";
    node.operands.assign(operands.begin(), operands.end());
    int64_t returned = 0;
    for (OpResult res : op.getResults()) {
      bool isReturned = false;
      for (Operation *user : res.getUsers()) {
        node.keep |= isa<KeepOp>(user);
        isReturned |= user->hasTrait<OpTrait::IsTerminator>();
      }
      if (isReturned)
        returned += *getActivationBytes(res);
    }
    node.output = returned > 0;
    if (node.output && returned != node.bytes)
      node.outputBytes = returned;
    unsigned index = tg.graph.addNode(std::move(node));
    for (Operation *member : unit)
      tg.nodeOf[member] = index;
    tg.ops.push_back(&op);
    tg.units.push_back(std::move(unit));
  }
  if (std::optional<std::string> problem = tg.graph.validate())
    return emitCompactError(func, "malformed training graph: ") << *problem;
  return tg;
}

void remat::reorderOps(TrainingGraph &tg, ArrayRef<unsigned> order) {
  if (tg.ops.empty())
    return;
  Block *block = tg.ops.front()->getBlock();
  Operation *term = block->getTerminator();
  for (unsigned node : order)
    for (Operation *member : tg.units[node])
      member->moveBefore(term);
  for (KeepOp keep : llvm::make_early_inc_range(block->getOps<KeepOp>()))
    if (Operation *def = keep.getValue().getDefiningOp())
      keep->moveAfter(def);
}

namespace {
/// The rewrite of `applySchedule`, in three phases: region building (one
/// `remat.recompute` per non-empty list), use rewiring (every use reads the
/// latest instance of a value) and dead-result pruning (`pruneDeadResults`).
class ScheduleRewriter {
public:
  explicit ScheduleRewriter(TrainingGraph &tg);

  /// Phase 1: clones the units of `batch` into a `remat.recompute` inserted
  /// before the unit of node `k`; its results become the latest instances.
  /// Returns the number of units cloned.
  unsigned buildRegion(unsigned k, ArrayRef<unsigned> batch);
  /// Phase 2: points the operands of node `k`'s unit, and the values its
  /// regions read, at the latest instances (values without instances
  /// resolve to themselves).
  void rewireUses(unsigned k);
  /// Phase 2, at the end: the terminator reads the latest instances too.
  void rewireUses(Operation *terminator);

private:
  /// The latest instance of `v` (`v` itself for a function argument).
  Value latestOf(Value v) const {
    auto it = instanceOf.find(v);
    if (it == instanceOf.end())
      return v;
    return current[it->second.first][it->second.second];
  }
  /// True for values defined inside node `node`'s unit other than its
  /// results: they are read only inside the unit and resolve to themselves.
  bool isInternal(Value v, unsigned node) const {
    Operation *def = v.getDefiningOp();
    return def && def != tg.ops[node] &&
           llvm::is_contained(tg.units[node], def);
  }

  TrainingGraph &tg;
  /// The most recent instance of every node's results. Instances created by
  /// earlier recompute ops replace the original results for later users.
  std::vector<SmallVector<Value>> current;
  /// The (node, result number) of every instance: original results and the
  /// results of the recompute ops created. In a forward-only graph an op may
  /// be recomputed after its own operands were redirected to recomputed
  /// instances (a region placed before its original execution), so operands
  /// are resolved through this map, not through their defining op.
  DenseMap<Value, std::pair<unsigned, unsigned>> instanceOf;
};
} // namespace

ScheduleRewriter::ScheduleRewriter(TrainingGraph &tg)
    : tg(tg), current(tg.graph.size()) {
  for (unsigned i = 0, n = tg.graph.size(); i < n; ++i) {
    current[i].assign(tg.ops[i]->result_begin(), tg.ops[i]->result_end());
    for (OpResult res : tg.ops[i]->getResults())
      instanceOf[res] = {i, res.getResultNumber()};
  }
}

unsigned ScheduleRewriter::buildRegion(unsigned k, ArrayRef<unsigned> batch) {
  Operation *anchor = tg.units[k].front();
  // Inputs of the region: instances from outside the batch, in order of
  // first use (operands and values the units' regions read); results: every
  // recomputed value (unused ones are pruned later, so that nothing is kept
  // alive by a dangling result).
  llvm::SetVector<Value> inputs;
  DenseMap<unsigned, unsigned> posInBatch;
  for (auto [pos, node] : llvm::enumerate(batch)) {
    for (Operation *member : tg.units[node])
      forEachUsedValue(member, [&](Value v) {
        if (isInternal(v, node))
          return;
        auto it = instanceOf.find(v);
        if (it == instanceOf.end() || !posInBatch.count(it->second.first))
          inputs.insert(latestOf(v));
      });
    posInBatch[node] = pos;
  }
  OpBuilder b(anchor);
  SmallVector<Type> resultTypes;
  for (unsigned node : batch)
    llvm::append_range(resultTypes, tg.ops[node]->getResultTypes());
  auto region = RecomputeOp::create(b, anchor->getLoc(), resultTypes,
                                    inputs.getArrayRef());
  Block *body = b.createBlock(&region.getBody());
  IRMapping map;
  for (Value in : inputs)
    map.map(in, body->addArgument(in.getType(), in.getLoc()));
  SmallVector<Value> yielded;
  for (unsigned node : batch) {
    // Clone the unit whole; each value read from outside maps to the
    // instance the recomputation reads, internal values to their clones.
    IRMapping local;
    Operation *clone = nullptr;
    for (Operation *orig : tg.units[node]) {
      forEachUsedValue(orig, [&](Value v) {
        if (!isInternal(v, node))
          local.map(v, map.lookup(latestOf(v)));
      });
      clone = b.clone(*orig, local);
      clone->removeAttr(RematDialect::getPhaseAttrName());
    }
    for (Value cloneRes : clone->getResults()) {
      map.map(cloneRes, cloneRes);
      yielded.push_back(cloneRes);
    }
    // Later ops of this batch read this clone.
    for (auto [i, res] : llvm::enumerate(clone->getResults()))
      current[node][i] = res;
  }
  YieldOp::create(b, anchor->getLoc(), yielded);
  // Outside the region, the latest instances are the region's results.
  unsigned r = 0;
  for (unsigned node : batch)
    for (unsigned i = 0, e = tg.ops[node]->getNumResults(); i < e; ++i) {
      current[node][i] = region.getResult(r);
      instanceOf[region.getResult(r++)] = {node, i};
    }
  return batch.size();
}

void ScheduleRewriter::rewireUses(unsigned k) {
  for (Operation *member : tg.units[k])
    member->walk([&](Operation *nested) {
      for (OpOperand &use : nested->getOpOperands())
        use.set(latestOf(use.get()));
    });
}

void ScheduleRewriter::rewireUses(Operation *terminator) {
  for (OpOperand &use : terminator->getOpOperands())
    use.set(latestOf(use.get()));
}

/// Phase 3: replaces every `remat.recompute` of `block` that has results
/// nobody reads by one without them, so that yields keep nothing alive.
static void pruneDeadResults(Block &block) {
  // Collected first: each pruned region is replaced by a new op.
  for (RecomputeOp region : llvm::to_vector(block.getOps<RecomputeOp>())) {
    bool anyDead = llvm::any_of(region.getResults(),
                                [](OpResult r) { return r.use_empty(); });
    if (!anyDead)
      continue;
    auto yield = cast<YieldOp>(region.getBody().front().getTerminator());
    SmallVector<Value> keptVals;
    SmallVector<Type> keptTypes;
    SmallVector<Value> oldResults;
    for (OpResult res : region.getResults())
      if (!res.use_empty()) {
        keptVals.push_back(yield.getValues()[res.getResultNumber()]);
        keptTypes.push_back(res.getType());
        oldResults.push_back(res);
      }
    OpBuilder b(region);
    auto fresh =
        RecomputeOp::create(b, region.getLoc(), keptTypes, region.getInputs());
    fresh.getBody().takeBody(region.getBody());
    Block &body = fresh.getBody().front();
    b.setInsertionPoint(body.getTerminator());
    YieldOp::create(b, yield.getLoc(), keptVals);
    yield.erase();
    for (auto [oldRes, newRes] : llvm::zip(oldResults, fresh.getResults()))
      oldRes.replaceAllUsesWith(newRes);
    region.erase();
  }
}

FailureOr<unsigned> remat::applySchedule(TrainingGraph &tg,
                                         const sched::Schedule &schedule) {
  unsigned n = tg.graph.size();
  if (schedule.recomputeBefore.size() != n)
    return tg.ops.empty() ? failure()
                          : (tg.ops.front()->emitError(
                                 "schedule does not match the graph"),
                             failure());
  if (tg.ops.empty())
    return 0u;

  ScheduleRewriter rewriter(tg);
  unsigned recomputed = 0;
  for (unsigned k = 0; k < n; ++k) {
    if (!schedule.recomputeBefore[k].empty())
      recomputed += rewriter.buildRegion(k, schedule.recomputeBefore[k]);
    rewriter.rewireUses(k);
  }
  Block &block = *tg.ops.back()->getBlock();
  rewriter.rewireUses(block.getTerminator());
  pruneDeadResults(block);
  return recomputed;
}

/// True for a rank-0 float tensor or a float scalar.
static bool isScalarFloat(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getRank() == 0 && isa<FloatType>(tensor.getElementType());
  return isa<FloatType>(type);
}

/// The top-level op of `block` that defines `v` (or holds the op that does),
/// or null for a value defined outside `block`.
static Operation *getTopLevelDef(Block &block, Value v) {
  Operation *def = v.getDefiningOp();
  if (!def) {
    Block *owner = cast<BlockArgument>(v).getOwner();
    if (owner == &block)
      return nullptr;
    def = owner->getParentOp();
  }
  return def ? block.findAncestorOpInBlock(*def) : nullptr;
}

FailureOr<PhaseSplit> remat::inferPhaseSplit(func::FuncOp func,
                                             int64_t lossResult,
                                             std::string &why) {
  if (func.isExternal() || !func.getBody().hasOneBlock()) {
    why = "it has no single-block body";
    return failure();
  }
  Block &block = func.getBody().front();
  Operation *term = block.getTerminator();
  unsigned numResults = term->getNumOperands();
  if (lossResult >= 0 && lossResult >= numResults) {
    why = "loss-result=" + std::to_string(lossResult) + " but it returns " +
          std::to_string(numResults) + " values";
    return failure();
  }
  if (numResults < 2) {
    why = "it returns " + std::to_string(numResults) +
          " value(s), and a training step returns its loss and at least one "
          "gradient";
    return failure();
  }
  PhaseSplit split;
  if (lossResult >= 0) {
    split.lossResult = lossResult;
  } else {
    auto it = llvm::find_if(term->getOperandTypes(), isScalarFloat);
    if (it == term->getOperandTypes().end()) {
      why = "no returned value is a scalar float (the loss); name it with "
            "loss-result=";
      return failure();
    }
    split.lossResult = std::distance(term->getOperandTypes().begin(), it);
  }
  Value loss = term->getOperand(split.lossResult);
  split.lossOp = loss.getDefiningOp();
  if (!split.lossOp || split.lossOp->getBlock() != &block) {
    why = "the loss (result #" + std::to_string(split.lossResult) +
          ") is not computed by an op of the body";
    return failure();
  }
  // The forward: the loss op, the ops computing the next state, and
  // everything they depend on.
  DenseSet<Operation *> forward{split.lossOp};
  SmallVector<Operation *> worklist{split.lossOp};
  for (unsigned i = 0; i < numResults; ++i) {
    if (!func.getResultAttr(i, RematDialect::getStateAttrName()))
      continue;
    Operation *def = getTopLevelDef(block, term->getOperand(i));
    if (def && forward.insert(def).second)
      worklist.push_back(def);
  }
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    forEachUsedValue(op, [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == &block && forward.insert(def).second)
        worklist.push_back(def);
    });
  }
  for (Operation &op : block.without_terminator()) {
    if (isa<KeepOp>(op))
      continue;
    // Constants are resident like arguments, whichever phase reads them.
    if (forward.contains(&op) || op.hasTrait<OpTrait::ConstantLike>())
      ++split.numForward;
    else
      split.backward.insert(&op);
  }
  if (split.backward.empty()) {
    why = "every op computes the loss (result #" +
          std::to_string(split.lossResult) + "): there is no backward";
    return failure();
  }
  return split;
}

/// True if `loc` is, or fuses, the name location `name`.
static bool hasLocName(Location loc, StringRef name) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName() == name || hasLocName(named.getChildLoc(), name);
  if (auto fused = dyn_cast<FusedLoc>(loc))
    return llvm::any_of(fused.getLocations(),
                        [&](Location l) { return hasLocName(l, name); });
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return hasLocName(callSite.getCallee(), name);
  return false;
}

FailureOr<SmallVector<Operation *>> remat::findGradSeeds(func::FuncOp func,
                                                         StringRef name) {
  SmallVector<Operation *> seeds;
  if (func.isExternal())
    return seeds;
  StringRef attrName = RematDialect::getGradSeedAttrName();
  Operation *nested = nullptr;
  func.walk([&](Operation *op) {
    if (op == func.getOperation())
      return;
    bool marked = op->hasAttr(attrName);
    bool named = !name.empty() && hasLocName(op->getLoc(), name);
    if (!marked && !named)
      return;
    if (op->getParentOp() != func.getOperation() ||
        !func.getBody().hasOneBlock()) {
      if (marked && !nested)
        nested = op;
      return;
    }
    seeds.push_back(op);
  });
  if (nested)
    return emitCompactError(nested, "the gradient seed ('")
           << attrName
           << "') must be a top-level op of a single-block function body";
  if (!name.empty() &&
      llvm::none_of(seeds, [&](Operation *op) {
        return hasLocName(op->getLoc(), name);
      }))
    return emitCompactError(func, "grad-seed='")
           << name << "' names no top-level op of @" << func.getSymName()
           << " (the seed's location must be loc(\"" << name
           << "\"), or mark the op with '" << attrName << "')";
  return seeds;
}

PhaseSplit remat::splitFromGradSeeds(func::FuncOp func,
                                     ArrayRef<Operation *> seeds,
                                     int64_t lossResult) {
  Block &block = func.getBody().front();
  PhaseSplit split;
  split.seeds.assign(seeds.begin(), seeds.end());
  split.backward.insert(seeds.begin(), seeds.end());
  for (Operation &op : block.without_terminator()) {
    if (split.backward.contains(&op))
      continue;
    bool dependent = false;
    forEachUsedValue(&op, [&](Value v) {
      Operation *def = getTopLevelDef(block, v);
      dependent |= def && split.backward.contains(def);
    });
    if (dependent)
      split.backward.insert(&op);
  }
  // The ops that only produce a destination-passing init of a backward op
  // (its tensor.empty, linalg.fill) belong to its unit: backward too.
  for (Operation &op : llvm::reverse(block.without_terminator()))
    if (Operation *consumer = getInitConsumer(&op);
        consumer && split.backward.contains(consumer))
      split.backward.insert(&op);
  for (Operation &op : block.without_terminator())
    if (!split.backward.contains(&op) && !isa<KeepOp>(op))
      ++split.numForward;
  // The loss, when a returned scalar float is a forward value of the body.
  Operation *term = block.getTerminator();
  for (unsigned i = 0, e = term->getNumOperands(); i < e; ++i) {
    if (lossResult >= 0 ? i != lossResult
                        : !isScalarFloat(term->getOperand(i).getType()))
      continue;
    Operation *def = term->getOperand(i).getDefiningOp();
    if (def && def->getBlock() == &block && !split.backward.contains(def)) {
      split.lossOp = def;
      split.lossResult = i;
    }
    break;
  }
  return split;
}

LogicalResult remat::checkPhaseMarks(func::FuncOp func,
                                     const PhaseSplit &split,
                                     unsigned maxErrors) {
  unsigned errors = 0;
  for (Operation &op : func.getBody().front().without_terminator()) {
    // Constants are resident whatever their mark; init producers belong to
    // their consumer's unit.
    if (isa<KeepOp>(op) || getInitConsumer(&op) ||
        (op.hasTrait<OpTrait::ConstantLike>() &&
         !llvm::is_contained(split.seeds, &op)))
      continue;
    bool marked = getPhase(&op) == Phase::backward;
    if (marked == split.backward.contains(&op))
      continue;
    if (++errors > maxErrors)
      continue;
    if (marked)
      op.emitError("'")
          << op.getName()
          << "' is marked #remat.phase<backward> but does not depend on the "
             "gradient seed: by its dependences it is a forward op";
    else
      op.emitError("'")
          << op.getName()
          << "' depends on the gradient seed but is not marked "
             "#remat.phase<backward>: by its dependences it is a backward op";
  }
  if (errors == 0)
    return success();
  if (errors > maxErrors)
    emitCompactError(func, "")
        << errors << " ops of @" << func.getSymName()
        << " have #remat.phase marks that contradict their dependences on the "
           "gradient seed ("
        << maxErrors << " shown)";
  return failure();
}

FailureOr<std::optional<PhaseSplit>>
remat::getGradSeedSplit(func::FuncOp func, StringRef name,
                        int64_t lossResult) {
  FailureOr<SmallVector<Operation *>> seeds = findGradSeeds(func, name);
  if (failed(seeds))
    return failure();
  if (seeds->empty())
    return std::optional<PhaseSplit>();
  if (func->hasAttr(RematDialect::getForwardOnlyAttrName()))
    return emitCompactError(func, "@")
           << func.getSymName() << " is marked '"
           << RematDialect::getForwardOnlyAttrName()
           << "' (no backward) but has a gradient seed at "
           << seeds->front()->getLoc();
  PhaseSplit split = splitFromGradSeeds(func, *seeds, lossResult);
  if (isTrainingStep(func) && failed(checkPhaseMarks(func, split)))
    return failure();
  return std::optional<PhaseSplit>(std::move(split));
}

void remat::annotatePhases(const PhaseSplit &split) {
  if (split.lossOp)
    setPhase(split.lossOp, Phase::loss);
  for (Operation *op : split.backward)
    setPhase(op, Phase::backward);
}

std::string remat::describePhaseSplit(func::FuncOp func,
                                      const PhaseSplit &split) {
  Operation *first = nullptr;
  unsigned late = 0;
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (split.backward.contains(&op)) {
      if (!first)
        first = &op;
    } else if (first && !isa<KeepOp>(op) &&
               !op.hasTrait<OpTrait::ConstantLike>()) {
      ++late;
    }
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (split.seeds.empty()) {
    os << "no #remat.phase annotations: inferred the split from the loss, "
          "result #"
       << split.lossResult << " ('" << split.lossOp->getName()
       << "'): " << split.numForward
       << " forward ops (the loss, the next state and what they depend on), "
       << split.backward.size() << " backward ops (the rest; the first is '"
       << first->getName() << "' at " << first->getLoc() << ")";
    return text;
  }
  os << "phases from the gradient seed";
  if (split.seeds.size() != 1)
    os << "s";
  os << " ";
  llvm::interleaveComma(split.seeds, os, [&](Operation *seed) {
    os << "'" << seed->getName() << "' at " << seed->getLoc();
  });
  os << ": " << split.numForward << " forward ops, " << split.backward.size()
     << " backward ops (the seed";
  if (split.seeds.size() != 1)
    os << "s";
  os << " and what depends on ";
  os << (split.seeds.size() == 1 ? "it" : "them") << "), " << late
     << " forward ops after the first backward op";
  if (split.lossOp)
    os << "; loss: result #" << split.lossResult << " ('"
       << split.lossOp->getName() << "')";
  return text;
}
