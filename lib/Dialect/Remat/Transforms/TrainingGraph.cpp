//===- TrainingGraph.cpp - IR to scheduling graph ---------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/TrainingGraph.h"

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

LogicalResult remat::writeReportFile(Operation *anchor, StringRef path,
                                     StringRef text) {
  std::string message;
  auto file = openOutputFile(path, &message);
  if (!file)
    return anchor->emitError() << "cannot write '" << path << "': " << message;
  file->os() << text;
  file->keep();
  return success();
}

/// True when recomputing `op` would not reproduce it or is not allowed.
static bool mustNotRecompute(Operation *op) {
  return op->hasAttr(RematDialect::getNoRecomputeAttrName()) ||
         !isMemoryEffectFree(op) || op->getNumRegions() != 0;
}

FailureOr<TrainingGraph> TrainingGraph::build(func::FuncOp func) {
  TrainingGraph tg;
  if (!func.getBody().hasOneBlock())
    return func.emitError("rematerialization needs a single-block function");
  Block &block = func.getBody().front();

  for (BlockArgument arg : block.getArguments()) {
    std::optional<int64_t> bytes = getValueBytes(arg.getType());
    if (!bytes)
      return func.emitError("argument #")
             << arg.getArgNumber() << " of type " << arg.getType()
             << " has no static size";
    tg.graph.inputBytes += *bytes;
  }

  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>() || isa<KeepOp>(op))
      continue;
    if (isa<RecomputeOp>(op))
      return op.emitError("the function is already rematerialized");
    sched::Node node;
    if (auto loc = dyn_cast<NameLoc>(op.getLoc()))
      node.name = loc.getName().str();
    else
      node.name = op.getName().getStringRef().str();
    int64_t bytes = 0;
    for (Type t : op.getResultTypes()) {
      std::optional<int64_t> b = getValueBytes(t);
      if (!b || llvm::AddOverflow(bytes, *b, bytes))
        return op.emitError("result type ")
               << t << " has no static size or its size overflows 64 bits";
    }
    node.bytes = bytes;
    if (auto cost = dyn_cast<RematCostOpInterface>(op))
      node.cost = cost.getComputeCost();
    else
      node.cost = getDefaultComputeCost(&op);
    node.backward = getPhase(&op) == Phase::backward;
    node.noRecompute = mustNotRecompute(&op);
    // Constants are resident like arguments: recomputing one saves nothing,
    // and a constant read by every layer (an attention scale) must not tie
    // the whole forward pass into one segment.
    node.keep = op.hasTrait<OpTrait::ConstantLike>();
    llvm::SetVector<unsigned> operands;
    for (Value v : op.getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def)
        continue;
      auto it = tg.nodeOf.find(def);
      if (it == tg.nodeOf.end())
        return op.emitError("operand defined outside the function body");
      if (!node.backward && tg.graph.nodes[it->second].backward)
        return op.emitError("forward op reads the backward value of '")
               << def->getName() << "'; backward ops must come last";
      operands.insert(it->second);
    }
    node.operands.assign(operands.begin(), operands.end());
    int64_t returned = 0;
    for (OpResult res : op.getResults()) {
      bool isReturned = false;
      for (Operation *user : res.getUsers()) {
        node.keep |= isa<KeepOp>(user);
        isReturned |= user->hasTrait<OpTrait::IsTerminator>();
      }
      if (isReturned)
        returned += *getValueBytes(res.getType());
    }
    node.output = returned > 0;
    if (node.output && returned != node.bytes)
      node.outputBytes = returned;
    tg.nodeOf[&op] = tg.graph.addNode(std::move(node));
    tg.ops.push_back(&op);
  }
  if (std::optional<std::string> problem = tg.graph.validate())
    return func.emitError("malformed training graph: ") << *problem;
  return tg;
}

void remat::reorderOps(TrainingGraph &tg, ArrayRef<unsigned> order) {
  if (tg.ops.empty())
    return;
  Block *block = tg.ops.front()->getBlock();
  Operation *term = block->getTerminator();
  for (unsigned node : order)
    tg.ops[node]->moveBefore(term);
  for (KeepOp keep : llvm::make_early_inc_range(block->getOps<KeepOp>()))
    if (Operation *def = keep.getValue().getDefiningOp())
      keep->moveAfter(def);
}

