//===- Driver.cpp - remat-compile: stages and outputs ---------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"

#include "remat/Driver/TimeEstimate.h"
#include "remat/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Timer.h"


using namespace mlir;
using namespace remat;
using namespace remat::driver;

Stage::Stage(const CompileOptions &options, StringRef name)
    : name(name.str()), verbose(options.verbose),
      scope(options.timing ? options.timing->nest(name) : TimingScope()),
      start(llvm::TimeRecord::getCurrentTime(/*Start=*/true)) {}

Stage::~Stage() {
  if (!verbose)
    return;
  llvm::TimeRecord elapsed = llvm::TimeRecord::getCurrentTime(false);
  elapsed -= start;
  llvm::errs() << llvm::format(
      "remat-compile: %-18s wall %8.3f s  cpu %8.3f s\n", name.c_str(),
      elapsed.getWallTime(), elapsed.getUserTime() + elapsed.getSystemTime());
}

std::optional<Emit> driver::parseEmit(StringRef name) {
  return llvm::StringSwitch<std::optional<Emit>>(name)
      .Case("mlir-remat", Emit::MlirRemat)
      .Case("mlir-linalg", Emit::MlirLinalg)
      .Case("mlir-buffers", Emit::MlirBuffers)
      .Case("mlir-llvm", Emit::MlirLLVM)
      .Case("llvm", Emit::LLVM)
      .Case("ptx", Emit::PTX)
      .Case("obj", Emit::Obj)
      .Case("cubin", Emit::Cubin)
      .Default(std::nullopt);
}

bool driver::isBinaryEmit(Emit emit) {
  return emit == Emit::Obj || emit == Emit::Cubin;
}

void driver::registerDriverDependencies(DialectRegistry &registry) {
  remat::registerAllDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  remat::registerAllPasses();
}

static void printModule(ModuleOp module, llvm::raw_ostream &os) {
  module.print(os, OpPrintingFlags().enableDebugInfo(false));
  os << "\n";
}

/// Reads the arena figures remat-plan-arena left on the entry function.
static void readArena(func::FuncOp func, EntryInfo &info) {
  if (auto bytes = func->getAttrOfType<IntegerAttr>("remat_arena_bytes"))
    info.arenaBytes = bytes.getInt();
  if (auto bound = func->getAttrOfType<IntegerAttr>("remat_arena_lower_bound"))
    info.arenaLowerBound = bound.getInt();
}

LogicalResult driver::compile(ModuleOp module, const CompileOptions &options,
                              const ArgumentNames &names, llvm::raw_ostream &os,
                              EntryInfo &info) {
  bool cuda = options.target == Target::CUDA;
  if (!cuda && (options.emit == Emit::PTX || options.emit == Emit::Cubin))
    return module.emitError() << "--emit=ptx and --emit=cubin need "
                                 "--target=cuda";
  info.target = options.target;

  // remat IR: the training step, rematerialized on request.
  if (failed(runRematStage(module, options)))
    return failure();
  FailureOr<func::FuncOp> entry = findEntry(module, options.entry);
  if (failed(entry) || failed(describeEntry(*entry, names, info)))
    return failure();
  if (options.budget.value_or(0) > 0 || !options.strategy.empty()) {
    // Beside the plan's remark (flops): what the plan costs in time (the
    // same condition as remat-rematerialize's, Pipelines.cpp).
    TimeModel model{options.timeGflops * 1e9, options.timeGBps * 1e9};
    emitRemark(entry->getLoc())
        << describeStepTime(estimateStepTime(*entry, model), model);
    if (options.timeModel)
      emitRemark(entry->getLoc()) << describeStepTime(
          estimateStepTime(*entry, *options.timeModel), *options.timeModel);
  }
  for (const BufferInfo &buffer : info.buffers)
    if (buffer.shape.size() > 8)
      return entry->emitError()
             << "'" << buffer.name << "' has rank above 8, the header's limit";
  std::string entryName = info.function;
  if (options.emit == Emit::MlirRemat) {
    printModule(module, os);
    return success();
  }

  if (failed(runLinalgStage(module, options)))
    return failure();
  if (options.emit == Emit::MlirLinalg) {
    printModule(module, os);
    return success();
  }

  if (failed(runBufferStage(module, options)))
    return failure();
  auto bufferEntry = module.lookupSymbol<func::FuncOp>(entryName);
  if (!bufferEntry)
    return module.emitError() << "the entry '" << entryName
                              << "' disappeared during bufferization";
  if (failed(checkEntrySignature(bufferEntry, info)))
    return failure();
  readArena(bufferEntry, info);
  // remat-linalg-to-blas declares the runtime routines it calls
  // (remat_cpu_sgemm, remat_cpu_sconv2d, ...).
  info.usesCpuRuntime =
      llvm::any_of(module.getOps<func::FuncOp>(), [](func::FuncOp func) {
        return func.isDeclaration() &&
               func.getSymName().starts_with("remat_cpu_");
      });
  // remat-cpu-parallel-loops and convert-scf-to-openmp run (they may find
  // no loop large enough; the object is linked with libomp all the same).
  info.usesOpenMP =
      !cuda && !options.gpuLoopsOnCpu && options.parallelThreshold >= 0;
  if (failed(addArenaEntry(module, entryName, info.arenaEntry)))
    return failure();
  if (options.emit == Emit::MlirBuffers) {
    printModule(module, os);
    return success();
  }

  if (cuda) {
    // PTX for --emit=ptx; a cubin (ptxas) otherwise.
    StringRef format = options.emit == Emit::PTX ? "isa" : "bin";
    if (failed(runCudaLLVMStage(module, options, format)))
      return failure();
    if (options.emit == Emit::PTX || options.emit == Emit::Cubin)
      return writeGpuBinaries(module, os);
  } else if (failed(runCpuLLVMStage(module, options))) {
    return failure();
  }
  if (options.emit == Emit::MlirLLVM) {
    printModule(module, os);
    return success();
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateToLLVMIR(module, llvmContext, options);
  if (!llvmModule)
    return failure();
  // The signature the header names (getAbiSymbol): one constant byte.
  new llvm::GlobalVariable(
      *llvmModule, llvm::Type::getInt8Ty(llvmContext), /*isConstant=*/true,
      llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantInt::get(llvm::Type::getInt8Ty(llvmContext), 1),
      getAbiSymbol(info));
  if (options.emit == Emit::LLVM) {
    llvmModule->print(os, nullptr);
    return success();
  }
  return emitObject(*llvmModule, options, os);
}
