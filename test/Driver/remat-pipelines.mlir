// The pipelines of remat-compile, registered by name (Pipelines.h) and built
// from typed pass constructors, run the same passes as the textual pipelines
// they replace: each output is identical to the one the textual pipeline
// gives, stage after stage, on a small training step.
//
// remat-training-pipeline: autodiff and the verified rematerialization, on
// every function.
// RUN: remat-opt %s --remat-training-pipeline='strategy=sqrt' -o %t.train.mlir 2>/dev/null
// RUN: remat-opt %s -o %t.train-text.mlir 2>/dev/null \
// RUN:   --pass-pipeline='builtin.module(func.func(remat-autodiff,remat-rematerialize{strategy=sqrt verify=true}))'
// RUN: diff %t.train.mlir %t.train-text.mlir
// RUN: FileCheck %s --check-prefix=TRAIN < %t.train.mlir
// Without strategy= or budget= only autodiff runs.
// RUN: remat-opt %s --remat-training-pipeline | FileCheck %s --check-prefix=AUTODIFF
//
// remat-linalg-pipeline: the lowering with the recompute regions opened,
// upstream elementwise ops on tensors turned into linalg.generic ops, and
// elementwise chains fused.
// RUN: remat-opt %t.train.mlir --remat-linalg-pipeline -o %t.linalg.mlir
// RUN: remat-opt %t.train.mlir -o %t.linalg-text.mlir \
// RUN:   --pass-pipeline='builtin.module(func.func(remat-lower-to-linalg,remat-open-recompute,convert-elementwise-to-linalg,remat-fuse-elementwise))'
// RUN: diff %t.linalg.mlir %t.linalg-text.mlir
// RUN: FileCheck %s --check-prefix=LINALG < %t.linalg.mlir
//
// remat-buffer-pipeline, CPU: bufferization with out-parameters, the arena
// and the GEMM calls.
// RUN: remat-opt %t.linalg.mlir --remat-buffer-pipeline -o %t.buffers.mlir 2>/dev/null
// RUN: remat-opt %t.linalg.mlir -o %t.buffers-text.mlir 2>/dev/null \
// RUN:   --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs modify-public-functions},remat-copies-to-linalg,func.func(remat-plan-arena),remat-linalg-to-blas)'
// RUN: diff %t.buffers.mlir %t.buffers-text.mlir
// RUN: FileCheck %s --check-prefix=BUFFERS < %t.buffers.mlir
//
// remat-cpu-llvm-pipeline: loops, then the LLVM dialect.
// RUN: remat-opt %t.buffers.mlir --remat-cpu-llvm-pipeline -o %t.llvm.mlir
// RUN: remat-opt %t.buffers.mlir -o %t.llvm-text.mlir \
// RUN:   --pass-pipeline='builtin.module(remat-cpu-vectorize{min-work=32768},func.func(convert-vector-to-scf{full-unroll}),remat-cpu-parallel-loops{min-work=32768},func.func(convert-linalg-to-loops),convert-scf-to-openmp,expand-strided-metadata,lower-affine,convert-vector-to-llvm,finalize-memref-to-llvm,convert-scf-to-cf{allow-pattern-rollback=false},arith-expand,convert-math-to-llvm,convert-math-to-libm,convert-vector-to-llvm,convert-arith-to-llvm,convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},convert-cf-to-llvm,convert-openmp-to-llvm,reconcile-unrealized-casts)'
// RUN: diff %t.llvm.mlir %t.llvm-text.mlir
// RUN: FileCheck %s --check-prefix=LLVM < %t.llvm.mlir
// With a threshold every op meets, the loops become OpenMP worksharing
// loops; -1 (no OpenMP) is the plain loop lowering.
// RUN: remat-opt %t.buffers.mlir --remat-cpu-llvm-pipeline='parallel-threshold=1' | FileCheck %s --check-prefix=OMP
// RUN: remat-opt %t.buffers.mlir --remat-cpu-llvm-pipeline='parallel-threshold=-1' -o %t.seq.mlir
// RUN: remat-opt %t.buffers.mlir -o %t.seq-text.mlir \
// RUN:   --pass-pipeline='builtin.module(remat-cpu-vectorize,func.func(convert-vector-to-scf{full-unroll}),func.func(convert-linalg-to-loops),expand-strided-metadata,lower-affine,convert-vector-to-llvm,finalize-memref-to-llvm,convert-scf-to-cf{allow-pattern-rollback=false},arith-expand,convert-math-to-llvm,convert-math-to-libm,convert-vector-to-llvm,convert-arith-to-llvm,convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},convert-cf-to-llvm,reconcile-unrealized-casts)'
// RUN: diff %t.seq.mlir %t.seq-text.mlir
//
// The CUDA path: remat-buffer-pipeline with cuda=true, then
// remat-cuda-llvm-pipeline to PTX (format=isa needs no CUDA toolkit here:
// relu, matmul and mse need no math function).
// RUN: remat-opt %t.linalg.mlir --remat-buffer-pipeline='cuda=true' -o %t.gpu-buffers.mlir 2>/dev/null
// RUN: remat-opt %t.linalg.mlir -o %t.gpu-buffers-text.mlir 2>/dev/null \
// RUN:   --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs modify-public-functions},remat-copies-to-linalg{all-copies},remat-materialize-globals,func.func(remat-conv-to-gemm),func.func(remat-plan-arena),remat-host-allocs-to-gpu,remat-linalg-to-blas{target=cuda})'
// RUN: diff %t.gpu-buffers.mlir %t.gpu-buffers-text.mlir
// RUN: remat-opt %t.gpu-buffers.mlir --remat-cuda-llvm-pipeline='format=isa chip=sm_80 block-size=128' -o %t.cuda.mlir
// RUN: remat-opt %t.gpu-buffers.mlir -o %t.cuda-text.mlir \
// RUN:   --pass-pipeline='builtin.module(remat-gpu-block-reductions{block-size=128},remat-parallel-first,func.func(convert-linalg-to-parallel-loops),remat-collapse-parallel-loops,func.func(scf-parallel-loop-tiling{parallel-loop-tile-sizes=128 no-min-max-bounds}),func.func(gpu-map-parallel-loops,convert-parallel-loops-to-gpu),gpu-launch-sink-index-computations,gpu-kernel-outlining,remat-merge-gpu-modules,remat-gpu-step-stream,nvvm-attach-target{chip=sm_80 O=2},expand-strided-metadata,lower-affine,convert-scf-to-cf{allow-pattern-rollback=false},gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa},arith-expand,convert-math-to-llvm,convert-math-to-libm,gpu-to-llvm{use-bare-pointers-for-host=1},reconcile-unrealized-casts)'
// The kernel object records its compile time: left out of the comparison.
// RUN: sed -e 's/LLVMIRToISATimeInMs = [0-9]*//' %t.cuda.mlir > %t.cuda.cmp
// RUN: sed -e 's/LLVMIRToISATimeInMs = [0-9]*//' %t.cuda-text.mlir > %t.cuda-text.cmp
// RUN: diff %t.cuda.cmp %t.cuda-text.cmp
// RUN: FileCheck %s --check-prefix=CUDA < %t.cuda.mlir
//
// Bad pipeline options are refused by the option parser.
// RUN: not remat-opt %s --remat-buffer-pipeline='cuda=maybe' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --cuda option: 'maybe' is invalid value for boolean argument

