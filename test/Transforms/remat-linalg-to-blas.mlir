// RUN: remat-opt %s --remat-linalg-to-blas --split-input-file --verify-diagnostics | FileCheck %s

// A plain f32 matmul: one call, batch 1, m n k from the output and A, no
// transposes, leading dimensions from the strides, batch strides 0.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>)
// CHECK-DAG: %[[AB:.*]], %[[AO:.*]], %[[AS:.*]]:2, %[[AST:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK-DAG: %[[BB:.*]], %[[BO:.*]], %[[BS:.*]]:2, %[[BST:.*]]:2 = memref.extract_strided_metadata %[[B]]
// CHECK-DAG: %[[CB:.*]], %[[CO:.*]], %[[CS:.*]]:2, %[[CST:.*]]:2 = memref.extract_strided_metadata %[[C]]
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: call @remat_cpu_sgemm(%[[ONE]], %[[CS]]#0, %[[CS]]#1, %[[AS]]#1, %[[ZERO]], %[[AB]], %[[AO]], %[[AST]]#0, %{{.*}}, %[[ZERO]], %[[BB]], %[[BO]], %[[BST]]#0, %{{.*}}, %[[CB]], %[[CO]], %[[CST]]#0, %{{.*}})
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @remat_cpu_sgemm(index, index, index, index, index, memref<f32>, index, index, index, index, memref<f32>, index, index, index, memref<f32>, index, index, index)
func.func @plain(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Transposed operands (the maps swap the matrix dimensions): the flags are
// 1, and k is read from A's first dimension.
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: (%[[A:.*]]: memref<8x4xf32>, %[[B:.*]]: memref<16x8xf32>
// CHECK-DAG: %[[AB:.*]], %[[AO:.*]], %[[AS:.*]]:2, %[[AST:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: call @remat_cpu_sgemm(%[[ONE]], %{{.*}}, %{{.*}}, %[[AS]]#0, %[[ONE]], %[[AB]], {{.*}}, %[[ONE]], %{{.*}}
func.func @transposed(%a: memref<8x4xf32>, %b: memref<16x8xf32>, %c: memref<4x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<8x4xf32>, memref<16x8xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A batch matmul with a broadcast rhs: the batch count is the output's first
// size, A's and C's batch strides come from the metadata, B's is 0.
// CHECK-LABEL: func.func @batch_broadcast
// CHECK-SAME: (%[[A:.*]]: memref<3x4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<3x4x16xf32>)
// CHECK-DAG: %[[AB:.*]], %[[AO:.*]], %[[AS:.*]]:3, %[[AST:.*]]:3 = memref.extract_strided_metadata %[[A]]
// CHECK-DAG: %[[BB:.*]], %[[BO:.*]], %[[BS:.*]]:2, %[[BST:.*]]:2 = memref.extract_strided_metadata %[[B]]
// CHECK-DAG: %[[CB:.*]], %[[CO:.*]], %[[CS:.*]]:3, %[[CST:.*]]:3 = memref.extract_strided_metadata %[[C]]
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: call @remat_cpu_sgemm(%[[CS]]#0, %[[CS]]#1, %[[CS]]#2, %[[AS]]#2, %[[ZERO]], %[[AB]], %[[AO]], %[[AST]]#1, %[[AST]]#0, %[[ZERO]], %[[BB]], %[[BO]], %[[BST]]#0, %[[ZERO]], %[[CB]], %[[CO]], %[[CST]]#1, %[[CST]]#0)
func.func @batch_broadcast(%a: memref<3x4x8xf32>, %b: memref<8x16xf32>, %c: memref<3x4x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                       affine_map<(b, m, n, k) -> (k, n)>,
                                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : memref<3x4x8xf32>, memref<8x16xf32>) outs(%c : memref<3x4x16xf32>)
  return
}

// -----

// Strided views (an offset subview, rows of a wider buffer) keep their
// offset and leading dimension through the metadata.
// CHECK-LABEL: func.func @subview
// CHECK: %[[SV:.*]] = memref.subview
// CHECK: memref.extract_strided_metadata %[[SV]]
// CHECK: call @remat_cpu_sgemm
func.func @subview(%a: memref<4x32xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %s = memref.subview %a[0, 8] [4, 8] [1, 1] : memref<4x32xf32> to memref<4x8xf32, strided<[32, 1], offset: 8>>
  linalg.matmul ins(%s, %b : memref<4x8xf32, strided<[32, 1], offset: 8>>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Left as loops: f64, a non-unit innermost stride, tensors. No declaration
// is added when nothing is rewritten.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf64>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf32, strided<[64, 2]>>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK-NOT: remat_cpu_sgemm
func.func @kept(%a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64>,
                %s: memref<4x8xf32, strided<[64, 2]>>, %t: memref<8x16xf32>, %u: memref<4x16xf32>,
                %ta: tensor<4x8xf32>, %tb: tensor<8x16xf32>, %tc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  linalg.matmul ins(%s, %t : memref<4x8xf32, strided<[64, 2]>>, memref<8x16xf32>) outs(%u : memref<4x16xf32>)
  %r = linalg.matmul ins(%ta, %tb : tensor<4x8xf32>, tensor<8x16xf32>) outs(%tc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// The runtime's name taken by something else is an error.
func.func @remat_cpu_sgemm(%x: f32) {
  return
}
// expected-error@-3 {{'remat_cpu_sgemm' is reserved for the CPU runtime's GEMM}}
func.func @user(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
