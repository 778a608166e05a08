// Upstream mlir-opt loads remat as a dialect and pass plugin and runs its
// passes with the same result as remat-opt.
// REQUIRES: remat-plugin
// RUN: mlir-opt %s --load-dialect-plugin=%remat_plugin \
// RUN:   --load-pass-plugin=%remat_plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(remat-autodiff,remat-rematerialize{strategy=store-all}))' \
// RUN:   | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%remat_plugin \
// RUN:   --load-pass-plugin=%remat_plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(remat-autodiff,remat-rematerialize{strategy=sqrt}))' \
// RUN:   > %t.plugin.mlir
// RUN: remat-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(remat-autodiff,remat-rematerialize{strategy=sqrt}))' \
// RUN:   > %t.remat-opt.mlir
// RUN: diff %t.plugin.mlir %t.remat-opt.mlir
// RUN: FileCheck %s --check-prefix=SQRT < %t.plugin.mlir
// The named pipelines come with the plugin too.
// RUN: mlir-opt %s --load-dialect-plugin=%remat_plugin \
// RUN:   --load-pass-plugin=%remat_plugin \
// RUN:   --pass-pipeline='builtin.module(remat-training-pipeline{strategy=sqrt})' \
// RUN:   > %t.plugin-pipeline.mlir 2>/dev/null
// RUN: diff %t.plugin-pipeline.mlir %t.plugin.mlir

// Without the plugin, mlir-opt does not know the dialect.
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: Dialect `remat' not found

// CHECK-LABEL: func.func @chain4
// CHECK-SAME: attributes {remat.training_step}
// CHECK: remat.tanh
// CHECK: remat.mse {{.*}}#remat.phase<loss>
// CHECK: remat.tanh_grad {{.*}}#remat.phase<backward>
// CHECK-NOT: remat.recompute
// CHECK: return

// SQRT-LABEL: func.func @chain4
// SQRT: remat.recompute
func.func @chain4(%x: tensor<16x16xf32>, %w: tensor<16x16xf32> {remat.param},
                  %t: tensor<16x16xf32>) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = remat.tanh %0 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %2 = remat.tanh %1 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %3 = remat.tanh %2 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %4 = remat.tanh %3 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %5 = remat.mse %4, %t : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<f32>
  return %5 : tensor<f32>
}
