//===- remat-opt.cpp - remat optimizer driver -------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// MlirOptMain with two guards around it: the input is scanned for bracket
// nesting (and size) before the recursive MLIR parser sees it, and `-o F` is
// written to a temporary file renamed over F only when the run succeeds.
// After the pipeline, the tool writes the report files that passes running
// on functions asked for (Reports.h).
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/Reports.h"
#include "remat/InitAll.h"
#include "remat/Support/AtomicOutput.h"
#include "remat/Support/InputLimits.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

namespace cl = llvm::cl;

static remat::InputLimitOptions inputLimits(remat::NestingSyntax::MLIR);

namespace {
/// The tool's last step, appended to the user's pipeline: writes the report
/// files named by the `remat_reports` attributes that the passes left on
/// functions, and removes the attributes. Not a registered pass: it belongs
/// to this driver, like the output file.
struct WriteReports
    : public mlir::PassWrapper<WriteReports, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(WriteReports)
  llvm::StringRef getArgument() const override {
    return "remat-opt-write-reports";
  }
  void runOnOperation() override {
    if (failed(remat::writeFunctionReports(getOperation())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "remat-opt") << message << "\n";
  return EXIT_FAILURE;
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  remat::registerAllDialects(registry);
  // gpu-module-to-binary (remat-cuda-llvm-pipeline) translates kernels to
  // LLVM IR, as upstream mlir-opt lets it.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  remat::registerAllPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "remat optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  config.setPassPipelineSetupFn(
      [userPipeline = config](mlir::PassManager &pm) -> mlir::LogicalResult {
        if (failed(userPipeline.setupPassPipeline(pm)))
          return mlir::failure();
        pm.addPass(std::make_unique<WriteReports>());
        return mlir::success();
      });
  // Listing dialects or passes reads no input and writes no file.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  llvm::InitLLVM initLLVM(argc, argv);

  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &message);
  if (!input)
    return fail(message);
  if (failed(remat::checkMLIRInputLimits(
          *input, inputLimits.get(),
          [](const llvm::Twine &message) { fail(message); })))
    return EXIT_FAILURE;

  llvm::Expected<std::unique_ptr<remat::AtomicOutput>> output =
      remat::AtomicOutput::create(outputFilename);
  if (!output)
    return fail(llvm::toString(output.takeError()));
  if (failed(mlir::MlirOptMain((*output)->os(), std::move(input), registry,
                               config)))
    return EXIT_FAILURE;
  if (llvm::Error error = (*output)->commit())
    return fail(llvm::toString(std::move(error)));
  return EXIT_SUCCESS;
}
