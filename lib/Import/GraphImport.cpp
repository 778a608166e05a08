//===- GraphImport.cpp - import published training graphs -------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Import/GraphImport.h"

#include "remat/Dialect/Remat/IR/RematOps.h"
#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/Phases.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
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

/// A JSON object split into its fields without building it: the text of
/// every field's value, and of every element of its 'nodes' and 'links'
/// lists. The texts are not checked beyond their extent (each is parsed on
/// its own later).
struct TopLevelFields {
  std::vector<std::pair<std::string, llvm::StringRef>> fields;
  std::vector<llvm::StringRef> nodes, links;
};

/// Splits JSON text by its brackets and strings.
class JsonSplitter {
public:
  explicit JsonSplitter(llvm::StringRef text) : text(text) {}

  /// The fields of `text` if it is one object whose 'nodes' and 'links' are
  /// lists and whose keys are distinct and plain (no escapes); none for
  /// anything else, which is left to `json::parse`.
  std::optional<TopLevelFields> split() {
    TopLevelFields top;
    llvm::StringSet<> keys;
    bool haveNodes = false, haveLinks = false;
    skipSpace();
    if (!eat('{'))
      return std::nullopt;
    skipSpace();
    if (!eat('}')) {
      do {
        skipSpace();
        std::optional<llvm::StringRef> key = scanKey();
        skipSpace();
        if (!key || !eat(':') || !keys.insert(*key).second)
          return std::nullopt;
        skipSpace();
        bool isNodes = *key == "nodes", isLinks = *key == "links";
        if (isNodes || isLinks) {
          std::vector<llvm::StringRef> &items = isNodes ? top.nodes : top.links;
          if (!scanList(items))
            return std::nullopt;
          (isNodes ? haveNodes : haveLinks) = true;
        } else {
          std::optional<llvm::StringRef> value = scanValue();
          if (!value)
            return std::nullopt;
          top.fields.emplace_back(key->str(), *value);
        }
        skipSpace();
      } while (eat(','));
      if (!eat('}'))
        return std::nullopt;
    }
    skipSpace();
    if (pos != text.size() || !haveNodes || !haveLinks)
      return std::nullopt;
    return top;
  }

private:
  bool eat(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  /// Moves past a string starting at `pos`; false if it is unterminated.
  bool skipString() {
    for (++pos; pos < text.size(); ++pos) {
      if (text[pos] == '\\')
        ++pos;
      else if (text[pos] == '"') {
        ++pos;
        return true;
      }
    }
    return false;
  }
  /// A key without escapes, its quotes removed.
  std::optional<llvm::StringRef> scanKey() {
    size_t start = pos;
    if (!(pos < text.size() && text[pos] == '"') || !skipString())
      return std::nullopt;
    llvm::StringRef key = text.slice(start + 1, pos - 1);
    if (key.contains('\\'))
      return std::nullopt;
    // What json::parse checks in a key (UTF-8, control characters).
    llvm::Expected<json::Value> parsed = json::parse(text.slice(start, pos));
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      return std::nullopt;
    }
    return key;
  }
  /// The text of one value: a string, a bracketed group (strings skipped,
  /// brackets counted) or a scalar up to the next delimiter.
  std::optional<llvm::StringRef> scanValue() {
    size_t start = pos;
    if (pos == text.size())
      return std::nullopt;
    char c = text[pos];
    if (c == '"') {
      if (!skipString())
        return std::nullopt;
    } else if (c == '{' || c == '[') {
      size_t depth = 0;
      while (pos < text.size()) {
        char d = text[pos];
        if (d == '"') {
          if (!skipString())
            return std::nullopt;
          continue;
        }
        ++pos;
        if (d == '{' || d == '[')
          ++depth;
        else if ((d == '}' || d == ']') && --depth == 0)
          break;
      }
      if (depth != 0)
        return std::nullopt;
    } else {
      llvm::StringRef delimiters = ",:{}[]\" \t\n\r";
      while (pos < text.size() && !delimiters.contains(text[pos]))
        ++pos;
    }
    if (pos == start)
      return std::nullopt;
    return text.slice(start, pos);
  }
  /// The elements of a list.
  bool scanList(std::vector<llvm::StringRef> &items) {
    if (!eat('['))
      return false;
    skipSpace();
    if (eat(']'))
      return true;
    do {
      skipSpace();
      std::optional<llvm::StringRef> item = scanValue();
      if (!item)
        return false;
      items.push_back(*item);
      skipSpace();
    } while (eat(','));
    return eat(']');
  }

