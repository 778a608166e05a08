//===- MemoryReport.cpp - report liveness and the memory peak ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Dialect/Remat/Transforms/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

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
    std::string json;
    llvm::raw_string_ostream jsonOs(json);
    bool first = true;
    jsonOs << "[";
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      auto &analysis = getChildAnalysis<MemoryAnalysis>(func);
      if (!analysis.isValid()) {
        analysis.getErrorOp()->emitError() << analysis.getError();
        return signalPassFailure();
      }
      report(func, analysis);
      if (!jsonFile.empty()) {
        jsonOs << (first ? "\n" : ",\n");
        analysis.writeJSON(jsonOs, func.getSymName());
        first = false;
      }
    }
    jsonOs << "]\n";
    markAllAnalysesPreserved();
    if (jsonFile.empty())
      return;
    std::string message;
    auto file = openOutputFile(jsonFile, &message);
    if (!file) {
      getOperation().emitError()
          << "cannot write '" << jsonFile << "': " << message;
      return signalPassFailure();
    }
    file->os() << json;
    file->keep();
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
      mlir::emitRemark(peak->getLoc())
          << "memory peak: " << analysis.getPeakBytes()
          << " activation bytes live";
    }
    if (!perOp)
      return;
    for (const MemoryAnalysis::Step &step : analysis.getSteps())
      mlir::emitRemark(step.op->getLoc()) << "live bytes " << step.liveBytes;
  }
};
} // namespace
