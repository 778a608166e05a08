//===- GraphImport.cpp - import published training graphs -------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Import/GraphImport.h"

#include "remat/Dialect/Remat/IR/RematOps.h"
#include "remat/Scheduling/Graph.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <algorithm>
#include <map>

using namespace mlir;
using namespace remat;
namespace json = llvm::json;

llvm::StringRef remat::stringifyGraphFormat(GraphFormat format) {
  switch (format) {
  case GraphFormat::Checkmate:
    return "checkmate";
  case GraphFormat::Moccasin:
    return "moccasin";
  case GraphFormat::Auto:
    break;
  }
  return "auto";
}

namespace {

/// Reads one graph file; every error names the file.
class GraphParser {
public:
  GraphParser(llvm::StringRef fileName, const GraphImportOptions &options)
      : fileName(fileName), options(options) {}

  llvm::Expected<ImportedGraph> parse(llvm::StringRef text);

private:
  llvm::Error fail(const llvm::Twine &message) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   fileName + ": " + message);
  }

  /// Reads a node key or name: a JSON integer or string.
  llvm::Expected<std::string> getKey(const json::Object &object,
                                     llvm::StringRef field,
                                     const llvm::Twine &where) const;
  /// Reads a non-negative number.
  llvm::Expected<double> getCost(const json::Object &object,
                                 llvm::StringRef field,
                                 const llvm::Twine &where) const;
  /// Reads a non-negative integer.
  llvm::Expected<int64_t> getBytes(const json::Object &object,
                                   llvm::StringRef field,
                                   const llvm::Twine &where) const;

  llvm::Error readNodes(const json::Array &nodes);
  llvm::Error readOrder(const json::Object &root);
  llvm::Error readLinks(const json::Array &links);
  llvm::Error inferInputBytes();
  llvm::Error derivePhases();
  llvm::Error readSavedSets(const json::Object &root);

  std::string fileName;
  const GraphImportOptions &options;
  ImportedGraph graph;
  /// Node key (Checkmate id, Moccasin name) to its node, in file order.
  llvm::StringMap<ImportedGraph::Node> byKey;
  /// Checkmate ids, to sort the nodes by id.
  std::map<int64_t, std::string> idOrder;
  /// Node key to its position in the topological order.
  llvm::StringMap<unsigned> position;
};

} // namespace

llvm::Expected<std::string>
GraphParser::getKey(const json::Object &object, llvm::StringRef field,
                    const llvm::Twine &where) const {
  const json::Value *value = object.get(field);
  if (!value)
    return fail(where + ": missing field '" + field + "'");
  if (std::optional<int64_t> integer = value->getAsInteger())
    return std::to_string(*integer);
  if (std::optional<llvm::StringRef> string = value->getAsString())
    return string->str();
  return fail(where + ": field '" + field +
              "' must be an integer or a string");
}

llvm::Expected<double> GraphParser::getCost(const json::Object &object,
                                            llvm::StringRef field,
                                            const llvm::Twine &where) const {
  const json::Value *value = object.get(field);
  if (!value)
    return fail(where + ": missing field '" + field + "'");
  std::optional<double> number = value->getAsNumber();
  if (!number || !std::isfinite(*number) || *number < 0.0)
    return fail(where + ": field '" + field +
                "' must be a non-negative number");
  return *number;
}

llvm::Expected<int64_t> GraphParser::getBytes(const json::Object &object,
                                              llvm::StringRef field,
                                              const llvm::Twine &where) const {
  const json::Value *value = object.get(field);
  if (!value)
    return fail(where + ": missing field '" + field + "'");
  std::optional<int64_t> integer = value->getAsInteger();
  if (!integer || *integer < 0)
    return fail(where + ": field '" + field +
                "' must be a non-negative integer (bytes)");
  return *integer;
}

