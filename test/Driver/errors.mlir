// Command-line and input errors of remat-compile.
// RUN: not remat-compile %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not remat-compile %s --emit=mlir-linalg --header=%t.h 2>&1 | FileCheck %s --check-prefix=HEADER
// RUN: not remat-compile %s --emit=bogus 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not remat-compile %s --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not remat-compile %s --emit=mlir-remat 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not remat-compile %s --emit=mlir-remat --entry=nothere 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: remat-compile %s --emit=mlir-remat --entry=second | FileCheck %s --check-prefix=CHOSEN

// PTX: error: --emit=ptx and --emit=cubin need --target=cuda
// HEADER: error: --header needs --emit=mlir-buffers or a later stage
// EMIT: error: unknown --emit=bogus
// TARGET: error: unknown --target=tpu (cpu or cuda)
// ENTRY: error: cannot choose the function to compile (2 public functions, 2 training steps); use --entry
// NOFUNC: error: no function 'nothere' to compile
// CHOSEN: func.func @second({{.*}}) -> (tensor<f32>, tensor<4xf32>) attributes {remat.training_step}

func.func @first(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> tensor<f32> {
  %0 = remat.mse %x, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @second(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> tensor<f32> {
  %0 = remat.mse %x, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
