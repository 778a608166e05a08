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

// Left as loops: f64, f16 operands with an f32 result (a CUDA-only GEMM),
// a non-unit innermost stride, tensors. No declaration is added when
// nothing is rewritten.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf64>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf16>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf32, strided<[64, 2]>>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK-NOT: remat_cpu_sgemm
func.func @kept(%a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64>,
                %ha: memref<4x8xf16>, %hb: memref<8x16xf16>, %hc: memref<4x16xf32>,
                %s: memref<4x8xf32, strided<[64, 2]>>, %t: memref<8x16xf32>, %u: memref<4x16xf32>,
                %ta: tensor<4x8xf32>, %tb: tensor<8x16xf32>, %tc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  linalg.matmul ins(%ha, %hb : memref<4x8xf16>, memref<8x16xf16>) outs(%hc : memref<4x16xf32>)
  linalg.matmul ins(%s, %t : memref<4x8xf32, strided<[64, 2]>>, memref<8x16xf32>) outs(%u : memref<4x16xf32>)
  %r = linalg.matmul ins(%ta, %tb : tensor<4x8xf32>, tensor<8x16xf32>) outs(%tc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Left as loops: a size (k = 2^31) or a leading dimension (a row stride of
// 2^31) beyond cblas_sgemm's int; a dynamic size is rewritten (the runtime
// falls back to loops when it is too large).
// CHECK-LABEL: func.func @int_overflow
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<2x2147483648xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<2x2xf32, strided<[2147483648, 1]>>
// CHECK: call @remat_cpu_sgemm
// CHECK-NOT: linalg.matmul
func.func @int_overflow(%a: memref<2x2147483648xf32>, %b: memref<2147483648x2xf32>, %c: memref<2x2xf32>,
                        %s: memref<2x2xf32, strided<[2147483648, 1]>>, %d: memref<?x2xf32>, %e: memref<?x2xf32>) {
  linalg.matmul ins(%a, %b : memref<2x2147483648xf32>, memref<2147483648x2xf32>) outs(%c : memref<2x2xf32>)
  linalg.matmul ins(%s, %c : memref<2x2xf32, strided<[2147483648, 1]>>, memref<2x2xf32>) outs(%c : memref<2x2xf32>)
  linalg.matmul ins(%d, %c : memref<?x2xf32>, memref<2x2xf32>) outs(%e : memref<?x2xf32>)
  return
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

// -----

// A convolution (one group, stride 2 x 1, dilation 1 x 2): one call of the
// runtime's convolution with the sizes n, g, c, h, w, f, kh, kw, oh, ow,
// sh, sw, dh, dw, then the aligned pointer and the offset of x, w, y.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: memref<2x3x9x10xf32>, %[[W:.*]]: memref<4x3x3x2xf32>, %[[Y:.*]]: memref<2x4x4x8xf32>)
// CHECK-DAG: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-DAG: %[[XB:.*]], %[[XO:.*]], %{{.*}}:4, %{{.*}}:4 = memref.extract_strided_metadata %[[X]]
// CHECK-DAG: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK-DAG: %[[WB:.*]], %[[WO:.*]], %{{.*}}:4, %{{.*}}:4 = memref.extract_strided_metadata %[[W]]
// CHECK-DAG: %[[YP:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK-DAG: %[[YB:.*]], %[[YO:.*]], %{{.*}}:4, %{{.*}}:4 = memref.extract_strided_metadata %[[Y]]
// CHECK: call @remat_cpu_sconv2d(%c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c9{{(_[0-9]+)?}}, %c10{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c8{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %[[XP]], %[[XO]], %[[WP]], %[[WO]], %[[YP]], %[[YO]])
// CHECK-NOT: linalg.conv_2d
// CHECK: func.func private @remat_cpu_sconv2d(index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index)
func.func @conv(%x: memref<2x3x9x10xf32>, %w: memref<4x3x3x2xf32>, %y: memref<2x4x4x8xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
      ins(%x, %w : memref<2x3x9x10xf32>, memref<4x3x3x2xf32>) outs(%y : memref<2x4x4x8xf32>)
  return
}

// -----

// A depthwise convolution (4 groups of one channel, 2 filters each) on
// views of an arena: g is the group dimension, and the views' offsets reach
// the call.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[X:.*]] = memref.view
// CHECK: %[[XB:.*]], %[[XO:.*]], %{{.*}}:5, %{{.*}}:5 = memref.extract_strided_metadata %[[X]]
// CHECK: call @remat_cpu_sconv2d(%c1{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c5{{(_[0-9]+)?}}, %c5{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %{{.*}}, %[[XO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.conv_2d
func.func @depthwise(%w: memref<4x2x1x3x3xf32>, %y: memref<1x4x2x3x3xf32>) {
  %arena = memref.alloc() : memref<1024xi8>
  %c64 = arith.constant 64 : index
  %x = memref.view %arena[%c64][] : memref<1024xi8> to memref<1x4x1x5x5xf32>
  linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x1x5x5xf32>, memref<4x2x1x3x3xf32>) outs(%y : memref<1x4x2x3x3xf32>)
  memref.dealloc %arena : memref<1024xi8>
  return
}

// -----

#fgX = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, c, oh * 2 + kh, ow * 2 + kw * 2)>
#fgDy = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, f, oh, ow)>
#fgW = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (g, f, c, kh, kw)>
// The filter gradient as remat-lower-to-linalg writes it (stride 2,
// dilation 1 x 2): one call of the runtime's filter gradient with x, dy, gw.
// CHECK-LABEL: func.func @filter_grad
// CHECK-SAME: (%[[X:.*]]: memref<2x1x3x7x9xf32>, %[[DY:.*]]: memref<2x1x4x3x3xf32>, %[[GW:.*]]: memref<1x4x3x3x2xf32>)
// CHECK-DAG: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-DAG: %[[DP:.*]] = memref.extract_aligned_pointer_as_index %[[DY]]
// CHECK-DAG: %[[GP:.*]] = memref.extract_aligned_pointer_as_index %[[GW]]
// CHECK: call @remat_cpu_sconv2d_filter_grad(%c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c7{{(_[0-9]+)?}}, %c9{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %[[XP]], %{{.*}}, %[[DP]], %{{.*}}, %[[GP]], %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: func.func private @remat_cpu_sconv2d_filter_grad(index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index)
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

#fg1X = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, c, oh + kh, ow + kw)>
#fg1Dy = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, f, oh, ow)>
#fg1W = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (f, c, kh, kw)>
// One group: the lowering writes the filter gradient in its [F, C, KH, KW]
// shape; same call, g = 1.
// CHECK-LABEL: func.func @filter_grad_one_group
// CHECK: call @remat_cpu_sconv2d_filter_grad(%c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c5{{(_[0-9]+)?}}, %c5{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}},
// CHECK-NOT: linalg.generic
func.func @filter_grad_one_group(%x: memref<2x1x3x5x5xf32>, %dy: memref<2x1x4x3x3xf32>, %gw: memref<4x3x3x3xf32>) {
  linalg.generic {indexing_maps = [#fg1X, #fg1Dy, #fg1W],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %dy : memref<2x1x3x5x5xf32>, memref<2x1x4x3x3xf32>) outs(%gw : memref<4x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#fzX = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, c, oh + kh, ow + kw)>
#fzDy = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, f, oh, ow)>
#fzW = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (f, c, kh, kw)>
// A filter gradient whose output a fill of +0.0 has just zeroed (only a
// constant and a view between them): the fill goes, and the call is the
// runtime's remat_cpu_sconv2d_filter_grad_set, which writes over gw.
// CHECK-LABEL: func.func @filter_grad_zero_filled
// CHECK-SAME: (%[[X:.*]]: memref<2x1x3x5x5xf32>, %{{.*}}: memref<2x4x3x3xf32>, %[[GW:.*]]: memref<4x3x3x3xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[GP:.*]] = memref.extract_aligned_pointer_as_index %[[GW]]
// CHECK: call @remat_cpu_sconv2d_filter_grad_set(%c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c5{{(_[0-9]+)?}}, %c5{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[GP]], %{{.*}})
// CHECK-NOT: linalg
// CHECK: func.func private @remat_cpu_sconv2d_filter_grad_set(index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index)
// CHECK-NOT: func.func private @remat_cpu_sconv2d_filter_grad(
func.func @filter_grad_zero_filled(%x: memref<2x1x3x5x5xf32>, %dy4: memref<2x4x3x3xf32>, %gw: memref<4x3x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%gw : memref<4x3x3x3xf32>)
  %dy = memref.expand_shape %dy4 [[0], [1, 2], [3], [4]] output_shape [2, 1, 4, 3, 3] : memref<2x4x3x3xf32> into memref<2x1x4x3x3xf32>
  linalg.generic {indexing_maps = [#fzX, #fzDy, #fzW],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %dy : memref<2x1x3x5x5xf32>, memref<2x1x4x3x3xf32>) outs(%gw : memref<4x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#fkX = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, c, oh + kh, ow + kw)>
#fkDy = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, f, oh, ow)>
#fkW = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (f, c, kh, kw)>
// Fills kept, and the filter gradients add to gw: a fill of -0.0 (other
// bits where a sum is 0), a fill of 1.0, a zero fill with a store into gw
// in between, and a zero fill of another buffer.
// CHECK-LABEL: func.func @filter_grad_fill_kept
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[GW:.*]] : memref<4x3x3x3xf32>)
// CHECK: call @remat_cpu_sconv2d_filter_grad(
// CHECK: linalg.fill
// CHECK: call @remat_cpu_sconv2d_filter_grad(
// CHECK: linalg.fill
// CHECK: memref.store
// CHECK: call @remat_cpu_sconv2d_filter_grad(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<8xf32>)
// CHECK: call @remat_cpu_sconv2d_filter_grad(
// CHECK-NOT: remat_cpu_sconv2d_filter_grad_set
func.func @filter_grad_fill_kept(%x: memref<2x1x3x5x5xf32>, %dy: memref<2x1x4x3x3xf32>, %gw: memref<4x3x3x3xf32>,
                                 %other: memref<8xf32>) {
  %negzero = arith.constant -0.0 : f32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%negzero : f32) outs(%gw : memref<4x3x3x3xf32>)
  linalg.generic {indexing_maps = [#fkX, #fkDy, #fkW],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %dy : memref<2x1x3x5x5xf32>, memref<2x1x4x3x3xf32>) outs(%gw : memref<4x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%one : f32) outs(%gw : memref<4x3x3x3xf32>)
  linalg.generic {indexing_maps = [#fkX, #fkDy, #fkW],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %dy : memref<2x1x3x5x5xf32>, memref<2x1x4x3x3xf32>) outs(%gw : memref<4x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%gw : memref<4x3x3x3xf32>)
  memref.store %one, %gw[%c0, %c0, %c0, %c0] : memref<4x3x3x3xf32>
  linalg.generic {indexing_maps = [#fkX, #fkDy, #fkW],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %dy : memref<2x1x3x5x5xf32>, memref<2x1x4x3x3xf32>) outs(%gw : memref<4x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%other : memref<8xf32>)
  linalg.generic {indexing_maps = [#fkX, #fkDy, #fkW],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %dy : memref<2x1x3x5x5xf32>, memref<2x1x4x3x3xf32>) outs(%gw : memref<4x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#igW = affine_map<(n, g, c, kh, kw, f, oh, ow) -> (g, f, c, kh, kw)>
#igDy = affine_map<(n, g, c, kh, kw, f, oh, ow) -> (n, g, f, oh, ow)>
#igDx = affine_map<(n, g, c, kh, kw, f, oh, ow) -> (n, g, c, oh * 2 + kh, ow * 3 + kw * 2)>
// The input gradient as remat-lower-to-linalg writes it (strides 2 x 3,
// dilation 1 x 2, into the padded input's gradient): one call of the
// runtime's input gradient with w, dy, dx.
// CHECK-LABEL: func.func @input_grad
// CHECK-SAME: (%[[W:.*]]: memref<2x4x3x3x2xf32>, %[[DY:.*]]: memref<2x2x4x3x3xf32>, %[[DX:.*]]: memref<2x2x3x7x9xf32>)
// CHECK-DAG: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK-DAG: %[[DP:.*]] = memref.extract_aligned_pointer_as_index %[[DY]]
// CHECK-DAG: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[DX]]
// CHECK: call @remat_cpu_sconv2d_input_grad(%c2{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c7{{(_[0-9]+)?}}, %c9{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %[[WP]], %{{.*}}, %[[DP]], %{{.*}}, %[[XP]], %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: func.func private @remat_cpu_sconv2d_input_grad(index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index)
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

#ikW = affine_map<(n, g, c, kh, kw, f, oh, ow) -> (g, f, c, kh, kw)>
#ikDy = affine_map<(n, g, c, kh, kw, f, oh, ow) -> (n, g, f, oh, ow)>
#ikDx = affine_map<(n, g, c, kh, kw, f, oh, ow) -> (n, g, c, oh * 2 + kh, ow * 2 + kw)>
// Left as loops: input-gradient-shaped generics on a strided view of dx, or
// whose kernel loop is parallel.
// CHECK-LABEL: func.func @input_grad_kept
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: remat_cpu_sconv2d
func.func @input_grad_kept(%w: memref<1x1x1x3x3xf32>, %dy: memref<1x1x1x2x2xf32>, %dx: memref<1x1x1x5x5xf32, strided<[50, 50, 50, 10, 1]>>,
                           %dx2: memref<1x1x1x5x5xf32>) {
  linalg.generic {indexing_maps = [#ikW, #ikDy, #ikDx],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction",
                                    "reduction", "reduction", "reduction"]}
      ins(%w, %dy : memref<1x1x1x3x3xf32>, memref<1x1x1x2x2xf32>) outs(%dx : memref<1x1x1x5x5xf32, strided<[50, 50, 50, 10, 1]>>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#ikW, #ikDy, #ikDx],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction",
                                    "reduction", "reduction", "reduction"]}
      ins(%w, %dy : memref<1x1x1x3x3xf32>, memref<1x1x1x2x2xf32>) outs(%dx2 : memref<1x1x1x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#kX = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, c, oh + kh, ow + kw)>
#kDy = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (n, g, f, oh, ow)>
#kW = affine_map<(g, f, c, kh, kw, n, oh, ow) -> (g, f, c, kh, kw)>
// Left as loops: an f16 convolution, a convolution on a strided view, a
// filter-gradient-shaped generic whose body subtracts, and a convolution
// whose oh * ow (46341^2) exceeds cblas_sgemm's int. Nothing is declared.
// CHECK-LABEL: func.func @conv_kept
// CHECK: linalg.conv_2d_nchw_fchw{{.*}} ins(%{{.*}}, %{{.*}} : memref<1x1x4x4xf16>
// CHECK: linalg.conv_2d_nchw_fchw{{.*}} ins(%{{.*}}, %{{.*}} : memref<1x1x4x4xf32, strided<[32, 32, 8, 1]>>
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: linalg.conv_2d_nchw_fchw{{.*}} ins(%{{.*}}, %{{.*}} : memref<1x1x46341x46341xf32>
// CHECK-NOT: remat_cpu_sconv2d
func.func @conv_kept(%xh: memref<1x1x4x4xf16>, %wh: memref<1x1x3x3xf16>, %yh: memref<1x1x2x2xf16>,
                     %xs: memref<1x1x4x4xf32, strided<[32, 32, 8, 1]>>, %w: memref<1x1x3x3xf32>, %y: memref<1x1x2x2xf32>,
                     %x5: memref<1x1x1x4x4xf32>, %dy: memref<1x1x1x2x2xf32>, %gw: memref<1x1x1x3x3xf32>,
                     %xb: memref<1x1x46341x46341xf32>, %wb: memref<1x1x1x1xf32>, %yb: memref<1x1x46341x46341xf32>) {
  linalg.conv_2d_nchw_fchw ins(%xh, %wh : memref<1x1x4x4xf16>, memref<1x1x3x3xf16>) outs(%yh : memref<1x1x2x2xf16>)
  linalg.conv_2d_nchw_fchw ins(%xs, %w : memref<1x1x4x4xf32, strided<[32, 32, 8, 1]>>, memref<1x1x3x3xf32>) outs(%y : memref<1x1x2x2xf32>)
  linalg.generic {indexing_maps = [#kX, #kDy, #kW],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x5, %dy : memref<1x1x1x4x4xf32>, memref<1x1x1x2x2xf32>) outs(%gw : memref<1x1x1x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.subf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.conv_2d_nchw_fchw ins(%xb, %wb : memref<1x1x46341x46341xf32>, memref<1x1x1x1xf32>) outs(%yb : memref<1x1x46341x46341xf32>)
  return
}

// -----

// The runtime's convolution name taken by something else is an error.
func.func private @remat_cpu_sconv2d(memref<f32>)
// expected-error@-1 {{'remat_cpu_sconv2d' is reserved for the CPU runtime's convolution}}
func.func @user(%x: memref<1x1x4x4xf32>, %w: memref<1x1x3x3xf32>, %y: memref<1x1x2x2xf32>) {
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<1x1x4x4xf32>, memref<1x1x3x3xf32>) outs(%y : memref<1x1x2x2xf32>)
  return
}
