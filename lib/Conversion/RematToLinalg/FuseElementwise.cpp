//===- FuseElementwise.cpp - the --remat-fuse-elementwise pass --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Fuses single-use elementwise producers into elementwise consumers with
// upstream linalg's fuseElementwiseOps, one operand at a time, without the
// folding and canonicalization of the upstream pass (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace remat {
#define GEN_PASS_DEF_REMATFUSEELEMENTWISE
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// A linalg.generic on tensors whose loops are all parallel.
bool isElementwise(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops();
}

/// Whether fusing `producer` into `consumer` keeps every lifetime the
/// schedule planned. Fusion moves the producer's reads to the consumer, so a
/// tensor whose last reader was the producer would live on until the
/// consumer, past work the planner counted without it (this raised the
/// lstm_t8 arena from 65,536 to 190,464 bytes). Allowed when nothing but
/// constants and empty tensors lies between the two, or when every tensor
/// the producer reads is a block argument, a constant or an empty tensor, or
/// is read again at or after the consumer anyway.
bool keepsLifetimes(Operation *producer, Operation *consumer) {
  Block *block = consumer->getBlock();
  if (producer->getBlock() != block)
    return false;
  bool adjacent = true;
  for (Operation *op = producer->getNextNode(); op && op != consumer;
       op = op->getNextNode())
    adjacent = adjacent && isa<tensor::EmptyOp, arith::ConstantOp>(op);
  if (adjacent)
    return true;
  return llvm::all_of(producer->getOperands(), [&](Value value) {
    if (!isa<TensorType>(value.getType()) || isa<BlockArgument>(value) ||
        value.getDefiningOp<tensor::EmptyOp>() ||
        value.getDefiningOp<arith::ConstantOp>())
      return true;
    return llvm::any_of(value.getUsers(), [&](Operation *user) {
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      return inBlock &&
             (inBlock == consumer || consumer->isBeforeInBlock(inBlock));
    });
  });
}

/// The input of `consumer` that fusion may replace by its producer's body:
/// produced by an elementwise generic with one result and no other user,
/// read through a permutation (the same iteration space), without
/// lengthening any lifetime.
bool isFusable(linalg::GenericOp consumer, OpOperand &operand) {
  if (!consumer.isDpsInput(&operand))
    return false;
  auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
  if (!producer || !isElementwise(producer) ||
      producer->getNumResults() != 1 || !operand.get().hasOneUse())
    return false;
  if (!consumer.getMatchingIndexingMap(&operand).isPermutation() ||
      !keepsLifetimes(producer, consumer))
    return false;
  return linalg::areElementwiseOpsFusable(&operand);
}

/// Fuses one fusable producer into `consumer`; returns the fused op, or
/// null when there was none. Erased ops are added to `erased`.
linalg::GenericOp fuseOne(RewriterBase &rewriter, linalg::GenericOp consumer,
                          DenseSet<Operation *> &erased) {
  for (OpOperand &operand : consumer->getOpOperands()) {
    if (!isFusable(consumer, operand))
      continue;
    Operation *producer = operand.get().getDefiningOp();
    rewriter.setInsertionPoint(consumer);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, &operand);
    if (failed(fused))
      continue;
    for (auto [original, replacement] : fused->replacements)
      rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
        return use.getOwner() != producer;
      });
    erased.insert(consumer);
    rewriter.eraseOp(consumer);
    if (producer->use_empty()) {
      erased.insert(producer);
      rewriter.eraseOp(producer);
    }
    return cast<linalg::GenericOp>(fused->fusedOp);
  }
  return nullptr;
}

struct FuseElementwisePass
    : public remat::impl::RematFuseElementwiseBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    // Program order: a producer has taken in its own producers before a
    // later consumer takes it in.
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isElementwise(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    DenseSet<Operation *> erased;
    for (linalg::GenericOp op : ops) {
      if (erased.contains(op))
        continue;
      while (linalg::GenericOp fused = fuseOne(rewriter, op, erased)) {
        ++numFused;
        op = fused;
      }
    }
  }
};

} // namespace