  llvm::StringRef text;
  size_t pos = 0;
};

std::optional<TopLevelFields> splitTopLevel(llvm::StringRef text) {
  return JsonSplitter(text).split();
}

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

  /// The whole file as one `llvm::json` document.
  llvm::Expected<ImportedGraph> parseDocument(llvm::StringRef text);
  /// The file as split by `splitTopLevel`: every node and link parsed on its
  /// own (a document of 10^5 nodes takes 1.6 GB as one `json::Value`, where
  /// each object is a hash map of at least 64 entries).
  llvm::Expected<ImportedGraph> parseFields(const TopLevelFields &top);
  /// Reads the format from `first` (the first node) if it is `Auto`.
  llvm::Error detectFormat(const json::Value *first);
  /// The parts of `parse` after the nodes and links are read.
  llvm::Expected<ImportedGraph> finish(const json::Object &root);

  llvm::Error readNode(size_t index, const json::Value &value);
  llvm::Error readNodes(const json::Array &nodes);
  llvm::Error readOrder(const json::Object &root);
  llvm::Error readLink(size_t index, const json::Value &value,
                       llvm::DenseSet<std::pair<unsigned, unsigned>> &seen);
  void finishLinks(size_t numLinks);
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
  for (auto [index, value] : llvm::enumerate(nodes))
    if (llvm::Error error = readNode(index, value))
      return error;
  if (byKey.empty())
    return fail("the graph has no nodes");
  return llvm::Error::success();
}