llvm::Error GraphParser::readNodes(const json::Array &nodes) {
  bool checkmate = graph.format == GraphFormat::Checkmate;
  for (auto [index, value] : llvm::enumerate(nodes)) {
    std::string where = "nodes[" + std::to_string(index) + "]";
    const json::Object *object = value.getAsObject();
    if (!object)
      return fail(where + ": a node must be an object");
    ImportedGraph::Node node;
    std::string key;
    if (checkmate) {
      const json::Value *id = object->get("id");
      if (!id)
        return fail(where + ": missing field 'id'");
      std::optional<int64_t> idValue = id->getAsInteger();
      if (!idValue)
        return fail(where + ": field 'id' must be an integer");
      key = std::to_string(*idValue);
      where += " (id " + key + ")";
      if (!idOrder.emplace(*idValue, key).second)
        return fail(where + ": duplicate node id " + key);
      llvm::Expected<std::string> name = getKey(*object, "name", where);
      if (!name)
        return name.takeError();
      if (name->empty())
        return fail(where + ": field 'name' must not be empty");
      node.name = *name;
      llvm::Expected<double> cost = getCost(*object, "cost_cpu", where);
      if (!cost)
        return cost.takeError();
      node.cost = *cost;
      llvm::Expected<int64_t> bytes = getBytes(*object, "cost_ram", where);
      if (!bytes)
        return bytes.takeError();
      node.bytes = *bytes;
      const json::Value *backward = object->get("backward");
      if (!backward && !options.allForward)
        return fail(where + ": missing field 'backward' (pass --all-forward "
                            "to import every node as a forward op)");
      if (backward && !backward->getAsBoolean())
        return fail(where + ": field 'backward' must be a boolean");
      node.backward =
          backward && !options.allForward && *backward->getAsBoolean();
      if (const json::Value *seed = object->get("gradient_seed")) {
        if (!seed->getAsBoolean())
          return fail(where + ": field 'gradient_seed' must be a boolean");
        node.seed = *seed->getAsBoolean();
      }
    } else {
      llvm::Expected<std::string> name = getKey(*object, "name", where);
      if (!name)
        return name.takeError();
      if (name->empty())
        return fail(where + ": field 'name' must not be empty");
      key = node.name = *name;
      where += " (name " + key + ")";
      if (byKey.count(key))
        return fail(where + ": duplicate node name " + key);
      llvm::Expected<double> cost = getCost(*object, "duration", where);
      if (!cost)
        return cost.takeError();
      node.cost = *cost;
      llvm::Expected<int64_t> bytes = getBytes(*object, "out_cost", where);
      if (!bytes)
        return bytes.takeError();
      node.bytes = *bytes;
      if (object->get("param_cost")) {
        llvm::Expected<double> params = getCost(*object, "param_cost", where);
        if (!params)
          return params.takeError();
        if (*params != 0.0)
          return fail(where + ": a non-zero 'param_cost' is not supported "
                              "(parameter memory is not modelled)");
      }
    }
    byKey[key] = std::move(node);
  }
  if (byKey.empty())
    return fail("the graph has no nodes");
  return llvm::Error::success();
}

