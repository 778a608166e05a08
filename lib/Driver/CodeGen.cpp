//===- CodeGen.cpp - LLVM IR, host objects and GPU binaries ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/LoopExtractor.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"

#include <cstdlib>

using namespace mlir;
using namespace remat;
using namespace remat::driver;

/// Returns a message if `cpu` is not a processor `target` knows on `triple`.
static std::optional<std::string> checkProcessor(const llvm::Target &target,
                                                 const llvm::Triple &triple,
                                                 llvm::StringRef cpu,
                                                 llvm::StringRef option,
                                                 llvm::StringRef examples) {
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target.createMCSubtargetInfo(triple, "", ""));
  if (!info || info->isCPUStringValid(cpu))
    return std::nullopt;
  return ("unknown " + option + "=" + cpu +
          ": LLVM has no such processor for " + triple.str() +
          " (for example " + examples + ")")
      .str();
}

std::optional<std::string>
driver::checkTargetNames(const CompileOptions &options) {
  std::string error;
  if (options.cpu != "native") {
    llvm::InitializeNativeTarget();
    llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return error;
    if (options.cpu.empty())
      return std::string("--cpu must not be empty (native or an LLVM CPU)");
    if (auto problem = checkProcessor(*target, triple, options.cpu, "--cpu",
                                      "x86-64, x86-64-v3, skylake, znver4"))
      return problem;
  }
  if (options.target == Target::CUDA) {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
    llvm::Triple triple("nvptx64-nvidia-cuda");
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return "--target=cuda needs LLVM's NVPTX target: " + error;
    if (auto problem = checkProcessor(*target, triple, options.chip, "--chip",
                                      "sm_80, sm_90, sm_90a"))
      return problem;
  }
  return std::nullopt;
}

/// Creates the host TargetMachine: the default triple, `options.cpu`
/// ("native": this machine's CPU and features), PIC.
static std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(const CompileOptions &options, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpu = options.cpu;
  std::string features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures featureSet;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      featureSet.AddFeature(feature.first(), feature.second);
    features = featureSet.getString();
  }
  llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Default;
  if (options.optLevel == 0)
    level = llvm::CodeGenOptLevel::None;
  else if (options.optLevel == 1)
    level = llvm::CodeGenOptLevel::Less;
  else if (options.optLevel >= 3)
    level = llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple, cpu, features, llvm::TargetOptions(),
                                  llvm::Reloc::PIC_, std::nullopt, level));
  if (!machine)
    error = "cannot create a target machine for " + triple.str();
  return machine;
}

/// LLVM's loop passes (rotation, induction variables, deletion) and code
/// generation grow faster than linearly with the size of the function that
/// holds the loops: a 100-layer training step is one function of hundreds of
/// loop nests. Every top-level loop of a function above `threshold`
/// (`CompileOptions::splitInstructions`) becomes a function of its own
/// (LoopExtractor), kept out of line
/// (noinline) so that the -O2 pipeline optimizes small functions. Returns
/// the number of functions made.
static unsigned splitLargeFunctions(llvm::Module &module,
                                    llvm::ModuleAnalysisManager &mam,
                                    int64_t threshold) {
  if (threshold < 0)
    return 0;
  bool large = false;
  for (llvm::Function &func : module)
    large |= static_cast<int64_t>(func.getInstructionCount()) > threshold;
  if (!large)
    return 0;
  llvm::SmallPtrSet<llvm::Function *, 8> original;
  for (llvm::Function &func : module)
    original.insert(&func);
  llvm::ModulePassManager pm;
  pm.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::LoopSimplifyPass()));
  pm.addPass(llvm::LoopExtractorPass());
  pm.run(module, mam);
  unsigned made = 0;
  for (llvm::Function &func : module) {
    if (original.contains(&func) || func.isDeclaration())
      continue;
    func.addFnAttr(llvm::Attribute::NoInline);
    ++made;
  }
  return made;
}

/// Runs the default -O<level> module pipeline.
static void optimize(llvm::Module &module, llvm::TargetMachine &machine,
                     unsigned optLevel, int64_t splitThreshold) {
  if (optLevel == 0)
    return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  splitLargeFunctions(module, mam, splitThreshold);
  llvm::OptimizationLevel level = llvm::OptimizationLevel::O2;
  if (optLevel == 1)
    level = llvm::OptimizationLevel::O1;
  else if (optLevel >= 3)
    level = llvm::OptimizationLevel::O3;
  builder.buildPerModuleDefaultPipeline(level).run(module, mam);
}

std::unique_ptr<llvm::Module>
driver::translateToLLVMIR(ModuleOp module, llvm::LLVMContext &context,
                          const CompileOptions &options) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createHostTargetMachine(options, error);
  if (!machine) {
    module.emitError() << error;
    return nullptr;
  }
  std::unique_ptr<llvm::Module> llvmModule;
  {
    Stage stage(options, "llvm-ir");
    llvmModule = translateModuleToLLVMIR(module, context, "remat");
  }
  if (!llvmModule) {
    module.emitError() << "translation to LLVM IR failed";
    return nullptr;
  }
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  {
    Stage stage(options, "llvm-opt");
    optimize(*llvmModule, *machine, options.optLevel,
             options.splitInstructions);
  }
  if (llvm::verifyModule(*llvmModule, &llvm::errs())) {
    module.emitError() << "the optimized LLVM module does not verify";
    return nullptr;
  }
  return llvmModule;
}

LogicalResult driver::emitObject(llvm::Module &module,
                                 const CompileOptions &options,
                                 llvm::raw_ostream &os) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createHostTargetMachine(options, error);
  if (!machine) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream bufferStream(buffer);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, bufferStream, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    llvm::errs() << "error: the target cannot emit an object file\n";
    return failure();
  }
  {
    Stage stage(options, "object");
    pm.run(module);
  }
  os.write(buffer.data(), buffer.size());
  return success();
}

LogicalResult driver::writeGpuBinaries(ModuleOp module, llvm::raw_ostream &os) {
  unsigned count = 0;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object)
        continue;
      os << object.getObject().getValue();
      ++count;
    }
  }
  if (count == 1)
    return success();
  return module.emitError() << "expected one GPU object, found " << count;
}
