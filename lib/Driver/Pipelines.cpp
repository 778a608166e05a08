//===- Pipelines.cpp - remat's pass pipelines -----------------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Driver/Pipelines.h"

#include "remat/Conversion/Passes.h"
#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Driver/Passes.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace remat;

void remat::buildTrainingPipeline(OpPassManager &pm,
                                  const TrainingPipelineOptions &options) {
  bool rematerialize = !options.strategy.empty() || options.budget > 0;
  if (!options.autodiff && !rematerialize)
    return;
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  if (options.autodiff)
    funcPm.addPass(createRematAutodiff());
  if (!rematerialize)
    return;
  RematRematerializeOptions remat;
  if (!options.strategy.empty())
    remat.strategy = options.strategy;
  remat.budget = options.budget;
  remat.gradSeed = options.gradSeed;
  remat.verify = options.verify;
  funcPm.addPass(createRematRematerialize(remat));
}

void remat::buildLinalgPipeline(OpPassManager &pm) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createRematLowerToLinalg());
  funcPm.addPass(createRematOpenRecompute());
  // Upstream arith/math ops on whole tensors (what remat-autodiff's upstream
  // rules and hand-written steps produce) become linalg.generic ops, so they
  // bufferize and fuse like the lowered remat ops.
  funcPm.addPass(createConvertElementwiseToLinalgPass());
  funcPm.addPass(createRematFuseElementwise());
}

void remat::buildBufferPipeline(OpPassManager &pm,
                                const BufferPipelineOptions &options) {
  // No CSE or canonicalization before bufferization: it could merge a
  // recomputation back into the value it recomputes.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createRematCopiesToLinalg(
      RematCopiesToLinalgOptions{/*allCopies=*/options.cuda}));
  if (options.cuda)
    pm.addPass(createRematMaterializeGlobals());
  // CUDA without cuDNN: convolutions as im2col + GEMM + col2im, their column
  // buffers planned into the arena.
  if (options.cuda && options.blas && !options.cudnn)
    pm.addNestedPass<func::FuncOp>(createRematConvToGemm());
  if (options.splitReductions)
    pm.addPass(createRematGpuSplitReductions());
  RematPlanArenaOptions arena;
  arena.jsonFile = options.arenaReport;
  pm.addNestedPass<func::FuncOp>(createRematPlanArena(arena));
  if (options.cuda)
    pm.addPass(createRematHostAllocsToGpu());
  if (options.blas)
    pm.addPass(createRematLinalgToBlas(RematLinalgToBlasOptions{
        options.cuda ? "cuda" : "cpu", options.cuda && options.cudnn}));
}

/// convert-scf-to-cf without pattern rollback: the rewriter applies each
/// change at once instead of recording it for a possible undo, which the
/// lowering of scf.for/if/while never needs. With rollback the pass grows
/// faster than linearly with the size of a function: on imported
/// MobileNetV2's step (one function of ~1,860 loop nests) it took 7.8 of the
/// stage's 9.4 s; without, 1.1 s, and the output is the same.
static std::unique_ptr<Pass> createScfToCfPass() {
  SCFToControlFlowPassOptions options;
  options.allowPatternRollback = false;
  return createSCFToControlFlowPass(options);
}

/// Math on the host: intrinsics where LLVM has them, libm for the rest.
static void addHostScalarPasses(OpPassManager &pm) {
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
}

/// The loop structure of the CUDA path, before mapping to the GPU: the
/// parallel loops of every linalg op outermost, collapsed to one dimension
/// and tiled by the block size.
static void addGpuLoopNest(OpPassManager &pm, int64_t blockSize) {
  pm.addPass(createRematParallelFirst());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createRematCollapseParallelLoops());
  pm.addNestedPass<func::FuncOp>(createParallelLoopTilingPass(
      {blockSize}, /*noMinMaxBounds=*/true));
}

