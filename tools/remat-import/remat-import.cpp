//===- remat-import.cpp - published training graphs to MLIR -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads Checkmate and Moccasin graph files (networkx node-link JSON) and
/// writes one module with a `func.func` of `remat.opaque` ops per graph. See
/// remat/Import/GraphImport.h for the form of the functions.
///
//===----------------------------------------------------------------------===//

#include "remat/Import/GraphImport.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Support/AtomicOutput.h"
#include "remat/Support/InputLimits.h"
#include "remat/Support/ToolOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;

/// The options `--help` lists (remat/Support/ToolOptions.h).
static cl::OptionCategory importCategory("remat-import options");

static cl::list<std::string> inputFiles(cl::Positional, cl::OneOrMore,
                                        cl::desc("<graph.json>..."),
                                        cl::cat(importCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(importCategory));
static cl::opt<remat::GraphFormat> format(
    "format", cl::desc("Format of the input files"),
    cl::init(remat::GraphFormat::Auto),
    cl::values(clEnumValN(remat::GraphFormat::Auto, "auto",
                          "tell by the node fields (default)"),
               clEnumValN(remat::GraphFormat::Checkmate, "checkmate",
                          "Checkmate training graphs (id, name, backward, "
                          "cost_cpu, cost_ram)"),
               clEnumValN(remat::GraphFormat::Moccasin, "moccasin",
                          "Moccasin random layered DAGs (name, out_cost, "
                          "duration; graph.order)")),
    cl::cat(importCategory));
static cl::opt<bool> allForward(
    "all-forward",
    cl::desc("Import every node as a forward op (no forward/backward split: "
             "every node may be recomputed). Always the case for Moccasin "
             "graphs, which have no split"),
    cl::cat(importCategory));
static cl::opt<remat::PhaseSource> phases(
    "phases", cl::desc("Where the phase of a node comes from"),
    cl::init(remat::PhaseSource::Auto),
    cl::values(clEnumValN(remat::PhaseSource::Auto, "auto",
                          "the dependences when a node has "
                          "'gradient_seed: true', the marks otherwise "
                          "(default)"),
               clEnumValN(remat::PhaseSource::Marks, "marks",
                          "the 'backward' flags as they are"),
               clEnumValN(remat::PhaseSource::Dependences, "dependences",
                          "backward iff the node depends on a gradient seed "
                          "(a forward mark that contradicts this is an "
                          "error; a backward mark becomes forward, "
                          "reported)")),
    cl::cat(importCategory));
static cl::opt<remat::ShuffleMode> shuffle(
    "shuffle",
    cl::desc("Emit the nodes in a random topological order (for testing "
             "that planning does not depend on the op order)"),
    cl::init(remat::ShuffleMode::None),
    cl::values(clEnumValN(remat::ShuffleMode::None, "none",
                          "the file's order (default)"),
               clEnumValN(remat::ShuffleMode::Interleave, "interleave",
                          "forward ops moved among the backward ones, each "
                          "phase in its order"),
               clEnumValN(remat::ShuffleMode::Topological, "topological",
                          "any topological order"),
               clEnumValN(remat::ShuffleMode::ForwardFirst, "forward-first",
                          "not random: every forward op before every "
                          "backward op, each phase in its order")),
    cl::cat(importCategory));
static cl::opt<unsigned> shuffleSeed("shuffle-seed",
                                     cl::desc("Seed of --shuffle"), cl::init(1),
                                     cl::cat(importCategory));
static cl::opt<int64_t> inputBytes(
    "input-bytes",
    cl::desc("Size in bytes of the implicit data input %input (default: "
             "inferred from a Checkmate graph name, 0 for Moccasin graphs)"),
    cl::init(-1), cl::cat(importCategory));
static cl::opt<std::string>
    funcName("func-name",
             cl::desc("Name of the function (one input file only; default: "
                      "the file name without extension)"),
             cl::cat(importCategory));

static remat::InputLimitOptions inputLimits(remat::NestingSyntax::JSON,
                                            importCategory);

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "remat-import") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  remat::hideForeignOptions({&importCategory}, /*keepMLIROptions=*/false);
  cl::ParseCommandLineOptions(
      argc, argv,
      "remat-import: published rematerialization graphs (Checkmate, "
      "Moccasin) to remat MLIR\n");
  if (!funcName.empty() && inputFiles.size() != 1)
    return fail("--func-name needs exactly one input file");

  remat::GraphImportOptions options;
  options.format = format;
  options.allForward = allForward;
  options.phases = phases;
  options.maxNesting = inputLimits.get().maxNesting;
  options.maxInputBytes = inputLimits.get().maxInputBytes;
  if (inputBytes >= 0)
    options.inputBytes = inputBytes;
  else if (inputBytes.getNumOccurrences())
    return fail("--input-bytes must be non-negative");

  MLIRContext context;
  context.loadDialect<remat::RematDialect, func::FuncDialect>();
  OpBuilder builder(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());

  std::string header;
  llvm::raw_string_ostream headerOs(header);
  llvm::StringSet<> usedNames;
  for (const std::string &file : inputFiles) {
    std::string message;
    std::unique_ptr<llvm::MemoryBuffer> buffer =
        openInputFile(file, &message);
    if (!buffer)
      return fail(file + ": " + message);
    llvm::Expected<remat::ImportedGraph> graph = remat::parseGraph(
        file == "-" ? "<stdin>" : file, buffer->getBuffer(), options);
    if (!graph)
      return fail(llvm::toString(graph.takeError()));

    remat::shuffleGraph(*graph, shuffle, shuffleSeed);

    std::string name =
        funcName.empty() ? remat::getGraphFunctionName(file) : funcName;
    std::string unique = name;
    for (unsigned suffix = 2; !usedNames.insert(unique).second; ++suffix)
      unique = name + "_" + std::to_string(suffix);

    size_t numBackward = llvm::count_if(
        graph->nodes, [](const auto &node) { return node.backward; });
    headerOs << "// @" << unique << ": " << llvm::sys::path::filename(file)
             << " (" << remat::stringifyGraphFormat(graph->format)
             << " format, graph \"" << graph->name
             << "\"): " << graph->nodes.size() << " nodes ("
             << graph->nodes.size() - numBackward << " forward, "
             << numBackward << " backward), " << graph->numEdges
             << " edges, input " << graph->inputBytes << " bytes\n";
    if (shuffle == remat::ShuffleMode::ForwardFirst)
      headerOs << "//   nodes re-sequenced forward-first\n";
    else if (shuffle != remat::ShuffleMode::None)
      headerOs << "//   nodes shuffled (--shuffle-seed=" << shuffleSeed
               << ")\n";
    if (graph->phasesFromDependences) {
      // Not silent: the file's marks were changed.
      std::string note =
          "phases from the dependences on the gradient seed: " +
          std::to_string(graph->forwardByDependence.size()) +
          " node(s) marked backward do not depend on it and are forward ops";
      for (auto [i, index] : llvm::enumerate(graph->forwardByDependence)) {
        if (i == 3) {
          note += ", ...";
          break;
        }
        note += (i ? ", '" : " ('") + graph->nodes[index].name + "'";
      }
      if (!graph->forwardByDependence.empty())
        note += graph->forwardByDependence.size() > 3 ? ")" : ")";
      headerOs << "//   " << note << "\n";
      llvm::WithColor::note(llvm::errs(), "remat-import")
          << llvm::sys::path::filename(file) << ": " << note << "\n";
    }
    for (const auto &[setName, nodes] : graph->savedSets)
      headerOs << "//   saved set '" << setName << "': " << nodes.size()
               << " nodes\n";
    remat::buildGraphFunction(builder, *graph, unique);
  }

  // Every input error is caught by parseGraph; the diagnostics of a module
  // that still does not verify are printed above this message.
  if (failed(verify(*module)))
    return fail("the imported module does not verify (this is a bug in "
                "remat-import; the diagnostics above name the op)");

  // Replaces the output file only once it is completely written.
  llvm::Expected<std::unique_ptr<remat::AtomicOutput>> output =
      remat::AtomicOutput::create(outputFile);
  if (!output)
    return fail(llvm::toString(output.takeError()));
  (*output)->os() << header;
  module->print((*output)->os(), OpPrintingFlags().printNameLocAsPrefix());
  (*output)->os() << "\n";
  if (llvm::Error error = (*output)->commit())
    return fail(llvm::toString(std::move(error)));
  return 0;
}
