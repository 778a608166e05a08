//===- CodeGen.cpp - LLVM IR, host objects and GPU binaries ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
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
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"
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
/// loop nests. Every top-level loop (in loop-simplify form) of a function
/// above `threshold` (`CompileOptions::splitInstructions`) becomes a function
/// of its own, kept out of line (noinline) so that the -O2 pipeline
/// optimizes small functions. Unlike LLVM's LoopExtractor, which rebuilds
/// the extractor's analysis of the whole function for every loop (quadratic
/// in the number of loops: 3-4 s of CPU on MobileNetV2's 1,859 loops), one
/// CodeExtractorAnalysisCache serves all loops of a function (extraction
/// keeps it valid). Returns the number of functions made.
static unsigned splitLargeFunctions(llvm::Module &module, int64_t threshold) {
  if (threshold < 0)
    return 0;
  llvm::SmallVector<llvm::Function *> large;
  for (llvm::Function &func : module)
    if (!func.isDeclaration() &&
        static_cast<int64_t>(func.getInstructionCount()) > threshold)
      large.push_back(&func);
  llvm::SmallVector<llvm::Function *> made;
  for (llvm::Function *func : large) {
    llvm::DominatorTree domTree(*func);
    llvm::LoopInfo loopInfo(domTree);
    llvm::AssumptionCache assumptions(*func);
    llvm::SmallVector<llvm::Loop *> loops(loopInfo.begin(), loopInfo.end());
    if (loops.size() < 2)
      continue;
    for (llvm::Loop *loop : loops)
      llvm::simplifyLoop(loop, &domTree, &loopInfo, /*SE=*/nullptr,
                         &assumptions, /*MSSAU=*/nullptr,
                         /*PreserveLCSSA=*/false);
    llvm::CodeExtractorAnalysisCache cache(*func);
    for (llvm::Loop *loop : loops) {
      if (!loop->isLoopSimplifyForm())
        continue;
      llvm::CodeExtractor extractor(loop->getBlocks(), &domTree,
                                    /*AggregateArgs=*/false, /*BFI=*/nullptr,
                                    /*BPI=*/nullptr, &assumptions);
      if (llvm::Function *extracted = extractor.extractCodeRegion(cache)) {
        extracted->addFnAttr(llvm::Attribute::NoInline);
        made.push_back(extracted);
        loopInfo.erase(loop);
      }
    }
  }
  // Layers of the same shape give loop nests that differ only in the
  // buffers they touch, which the extracted functions take as arguments:
  // one function per distinct body is optimized and compiled, and the calls
  // of its copies call it instead (MergeFunctions orders functions by their
  // bodies and names only, so the output depends on nothing but the input;
  // test/Driver/split-loops.test compiles twice and compares the bytes).
  llvm::MergeFunctionsPass::runOnFunctions(made);
  return made.size();
}

/// Splits the large functions (stage "llvm-split"), then runs the default
/// -O<level> module pipeline (stage "llvm-opt").
static void optimize(llvm::Module &module, llvm::TargetMachine &machine,
                     const CompileOptions &options) {
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
  {
    Stage stage(options, "llvm-split");
    if (options.optLevel != 0)
      splitLargeFunctions(module, options.splitInstructions);
  }
  Stage stage(options, "llvm-opt");
  if (options.optLevel == 0)
    return;
  llvm::OptimizationLevel level = llvm::OptimizationLevel::O2;
  if (options.optLevel == 1)
    level = llvm::OptimizationLevel::O1;
  else if (options.optLevel >= 3)
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
  optimize(*llvmModule, *machine, options);
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
