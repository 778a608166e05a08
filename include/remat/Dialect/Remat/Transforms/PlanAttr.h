//===- PlanAttr.h - A rematerialization plan as an attribute ----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The `remat.plan` function attribute written by
/// `--remat-rematerialize=annotate=true`: the chosen plan in the IR, so that
/// lit tests pin a strategy's decisions with CHECK lines.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_TRANSFORMS_PLANATTR_H
#define REMAT_DIALECT_REMAT_TRANSFORMS_PLANATTR_H

#include "remat/Scheduling/Plan.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace remat {

/// Describes `plan` on `graph` as a dictionary (see the description of
/// `--remat-rematerialize`): `strategy`, `detail` (when not empty), `peak`
/// (the simulated activation peak in bytes), `store_all_peak`,
/// `recomputed_ops`, `kept` (the forward nodes whose forward instance the
/// backward phase or a recomputation reads) and `recompute` (one
/// `[before, op, ...]` array per node with a non-empty recompute list: the
/// node the region is placed before, then the nodes recomputed there, in
/// order). Nodes are named by their index in the scheduling graph: the
/// position among the function's top-level ops, the terminator and
/// `remat.keep` hints not counted.
mlir::DictionaryAttr buildPlanAttr(mlir::MLIRContext *context,
                                   const sched::PlanResult &plan,
                                   const sched::Graph &graph,
                                   int64_t storeAllPeak);

} // namespace remat

#endif // REMAT_DIALECT_REMAT_TRANSFORMS_PLANATTR_H
