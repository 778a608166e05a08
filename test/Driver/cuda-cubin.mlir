// REQUIRES: ptxas
// With ptxas: a cubin for the kernels, a host object that embeds it and
// calls the mgpu* runtime and the runtime's cuBLAS GEMM, and a runner
// linked against the remat CUDA runtime and the toolkit's libcublas
// (linking needs no GPU; running does, see cuda-e2e.test).
// RUN: rm -rf %t && mkdir -p %t
// RUN: remat-compile %s --target=cuda --emit=cubin -o %t/k.cubin 2>/dev/null
// RUN: od -A n -c -N 4 %t/k.cubin | FileCheck %s --check-prefix=ELF
// RUN: remat-compile %s --target=cuda --emit=obj -o %t/step.o --header=%t/step.h 2>/dev/null
// RUN: llvm-nm %t/step.o | FileCheck %s --check-prefix=NM
// RUN: FileCheck %s --check-prefix=HEADER < %t/step.h
// RUN: remat-runner --header %t/step.h --object %t/step.o -o %t/run
// RUN: llvm-nm %t/run | FileCheck %s --check-prefix=RUNNER

func.func @step(%x: tensor<16x32xf32>, %labels: tensor<16xi64>,
                %w: tensor<32x10xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<16x32xf32>, tensor<32x10xf32>) -> tensor<16x10xf32>
  %1 = remat.tanh %0 : (tensor<16x10xf32>) -> tensor<16x10xf32>
  %2 = remat.softmax_cross_entropy %1, %labels : (tensor<16x10xf32>, tensor<16xi64>) -> tensor<f32>
  return %2 : tensor<f32>
}

// ELF: 177 E L F

// NM-DAG: T step
// NM-DAG: T step_arena
// NM-DAG: r step_arena_kernel_binary
// NM-DAG: t step_arena_kernel_load
// NM-DAG: U mgpuLaunchKernel
// NM-DAG: U mgpuMemAlloc
// NM-DAG: U mgpuModuleLoad
// NM-DAG: U remat_cuda_sgemm

// HEADER: #define REMAT_TARGET_CUDA 1
// HEADER: #define REMAT_BUF_labels_INT_RANGE 10
// HEADER: (managed memory, e.g. remat_cuda_alloc_managed;
// HEADER: #define REMAT_ENTRY_ARENA step_arena

// RUNNER-DAG: T mgpuLaunchKernel
// RUNNER-DAG: T mgpuModuleLoad
// RUNNER-DAG: T remat_cuda_alloc_managed
// RUNNER-DAG: T step
// RUNNER-DAG: T step_arena
// RUNNER-DAG: U cuLaunchKernel
// RUNNER-DAG: T remat_cuda_sgemm
// RUNNER-DAG: U cublasGemmStridedBatchedEx_64
// RUNNER-DAG: U cublasSetMathMode
