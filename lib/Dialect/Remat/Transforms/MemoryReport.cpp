//===- MemoryReport.cpp - report liveness and the memory peak ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Dialect/Remat/Transforms/Reports.h"

namespace remat {
#define GEN_PASS_DEF_REMATMEMORYREPORT
#include "remat/Dialect/Remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
struct MemoryReportPass
    : public remat::impl::RematMemoryReportBase<MemoryReportPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    markAllAnalysesPreserved();
    if (func.isExternal())
      return;
    auto &analysis = getAnalysis<MemoryAnalysis>();
    if (!analysis.isValid()) {
      analysis.getErrorOp()->emitError() << analysis.getError();
      return signalPassFailure();
    }
    report(func, analysis);
    ++numReported;
    if (jsonFile.empty())
      return;
    std::string json;
    llvm::raw_string_ostream os(json);
    analysis.writeJSON(os, func.getSymName());
    addFunctionReport(func, "remat-memory-report json-file", jsonFile,
                      ReportFormat::Json, json);
  }

  void report(func::FuncOp func, const MemoryAnalysis &analysis) {
    auto remark = mlir::emitRemark(func.getLoc())
                  << "peak activation bytes " << analysis.getPeakBytes()
                  << " (total with arguments " << analysis.getPeakTotalBytes()
                  << " and outputs, arguments " << analysis.getArgumentBytes()
                  << ", parameters " << analysis.getParameterBytes()
                  << ", outputs " << analysis.getOutputBytes() << ")";
    if (Operation *peak = analysis.getPeakOp()) {
      remark << " at '" << peak->getName() << "'";
      auto peakRemark = mlir::emitRemark(peak->getLoc())
                        << "memory peak: " << analysis.getPeakBytes()
                        << " activation bytes live";
      if (int64_t scratch = analysis.getPeakWorkspaceBytes())
        peakRemark << " (" << scratch << " of them the op's workspace)";
    }
    if (!perOp)
      return;
    for (const MemoryAnalysis::Step &step : analysis.getSteps()) {
      auto stepRemark = mlir::emitRemark(step.op->getLoc())
                        << "live bytes " << step.liveBytes;
      if (step.workspaceBytes != 0)
        stepRemark << ", workspace bytes " << step.workspaceBytes;
    }
  }
};
} // namespace
