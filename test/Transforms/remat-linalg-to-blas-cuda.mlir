// RUN: remat-opt %s --remat-linalg-to-blas=target=cuda --split-input-file --verify-diagnostics | FileCheck %s
// RUN: remat-opt %s --remat-linalg-to-blas="target=cuda cudnn=1" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=CUDNN

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

// Other element types stay linalg (GPU kernels); so do convolutions without
// cudnn. With cudnn=1 the f32 convolution calls remat_cuda_sconv2d (next
// cases).
// CHECK-LABEL: func.func @kept
// CHECK: linalg.matmul
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: call
// CUDNN-LABEL: func.func @kept
// CUDNN: linalg.matmul
// CUDNN-NOT: linalg.conv_2d_nchw_fchw
// CUDNN: call @remat_cuda_sconv2d(
func.func @kept(%a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64>,
                %x: memref<2x3x9x10xf32>, %w: memref<4x3x3x2xf32>, %y: memref<2x4x7x9xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<2x3x9x10xf32>, memref<4x3x3x2xf32>)
                           outs(%y : memref<2x4x7x9xf32>)
  return
}

// -----

// f16 and bf16 operands with an f32 result (the f32 accumulators of a
// half-precision step) call remat_cuda_gemm_f16 / remat_cuda_gemm_bf16
// with the operands of remat_cuda_sgemm, A and B as memrefs of their own
// type; a transposed B (its flag 1) and a batch as for f32. Mixed
// operands, a half-precision result and f64 stay loops (GPU kernels).
// CHECK-LABEL: func.func @half
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[S:.*]] = gpu.wait async
// CHECK-NEXT: call @remat_cuda_gemm_f16(%[[S]], %[[ONE]], %{{.*}}#0, %{{.*}}#1, %{{.*}}#1, %[[ZERO]], %{{.*}}, %{{.*}}, %{{.*}}#0, %[[ZERO]], %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}#0, %[[ZERO]], %{{.*}}, %{{.*}}, %{{.*}}#0, %[[ZERO]]) : (!gpu.async.token, index, index, index, index, index, memref<f16>, index, index, index, index, memref<f16>, index, index, index, memref<f32>, index, index, index) -> ()
// CHECK-NEXT: gpu.wait [%[[S]]]
// CHECK: %[[S2:.*]] = gpu.wait async
// CHECK-NEXT: call @remat_cuda_gemm_bf16(%[[S2]], %{{.*}}#0, {{.*}}memref<bf16>, index, index, index, index, memref<bf16>, index, index, index, memref<f32>, index, index, index) -> ()
// CHECK-NEXT: gpu.wait [%[[S2]]]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf16>, memref<8x16xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf16>, memref<8x16xf16>) outs(%{{.*}} : memref<4x16xf16>)
// CHECK-NOT: remat_cuda_sgemm
// CHECK-DAG: func.func private @remat_cuda_gemm_f16(!gpu.async.token, index, index, index, index, index, memref<f16>, index, index, index, index, memref<f16>, index, index, index, memref<f32>, index, index, index)
// CHECK-DAG: func.func private @remat_cuda_gemm_bf16(!gpu.async.token, index, index, index, index, index, memref<bf16>, index, index, index, index, memref<bf16>, index, index, index, memref<f32>, index, index, index)
func.func @half(%a: memref<4x8xf16>, %b: memref<16x8xf16>, %c: memref<4x16xf32>,
                %ba: memref<3x4x8xbf16>, %bb: memref<3x8x16xbf16>, %bc: memref<3x4x16xf32>,
                %mb: memref<8x16xf32>, %hb: memref<8x16xf16>, %hc: memref<4x16xf16>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<4x8xf16>, memref<16x8xf16>) outs(%c : memref<4x16xf32>)
  linalg.batch_matmul ins(%ba, %bb : memref<3x4x8xbf16>, memref<3x8x16xbf16>) outs(%bc : memref<3x4x16xf32>)
  linalg.matmul ins(%a, %mb : memref<4x8xf16>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %hb : memref<4x8xf16>, memref<8x16xf16>) outs(%hc : memref<4x16xf16>)
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

// -----

// cudnn=1: the forward convolution calls the CUDA runtime's cuDNN forward
// with the stream first, then the CPU runtime's sizes (n g c h w f kh kw oh
// ow sh sw dh dw) and x, w, y as address and offset, waited for right after.
// CHECK-LABEL: func.func @conv_forward
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: remat_cuda_sconv2d
// CUDNN-LABEL: func.func @conv_forward
// CUDNN-SAME: (%[[X:.*]]: memref<2x3x9x10xf32>, %[[W:.*]]: memref<4x3x3x2xf32>, %[[Y:.*]]: memref<2x4x4x9xf32>)
// CUDNN-DAG: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CUDNN-DAG: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CUDNN-DAG: %[[YP:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CUDNN: %[[S:.*]] = gpu.wait async
// CUDNN-NEXT: call @remat_cuda_sconv2d(%[[S]], %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c9{{(_[0-9]+)?}}, %c10{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c9{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %[[XP]], %{{.*}}, %[[WP]], %{{.*}}, %[[YP]], %{{.*}})
// CUDNN-NEXT: gpu.wait [%[[S]]]
// CUDNN-NOT: linalg.conv_2d_nchw_fchw
// CUDNN: func.func private @remat_cuda_sconv2d(!gpu.async.token, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index)
func.func @conv_forward(%x: memref<2x3x9x10xf32>, %w: memref<4x3x3x2xf32>, %y: memref<2x4x4x9xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<2x3x9x10xf32>, memref<4x3x3x2xf32>)
      outs(%y : memref<2x4x4x9xf32>)
  return
}

