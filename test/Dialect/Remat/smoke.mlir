// RUN: remat-opt %s | remat-opt | FileCheck %s
// CHECK-LABEL: func @f
// CHECK: remat.relu
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
