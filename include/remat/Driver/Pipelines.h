//===- Pipelines.h - remat's pass pipelines ---------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The pass pipelines of remat-compile, built from typed pass constructors
/// and registered (`registerRematPipelines`) so that `remat-opt` and upstream
/// `mlir-opt` with the plugin run them by name:
///
///   remat-training-pipeline  func.func(remat-autodiff, remat-rematerialize)
///   remat-linalg-pipeline    func.func(remat-lower-to-linalg,
///                                      remat-open-recompute,
///                                      convert-elementwise-to-linalg,
///                                      remat-fuse-elementwise)
///   remat-buffer-pipeline    one-shot-bufferize ... remat-plan-arena ...
///   remat-cpu-llvm-pipeline  loops, then the LLVM dialect (host code)
///   remat-cuda-llvm-pipeline GPU kernels and the LLVM dialect (host code)
///
/// Each `build...Pipeline` adds the passes to a pass manager anchored on
/// `builtin.module`.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_PIPELINES_H
#define REMAT_DRIVER_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <cstdint>
#include <string>

namespace remat {

/// Options of `remat-training-pipeline`.
struct TrainingPipelineOptions
    : public mlir::PassPipelineOptions<TrainingPipelineOptions> {
  PassOptions::Option<bool> autodiff{
      *this, "autodiff",
      llvm::cl::desc("Run remat-autodiff first (functions that are already "
                     "training steps, or have no remat.param argument, are "
                     "left alone)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("Strategy of remat-rematerialize (empty: no "
                     "rematerialization unless a budget is given, then "
                     "auto)"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> budget{
      *this, "budget",
      llvm::cl::desc("Activation memory budget in bytes (0: none)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> gradSeed{
      *this, "grad-seed",
      llvm::cl::desc("remat-rematerialize's grad-seed: the name location "
                     "(loc(\"NAME\")) of the op that seeds the gradient"),
      llvm::cl::init("")};
  PassOptions::Option<bool> verify{
      *this, "verify",
      llvm::cl::desc("Check every rewrite with the independent schedule "
                     "verifier"),
      llvm::cl::init(true)};
};

/// Options of `remat-buffer-pipeline`.
struct BufferPipelineOptions
    : public mlir::PassPipelineOptions<BufferPipelineOptions> {
  PassOptions::Option<bool> cuda{
      *this, "cuda",
      llvm::cl::desc("Prepare the buffers for the CUDA path (all copies as "
                     "linalg, globals materialised, host allocations on the "
                     "GPU)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("f32 matmuls call the runtime's GEMM (CPU: and the "
                     "convolutions; CUDA: cuBLAS)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> cudnn{
      *this, "cudnn",
      llvm::cl::desc("CUDA, with blas: f32 convolutions call the CUDA "
                     "runtime's cuDNN convolutions (without it: im2col and "
                     "col2im kernels around cuBLAS, remat-conv-to-gemm)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> splitReductions{
      *this, "split-reductions",
      llvm::cl::desc("Few-output long reductions split into slices and "
                     "their partial results, the partials planned into the "
                     "arena (remat-gpu-split-reductions; the CUDA path and "
                     "its loops on the CPU)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> arenaReport{
      *this, "arena-report",
      llvm::cl::desc("Write remat-plan-arena's report as JSON to this file"),
      llvm::cl::init("")};
};

/// Options of `remat-cpu-llvm-pipeline`.
struct CpuLLVMPipelineOptions
    : public mlir::PassPipelineOptions<CpuLLVMPipelineOptions> {
  PassOptions::Option<bool> gpuLoops{
      *this, "gpu-loops",
      llvm::cl::desc("Lower linalg with the loop nest of the CUDA path (a "
                     "testing aid)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Tile size of the parallel loops with gpu-loops"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> parallelThreshold{
      *this, "parallel-threshold",
      llvm::cl::desc("Linalg ops with at least this many iteration points "
                     "run their outermost parallel loop on OpenMP threads "
                     "(remat-cpu-parallel-loops); -1: no OpenMP (not with "
                     "gpu-loops)"),
      llvm::cl::init(32768)};
  PassOptions::Option<bool> parallelBodyWork{
      *this, "parallel-body-work",
      llvm::cl::desc("parallel-threshold counts iteration points times the "
                     "work of one point (remat-cpu-parallel-loops' "
                     "body-work)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> upstreamVectorize{
      *this, "upstream-vectorize",
      llvm::cl::desc("Vectorise the loops that call no library with "
                     "remat-cpu-vectorize (linalg tiling and "
                     "linalg::vectorize, then vector to LLVM) instead of "
                     "leaving them to LLVM's vectorizers at -O2"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> upstreamContractions{
      *this, "upstream-contractions",
      llvm::cl::desc("Without upstream-vectorize: remat-cpu-vectorize "
                     "{contractions-only} (the matmuls that call no "
                     "library); the other loops are left to LLVM"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> rowReductions{
      *this, "row-reductions",
      llvm::cl::desc("Fold the reductions over the unit-stride dimension in "
                     "8 vector lanes, then the lanes in a fixed tree "
                     "(remat-cpu-row-reductions; not with gpu-loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> vectorSize{
      *this, "vector-size",
      llvm::cl::desc("Lanes of remat-cpu-vectorize with upstream-vectorize"),
      llvm::cl::init(8)};
};

/// Options of `remat-cuda-llvm-pipeline`.
struct CudaLLVMPipelineOptions
    : public mlir::PassPipelineOptions<CudaLLVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("CUDA architecture"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("Optimization level of the kernels"),
      llvm::cl::init(2)};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size", llvm::cl::desc("Threads per block"),
      llvm::cl::init(256)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary format: isa (PTX), bin, fatbin"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit directory (ptxas, libdevice); empty: "
                     "gpu-module-to-binary's default"),
      llvm::cl::init("")};
};

/// Autodiff, then (with a strategy or a budget) the rematerialization, both
/// nested under func.func.
void buildTrainingPipeline(mlir::OpPassManager &pm,
                           const TrainingPipelineOptions &options);

/// Options of the `remat-pareto` pipeline.
struct ParetoPipelineOptions
    : public mlir::PassPipelineOptions<ParetoPipelineOptions> {
  PassOptions::Option<std::string> file{
      *this, "file",
      llvm::cl::desc("Where the frontier JSON goes ('-': stdout)"),
      llvm::cl::init("-")};
  PassOptions::Option<std::string> maxRecompute{
      *this, "max-recompute",
      llvm::cl::desc("Recompute limit whose least-peak plan is marked as "
                     "chosen (percent of the forward cost, e.g. 30%)"),
      llvm::cl::init("30%")};
  PassOptions::Option<std::string> gradSeed{
      *this, "grad-seed",
      llvm::cl::desc("Name location (loc(\"NAME\")) of the op that seeds "
                     "the gradient"),
      llvm::cl::init("")};
};

/// The (peak, recompute) frontier of every function, as JSON, without
/// changing the IR: remat-compare-strategies with pareto=FILE.
void buildParetoPipeline(mlir::OpPassManager &pm,
                         const ParetoPipelineOptions &options);

/// remat ops to linalg/tensor/arith/math/scf, recompute regions opened,
/// upstream arith/math ops on tensors turned into linalg.generic ops,
/// elementwise chains fused.
void buildLinalgPipeline(mlir::OpPassManager &pm);

/// Bufferization, out-parameters, remat's memref rewrites and the arena.
void buildBufferPipeline(mlir::OpPassManager &pm,
                         const BufferPipelineOptions &options);

/// Host code: loops, then the LLVM dialect.
void buildCpuLLVMPipeline(mlir::OpPassManager &pm,
                          const CpuLLVMPipelineOptions &options);

/// CUDA: parallel loops mapped to kernels, compiled by gpu-module-to-binary,
/// host code in the LLVM dialect.
void buildCudaLLVMPipeline(mlir::OpPassManager &pm,
                           const CudaLLVMPipelineOptions &options);

/// Registers the pipelines above under their names.
void registerRematPipelines();

} // namespace remat

#endif // REMAT_DRIVER_PIPELINES_H
