//===- Reports.cpp - per-function reports collected by the tools ----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/Reports.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace remat;

static constexpr StringLiteral kReportKey = "report";
static constexpr StringLiteral kFileKey = "file";
static constexpr StringLiteral kJsonKey = "json";
static constexpr StringLiteral kTextKey = "text";

void remat::addFunctionReport(Operation *func, StringRef report, StringRef file,
                              ReportFormat format, StringRef text) {
  Builder b(func->getContext());
  SmallVector<Attribute> entries;
  if (auto old = func->getAttrOfType<ArrayAttr>(kReportsAttrName))
    llvm::append_range(entries, old.getValue());
  StringRef key = format == ReportFormat::Json ? kJsonKey : kTextKey;
  entries.push_back(b.getDictionaryAttr(
      {b.getNamedAttr(kReportKey, b.getStringAttr(report)),
       b.getNamedAttr(kFileKey, b.getStringAttr(file)),
       b.getNamedAttr(key, b.getStringAttr(text))}));
  func->setAttr(kReportsAttrName, b.getArrayAttr(entries));
}

namespace {
/// The entries of one report and file, in the order they were found.
struct ReportFile {
  ReportFormat format = ReportFormat::Json;
  SmallVector<StringRef> entries;
};
} // namespace

/// Appends `entry` to `out` with every line indented by two spaces (JSON
/// strings hold no raw newline, so this only moves the layout).
static void appendIndented(std::string &out, StringRef entry) {
  SmallVector<StringRef> lines;
  entry.rtrim('\n').split(lines, '\n');
  for (auto [i, line] : llvm::enumerate(lines)) {
    if (i)
      out += "\n";
    out += "  ";
    out += line;
  }
}

static std::string render(const ReportFile &report) {
  std::string out;
  if (report.format == ReportFormat::Text) {
    for (StringRef entry : report.entries)
      out += entry;
    return out;
  }
  bool first = true;
  out += "[";
  for (StringRef entry : report.entries) {
    if (entry.empty())
      continue;
    out += first ? "\n" : ",\n";
    appendIndented(out, entry);
    first = false;
  }
  out += first ? "]\n" : "\n]\n";
  return out;
}

LogicalResult remat::writeFunctionReports(Operation *root) {
  // Keyed by (report, file): two reports asked for the same file each write
  // it (as each pass used to), e.g. both to stdout, one after the other.
  llvm::MapVector<std::pair<StringRef, StringRef>, ReportFile> files;
  SmallVector<Operation *> holders;
  WalkResult walk = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    Attribute attr = op->getAttr(kReportsAttrName);
    if (!attr)
      return WalkResult::advance();
    holders.push_back(op);
    auto malformed = [&] {
      op->emitError() << "'" << kReportsAttrName
                      << "' must be an array of {report = \"...\", file = "
                         "\"...\", json = \"...\"} or {report, file, text}";
      return WalkResult::interrupt();
    };
    auto entries = dyn_cast<ArrayAttr>(attr);
    if (!entries)
      return malformed();
    for (Attribute entry : entries) {
      auto dict = dyn_cast<DictionaryAttr>(entry);
      if (!dict || dict.size() != 3)
        return malformed();
      auto name = dict.getAs<StringAttr>(kReportKey);
      auto file = dict.getAs<StringAttr>(kFileKey);
      auto json = dict.getAs<StringAttr>(kJsonKey);
      auto text = dict.getAs<StringAttr>(kTextKey);
      if (!name || !file || !(json || text))
        return malformed();
      ReportFormat format = json ? ReportFormat::Json : ReportFormat::Text;
      auto [it, inserted] =
          files.try_emplace({name.getValue(), file.getValue()});
      if (inserted)
        it->second.format = format;
      else if (it->second.format != format) {
        op->emitError() << "the report file '" << file.getValue()
                        << "' of " << name.getValue()
                        << " is asked for as JSON and as text";
        return WalkResult::interrupt();
      }
      it->second.entries.push_back(json ? json.getValue() : text.getValue());
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto &[key, entries] : files)
    if (failed(writeReportFile(root, key.second, render(entries))))
      return failure();
  for (Operation *op : holders)
    op->removeAttr(kReportsAttrName);
  return success();
}

LogicalResult remat::writeReportFile(Operation *anchor, StringRef path,
                                     StringRef text) {
  std::string message;
  auto file = openOutputFile(path, &message);
  if (!file)
    return anchor->emitError() << "cannot write '" << path << "': " << message;
  file->os() << text;
  file->keep();
  return success();
}