llvm::Error GraphParser::readOrder(const json::Object &root) {
  std::vector<std::string> order;
  if (graph.format == GraphFormat::Checkmate) {
    // Node ids are the topological order.
    for (auto &[id, key] : idOrder)
      order.push_back(key);
  } else {
    const json::Object *info = root.getObject("graph");
    const json::Value *orderValue = info ? info->get("order") : nullptr;
    if (!orderValue)
      return fail("missing field 'graph.order' (the topological order)");
    // The published files store the order as a string holding a JSON list.
    json::Value parsed = nullptr;
    const json::Array *list = orderValue->getAsArray();
    if (!list) {
      std::optional<llvm::StringRef> text = orderValue->getAsString();
      if (!text)
        return fail("field 'graph.order' must be a list of node names");
      if (findExcessiveNesting(*text, options.maxNesting, NestingSyntax::JSON))
        return fail("field 'graph.order': brackets nest deeper than " +
                    llvm::Twine(options.maxNesting) +
                    " levels (--max-nesting)");
      llvm::Expected<json::Value> inner = json::parse(*text);
      if (!inner) {
        llvm::consumeError(inner.takeError());
        return fail("field 'graph.order' is a string that is not a JSON list");
      }
      parsed = std::move(*inner);
      list = parsed.getAsArray();
      if (!list)
        return fail("field 'graph.order' is a string that is not a JSON list");
    }
    for (auto [index, entry] : llvm::enumerate(*list)) {
      std::string key;
      if (std::optional<int64_t> integer = entry.getAsInteger())
        key = std::to_string(*integer);
      else if (std::optional<llvm::StringRef> string = entry.getAsString())
        key = string->str();
      else
        return fail("graph.order[" + llvm::Twine(index) +
                    "] must be a node name (integer or string)");
      order.push_back(key);
    }
  }
  for (auto [index, key] : llvm::enumerate(order)) {
    if (!byKey.count(key))
      return fail("graph.order names an unknown node " + key);
    if (!position.try_emplace(key, index).second)
      return fail("graph.order names node " + key + " twice");
  }
  for (auto &entry : byKey)
    if (!position.count(entry.getKey()))
      return fail("node " + entry.getKey() + " is missing from graph.order");
  graph.nodes.resize(order.size());
  for (auto [index, key] : llvm::enumerate(order))
    graph.nodes[index] = byKey[key];
  return llvm::Error::success();
}

llvm::Error GraphParser::readLinks(const json::Array &links) {
  bool checkmate = graph.format == GraphFormat::Checkmate;
  llvm::StringRef sourceField = checkmate ? "source" : "0";
  llvm::StringRef targetField = checkmate ? "target" : "1";
  llvm::DenseSet<std::pair<unsigned, unsigned>> seen;
  for (auto [index, value] : llvm::enumerate(links)) {
    std::string where = "links[" + std::to_string(index) + "]";
    const json::Object *object = value.getAsObject();
    if (!object)
      return fail(where + ": a link must be an object");
    llvm::Expected<std::string> source = getKey(*object, sourceField, where);
    if (!source)
      return source.takeError();
    llvm::Expected<std::string> target = getKey(*object, targetField, where);
    if (!target)
      return target.takeError();
    where += " (" + *source + " -> " + *target + ")";
    auto from = position.find(*source);
    if (from == position.end())
      return fail(where + ": unknown source node " + *source);
    auto to = position.find(*target);
    if (to == position.end())
      return fail(where + ": unknown target node " + *target);
    if (from->second >= to->second)
      return fail(where + ": the link goes against the topological order (" +
                  (checkmate ? "node ids" : "graph.order") + ")");
    if (!seen.insert({from->second, to->second}).second)
      return fail(where + ": duplicate link");
    graph.nodes[to->second].inputs.push_back(from->second);
  }
  for (ImportedGraph::Node &node : graph.nodes)
    llvm::sort(node.inputs);
  graph.numEdges = links.size();
  return llvm::Error::success();
}

llvm::Error GraphParser::inferInputBytes() {
  if (options.inputBytes) {
    if (*options.inputBytes < 0)
      return fail("the input size must be non-negative");
    graph.inputBytes = *options.inputBytes;
    return llvm::Error::success();
  }
  if (graph.format == GraphFormat::Moccasin) {
    graph.inputBytes = 0;
    return llvm::Error::success();
  }
  // "<model>_<batch>_(<d1>, <d2>, ...)_train": float32 input elements.
  llvm::Regex pattern("_([0-9]+)_\\(([0-9]+(, *[0-9]+)*)\\)");
  llvm::SmallVector<llvm::StringRef> groups;
  if (!pattern.match(graph.name, &groups))
    return fail("cannot infer the input size from the graph name '" +
                graph.name +
                "' (expected '<model>_<batch>_(<d1>, <d2>, ...)_...'); pass "
                "--input-bytes");
  int64_t bytes = 4;
  llvm::SmallVector<llvm::StringRef> dims;
  groups[2].split(dims, ',');
  dims.push_back(groups[1]);
  for (llvm::StringRef dim : dims) {
    int64_t value;
    if (dim.trim().getAsInteger(10, value) ||
        llvm::MulOverflow(bytes, value, bytes))
      return fail("the input size in the graph name '" + graph.name +
                  "' overflows 64 bits");
  }
  graph.inputBytes = bytes;
  return llvm::Error::success();
}

