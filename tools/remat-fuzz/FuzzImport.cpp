//===- FuzzImport.cpp - fuzz target of the JSON graph importers -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The input is a graph file (Checkmate or Moccasin node-link JSON). It is
/// read with `parseGraph` as each format; properties checked:
///  - no crash, hang or sanitizer report on any input;
///  - an accepted graph is well formed: nodes in topological order, inputs
///    sorted, distinct and in range, sizes and costs non-negative and finite;
///  - the function built from an accepted graph verifies (the importer
///    promises that a graph it accepts becomes valid remat IR).
///
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Import/GraphImport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <cmath>

using namespace mlir;
using namespace remat;
using namespace remat::fuzz;

/// Checks the invariants of an accepted graph and that its function verifies.
static void checkGraph(const ImportedGraph &graph, llvm::StringRef input) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ImportedGraph::Node &node = graph.nodes[i];
    fuzzCheck(node.bytes >= 0 && std::isfinite(node.cost) && node.cost >= 0,
              "node '" + node.name + "' has a negative size or a bad cost");
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      fuzzCheck(node.inputs[k] < i, "node '" + node.name +
                                        "' reads a node that is not earlier "
                                        "in the topological order");
      fuzzCheck(k == 0 || node.inputs[k - 1] < node.inputs[k],
                "inputs of node '" + node.name + "' not sorted and distinct");
    }
  }
  fuzzCheck(graph.inputBytes >= 0, "negative input size");

  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<RematDialect, func::FuncDialect>();
  DiagnosticLog log(context);
  OpBuilder builder(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());
  buildGraphFunction(builder, graph, "fuzz");
  bool verified = succeeded(verify(*module));
  fuzzCheck(verified, "an accepted graph imports to IR that does not verify",
            "input:\n" + input);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  for (GraphFormat format :
       {GraphFormat::Auto, GraphFormat::Checkmate, GraphFormat::Moccasin}) {
    GraphImportOptions options;
    options.format = format;
    // The last byte picks the all-forward mode, so both modes are explored.
    options.allForward = size && (data[size - 1] & 1);
    llvm::Expected<ImportedGraph> graph =
        parseGraph("fuzz.json", text, options);
    if (!graph) {
      std::string message = llvm::toString(graph.takeError());
      fuzzCheck(llvm::StringRef(message).starts_with("fuzz.json"),
                "an importer error does not name the file", message);
      continue;
    }
    checkGraph(*graph, text);
  }
  return 0;
}