FailureOr<unsigned> remat::applySchedule(TrainingGraph &tg,
                                         const sched::Schedule &schedule) {
  const sched::Graph &g = tg.graph;
  unsigned n = g.size();
  if (schedule.recomputeBefore.size() != n)
    return tg.ops.empty() ? failure()
                          : (tg.ops.front()->emitError(
                                 "schedule does not match the graph"),
                             failure());

  // The most recent instance of every node's results. Instances created by
  // earlier recompute ops replace the original results for later users.
  std::vector<SmallVector<Value>> current(n);
  for (unsigned i = 0; i < n; ++i)
    current[i].assign(tg.ops[i]->result_begin(), tg.ops[i]->result_end());
  // The (node, result number) of every instance: original results and the
  // results of the recompute ops created below. In a forward-only graph an
  // op may be recomputed after its own operands were redirected to
  // recomputed instances (a region placed before its original execution),
  // so operands are resolved through this map, not through their defining
  // op.
  DenseMap<Value, std::pair<unsigned, unsigned>> instanceOf;
  for (unsigned i = 0; i < n; ++i)
    for (OpResult res : tg.ops[i]->getResults())
      instanceOf[res] = {i, res.getResultNumber()};
  auto latestOf = [&](Value v) -> Value {
    auto it = instanceOf.find(v);
    if (it == instanceOf.end())
      return v; // A function argument.
    return current[it->second.first][it->second.second];
  };

  unsigned recomputed = 0;
  for (unsigned k = 0; k < n; ++k) {
    Operation *anchor = tg.ops[k];
    ArrayRef<unsigned> batch = schedule.recomputeBefore[k];
    if (!batch.empty()) {
      // Inputs of the region: instances from outside the batch, in order of
      // first use; results: every recomputed value (unused ones are erased
      // below, so that nothing is kept alive by a dangling result).
      llvm::SetVector<Value> inputs;
      DenseMap<unsigned, unsigned> posInBatch;
      for (auto [pos, node] : llvm::enumerate(batch)) {
        for (Value v : tg.ops[node]->getOperands()) {
          auto it = instanceOf.find(v);
          if (it == instanceOf.end() || !posInBatch.count(it->second.first))
            inputs.insert(latestOf(v));
        }
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
        Operation *orig = tg.ops[node];
        // Map each operand to the instance the recomputation reads.
        IRMapping local;
        for (Value v : orig->getOperands())
          local.map(v, map.lookup(latestOf(v)));
        Operation *clone = b.clone(*orig, local);
        clone->removeAttr(RematDialect::getPhaseAttrName());
        for (auto [origRes, cloneRes] :
             llvm::zip(orig->getResults(), clone->getResults())) {
          map.map(cloneRes, cloneRes);
          yielded.push_back(cloneRes);
        }
        // Later ops of this batch read this clone.
        for (auto [i, res] : llvm::enumerate(clone->getResults()))
          current[node][i] = res;
        ++recomputed;
      }
      YieldOp::create(b, anchor->getLoc(), yielded);
      // Outside the region, the latest instances are the region's results.
      unsigned r = 0;
      for (unsigned node : batch)
        for (unsigned i = 0, e = tg.ops[node]->getNumResults(); i < e; ++i) {
          current[node][i] = region.getResult(r);
          instanceOf[region.getResult(r++)] = {node, i};
        }
    }
    // Point the anchor's operands at the latest instances.
    for (OpOperand &use : anchor->getOpOperands())
      use.set(latestOf(use.get()));
  }
  // The terminator reads the latest instances too.
  Operation *term = tg.ops.empty() ? nullptr
                                   : tg.ops.back()->getBlock()->getTerminator();
  if (term)
    for (OpOperand &use : term->getOpOperands())
      use.set(latestOf(use.get()));

  // Drop region results nobody reads, so yields keep nothing alive.
  SmallVector<RecomputeOp> regions;
  if (term)
    for (auto region : term->getBlock()->getOps<RecomputeOp>())
      regions.push_back(region);
  for (RecomputeOp region : regions) {
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
      auto fresh = RecomputeOp::create(b, region.getLoc(), keptTypes,
                                       region.getInputs());
      fresh.getBody().takeBody(region.getBody());
      Block &body = fresh.getBody().front();
      b.setInsertionPoint(body.getTerminator());
      YieldOp::create(b, yield.getLoc(), keptVals);
      yield.erase();
      for (auto [oldRes, newRes] : llvm::zip(oldResults, fresh.getResults()))
        oldRes.replaceAllUsesWith(newRes);
      region.erase();
  }
  return recomputed;
}