// TRAIN-LABEL: func.func @chain4
// TRAIN-SAME: attributes {remat.training_step}
// TRAIN: remat.recompute
// TRAIN: return

// AUTODIFF-LABEL: func.func @chain4
// AUTODIFF-SAME: attributes {remat.training_step}
// AUTODIFF-NOT: remat.recompute
// AUTODIFF: return

// No remat op is left and the recompute regions are open.
// LINALG-LABEL: func.func @chain4
// LINALG-NOT: = remat.
// LINALG: linalg.matmul
// LINALG-NOT: = remat.
// LINALG: return

// BUFFERS-LABEL: func.func @chain4
// BUFFERS: memref.alloc() {alignment = 64 : i64, remat_arena} : memref<{{[0-9]+}}xi8>
// BUFFERS: call @remat_cpu_sgemm

// LLVM: llvm.func @chain4
// LLVM-NOT: omp.parallel
// LLVM-NOT: func.func @chain4
// LLVM: llvm.call @remat_cpu_sgemm

// OMP: llvm.func @chain4
// OMP: omp.parallel
// OMP: omp.wsloop
// OMP: llvm.call @remat_cpu_sgemm

// CUDA: llvm.func @chain4
// CUDA: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// CUDA: gpu.launch_func <%[[S]] : !llvm.ptr> @chain4_kernel::@chain4_kernel blocks in
// CUDA: gpu.binary @chain4_kernel [#gpu.object<#nvvm.target<chip = "sm_80">, {{.*}}assembly = "{{.*}}.target sm_80

func.func @chain4(%x: tensor<16x16xf32>, %w: tensor<16x16xf32> {remat.param},
                  %t: tensor<16x16xf32>) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = remat.relu %0 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %2 = remat.relu %1 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %3 = remat.relu %2 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %4 = remat.relu %3 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %5 = remat.mse %4, %t : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<f32>
  return %5 : tensor<f32>
}
