// remat-compile -v prints every stage with its wall and CPU time as it
// ends; --timing (or --mlir-timing) prints MLIR's timing report with the
// stages and their passes; MLIR's usual flags are accepted.
// RUN: remat-compile %s -o %t.o -v 2>&1 | FileCheck %s --check-prefix=VERBOSE
// RUN: remat-compile %s -o %t.o --timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: remat-compile %s -o %t.o --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: remat-compile %s --emit=mlir-buffers --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=STATS

// VERBOSE: remat-compile: remat {{ *}}wall {{ *[0-9]+\.[0-9]+}} s cpu {{ *[0-9]+\.[0-9]+}} s
// VERBOSE: remat-compile: linalg
// VERBOSE: remat-compile: buffers
// VERBOSE: remat-compile: mlir-llvm
// VERBOSE: remat-compile: llvm-ir
// VERBOSE: remat-compile: llvm-split
// VERBOSE: remat-compile: llvm-opt
// VERBOSE: remat-compile: object

// TIMING: Execution time report
// TIMING: remat
// TIMING-NEXT: 'func.func' Pipeline
// TIMING-NEXT: RematAutodiff
// TIMING: linalg
// TIMING-NEXT: 'func.func' Pipeline
// TIMING-NEXT: RematLowerToLinalg
// TIMING-NEXT: RematOpenRecompute
// TIMING: buffers
// TIMING: RematPlanArena
// TIMING-NEXT: RematLinalgToBlas
// TIMING: mlir-llvm
// TIMING: llvm-split
// TIMING: llvm-opt
// TIMING: object
// TIMING: Total

// STATS: Pass statistics report

func.func @step(%x: tensor<4x8xf32>, %labels: tensor<4xi64>,
                %w: tensor<8x3xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %loss = remat.softmax_cross_entropy %0, %labels : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