llvm::Error GraphParser::derivePhases() {
  if (graph.format != GraphFormat::Checkmate || options.allForward)
    return llvm::Error::success();
  bool haveSeed = llvm::any_of(
      graph.nodes, [](const ImportedGraph::Node &node) { return node.seed; });
  PhaseSource source = options.phases;
  if (source == PhaseSource::Auto)
    source = haveSeed ? PhaseSource::Dependences : PhaseSource::Marks;
  if (source == PhaseSource::Marks)
    return llvm::Error::success();
  if (!haveSeed)
    return fail("phases from dependences need a gradient seed: no node has "
                "'gradient_seed: true'");
  // Nodes are in topological order: one pass propagates the dependence.
  std::vector<bool> dependent(graph.nodes.size(), false);
  for (auto [index, node] : llvm::enumerate(graph.nodes)) {
    dependent[index] = node.seed || llvm::any_of(node.inputs, [&](unsigned i) {
                         return dependent[i];
                       });
    if (dependent[index] && !node.backward)
      return fail("node '" + node.name + "' is marked forward but depends on "
                  "a gradient seed, so it is a backward op (fix its "
                  "'backward' flag, or import with --phases=marks)");
    if (!dependent[index] && node.backward) {
      node.backward = false;
      graph.forwardByDependence.push_back(index);
    }
  }
  graph.phasesFromDependences = true;
  return llvm::Error::success();
}

llvm::Error GraphParser::readSavedSets(const json::Object &root) {
  const json::Value *value = root.get("pytorch_saved");
  if (!value || graph.format != GraphFormat::Checkmate)
    return llvm::Error::success();
  const json::Object *sets = value->getAsObject();
  if (!sets)
    return fail("field 'pytorch_saved' must be an object of node id lists");
  // Sorted by name: a JSON object has no order.
  std::vector<std::string> names;
  for (const auto &entry : *sets)
    names.push_back(entry.first.str());
  llvm::sort(names);
  for (const std::string &name : names) {
    const json::Array *ids = sets->getArray(name);
    if (!ids)
      return fail("pytorch_saved." + name + " must be a list of node ids");
    std::vector<unsigned> nodes;
    for (const json::Value &id : *ids) {
      std::optional<int64_t> integer = id.getAsInteger();
      auto it = integer ? position.find(std::to_string(*integer))
                        : position.end();
      if (it == position.end())
        return fail("pytorch_saved." + name + " names an unknown node id");
      nodes.push_back(it->second);
    }
    llvm::sort(nodes);
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    graph.savedSets.emplace_back(name, std::move(nodes));
  }
  return llvm::Error::success();
}

