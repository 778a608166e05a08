// Results computed by hand (no reference script), printed with
// printMemrefF32: x = [[1, -2, 3], [-4, 5, -6]], b = [10, 20, 30],
// w = [[1, 0], [0, 1], [1, 1]], ids = [2, 0, 2], g = [[1, 2], [3, 4]].
// RUN: remat-opt %s --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | %remat_exec main --print f32 --input '0=[[1,-2,3],[-4,5,-6]]' --input '1=[10,20,30]' \
// RUN:       --input '2=[[1,0],[0,1],[1,1]]' --input '3=[2,0,2]' --input '4=[[1,2],[3,4]]' \
// RUN:   | remat-opt %remat_to_llvm | %remat_runner | FileCheck %s

func.func @hand(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %w: tensor<3x2xf32>, %ids: tensor<3xi64>,
                %g: tensor<2x2xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<3x2xf32>,
        tensor<2x2xf32>, tensor<3x2xf32>, tensor<f32>, tensor<4x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<f32>, tensor<3x2xf32>) {
  // x + b: [[11, 18, 33], [6, 25, 24]]
  // CHECK: sizes = [2, 3]
  // CHECK-NEXT: {{\[\[}}11, 18, 33],
  // CHECK-NEXT: [6, 25, 24]]
  %0 = remat.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // relu(x)
  // CHECK: {{\[\[}}1, 0, 3],
  // CHECK-NEXT: [0, 5, 0]]
  %1 = remat.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // x w: [1 + 3, -2 + 3] and [-4 - 6, 5 - 6]
  // CHECK: {{\[\[}}4, 1],
  // CHECK-NEXT: [-10, -1]]
  %2 = remat.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  // Column sums.
  // CHECK: [-3, 3, -3]
  %3 = remat.sum_to %x : (tensor<2x3xf32>) -> tensor<3xf32>
  // CHECK: {{\[\[}}1, -4],
  // CHECK-NEXT: [-2, 5],
  // CHECK-NEXT: [3, -6]]
  %4 = remat.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // Columns 0 and 2.
  // CHECK: {{\[\[}}1, 3],
  // CHECK-NEXT: [-4, -6]]
  %5 = remat.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  // Rows of w scattered to ids [2, 0, 2]: row 0 = w[1], row 1 = 0, row 2 = w[0] + w[2].
  // CHECK: {{\[\[}}0, 1],
  // CHECK-NEXT: [0, 0],
  // CHECK-NEXT: [2, 1]]
  %6 = remat.embedding_grad %w, %ids : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  // mean((relu(x) - x)^2) = (4 + 16 + 36) / 6
  // CHECK: [9.33333]
  %7 = remat.mse %1, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  // CHECK: {{\[\[}}1, -2, 3],
  // CHECK-NEXT: [-4, 5, -6],
  // CHECK-NEXT: [1, -2, 3],
  // CHECK-NEXT: [-4, 5, -6]]
  %8 = remat.concat %x, %x {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // g into columns 0 and 2 of zeros.
  // CHECK: {{\[\[}}1, 0, 2],
  // CHECK-NEXT: [3, 0, 4]]
  %9 = remat.slice_grad %g {offsets = array<i64: 0, 0>, strides = array<i64: 1, 2>} : (tensor<2x2xf32>) -> tensor<2x3xf32>
  // CHECK: {{\[\[}}10, 20, 30],
  // CHECK-NEXT: [10, 20, 30]]
  %10 = remat.broadcast_to %b : (tensor<3xf32>) -> tensor<2x3xf32>
  // Uniform logits over 3 classes: log(3) whatever the labels.
  // CHECK: [1.09861]
  %z = remat.sub %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %lab = arith.constant dense<[2, 0]> : tensor<2xi64>
  %11 = remat.softmax_cross_entropy %z, %lab : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  // Rows 2, 0, 2 of the table w.
  // CHECK: {{\[\[}}1, 1],
  // CHECK-NEXT: [1, 0],
  // CHECK-NEXT: [1, 1]]
  %12 = remat.embedding %w, %ids : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12
    : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<3x2xf32>,
      tensor<2x2xf32>, tensor<3x2xf32>, tensor<f32>, tensor<4x3xf32>, tensor<2x3xf32>,
      tensor<2x3xf32>, tensor<f32>, tensor<3x2xf32>
}
