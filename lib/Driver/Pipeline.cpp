//===- Pipeline.cpp - the stages of remat-compile -------------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/Transforms/Reports.h"
#include "remat/Driver/Pipelines.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace remat;
using namespace remat::driver;

/// Runs `pm` on `module` as the stage `name`: timed under the driver's
/// timing scope, with the caller's pass manager options applied. Then
/// writes the reports the passes left on functions (Reports.h).
static LogicalResult run(PassManager &pm, ModuleOp module,
                         const CompileOptions &options, StringRef name) {
  if (options.configurePassManager &&
      failed(options.configurePassManager(pm)))
    return failure();
  Stage stage(options, name);
  if (options.timing)
    pm.enableTiming(stage.timing());
  if (failed(pm.run(module)))
    return failure();
  return writeFunctionReports(module);
}

LogicalResult driver::runRematStage(ModuleOp module,
                                    const CompileOptions &options) {
  // A forward model (parameters marked, no training step yet, one returned
  // value besides its `remat.state` results: the loss) gets its backward
  // pass. A function returning more is a training step written by hand or by
  // a framework (the loss and its gradients); remat-rematerialize infers its
  // split.
  bool forward = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    unsigned numUnmarked = 0;
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      numUnmarked += !func.getResultAttr(i, RematDialect::getStateAttrName());
    if (func.isExternal() ||
        func->hasAttr(RematDialect::getTrainingStepAttrName()) ||
        numUnmarked > 1)
      continue;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      forward |= static_cast<bool>(
          func.getArgAttr(i, RematDialect::getParamAttrName()));
  }
  TrainingPipelineOptions training;
  training.autodiff = forward;
  training.strategy = options.strategy;
  training.budget = options.budget.value_or(0);
  training.gradSeed = options.gradSeed;
  // Every rewrite is checked by the independent verifier against the
  // function before the rewrite (values read, recomputed ops, peak).
  training.verify = true;
  PassManager pm(module.getContext());
  buildTrainingPipeline(pm, training);
  return run(pm, module, options, "remat");
}

LogicalResult driver::runLinalgStage(ModuleOp module,
                                     const CompileOptions &options) {
  PassManager pm(module.getContext());
  buildLinalgPipeline(pm);
  return run(pm, module, options, "linalg");
}

/// Rejects arith and math ops on tensors that bufferization cannot handle
/// (one-shot-bufferize would only say "op was not bufferized").
static LogicalResult checkBufferizable(ModuleOp module) {
  WalkResult result = module.walk([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    if ((dialect != "arith" && dialect != "math") ||
        isa<bufferization::BufferizableOpInterface>(op))
      return WalkResult::advance();
    auto isTensor = [](Type t) { return isa<TensorType>(t); };
    if (llvm::none_of(op->getOperandTypes(), isTensor) &&
        llvm::none_of(op->getResultTypes(), isTensor))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' on tensors cannot be compiled: remat-compile "
                       "lowers remat ops, linalg and tensor ops, and "
                       "elementwise arith/math on scalars (inside a "
                       "linalg.generic body); use the remat op (e.g. "
                       "remat.tanh, remat.exp, remat.add) or a linalg.generic";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

LogicalResult driver::runBufferStage(ModuleOp module,
                                     const CompileOptions &options) {
  if (failed(checkBufferizable(module)))
    return failure();
  BufferPipelineOptions buffers;
  buffers.cuda = options.target == Target::CUDA;
  // CPU: f32 matmuls call the runtime's GEMM (the testing aid keeps the
  // loops of the CUDA path).
  buffers.blas = options.blas && !options.gpuLoopsOnCpu;
  buffers.splitReductions =
      options.target == Target::CUDA || options.gpuLoopsOnCpu;
  buffers.cudnn = options.cudnn;
  buffers.arenaReport = options.arenaReport;
  PassManager pm(module.getContext());
  buildBufferPipeline(pm, buffers);
  return run(pm, module, options, "buffers");
}

LogicalResult driver::runCpuLLVMStage(ModuleOp module,
                                      const CompileOptions &options) {
  CpuLLVMPipelineOptions cpu;
  cpu.gpuLoops = options.gpuLoopsOnCpu;
  cpu.blockSize = options.gpuBlockSize;
  cpu.parallelThreshold = options.parallelThreshold;
  cpu.parallelBodyWork = options.parallelBodyWork;
  cpu.upstreamVectorize = options.upstreamVectorize;
  cpu.upstreamContractions = options.upstreamContractions;
  cpu.rowReductions = options.rowReductions;
  PassManager pm(module.getContext());
  buildCpuLLVMPipeline(pm, cpu);
  // A subprogram per function: the translation then turns the ops' file
  // locations into line tables.
  if (options.debugLines)
    pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass());
  return run(pm, module, options, "mlir-llvm");
}

std::string driver::cudaToolkitPath(const CompileOptions &options) {
  if (!options.cudaPath.empty())
    return options.cudaPath;
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (std::optional<std::string> value = llvm::sys::Process::GetEnv(var))
      if (!value->empty())
        return *value;
  return "/usr/local/cuda";
}

LogicalResult driver::runCudaLLVMStage(ModuleOp module,
                                       const CompileOptions &options,
                                       StringRef format) {
  // The toolkit provides ptxas (cubins) and libdevice (math functions in
  // kernels); PTX without math functions needs neither.
  std::string toolkit = cudaToolkitPath(options);
  std::string toolkitPath;
  if (llvm::sys::fs::is_directory(toolkit))
    toolkitPath = toolkit;
  else if (format != "isa")
    return module.emitError()
           << "CUDA toolkit '" << toolkit << "' not found (use --cuda-path)";
  CudaLLVMPipelineOptions cuda;
  cuda.chip = options.chip;
  cuda.optLevel = options.optLevel;
  cuda.blockSize = options.gpuBlockSize;
  cuda.format = format.str();
  cuda.toolkit = toolkitPath;
  PassManager pm(module.getContext());
  buildCudaLLVMPipeline(pm, cuda);
  return run(pm, module, options, "mlir-llvm+kernels");
}