llvm::Expected<ImportedGraph> GraphParser::parse(llvm::StringRef text) {
  // llvm::json::parse recurses once per nesting level: refuse deep nesting
  // (and huge files) before it runs out of stack.
  if (text.size() > options.maxInputBytes)
    return fail("the file has " + llvm::Twine(text.size()) +
                " bytes, more than the limit of " +
                llvm::Twine(options.maxInputBytes) + " (--max-input-bytes)");
  if (std::optional<size_t> at =
          findExcessiveNesting(text, options.maxNesting, NestingSyntax::JSON)) {
    size_t line = 1 + text.take_front(*at).count('\n');
    return fail("line " + llvm::Twine(line) + ": brackets nest deeper than " +
                llvm::Twine(options.maxNesting) + " levels (--max-nesting)");
  }
  llvm::Expected<json::Value> root = json::parse(text);
  if (!root)
    return fail("invalid JSON: " + llvm::toString(root.takeError()));
  const json::Object *object = root->getAsObject();
  if (!object)
    return fail("the top level must be a JSON object");
  const json::Array *nodes = object->getArray("nodes");
  if (!nodes)
    return fail("missing field 'nodes' (a list)");
  const json::Array *links = object->getArray("links");
  if (!links)
    return fail("missing field 'links' (a list)");
  if (const json::Object *info = object->getObject("graph"))
    if (std::optional<llvm::StringRef> name = info->getString("name"))
      graph.name = name->str();

  graph.format = options.format;
  if (graph.format == GraphFormat::Auto) {
    const json::Object *first =
        nodes->empty() ? nullptr : nodes->front().getAsObject();
    if (first && first->get("cost_ram"))
      graph.format = GraphFormat::Checkmate;
    else if (first && first->get("out_cost"))
      graph.format = GraphFormat::Moccasin;
    else
      return fail("cannot tell the format: the first node has neither "
                  "'cost_ram' (Checkmate) nor 'out_cost' (Moccasin); pass "
                  "--format");
  }
  if (llvm::Error error = readNodes(*nodes))
    return std::move(error);
  if (llvm::Error error = readOrder(*object))
    return std::move(error);
  if (llvm::Error error = readLinks(*links))
    return std::move(error);
  if (llvm::Error error = inferInputBytes())
    return std::move(error);
  if (llvm::Error error = derivePhases())
    return std::move(error);
  if (llvm::Error error = readSavedSets(*object))
    return std::move(error);
  // The scheduling model's limits (Graph::validate), checked here so that
  // the error names the file: sums of bytes and costs must not overflow.
  int64_t totalBytes = graph.inputBytes;
  double totalCost = 0;
  for (const ImportedGraph::Node &node : graph.nodes) {
    totalCost += node.cost;
    if (node.bytes > sched::kMaxGraphBytes - totalBytes)
      return fail("node '" + node.name +
                  "': the input and node sizes sum "
                  "above the limit of 2^60 bytes");
    totalBytes += node.bytes;
    if (!(totalCost <= sched::kMaxGraphCost))
      return fail("node '" + node.name +
                  "': the node costs sum above the "
                  "limit of 1e280");
  }
  return std::move(graph);
}

llvm::Expected<ImportedGraph>
remat::parseGraph(llvm::StringRef fileName, llvm::StringRef text,
                  const GraphImportOptions &options) {
  return GraphParser(fileName, options).parse(text);
}

void remat::shuffleGraph(ImportedGraph &graph, ShuffleMode mode,
                         unsigned seed) {
  if (mode == ShuffleMode::None)
    return;
  unsigned n = graph.nodes.size();
  std::vector<std::vector<unsigned>> readers(n);
  std::vector<unsigned> pending(n);
  for (unsigned i = 0; i < n; ++i) {
    for (unsigned input : graph.nodes[i].inputs)
      readers[input].push_back(i);
    pending[i] = graph.nodes[i].inputs.size();
  }
  // A small deterministic generator: the same order on every platform.
  uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  auto next = [&](unsigned bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % bound);
  };
  std::vector<unsigned> order, ready, phase[2];
  for (unsigned i = 0; i < n; ++i) {
    phase[graph.nodes[i].backward].push_back(i);
    if (pending[i] == 0)
      ready.push_back(i);
  }
  size_t pos[2] = {0, 0};
  while (order.size() < n) {
    unsigned v;
    if (mode == ShuffleMode::ForwardFirst) {
      v = pos[0] < phase[0].size() ? phase[0][pos[0]++] : phase[1][pos[1]++];
    } else if (mode == ShuffleMode::Interleave) {
      // The next node of a phase is ready once its predecessors are placed;
      // the next forward node always is (it reads forward nodes only).
      bool ok[2];
      for (unsigned p = 0; p < 2; ++p)
        ok[p] = pos[p] < phase[p].size() && pending[phase[p][pos[p]]] == 0;
      unsigned p = ok[0] && ok[1] ? next(2) : (ok[0] ? 0 : 1);
      v = phase[p][pos[p]++];
    } else {
      unsigned pick = next(ready.size());
      v = ready[pick];
      ready.erase(ready.begin() + pick);
    }
    order.push_back(v);
    for (unsigned r : readers[v])
      if (--pending[r] == 0)
        ready.push_back(r);
  }
  std::vector<unsigned> position(n);
  for (unsigned i = 0; i < n; ++i)
    position[order[i]] = i;
  std::vector<ImportedGraph::Node> nodes;
  nodes.reserve(n);
  for (unsigned old : order) {
    ImportedGraph::Node node = graph.nodes[old];
    for (unsigned &input : node.inputs)
      input = position[input];
    llvm::sort(node.inputs);
    nodes.push_back(std::move(node));
  }
  graph.nodes = std::move(nodes);
  for (unsigned &index : graph.forwardByDependence)
    index = position[index];
  llvm::sort(graph.forwardByDependence);
  for (auto &[name, set] : graph.savedSets) {
    for (unsigned &index : set)
      index = position[index];
    llvm::sort(set);
  }
}

