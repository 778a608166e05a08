// RUN: remat-opt %s --remat-linalg-to-blas=target=cuda --split-input-file --verify-diagnostics | FileCheck %s

// target=cuda: a matmul calls remat_cuda_sgemm (cuBLAS) with the same
// operands as remat_cpu_sgemm, after a stream: a `gpu.wait async` before the
// call, waited for right after it.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>)
// CHECK-DAG: %[[AB:.*]], %[[AO:.*]], %[[AS:.*]]:2, %[[AST:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK-DAG: %[[BB:.*]], %[[BO:.*]], %[[BS:.*]]:2, %[[BST:.*]]:2 = memref.extract_strided_metadata %[[B]]
// CHECK-DAG: %[[CB:.*]], %[[CO:.*]], %[[CS:.*]]:2, %[[CST:.*]]:2 = memref.extract_strided_metadata %[[C]]
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[S:.*]] = gpu.wait async
// CHECK-NEXT: call @remat_cuda_sgemm(%[[S]], %[[ONE]], %[[CS]]#0, %[[CS]]#1, %[[AS]]#1, %[[ZERO]], %[[AB]], %[[AO]], %[[AST]]#0, %{{.*}}, %[[ZERO]], %[[BB]], %[[BO]], %[[BST]]#0, %{{.*}}, %[[CB]], %[[CO]], %[[CST]]#0, %{{.*}})
// CHECK-NEXT: gpu.wait [%[[S]]]
// CHECK-NOT: linalg.matmul
// CHECK-NOT: remat_cpu_sgemm
// CHECK: func.func private @remat_cuda_sgemm(!gpu.async.token, index, index, index, index, index, memref<f32>, index, index, index, index, memref<f32>, index, index, index, memref<f32>, index, index, index)
func.func @plain(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A batch matmul with a transposed rhs (q k^T in attention): batch from C,
// B's flag 1, batch strides from the metadata.
// CHECK-LABEL: func.func @batch_transposed
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[S:.*]] = gpu.wait async
// CHECK-NEXT: call @remat_cuda_sgemm(%[[S]], %{{.*}}#0, %{{.*}}#1, %{{.*}}#2, %{{.*}}#2, %[[ZERO]], %{{.*}}, %{{.*}}, %{{.*}}#1, %{{.*}}#0, %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}#1, %{{.*}}#0,
// CHECK-NEXT: gpu.wait [%[[S]]]
func.func @batch_transposed(%a: memref<3x4x8xf32>, %b: memref<3x16x8xf32>, %c: memref<3x4x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                       affine_map<(b, m, n, k) -> (b, n, k)>,
                                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : memref<3x4x8xf32>, memref<3x16x8xf32>) outs(%c : memref<3x4x16xf32>)
  return
}

// -----

// Convolutions and other element types stay linalg (GPU kernels): no cuDNN.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.matmul
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: call
func.func @kept(%a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64>,
                %x: memref<2x3x9x10xf32>, %w: memref<4x3x3x2xf32>, %y: memref<2x4x7x9xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<2x3x9x10xf32>, memref<4x3x3x2xf32>)
                           outs(%y : memref<2x4x7x9xf32>)
  return
}

// -----

// The runtime's name is reserved.
// expected-error@+1 {{'remat_cuda_sgemm' is reserved for the CUDA runtime's GEMM}}
func.func @remat_cuda_sgemm(%x: f32) {
  return
}
func.func @user(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Matmuls inside a GPU kernel are never rewritten (host code only).
// CHECK-LABEL: gpu.module @kernels
// CHECK: linalg.matmul
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) kernel {
      linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
      gpu.return
    }
  }
}