// -----

#igW = affine_map<(n, g, c, kh, kw, f, oh, ow) -> (g, f, c, kh, kw)>
#igDy = affine_map<(n, g, c, kh, kw, f, oh, ow) -> (n, g, f, oh, ow)>
#igDx = affine_map<(n, g, c, kh, kw, f, oh, ow) -> (n, g, c, oh * 2 + kh, ow * 3 + kw * 2)>
// The input gradient (two groups, strides 2 x 3, dilation 1 x 2) calls
// remat_cuda_sconv2d_input_grad with w, dy, dx.
// CUDNN-LABEL: func.func @input_grad
// CUDNN-SAME: (%[[W:.*]]: memref<2x4x3x3x2xf32>, %[[DY:.*]]: memref<2x2x4x3x3xf32>, %[[DX:.*]]: memref<2x2x3x7x9xf32>)
// CUDNN-DAG: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CUDNN-DAG: %[[DP:.*]] = memref.extract_aligned_pointer_as_index %[[DY]]
// CUDNN-DAG: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[DX]]
// CUDNN: %[[S:.*]] = gpu.wait async
// CUDNN-NEXT: call @remat_cuda_sconv2d_input_grad(%[[S]], %c2{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c7{{(_[0-9]+)?}}, %c9{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %[[WP]], %{{.*}}, %[[DP]], %{{.*}}, %[[XP]], %{{.*}})
// CUDNN-NEXT: gpu.wait [%[[S]]]
// CUDNN-NOT: linalg.generic
// CUDNN: func.func private @remat_cuda_sconv2d_input_grad(!gpu.async.token, index,
func.func @input_grad(%w: memref<2x4x3x3x2xf32>, %dy: memref<2x2x4x3x3xf32>, %dx: memref<2x2x3x7x9xf32>) {
  linalg.generic {indexing_maps = [#igW, #igDy, #igDx],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction",
                                    "reduction", "reduction", "reduction"]}
      ins(%w, %dy : memref<2x4x3x3x2xf32>, memref<2x2x4x3x3xf32>) outs(%dx : memref<2x2x3x7x9xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#fgX = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, c, oh * 2 + kh, ow * 2 + kw * 2)>
#fgDy = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, f, oh, ow)>
#fgW = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (g, f, c, kh, kw)>
// The filter gradient calls remat_cuda_sconv2d_filter_grad with x, dy, gw.
// CUDNN-LABEL: func.func @filter_grad
// CUDNN-SAME: (%[[X:.*]]: memref<2x1x3x7x9xf32>, %[[DY:.*]]: memref<2x1x4x3x3xf32>, %[[GW:.*]]: memref<1x4x3x3x2xf32>)
// CUDNN-DAG: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CUDNN-DAG: %[[DP:.*]] = memref.extract_aligned_pointer_as_index %[[DY]]
// CUDNN-DAG: %[[GP:.*]] = memref.extract_aligned_pointer_as_index %[[GW]]
// CUDNN: %[[S:.*]] = gpu.wait async
// CUDNN-NEXT: call @remat_cuda_sconv2d_filter_grad(%[[S]], %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c7{{(_[0-9]+)?}}, %c9{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %[[XP]], %{{.*}}, %[[DP]], %{{.*}}, %[[GP]], %{{.*}})
// CUDNN-NEXT: gpu.wait [%[[S]]]
// CUDNN-NOT: linalg.generic
// CUDNN: func.func private @remat_cuda_sconv2d_filter_grad(!gpu.async.token, index,
func.func @filter_grad(%x: memref<2x1x3x7x9xf32>, %dy: memref<2x1x4x3x3xf32>, %gw: memref<1x4x3x3x2xf32>) {
  linalg.generic {indexing_maps = [#fgX, #fgDy, #fgW],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %dy : memref<2x1x3x7x9xf32>, memref<2x1x4x3x3xf32>) outs(%gw : memref<1x4x3x3x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// cuDNN's sizes are ints: a convolution whose GEMM dimensions fit an int
// (the CPU runtime calls it) but whose input has 2^31 elements stays a
// kernel.
// CUDNN-LABEL: func.func @too_large
// CUDNN: linalg.conv_2d_nchw_fchw
// CUDNN-NOT: call
func.func @too_large(%x: memref<65537x1x128x256xf32>, %w: memref<1x1x1x1xf32>, %y: memref<65537x1x128x256xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<65537x1x128x256xf32>, memref<1x1x1x1xf32>)
      outs(%y : memref<65537x1x128x256xf32>)
  return
}
