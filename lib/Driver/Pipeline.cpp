//===- Pipeline.cpp - the pass pipelines of remat-compile -----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"

#include "remat/Conversion/Passes.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Driver/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace remat;
using namespace remat::driver;

/// Appends the textual `pipeline` (relative to the module) to `pm`.
static LogicalResult addPipeline(OpPassManager &pm, StringRef pipeline,
                                 Operation *anchor) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (succeeded(parsePassPipeline(pipeline, pm, os)))
    return success();
  return anchor->emitError()
         << "cannot build the pipeline '" << pipeline << "': " << errors;
}

/// Runs `pm` on `module` as the stage `name`: timed under the driver's
/// timing scope, with the caller's pass manager options applied.
static LogicalResult run(PassManager &pm, ModuleOp module,
                         const CompileOptions &options, StringRef name) {
  if (options.configurePassManager &&
      failed(options.configurePassManager(pm)))
    return failure();
  Stage stage(options, name);
  if (options.timing)
    pm.enableTiming(stage.timing());
  return pm.run(module);
}

LogicalResult driver::runRematStage(ModuleOp module,
                                    const CompileOptions &options) {
  // A forward model (parameters marked, no training step yet, one returned
  // value: the loss) gets its backward pass. A function returning more is a
  // training step written by hand or by a framework (the loss and its
  // gradients); remat-rematerialize infers its split.
  bool forward = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() ||
        func->hasAttr(RematDialect::getTrainingStepAttrName()) ||
        func.getNumResults() > 1)
      continue;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      forward |= static_cast<bool>(
          func.getArgAttr(i, RematDialect::getParamAttrName()));
  }
  PassManager pm(module.getContext());
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  if (forward)
    funcPm.addPass(createRematAutodiff());
  if (options.budget || !options.strategy.empty()) {
    RematRematerializeOptions remat;
    if (!options.strategy.empty())
      remat.strategy = options.strategy;
    if (options.budget)
      remat.budget = *options.budget;
    // Every rewrite is checked by the independent verifier against the
    // function before the rewrite (values read, recomputed ops, peak).
    remat.verify = true;
    funcPm.addPass(createRematRematerialize(remat));
  }
  return run(pm, module, options, "remat");
}

LogicalResult driver::runLinalgStage(ModuleOp module,
                                     const CompileOptions &options) {
  PassManager pm(module.getContext());
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createRematLowerToLinalg());
  funcPm.addPass(createRematOpenRecompute());
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
  bool cuda = options.target == Target::CUDA;
  PassManager pm(module.getContext());
  // No CSE or canonicalization before bufferization: it could merge a
  // recomputation back into the value it recomputes.
  if (failed(addPipeline(pm,
                         "one-shot-bufferize{bufferize-function-boundaries "
                         "function-boundary-type-conversion=identity-layout-"
                         "map},buffer-results-to-out-params{hoist-static-"
                         "allocs modify-public-functions}",
                         module)))
    return failure();
  pm.addPass(createRematCopiesToLinalg(
      RematCopiesToLinalgOptions{/*allCopies=*/cuda}));
  if (cuda)
    pm.addPass(createRematMaterializeGlobals());
  std::string arena = "remat-plan-arena";
  if (!options.arenaReport.empty())
    arena += "{json-file=" + options.arenaReport + "}";
  if (failed(addPipeline(pm, arena, module)))
    return failure();
  if (cuda)
    pm.addPass(createRematHostAllocsToGpu());
  // CPU: f32 matmuls call the runtime's GEMM (the testing aid keeps the
  // loops of the CUDA path).
  else if (options.blas && !options.gpuLoopsOnCpu &&
           failed(addPipeline(pm, "remat-linalg-to-blas", module)))
    return failure();
  return run(pm, module, options, "buffers");
}

/// Math on the host: intrinsics where LLVM has them, libm for the rest.
static constexpr StringLiteral kHostScalarPipeline =
    "arith-expand,convert-math-to-llvm,convert-math-to-libm";

/// The loop structure of the CUDA path, before mapping to the GPU: the
/// parallel loops of every linalg op outermost, collapsed to one dimension
/// and tiled by the block size.
static LogicalResult addGpuLoopNest(OpPassManager &pm, ModuleOp module,
                                    const CompileOptions &options) {
  pm.addPass(createRematParallelFirst());
  if (failed(addPipeline(pm, "func.func(convert-linalg-to-parallel-loops)",
                         module)))
    return failure();
  pm.addPass(createRematCollapseParallelLoops());
  return addPipeline(
      pm,
      "func.func(scf-parallel-loop-tiling{parallel-loop-tile-sizes=" +
          std::to_string(options.gpuBlockSize) + " no-min-max-bounds})",
      module);
}

LogicalResult driver::runCpuLLVMStage(ModuleOp module,
                                      const CompileOptions &options) {
  PassManager pm(module.getContext());
  if (options.gpuLoopsOnCpu && failed(addGpuLoopNest(pm, module, options)))
    return failure();
  std::string pipeline =
      "func.func(convert-linalg-to-loops),expand-strided-metadata,"
      "lower-affine,convert-scf-to-cf," +
      kHostScalarPipeline.str() +
      ",finalize-memref-to-llvm,convert-arith-to-llvm,"
      "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
      "convert-cf-to-llvm,reconcile-unrealized-casts";
  if (failed(addPipeline(pm, pipeline, module)))
    return failure();
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
  std::string toolkitOption;
  if (llvm::sys::fs::is_directory(toolkit))
    toolkitOption = " toolkit=" + toolkit;
  else if (format != "isa")
    return module.emitError()
           << "CUDA toolkit '" << toolkit << "' not found (use --cuda-path)";
  std::string opt = std::to_string(options.optLevel);
  PassManager pm(module.getContext());
  // Parallel loops -> one-dimensional grids of `block`-thread blocks.
  if (failed(addGpuLoopNest(pm, module, options)) ||
      failed(addPipeline(pm,
                         "func.func(gpu-map-parallel-loops,convert-parallel-"
                         "loops-to-gpu),gpu-kernel-outlining",
                         module)))
    return failure();
  pm.addPass(createRematMergeGpuModules());
  std::string pipeline =
      "nvvm-attach-target{chip=" + options.chip + " O=" + opt +
      "},expand-strided-metadata,lower-affine,convert-scf-to-cf,"
      "gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),"
      "gpu-module-to-binary{format=" +
      format.str() + toolkitOption + "}," + kHostScalarPipeline.str() +
      ",gpu-to-llvm{use-bare-pointers-for-host=1},"
      "reconcile-unrealized-casts";
  if (failed(addPipeline(pm, pipeline, module)))
    return failure();
  return run(pm, module, options, "mlir-llvm+kernels");
}