void remat::buildCpuLLVMPipeline(OpPassManager &pm,
                                 const CpuLLVMPipelineOptions &options) {
  // Threads: the outer loop of each large linalg op becomes an OpenMP
  // worksharing loop (the testing aid's parallel loops stay sequential).
  bool openmp = !options.gpuLoops && options.parallelThreshold >= 0;
  // Upstream vectorisation: before the parallel loops; the ops it
  // vectorises that remat-cpu-parallel-loops would put on threads get their
  // outer tile loop on threads (the same rule and threshold). By default
  // every op it can take; upstream-vectorize=0 keeps it to the contractions
  // that call no library (bench/perf-results.md, "Upstream vectorisation").
  bool upstream = !options.gpuLoops &&
                  (options.upstreamVectorize || options.upstreamContractions);
  // Row reductions in vector lanes and a fixed lane tree, whichever
  // vectoriser runs (docs/Conventions.md, "Row reductions (CPU)").
  bool rows = !options.gpuLoops && options.rowReductions;
  int64_t minWork = openmp ? options.parallelThreshold : int64_t(-1);
  if (rows)
    pm.addPass(createRematCpuRowReductions(RematCpuRowReductionsOptions{
        /*lanes=*/8, /*minLength=*/16, minWork, options.parallelBodyWork}));
  if (upstream) {
    pm.addPass(createRematCpuVectorize(RematCpuVectorizeOptions{
        options.vectorSize,
        /*contractionsOnly=*/!options.upstreamVectorize, minWork,
        options.parallelBodyWork}));
    VectorTransferToSCFOptions transfers;
    transfers.enableFullUnroll();
    pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(transfers));
  }
  if (options.gpuLoops) {
    // The block reductions as host loops in the kernels' order, then the
    // CUDA path's loop nest for the rest.
    RematGpuBlockReductionsOptions reductions;
    reductions.blockSize = options.blockSize;
    reductions.cpu = true;
    pm.addPass(createRematGpuBlockReductions(reductions));
    addGpuLoopNest(pm, options.blockSize);
  }
  if (openmp)
    pm.addPass(createRematCpuParallelLoops(RematCpuParallelLoopsOptions{
        options.parallelThreshold, options.parallelBodyWork}));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  if (openmp)
    pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  if (upstream || rows)
    pm.addPass(createConvertVectorToLLVMPass());
  // Before convert-scf-to-cf: the memref.alloca_scope that
  // convert-scf-to-openmp puts around each loop body must still hold one
  // block when it is lowered.
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createScfToCfPass());
  addHostScalarPasses(pm);
  // convert-math-to-libm unrolls vector math functions without an LLVM
  // intrinsic (erf, the exact GELU's) into vector.extract / a libm call /
  // vector.insert per lane: those vector ops are lowered here.
  if (upstream || rows)
    pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createConvertControlFlowToLLVMPass());
  if (openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void remat::buildCudaLLVMPipeline(OpPassManager &pm,
                                  const CudaLLVMPipelineOptions &options) {
  // Reductions -> one block per output element (shared-memory tree), then
  // the other parallel loops -> one-dimensional grids of `block`-thread
  // blocks.
  RematGpuBlockReductionsOptions reductions;
  reductions.blockSize = options.blockSize;
  pm.addPass(createRematGpuBlockReductions(reductions));
  addGpuLoopNest(pm, options.blockSize);
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createGpuMapParallelLoopsPass());
  funcPm.addPass(createConvertParallelLoopToGpuPass());
  // Constants and index computations used by a launch body move into it,
  // so the kernels see them as immediates rather than as parameters.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createRematMergeGpuModules());
  pm.addPass(createRematGpuStepStream());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createScfToCfPass());
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createConvertGpuOpsToNVVMOps());
  gpuPm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  addHostScalarPasses(pm);
  GpuToLLVMConversionPassOptions gpuToLLVM;
  gpuToLLVM.hostBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(gpuToLLVM));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void remat::buildParetoPipeline(OpPassManager &pm,
                                const ParetoPipelineOptions &options) {
  RematCompareStrategiesOptions compare;
  compare.pareto = options.file;
  compare.maxRecompute = options.maxRecompute;
  compare.gradSeed = options.gradSeed;
  pm.addNestedPass<func::FuncOp>(createRematCompareStrategies(compare));
}

namespace {
/// `remat-linalg-pipeline` takes no option.
struct NoPipelineOptions : public PassPipelineOptions<NoPipelineOptions> {};
} // namespace

void remat::registerRematPipelines() {
  PassPipelineRegistration<TrainingPipelineOptions>(
      "remat-training-pipeline",
      "remat-autodiff, then (with strategy= or budget=) "
      "remat-rematerialize checked by the schedule verifier, on every "
      "function",
      buildTrainingPipeline);
  PassPipelineRegistration<ParetoPipelineOptions>(
      "remat-pareto",
      "The non-dominated (peak, recompute) plans of every function across "
      "all strategies and budgets, as JSON to file= (the chosen plan under "
      "max-recompute= marked; scripts/plot-pareto.py draws it); the IR is "
      "not changed",
      buildParetoPipeline);
  PassPipelineRegistration<NoPipelineOptions>(
      "remat-linalg-pipeline",
      "remat-lower-to-linalg, remat-open-recompute, "
      "convert-elementwise-to-linalg and remat-fuse-elementwise on every "
      "function",
      [](OpPassManager &pm, const NoPipelineOptions &) {
        buildLinalgPipeline(pm);
      });
  PassPipelineRegistration<BufferPipelineOptions>(
      "remat-buffer-pipeline",
      "One-shot bufferization with out-parameters, remat's memref rewrites, "
      "the arena and (CPU) the GEMM calls, as remat-compile runs them",
      buildBufferPipeline);
  PassPipelineRegistration<CpuLLVMPipelineOptions>(
      "remat-cpu-llvm-pipeline",
      "Loops, then the LLVM dialect for the host, as remat-compile runs "
      "them",
      buildCpuLLVMPipeline);
  PassPipelineRegistration<CudaLLVMPipelineOptions>(
      "remat-cuda-llvm-pipeline",
      "Reductions as block-parallel kernels, parallel loops mapped to CUDA "
      "kernels, gpu-module-to-binary and the LLVM dialect for the host, as "
      "remat-compile runs them",
      buildCudaLLVMPipeline);
}
