// Elementwise chains are fused before the kernels are formed
// (remat-fuse-elementwise, the last pass of remat-linalg-pipeline): on
// --target=cuda the backward chain mse_grad -> relu_grad -> gelu_grad is
// one linalg.generic writing the gradient, hence one kernel.
// Forward values that the backward pass reads again (gelu's and relu's
// outputs) stay buffers of their own. No math function is called by the
// host code, and the kernels' tanh needs libdevice only for cubins.
// RUN: remat-compile %s --target=cuda --emit=mlir-buffers 2>/dev/null | FileCheck %s
// RUN: remat-compile %s --target=cuda --emit=ptx 2>/dev/null | FileCheck %s --check-prefix=PTX

func.func @step(%t: tensor<16x32xf32>, %x: tensor<16x32xf32> {remat.param}) -> tensor<f32> {
  %1 = remat.gelu %x : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %2 = remat.relu %1 : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %3 = remat.mse %2, %t : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<f32>
  return %3 : tensor<f32>
}

// CHECK-LABEL: func.func @step_arena(
// CHECK-SAME: %[[GRAD:[^:]*]]: memref<16x32xf32>) attributes
// The forward: gelu, relu (kept), the loss reduction and its scaling.
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: math.tanh
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = []
// The backward: one generic, from the loss seed and the saved forward values
// straight to the gradient.
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-SAME: outs(%[[GRAD]] : memref<16x32xf32>)
// CHECK: arith.subf
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: math.tanh
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return

// Six kernels: gelu, relu, the loss's fill, sum and scaling, and the one
// fused backward kernel.
// PTX-COUNT-6: .visible .entry step_arena_kernel
// PTX-NOT: .entry
