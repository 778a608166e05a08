//===- GraphImport.h - import published training graphs ---------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads the published rematerialization benchmark graphs (networkx
/// node-link JSON; see ../shared/README.md) and builds one `func.func` of
/// `remat.opaque` ops per graph.
///
/// Two formats are read:
///  - Checkmate (Jain et al. 2020): nodes `{id, name, backward, cost_cpu,
///    cost_ram}`, links `{source, target}` by id; ids are the topological
///    order.
///  - Moccasin random layered DAGs (Bartan et al. 2023): nodes `{name,
///    out_cost, duration, param_cost}`, links `{"0": source, "1": target}` by
///    name; `graph.order` (a list, or a string holding a JSON list) is the
///    topological order. These graphs have no forward/backward split: every
///    node is imported as a forward op.
///
/// The function built for a graph:
///  - has one argument `%input : tensor<Nxi8>`, the graph's implicit data
///    input, which every node without predecessors reads. For Checkmate N is
///    inferred from the graph name (`<model>_<batch>_(<d1>, <d2>, ...)_train`)
///    as batch * d1 * d2 * ... float32 elements * 4 bytes; for Moccasin
///    graphs (whose entry node carries its own output size) N is 0. Either
///    can be overridden.
///  - has one `remat.opaque "<name>"(<predecessors>) {cost = <cost> : f64}
///    : (...) -> tensor<<bytes>xi8>` per node, in topological order, with
///    operands in topological order of the predecessors; backward nodes are
///    marked `{remat.phase = #remat.phase<backward>}`.
///  - has the unit attribute `remat.forward_only` when no node is backward
///    (Moccasin graphs, Checkmate graphs with `allForward`), so that
///    `--remat-rematerialize` plans the whole DAG;
///  - returns every node without successors (the last gradient of a
///    Checkmate graph, the target node of a Moccasin graph), so that they are
///    the step's outputs and live to its end.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_IMPORT_GRAPHIMPORT_H
#define REMAT_IMPORT_GRAPHIMPORT_H

#include "remat/Support/InputLimits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {

/// The JSON flavour of a graph file.
enum class GraphFormat { Auto, Checkmate, Moccasin };

/// Where the phase of a node comes from.
enum class PhaseSource {
  /// `Dependences` when the file names a gradient seed, `Marks` otherwise.
  Auto,
  /// The file's `backward` flags, as they are.
  Marks,
  /// The dependences: a node is backward iff it is a gradient seed (a node
  /// with `gradient_seed: true`, the loss gradient) or reads, directly or
  /// not, the value of one. A node marked forward that depends on a seed is
  /// an error; a node marked backward that does not (AOTAutograd marks
  /// batch-norm statistics, weight transposes and ReLU masks that only the
  /// backward reads this way) is imported as a forward op and reported in
  /// `ImportedGraph::forwardByDependence`.
  Dependences,
};

/// How a graph file is read.
struct GraphImportOptions {
  /// Format of the file; Auto tells them apart by the node fields
  /// (`cost_ram` for Checkmate, `out_cost` for Moccasin).
  GraphFormat format = GraphFormat::Auto;
  /// Import every node as a forward op, ignoring Checkmate's `backward`
  /// flags (Moccasin graphs are always imported this way).
  bool allForward = false;
  /// Size in bytes of the implicit input; std::nullopt infers it.
  std::optional<int64_t> inputBytes;
  /// Where phases come from (Checkmate format; ignored with `allForward`).
  PhaseSource phases = PhaseSource::Auto;
  /// Files nesting brackets deeper, or larger, are refused before the JSON
  /// parser sees them (remat/Support/InputLimits.h).
  unsigned maxNesting = kDefaultMaxNesting;
  uint64_t maxInputBytes = kDefaultMaxInputBytes;
};

/// A graph read from a file, independent of MLIR.
struct ImportedGraph {
  struct Node {
    /// The op name (Checkmate `name`, Moccasin `name`).
    std::string name;
    /// Compute cost (Checkmate `cost_cpu`, Moccasin `duration`).
    double cost = 0.0;
    /// Bytes of the output (Checkmate `cost_ram`, Moccasin `out_cost`).
    int64_t bytes = 0;
    bool backward = false;
    /// The node is a gradient seed (`gradient_seed: true`).
    bool seed = false;
    /// Predecessors, as indices into `nodes`, in increasing order.
    llvm::SmallVector<unsigned> inputs;
  };
  /// The concrete format that was read.
  GraphFormat format = GraphFormat::Auto;
  /// `graph.name`, or empty.
  std::string name;
  /// Nodes in topological order.
  std::vector<Node> nodes;
  size_t numEdges = 0;
  /// Bytes of the implicit input.
  int64_t inputBytes = 0;
  /// True if the phases were derived from the dependences on the gradient
  /// seeds (PhaseSource::Dependences).
  bool phasesFromDependences = false;
  /// Nodes the file marks backward that do not depend on a gradient seed,
  /// imported as forward ops (indices into `nodes`).
  std::vector<unsigned> forwardByDependence;
  /// Named saved sets (`pytorch_saved`: for each PyTorch partitioner, the
  /// nodes whose values it saves for the backward), as indices into
  /// `nodes`, ascending, in file order of the names.
  std::vector<std::pair<std::string, std::vector<unsigned>>> savedSets;
};

/// Returns "checkmate" or "moccasin" ("auto" for Auto).
llvm::StringRef stringifyGraphFormat(GraphFormat format);

/// Parses the JSON `text` of one graph file. Errors name `fileName` and the
/// problem (invalid JSON, missing or ill-typed field, link to an unknown
/// node, duplicate node or link, an order that is not topological).
llvm::Expected<ImportedGraph> parseGraph(llvm::StringRef fileName,
                                         llvm::StringRef text,
                                         const GraphImportOptions &options);

/// How `shuffleGraph` reorders the nodes.
enum class ShuffleMode {
  None,
  /// A random merge of the forward and the backward sequences that respects
  /// the dependences: each phase keeps its relative order, forward ops move
  /// among the backward ones (as exporters emit them).
  Interleave,
  /// A random topological order: any node whose predecessors are placed may
  /// come next.
  Topological,
  /// Not random: the stable forward-first order (every forward op before
  /// every backward op, each phase in its order), the order of which every
  /// `Interleave` shuffle is an interleaving.
  ForwardFirst,
};

/// Puts the nodes of `graph` into a random topological order (`seed` makes it
/// reproducible); for testing that planning does not depend on the order.
void shuffleGraph(ImportedGraph &graph, ShuffleMode mode, unsigned seed);

/// Returns a function name for the graph of `fileName`: its stem with every
/// character that is not alphanumeric, `_`, `$` or `.` replaced by `_`.
std::string getGraphFunctionName(llvm::StringRef fileName);

/// Builds the function of `graph` named `funcName` at the insertion point of
/// `builder` (see the file comment for its form).
mlir::func::FuncOp buildGraphFunction(mlir::OpBuilder &builder,
                                      const ImportedGraph &graph,
                                      llvm::StringRef funcName);

} // namespace remat

#endif // REMAT_IMPORT_GRAPHIMPORT_H
