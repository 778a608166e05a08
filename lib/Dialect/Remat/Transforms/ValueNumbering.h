//===- ValueNumbering.h - hash-consed terms of a function body --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Value numbering for the schedule verifier (`--remat-verify-schedule`).
/// Every value of a function body gets a term: a function argument is a leaf
/// (its position), an op result is the op applied to the terms of its
/// operands, and `remat.recompute` is transparent (a block argument of a
/// region is the term of the input it captures, a region result the term of
/// the value the region yields). Terms are hash-consed in a `TermTable`
/// shared by the functions being compared, so two values compute the same
/// thing exactly when their term ids are equal. Building the numbering of a
/// body is linear in its ops and operands.
///
/// What an op contributes to its term:
/// - its name, its result types, and its attributes (inherent and
///   discardable) except the two that carry no semantics: `remat.phase`
///   (which half of the step an op belongs to; the rewriter drops it from
///   recomputed clones, the lowering drops it everywhere) and
///   `remat.no_recompute` (a scheduling hint). Every other attribute counts,
///   including unknown `remat.*` ones. Locations do not count.
/// - for a structured op whose regions are a pure scalar payload
///   (linalg.generic, linalg.matmul, linalg.fill): the term of its regions,
///   so a recomputed clone gets the original's term;
/// - for an op that is not free of memory effects or that holds other regions
///   (other than `remat.recompute`): its position among the ops of the body
///   outside recompute regions, so that two such ops never get the same
///   term, and an op reading the result of one reads that very execution.
///   (A `remat.dropout` is pure: its mask is a function of its seed operand
///   and its `rate`, both part of the term, so a recomputed dropout has the
///   term of the original exactly when it reproduces the mask.)
///
/// This file shares no code with the schedulers or with the rewriter.
///
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_REMAT_TRANSFORMS_VALUENUMBERING_H
#define LIB_DIALECT_REMAT_TRANSFORMS_VALUENUMBERING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"

#include <string>

namespace remat::verify {

/// The id of a hash-consed term.
using TermId = unsigned;

/// Whether the attribute `name` is left out of terms (see the file comment).
bool isBookkeepingAttr(llvm::StringRef name);

/// The attributes of `op` that are part of its term, sorted by name.
llvm::SmallVector<mlir::NamedAttribute> getSemanticAttrs(mlir::Operation *op);

/// Interns terms; ids are dense and start at 0.
class TermTable {
public:
  /// The leaf for argument #`index` of the function.
  TermId getArgument(unsigned index);
  /// `op` applied to `operands` (the terms of its operands). `instance` is 0
  /// for ops free of memory effects and a number unique to the execution
  /// otherwise.
  TermId getOperation(mlir::Operation *op, llvm::ArrayRef<TermId> operands,
                      uint64_t instance);
  /// Result #`index` of the operation term `op`.
  TermId getResult(TermId op, unsigned index);
  /// A term equal to no other (for values the numbering cannot see).
  TermId getUnique();

  size_t size() const { return numTerms; }

private:
  TermId intern(llvm::ArrayRef<uintptr_t> key);

  llvm::BumpPtrAllocator allocator;
  llvm::DenseMap<llvm::ArrayRef<uintptr_t>, TermId> ids;
  llvm::SmallVector<uintptr_t, 16> scratch;
  TermId numTerms = 0;
  uint64_t numUnique = 0;
};

/// The terms of every value of one single-block function body, and its
/// steps: the ops of the body outside `remat.recompute` regions, terminator
/// included, in order. A rewrite keeps the steps of the original and only
/// adds regions, so steps correspond one to one.
class FunctionNumbering {
public:
  FunctionNumbering(mlir::func::FuncOp func, TermTable &table);

  /// The term of `value` (a unique term for a value the numbering did not
  /// see, such as an operand defined later in unverified IR).
  TermId lookup(mlir::Value value) const;
  /// The term of the op (not of its results); for ops with results only.
  TermId lookupOp(mlir::Operation *op) const;
  /// The first value (in op order, function arguments first) with `term`,
  /// or null.
  mlir::Value getRepresentative(TermId term) const;

  llvm::ArrayRef<mlir::Operation *> getSteps() const { return steps; }

private:
  void numberBlock(mlir::Block &block, bool topLevel);
  /// The term of the payload regions of `op` (a structured op such as
  /// linalg.generic): its block arguments are leaves by position, values it
  /// reads from outside have their terms, every nested op is numbered like a
  /// pure op; the term of the regions is that of their terminators.
  TermId numberPayload(mlir::Operation *op);
  void assign(mlir::Value value, TermId term);

  TermTable &table;
  llvm::DenseMap<mlir::Value, TermId> terms;
  llvm::DenseMap<mlir::Operation *, TermId> opTerms;
  llvm::DenseMap<TermId, mlir::Value> representatives;
  llvm::SmallVector<mlir::Operation *> steps;
  llvm::SmallVector<TermId, 8> operandScratch;
};

/// Returns "'op.name'" and, for ops with a `name` string attribute
/// (remat.opaque), the name: `'remat.opaque' "b"`.
std::string describeOp(mlir::Operation *op);

/// Returns `loc` as "file:line:col" when it has a file location, else as
/// printed.
std::string describeLoc(mlir::Location loc);

/// Describes `value` for a diagnostic in one line: "function argument #2",
/// "result #0 of 'remat.tanh' at f.mlir:3:8", a recompute block argument or
/// result by what it stands for.
std::string describeValue(mlir::Value value);

/// Proves that `rewritten` computes what `original` computes: both have the
/// same type and the same steps in the same order (same op names,
/// attributes as in terms, result types), and every operand of every step
/// of `rewritten` (the return included) has the term of the corresponding
/// operand in `original`. Emits one located error naming the consumer, the
/// operand and what it should read, and returns failure, at the first
/// difference.
mlir::LogicalResult validateTranslation(
    mlir::func::FuncOp original, const FunctionNumbering &originalTerms,
    mlir::func::FuncOp rewritten, const FunctionNumbering &rewrittenTerms);

} // namespace remat::verify

#endif // LIB_DIALECT_REMAT_TRANSFORMS_VALUENUMBERING_H
