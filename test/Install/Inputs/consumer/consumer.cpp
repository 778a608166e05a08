//===- consumer.cpp - an out-of-tree user of the installed remat ----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Uses both halves of the installed libraries: the plain C++ scheduling core
/// (a homogeneous chain planned with sqrt(n) and store-all, judged by the
/// simulator) and the MLIR side (the remat dialect and passes registered into
/// a context, a pipeline run on the file given as argv[1]).
///
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"
#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/Strategies.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer <model.mlir> <pipeline>\n");
    return 2;
  }

  // A 16-layer chain: 16 forward nodes of 100 bytes, their 16 gradients.
  remat::sched::Graph graph;
  const unsigned n = 16;
  for (unsigned i = 0; i < n; ++i) {
    remat::sched::Node node;
    node.name = "f" + std::to_string(i);
    node.cost = 1;
    node.bytes = 100;
    if (i > 0)
      node.operands.push_back(i - 1);
    graph.addNode(node);
  }
  for (unsigned i = 0; i < n; ++i) {
    remat::sched::Node node;
    node.name = "b" + std::to_string(i);
    node.cost = 1;
    node.bytes = 100;
    node.backward = true;
    unsigned fwd = n - 1 - i;
    node.operands.push_back(fwd);
    if (i > 0)
      node.operands.push_back(n + i - 1);
    node.output = i + 1 == n;
    graph.addNode(node);
  }
  remat::sched::SimResult all, sqrt;
  if (auto err = remat::sched::simulate(graph, remat::sched::storeAll(graph),
                                        all)) {
    std::fprintf(stderr, "store-all: %s\n", err->c_str());
    return 1;
  }
  if (auto err =
          remat::sched::simulate(graph, remat::sched::sqrtN(graph), sqrt)) {
    std::fprintf(stderr, "sqrt: %s\n", err->c_str());
    return 1;
  }
  llvm::outs() << "chain store-all peak " << all.peakBytes << ", sqrt peak "
               << sqrt.peakBytes << ", sqrt recomputed " << sqrt.recomputeCount
               << "\n";

  mlir::DialectRegistry registry;
  remat::registerAllDialects(registry);
  remat::registerAllPasses();
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  // A textual pipeline names its anchor: 'builtin.module(...)'.
  mlir::FailureOr<mlir::OpPassManager> pipeline =
      mlir::parsePassPipeline(argv[2], llvm::errs());
  if (mlir::failed(pipeline))
    return 1;
  mlir::PassManager pm(&context, pipeline->getOpAnchorName());
  static_cast<mlir::OpPassManager &>(pm) = *pipeline;
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