std::string remat::getGraphFunctionName(llvm::StringRef fileName) {
  std::string name = llvm::sys::path::stem(fileName).str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_' && c != '$' && c != '.')
      c = '_';
  if (name.empty() || llvm::isDigit(name.front()))
    name = "g" + name;
  return name;
}

/// Returns a location naming a node, so that the printer can name its value
/// after it (`--mlir-use-nameloc-as-prefix`).
static Location getNodeLoc(MLIRContext *context, llvm::StringRef name) {
  std::string prefix = name.str();
  if (prefix.empty() || llvm::isDigit(prefix.front()))
    prefix = "n" + prefix;
  return NameLoc::get(StringAttr::get(context, prefix));
}

func::FuncOp remat::buildGraphFunction(OpBuilder &builder,
                                       const ImportedGraph &graph,
                                       llvm::StringRef funcName) {
  MLIRContext *context = builder.getContext();
  auto bytesType = [&](int64_t bytes) {
    return RankedTensorType::get({bytes}, builder.getIntegerType(8));
  };

  std::vector<bool> hasSuccessor(graph.nodes.size(), false);
  for (const ImportedGraph::Node &node : graph.nodes)
    for (unsigned input : node.inputs)
      hasSuccessor[input] = true;
  SmallVector<Type> resultTypes;
  for (auto [index, node] : llvm::enumerate(graph.nodes))
    if (!hasSuccessor[index])
      resultTypes.push_back(bytesType(node.bytes));

  Type inputType = bytesType(graph.inputBytes);
  auto func = func::FuncOp::create(
      builder, getNodeLoc(context, funcName), funcName,
      builder.getFunctionType(inputType, resultTypes));
  // Without a backward phase every value may be recomputed: mark the
  // function so that rematerialization plans the whole DAG.
  if (llvm::none_of(graph.nodes, [](const ImportedGraph::Node &node) {
        return node.backward;
      }))
    func->setAttr(RematDialect::getForwardOnlyAttrName(),
                  builder.getUnitAttr());
  Block *block = func.addEntryBlock();
  BlockArgument input = block->getArgument(0);
  input.setLoc(getNodeLoc(context, "input"));

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  SmallVector<Value> values;
  SmallVector<Value> results;
  for (auto [index, node] : llvm::enumerate(graph.nodes)) {
    SmallVector<Value> operands;
    for (unsigned source : node.inputs)
      operands.push_back(values[source]);
    if (operands.empty())
      operands.push_back(input);
    auto op = OpaqueOp::create(builder, getNodeLoc(context, node.name),
                               bytesType(node.bytes), node.name, operands,
                               llvm::APFloat(node.cost));
    if (node.backward)
      setPhase(op, Phase::backward);
    values.push_back(op.getResult());
    if (!hasSuccessor[index])
      results.push_back(op.getResult());
  }
  func::ReturnOp::create(builder, func.getLoc(), results);
  return func;
}
