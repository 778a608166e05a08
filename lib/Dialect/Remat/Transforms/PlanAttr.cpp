//===- PlanAttr.cpp - A rematerialization plan as an attribute --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/PlanAttr.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace remat;

DictionaryAttr remat::buildPlanAttr(MLIRContext *context,
                                    const sched::PlanResult &plan,
                                    const sched::Graph &graph,
                                    int64_t storeAllPeak) {
  Builder b(context);
  const std::vector<std::vector<unsigned>> &lists =
      plan.schedule.recomputeBefore;
  unsigned n = graph.size();
  // Replays the schedule's instance resolution (as sched::simulate does): a
  // node is kept when a backward node or a recomputation reads the instance
  // its forward execution made.
  std::vector<bool> original(n, true), kept(n, false);
  auto read = [&](unsigned operand) {
    if (operand < n && original[operand])
      kept[operand] = true;
  };
  SmallVector<Attribute> recompute;
  for (unsigned k = 0; k != n; ++k) {
    if (k < lists.size() && !lists[k].empty()) {
      SmallVector<Attribute> entry{b.getI64IntegerAttr(k)};
      for (unsigned node : lists[k]) {
        entry.push_back(b.getI64IntegerAttr(node));
        if (node >= n)
          continue;
        for (unsigned operand : graph.nodes[node].operands)
          read(operand);
        original[node] = false;
      }
      recompute.push_back(b.getArrayAttr(entry));
    }
    if (graph.nodes[k].backward)
      for (unsigned operand : graph.nodes[k].operands)
        read(operand);
  }
  SmallVector<Attribute> keptNodes;
  for (unsigned v = 0; v != n; ++v)
    if (kept[v] && !graph.nodes[v].backward)
      keptNodes.push_back(b.getI64IntegerAttr(v));

  SmallVector<NamedAttribute> fields{
      b.getNamedAttr("strategy", b.getStringAttr(plan.strategy)),
      b.getNamedAttr("peak", b.getI64IntegerAttr(plan.sim.peakBytes)),
      b.getNamedAttr("store_all_peak", b.getI64IntegerAttr(storeAllPeak)),
      b.getNamedAttr("recomputed_ops",
                     b.getI64IntegerAttr(plan.sim.recomputeCount)),
      b.getNamedAttr("kept", b.getArrayAttr(keptNodes)),
      b.getNamedAttr("recompute", b.getArrayAttr(recompute))};
  if (!plan.detail.empty())
    fields.push_back(b.getNamedAttr("detail", b.getStringAttr(plan.detail)));
  return b.getDictionaryAttr(fields);
}
