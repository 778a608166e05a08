// --remat-autodiff on a batch norm that also returns its batch statistics
// for a running-statistics update (the importer's form): no gradient flows
// into the statistics (the backward is the same batch_norm_grad as without
// them, and no zero gradient is left behind for them), and the update stays
// a forward op on [C] values.
//
// RUN: remat-opt %s --remat-autodiff | FileCheck %s
// RUN: remat-opt %s --remat-autodiff -o %t.step.mlir
// RUN: remat-opt %t.step.mlir --remat-rematerialize='strategy=sqrt' --remat-verify-schedule='original=%t.step.mlir' -o /dev/null

// CHECK-LABEL: func.func @running_stats(
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> {remat.state = 3 : i64}, tensor<3xf32> {remat.state = 4 : i64}) attributes {remat.training_step}
// CHECK-NEXT: %[[Y:.*]], %[[MEAN:.*]], %[[VAR:.*]] = remat.batch_norm %arg0, %arg1, %arg2 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: %[[R:.*]] = remat.relu %[[Y]]
// CHECK-NEXT: %[[L:.*]] = remat.mse %[[R]], %arg5 {remat.phase = #remat.phase<loss>}
// CHECK-NEXT: %[[K:.*]] = arith.constant dense<0.899999976> : tensor<f32>
// CHECK-NEXT: %[[T:.*]] = arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[OM:.*]] = remat.mul %arg3, %[[K]]
// CHECK-NEXT: %[[BM:.*]] = remat.mul %[[MEAN]], %[[T]]
// CHECK-NEXT: %[[NM:.*]] = remat.add %[[OM]], %[[BM]]
// CHECK-NEXT: %[[OV:.*]] = remat.mul %arg4, %[[K]]
// CHECK-NEXT: %[[BV:.*]] = remat.mul %[[VAR]], %[[T]]
// CHECK-NEXT: %[[NV:.*]] = remat.add %[[OV]], %[[BV]]
// CHECK-NEXT: arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DR:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DY:.*]] = remat.relu_grad
// CHECK-NEXT: %[[DX:.*]], %[[DS:.*]], %[[DB:.*]] = remat.batch_norm_grad %[[DY]], %arg0, %arg1 {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %[[L]], %[[DS]], %[[DB]], %[[NM]], %[[NV]] :
func.func @running_stats(%x: tensor<2x3x4x4xf32>, %g: tensor<3xf32> {remat.param}, %b: tensor<3xf32> {remat.param}, %rm: tensor<3xf32> {remat.state}, %rv: tensor<3xf32> {remat.state}, %t: tensor<2x3x4x4xf32>) -> (tensor<f32>, tensor<3xf32> {remat.state = 3 : i64}, tensor<3xf32> {remat.state = 4 : i64}) {
  %y:3 = remat.batch_norm %x, %g, %b : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %r = remat.relu %y#0 : (tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %loss = remat.mse %r, %t : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  %keep = arith.constant dense<9.000000e-01> : tensor<f32>
  %take = arith.constant dense<1.000000e-01> : tensor<f32>
  %om = remat.mul %rm, %keep : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %bm = remat.mul %y#1, %take : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %nm = remat.add %om, %bm : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %ov = remat.mul %rv, %keep : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %bv = remat.mul %y#2, %take : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %nv = remat.add %ov, %bv : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %loss, %nm, %nv : tensor<f32>, tensor<3xf32>, tensor<3xf32>
}
