//===- Reports.h - per-function reports collected by the tools --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Passes that run on one `func.func` at a time cannot write one file for the
/// whole module. They leave their report of each function on the function as
/// the discardable attribute `remat_reports` (no `remat.` prefix: it is not a
/// remat dialect attribute and is never verified as one):
///
///   remat_reports = [{report = "remat-rematerialize report-json",
///                     file = "plan.json", json = "{...}"},
///                    {report = "remat-compare-strategies table",
///                     file = "-", text = "..."}]
///
/// one entry per report a pass was asked for (its option names `file`). The
/// tool that owns the pipeline (`remat-opt`; `remat-compile` after each
/// stage) calls
/// `writeFunctionReports` after the pipeline: for each report and file it
/// writes the file once, with the entries of all functions in module order,
/// and removes the attributes. Under another driver (upstream `mlir-opt`
/// with the plugin) the reports stay in the IR as that attribute.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_TRANSFORMS_REPORTS_H
#define REMAT_DIALECT_REMAT_TRANSFORMS_REPORTS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace remat {

/// The name of the function attribute holding the reports.
inline constexpr llvm::StringLiteral kReportsAttrName = "remat_reports";

/// How the entries of one file are joined.
enum class ReportFormat {
  /// Each entry is one JSON value; the file is the JSON array of the entries
  /// (indented by two spaces, as `llvm::json::OStream` with indent 2 writes
  /// it). An empty entry only asks for the file: `[]` if nothing else.
  Json,
  /// Each entry is text; the file is their concatenation.
  Text,
};

/// Appends to the `remat_reports` attribute of `func` the entry `text` of
/// the report `report` (the pass and its option, e.g. "remat-rematerialize
/// report-json") for `file` ('-' is stdout).
void addFunctionReport(mlir::Operation *func, llvm::StringRef report,
                       llvm::StringRef file, ReportFormat format,
                       llvm::StringRef text);

/// Writes every file named by a `remat_reports` attribute of an op in
/// `root` (visited in pre-order, so functions in module order), once per
/// report in the order the reports first appear, and erases the
/// attributes. A file that cannot be written, or a malformed attribute,
/// is an error at `root` (for a malformed attribute, at its op).
mlir::LogicalResult writeFunctionReports(mlir::Operation *root);

/// Writes `text` to `path` ('-' is stdout); emits an error on `anchor` and
/// returns failure if the file cannot be written.
mlir::LogicalResult writeReportFile(mlir::Operation *anchor,
                                    llvm::StringRef path, llvm::StringRef text);

} // namespace remat

#endif // REMAT_DIALECT_REMAT_TRANSFORMS_REPORTS_H