llvm::Error GraphParser::readNode(size_t index, const json::Value &value) {
  bool checkmate = graph.format == GraphFormat::Checkmate;
  {
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
  llvm::DenseSet<std::pair<unsigned, unsigned>> seen;
  for (auto [index, value] : llvm::enumerate(links))
    if (llvm::Error error = readLink(index, value, seen))
      return error;
  finishLinks(links.size());
  return llvm::Error::success();
}

llvm::Error
GraphParser::readLink(size_t index, const json::Value &value,
                      llvm::DenseSet<std::pair<unsigned, unsigned>> &seen) {
  bool checkmate = graph.format == GraphFormat::Checkmate;
  llvm::StringRef sourceField = checkmate ? "source" : "0";
  llvm::StringRef targetField = checkmate ? "target" : "1";
  {
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
  return llvm::Error::success();
}

void GraphParser::finishLinks(size_t numLinks) {
  for (ImportedGraph::Node &node : graph.nodes)
    llvm::sort(node.inputs);
  graph.numEdges = numLinks;
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
  // A well-formed file is read node by node; any error (or a form the split
  // does not handle) is reported by the reading of the whole document, so
  // that the messages and their order are the same either way.
  if (std::optional<TopLevelFields> top = splitTopLevel(text)) {
    GraphParser split(fileName, options);
    llvm::Expected<ImportedGraph> result = split.parseFields(*top);
    if (result)
      return result;
    llvm::consumeError(result.takeError());
  }
  return parseDocument(text);
}

llvm::Error GraphParser::detectFormat(const json::Value *firstNode) {
  graph.format = options.format;
  if (graph.format != GraphFormat::Auto)
    return llvm::Error::success();
  const json::Object *first = firstNode ? firstNode->getAsObject() : nullptr;
  if (first && first->get("cost_ram"))
    graph.format = GraphFormat::Checkmate;
  else if (first && first->get("out_cost"))
    graph.format = GraphFormat::Moccasin;
  else
    return fail("cannot tell the format: the first node has neither "
                "'cost_ram' (Checkmate) nor 'out_cost' (Moccasin); pass "
                "--format");
  return llvm::Error::success();
}

llvm::Expected<ImportedGraph>
GraphParser::parseFields(const TopLevelFields &top) {
  // Every other field, parsed as a whole (they are small), as the root
  // object readOrder and readSavedSets look at.
  json::Object root;
  for (const auto &[key, value] : top.fields) {
    llvm::Expected<json::Value> parsed = json::parse(value);
    if (!parsed)
      return parsed.takeError();
    root[key] = std::move(*parsed);
  }
  if (const json::Object *info = root.getObject("graph"))
    if (std::optional<llvm::StringRef> name = info->getString("name"))
      graph.name = name->str();
  auto parseItem = [](llvm::StringRef text) { return json::parse(text); };
  std::optional<json::Value> first;
  if (!top.nodes.empty()) {
    llvm::Expected<json::Value> parsed = parseItem(top.nodes.front());
    if (!parsed)
      return parsed.takeError();
    first = std::move(*parsed);
  }
  if (llvm::Error error = detectFormat(first ? &*first : nullptr))
    return std::move(error);
  for (auto [index, item] : llvm::enumerate(top.nodes)) {
    llvm::Expected<json::Value> value = parseItem(item);
    if (!value)
      return value.takeError();
    if (llvm::Error error = readNode(index, *value))
      return std::move(error);
  }
  if (byKey.empty())
    return fail("the graph has no nodes");
  if (llvm::Error error = readOrder(root))
    return std::move(error);
  llvm::DenseSet<std::pair<unsigned, unsigned>> seen;
  for (auto [index, item] : llvm::enumerate(top.links)) {
    llvm::Expected<json::Value> value = parseItem(item);
    if (!value)
      return value.takeError();
    if (llvm::Error error = readLink(index, *value, seen))
      return std::move(error);
  }
  finishLinks(top.links.size());
  return finish(root);
}

llvm::Expected<ImportedGraph> GraphParser::parseDocument(llvm::StringRef text) {
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

  if (llvm::Error error =
          detectFormat(nodes->empty() ? nullptr : &nodes->front()))
    return std::move(error);
  if (llvm::Error error = readNodes(*nodes))
    return std::move(error);
  if (llvm::Error error = readOrder(*object))
    return std::move(error);
  if (llvm::Error error = readLinks(*links))
    return std::move(error);
  return finish(*object);
}

llvm::Expected<ImportedGraph> GraphParser::finish(const json::Object &root) {
  const json::Object *object = &root;
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
  // The order depends on the dependences and the phases only.
  sched::Graph deps;
  deps.nodes.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    deps.nodes[i].backward = graph.nodes[i].backward;
    deps.nodes[i].operands.assign(graph.nodes[i].inputs.begin(),
                                  graph.nodes[i].inputs.end());
  }
  sched::OrderShuffle how = sched::OrderShuffle::ForwardFirst;
  if (mode == ShuffleMode::Interleave)
    how = sched::OrderShuffle::Interleave;
  else if (mode == ShuffleMode::Topological)
    how = sched::OrderShuffle::Topological;
  std::vector<unsigned> order = sched::shuffledOrder(deps, how, seed);
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
    // With the phases from the dependences, the seed is named as such, so
    // that the remat passes check the marks against the same dependences
    // (docs/Conventions.md). The file's own marks may contradict them.
    if (node.seed && graph.phasesFromDependences)
      op->setAttr(RematDialect::getGradSeedAttrName(), builder.getUnitAttr());
    values.push_back(op.getResult());
    if (!hasSuccessor[index])
      results.push_back(op.getResult());
  }
  func::ReturnOp::create(builder, func.getLoc(), results);
  return func;
}
