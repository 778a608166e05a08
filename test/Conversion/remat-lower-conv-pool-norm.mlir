// RUN: remat-opt %s --remat-lower-to-linalg | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-linalg | remat-opt | FileCheck %s --check-prefix=GONE

// Lowering of remat conv2d, pooling and normalization ops (and their
// gradients) to linalg/tensor/arith/math on tensors. The numerics are
// checked against PyTorch in test/Execution/conv-pool-norm-*.mlir.

// The output parses and verifies again, and no lowered op is left.
// GONE-NOT: remat.{{conv2d|max_pool2d|avg_pool2d|global_avg_pool|layer_norm|batch_norm}}

// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$IGW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, d3, d4)>
// CHECK-DAG: #[[$IGDY:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d6, d7)>
// CHECK-DAG: #[[$IGDX22:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d6 * 2 + d3, d7 * 2 + d4)>
// CHECK-DAG: #[[$IGDX:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d6 * 2 + d3 * 2, d7 * 3 + d4 * 2)>
// CHECK-DAG: #[[$FGX:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d2, d6 * 2 + d3, d7 * 2 + d4)>
// CHECK-DAG: #[[$FGDY:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d1, d6, d7)>
// CHECK-DAG: #[[$FG1X:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d2, d3 + d6, d4 + d7)>
// CHECK-DAG: #[[$FG1OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d3, d4)>
// CHECK-DAG: #[[$FGOUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$MPIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[$WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[$OUT4:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$NC:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$TR:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$BNX:.+]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[$BNC:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[$LX:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-DAG: #[[$LC:.+]] = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-DAG: #[[$LL:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>

// Symmetric padding with tensor.pad, then one named convolution into a
// zero-filled f32 accumulator.
// CHECK-LABEL: func.func @conv2d_pad(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x7x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[ZERO]] : f32
// CHECK:         } : tensor<2x3x7x8xf32> to tensor<2x3x9x10xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x4x4xf32>)
// CHECK:         %[[C:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-SAME:        ins(%[[PAD]], %[[W]] : tensor<2x3x9x10xf32>, tensor<4x3x3x3xf32>) outs(%[[INIT]] : tensor<2x4x4x4xf32>)
// CHECK:         return %[[C]]
func.func @conv2d_pad(%x: tensor<2x3x7x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %0 = remat.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x3x7x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}

// No padding: no tensor.pad; dilations go to the named op.
// CHECK-LABEL: func.func @conv2d_nopad_dilated(
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
// CHECK-SAME:        ins(%arg0, %arg1 : tensor<1x2x9x9xf32>, tensor<3x2x3x3xf32>)
func.func @conv2d_nopad_dilated(%x: tensor<1x2x9x9xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32> {
  %0 = remat.conv2d %x, %w {dilations = array<i64: 2, 2>} : (tensor<1x2x9x9xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// groups = 2: explicit group dimension on input, filter and output.
// CHECK-LABEL: func.func @conv2d_groups(
// CHECK:         %[[PAD:.*]] = tensor.pad
// CHECK:         %[[XG:.*]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 9, 9]
// CHECK:         %[[WG:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK:         %[[C:.*]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-SAME:        ins(%[[XG]], %[[WG]] : tensor<2x2x2x9x9xf32>, tensor<2x3x2x3x3xf32>) outs(%{{.*}} : tensor<2x2x3x4x4xf32>)
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x4x4xf32> into tensor<2x6x4x4xf32>
// CHECK:         return %[[R]]
func.func @conv2d_groups(%x: tensor<2x4x7x7xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32> {
  %0 = remat.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x4x7x7xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// f16: the named op widens the f16 operands into an f32 accumulator; the
// result is truncated.
// CHECK-LABEL: func.func @conv2d_f16(
// CHECK:         %[[C:.*]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME:        ins(%arg0, %arg1 : tensor<1x2x5x5xf16>, tensor<2x2x3x3xf16>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<1x2x3x3xf32>) outs(%{{.*}} : tensor<1x2x3x3xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         return %[[T]]
func.func @conv2d_f16(%x: tensor<1x2x5x5xf16>, %w: tensor<2x2x3x3xf16>) -> tensor<1x2x3x3xf16> {
  %0 = remat.conv2d %x, %w : (tensor<1x2x5x5xf16>, tensor<2x2x3x3xf16>) -> tensor<1x2x3x3xf16>
  return %0 : tensor<1x2x3x3xf16>
}

// A scatter of window products: one generic over (n, g, cg | kh, kw, og,
// oh, ow) adds w * dy into the zero-filled gradient of the padded input
// (7 + 2 by 8 + 2; its last column, which no forward window reached,
// stays zero) at (oh * 2 + kh, ow * 2 + kw); the padding is sliced off
// and copied out (a view would keep the padded buffer alive as long as the
// gradient). The filter is read as it is (no flipped copy).
// CHECK-LABEL: func.func @conv2d_input_grad(
// CHECK-SAME:      %[[G:.*]]: tensor<2x4x4x4xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>
// CHECK:         %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [1, 4, 3, 3, 3]
// CHECK:         %[[GG:.*]] = tensor.expand_shape %[[G]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 1, 4, 4, 4]
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x1x3x9x10xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$IGW]], #[[$IGDY]], #[[$IGDX22]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]}
// CHECK-SAME:        ins(%[[WG]], %[[GG]] : tensor<1x4x3x3x3xf32>, tensor<2x1x4x4x4xf32>) outs(%[[Z]] : tensor<2x1x3x9x10xf32>)
// CHECK:           %[[M:.*]] = arith.mulf
// CHECK:           arith.addf %{{.*}}, %[[M]] : f32
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x1x3x9x10xf32> into tensor<2x3x9x10xf32>
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[C]][0, 0, 1, 1] [2, 3, 7, 8] [1, 1, 1, 1] : tensor<2x3x9x10xf32> to tensor<2x3x7x8xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x3x7x8xf32>
// CHECK:         %[[CP:.*]] = linalg.copy ins(%[[S]] : tensor<2x3x7x8xf32>) outs(%[[E]] : tensor<2x3x7x8xf32>)
// CHECK:         return %[[CP]]
func.func @conv2d_input_grad(%g: tensor<2x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x7x8xf32> {
  %0 = remat.conv2d_input_grad %g, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x7x8xf32>
  return %0 : tensor<2x3x7x8xf32>
}

// Padding beyond the kernel reach (1x1 kernel, p = 1): windows at the
// padded border only write into the margin that is sliced off.
// CHECK-LABEL: func.func @conv2d_input_grad_wide_pad(
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$IGW]], #[[$IGDY]], #[[$IGDX22]]]
// CHECK-SAME:        outs(%{{.*}} : tensor<1x1x2x7x8xf32>)
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[R]]
// CHECK:         tensor.extract_slice %[[C]][0, 0, 1, 1] [1, 2, 5, 6] [1, 1, 1, 1] : tensor<1x2x7x8xf32> to tensor<1x2x5x6xf32>
func.func @conv2d_input_grad_wide_pad(%g: tensor<1x3x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x2x5x6xf32> {
  %0 = remat.conv2d_input_grad %g, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}

// groups = 2, strides (2, 3), dilation 2, rectangular kernel: the group is
// a parallel loop of its own.
// CHECK-LABEL: func.func @conv2d_input_grad_groups(
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$IGW]], #[[$IGDY]], #[[$IGDX]]]
// CHECK-SAME:        ins(%{{.*}}, %{{.*}} : tensor<2x2x2x3x2xf32>, tensor<1x2x2x4x3xf32>) outs(%{{.*}} : tensor<1x2x2x12x11xf32>)
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x2x12x11xf32> into tensor<1x4x12x11xf32>
// CHECK:         tensor.extract_slice %[[C]][0, 0, 1, 1] [1, 4, 10, 9] [1, 1, 1, 1]
func.func @conv2d_input_grad_groups(%g: tensor<1x4x4x3xf32>, %w: tensor<4x2x3x2xf32>) -> tensor<1x4x10x9xf32> {
  %0 = remat.conv2d_input_grad %g, %w {strides = array<i64: 2, 3>, padding = array<i64: 1, 1>, dilations = array<i64: 2, 2>, groups = 2 : i64} : (tensor<1x4x4x3xf32>, tensor<4x2x3x2xf32>) -> tensor<1x4x10x9xf32>
  return %0 : tensor<1x4x10x9xf32>
}

// One generic over (g, og, cg, kh, kw | n, oh, ow), reading the padded
// input at (oh * 2 + kh, ow * 2 + kw).
// CHECK-LABEL: func.func @conv2d_filter_grad(
// CHECK:         %[[PAD:.*]] = tensor.pad %arg1 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[XG:.*]] = tensor.expand_shape %[[PAD]] {{.*}} into tensor<2x2x2x9x9xf32>
// CHECK:         %[[GG:.*]] = tensor.expand_shape %arg0 {{.*}} into tensor<2x2x3x4x4xf32>
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x2x3x3xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$FGX]], #[[$FGDY]], #[[$FGOUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:        ins(%[[XG]], %[[GG]] : tensor<2x2x2x9x9xf32>, tensor<2x2x3x4x4xf32>) outs(%[[ACC]] : tensor<2x3x2x3x3xf32>)
// CHECK:           %[[M:.*]] = arith.mulf
// CHECK:           arith.addf %{{.*}}, %[[M]] : f32
// CHECK:         tensor.collapse_shape %[[R]] {{\[}}[0, 1], [2], [3], [4]] : tensor<2x3x2x3x3xf32> into tensor<6x2x3x3xf32>
func.func @conv2d_filter_grad(%g: tensor<2x6x4x4xf32>, %x: tensor<2x4x7x7xf32>) -> tensor<6x2x3x3xf32> {
  %0 = remat.conv2d_filter_grad %g, %x {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x6x4x4xf32>, tensor<2x4x7x7xf32>) -> tensor<6x2x3x3xf32>
  return %0 : tensor<6x2x3x3xf32>
}

// One group: the generic writes the [O, C, KH, KW] gradient itself (no
// collapse), so bufferization can return its buffer without a copy.
// CHECK-LABEL: func.func @conv2d_filter_grad_one_group(
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x2x3x3xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$FG1X]], #[[$FGDY]], #[[$FG1OUT]]]
// CHECK-SAME:        outs(%[[ACC]] : tensor<4x2x3x3xf32>)
// CHECK:         return %[[R]]
func.func @conv2d_filter_grad_one_group(%g: tensor<2x4x3x3xf32>, %x: tensor<2x2x5x5xf32>) -> tensor<4x2x3x3xf32> {
  %0 = remat.conv2d_filter_grad %g, %x {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<2x2x5x5xf32>) -> tensor<4x2x3x3xf32>
  return %0 : tensor<4x2x3x3xf32>
}

// Padding and initial value are -inf.
// CHECK-LABEL: func.func @max_pool2d(
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[NINF]] : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<2x3x4x4xf32>)
// CHECK:         %[[WIN:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-SAME:        ins(%[[PAD]], %[[WIN]] : tensor<2x3x9x10xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<2x3x4x4xf32>)
func.func @max_pool2d(%x: tensor<2x3x7x8xf32>) -> tensor<2x3x4x4xf32> {
  %0 = remat.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<2x3x7x8xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// Argmax (first maximum of the real positions, NaN wins), then a gather
// that reads dy and the indices in place (no dilated copies) over the
// ceil(3 / 2) x ceil(3 / 2) windows covering each input position.
// CHECK-LABEL: func.func @max_pool2d_grad(
// CHECK-SAME:      %[[G:.*]]: tensor<2x3x4x4xf32>, %[[X:.*]]: tensor<2x3x7x8xf32>
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[ARG:.*]]:2 = linalg.generic {indexing_maps = [#[[$MPIN]], #[[$WIN]], #[[$OUT4]], #[[$OUT4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME:        ins(%[[PAD]], %{{.*}} : tensor<2x3x9x10xf32>, tensor<3x3xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x3x4x4xf32>, tensor<2x3x4x4xi32>)
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK:           %[[GT:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK:           %[[NAN:.*]] = arith.cmpf uno, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     tensor.insert_slice
// CHECK:         %[[COVER:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$WIN]], #[[$OUT4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME:        ins(%[[COVER]] : tensor<2x2xf32>) outs(%{{.*}} : tensor<2x3x7x8xf32>)
// CHECK:           %[[H:.*]] = linalg.index 2 : index
// CHECK:           %[[PH:.*]] = arith.addi %[[H]], %{{.*}} : index
// CHECK:           arith.divui %[[PH]], %{{.*}} : index
// CHECK:           arith.remui %[[PH]], %{{.*}} : index
// CHECK:           %[[I:.*]] = tensor.extract %[[ARG]]#1[%{{.*}}, %{{.*}}, %[[OH:.*]], %[[OW:.*]]] : tensor<2x3x4x4xi32>
// CHECK:           %[[MATCH:.*]] = arith.cmpi eq, %[[I]], %{{.*}} : i32
// CHECK:           %[[D:.*]] = tensor.extract %[[G]][%{{.*}}, %{{.*}}, %[[OH]], %[[OW]]] : tensor<2x3x4x4xf32>
// CHECK:           %[[ADD:.*]] = arith.select %{{.*}}, %[[D]], %{{.*}} : f32
// CHECK:           arith.addf %{{.*}}, %[[ADD]] : f32
// CHECK:         return %[[R]]
func.func @max_pool2d_grad(%g: tensor<2x3x4x4xf32>, %x: tensor<2x3x7x8xf32>) -> tensor<2x3x7x8xf32> {
  %0 = remat.max_pool2d_grad %g, %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>, tensor<2x3x7x8xf32>) -> tensor<2x3x7x8xf32>
  return %0 : tensor<2x3x7x8xf32>
}

// Zero padding counted in the average: window sum divided by 9.
// CHECK-LABEL: func.func @avg_pool2d(
// CHECK:         %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[S:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-SAME:        ins(%[[PAD]], %{{.*}} : tensor<2x3x9x10xf32>, tensor<3x3xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[S]] : tensor<2x3x4x4xf32>)
// CHECK:           %[[NINE:.*]] = arith.constant 9.000000e+00 : f32
// CHECK:           arith.divf %{{.*}}, %[[NINE]] : f32
func.func @avg_pool2d(%x: tensor<2x3x7x8xf32>) -> tensor<2x3x4x4xf32> {
  %0 = remat.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<2x3x7x8xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// Stride-1 window sum over the stride-dilated gradient, divided by 9.
// CHECK-LABEL: func.func @avg_pool2d_grad(
// CHECK:         %[[Z:.*]] = tensor.insert_slice %arg0 into %{{.*}}[0, 0, 1, 1] [2, 3, 4, 4] [1, 1, 2, 2] : tensor<2x3x4x4xf32> into tensor<2x3x9x10xf32>
// CHECK:         %[[S:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
// CHECK-SAME:        ins(%[[Z]], %{{.*}} : tensor<2x3x9x10xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<2x3x7x8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[S]] : tensor<2x3x7x8xf32>)
// CHECK:           arith.divf
func.func @avg_pool2d_grad(%g: tensor<2x3x4x4xf32>) -> tensor<2x3x7x8xf32> {
  %0 = remat.avg_pool2d_grad %g {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x7x8xf32>
  return %0 : tensor<2x3x7x8xf32>
}

// CHECK-LABEL: func.func @global_avg_pool(
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$NC]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME:        ins(%arg0 : tensor<2x3x5x4xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[S]] : tensor<2x3xf32>)
// CHECK:           %[[HW:.*]] = arith.constant 2.000000e+01 : f32
// CHECK:           arith.divf %{{.*}}, %[[HW]] : f32
func.func @global_avg_pool(%x: tensor<2x3x5x4xf32>) -> tensor<2x3xf32> {
  %0 = remat.global_avg_pool %x : (tensor<2x3x5x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @global_avg_pool_grad(
// CHECK:         linalg.generic {indexing_maps = [#[[$NC]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME:        ins(%arg0 : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3x5x4xf32>)
// CHECK:           arith.constant 2.000000e+01 : f32
// CHECK:           arith.divf
func.func @global_avg_pool_grad(%g: tensor<2x3xf32>) -> tensor<2x3x5x4xf32> {
  %0 = remat.global_avg_pool_grad %g : (tensor<2x3xf32>) -> tensor<2x3x5x4xf32>
  return %0 : tensor<2x3x5x4xf32>
}

// [2, 3, 8] is normalized as [6, 8]: one pass sums x and x * x, then
// mean = sum / 8, var = max(sumsq / 8 - mean^2, 0), rstd = 1 / sqrt(var +
// eps), all accumulated and computed in f64 and rounded to f32 once; then
// the affine map in f32; restored to [2, 3, 8].
// CHECK-LABEL: func.func @layer_norm(
// CHECK:         %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
// CHECK:         %[[SUMS:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<6x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<6xf64>, tensor<6xf64>)
// CHECK:           %[[XW:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK:           arith.addf %{{.*}}, %[[XW]] : f64
// CHECK:           %[[X2:.*]] = arith.mulf %[[XW]], %[[XW]] : f64
// CHECK:           arith.addf %{{.*}}, %[[X2]] : f64
// CHECK:         %[[ST:.*]]:2 = linalg.generic {{.*}} ins(%[[SUMS]]#0, %[[SUMS]]#1 : tensor<6xf64>, tensor<6xf64>)
// CHECK:           %[[N:.*]] = arith.constant 8.000000e+00 : f64
// CHECK:           %[[M:.*]] = arith.divf %{{.*}}, %[[N]] : f64
// CHECK:           %[[MS:.*]] = arith.divf %{{.*}}, %[[N]] : f64
// CHECK:           %[[M2:.*]] = arith.mulf %[[M]], %[[M]] : f64
// CHECK:           %[[VAR:.*]] = arith.subf %[[MS]], %[[M2]] : f64
// CHECK:           %[[VP:.*]] = arith.maximumf %[[VAR]], %{{.*}} : f64
// CHECK:           %[[EPS:.*]] = arith.constant 1.000000e-03 : f64
// CHECK:           %[[V:.*]] = arith.addf %[[VP]], %[[EPS]] : f64
// CHECK:           %[[SD:.*]] = math.sqrt %[[V]] : f64
// CHECK:           arith.divf %{{.*}}, %[[SD]] : f64
// CHECK:         %[[MEAN32:.*]] = linalg.generic {{.*}} ins(%[[ST]]#0 : tensor<6xf64>) outs(%{{.*}} : tensor<6xf32>)
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:         %[[RSTD32:.*]] = linalg.generic {{.*}} ins(%[[ST]]#1 : tensor<6xf64>) outs(%{{.*}} : tensor<6xf32>)
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$COL]], #[[$COL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]], %[[MEAN32]], %[[RSTD32]], %arg1, %arg2 : tensor<6x8xf32>, tensor<6xf32>, tensor<6xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK:         tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
func.func @layer_norm(%x: tensor<2x3x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %0 = remat.layer_norm %x, %s, %b {epsilon = 1.0e-3 : f64} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// Statistics recomputed from the input; row sums of g and g * xhat; dx;
// dscale and dbias reduced over the rows (loops (d | m)) in f64, rounded
// to f32.
// CHECK-LABEL: func.func @layer_norm_grad(
// CHECK-SAME:      %[[G:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<8xf32>
// CHECK:         %[[SUMS:.*]]:2 = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>)
// CHECK:         %[[ROWS:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$COL]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]], %[[G]], %[[S]], %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:         %[[DX:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[G]], %[[S]], %{{.*}}, %{{.*}}, %[[ROWS]]#0, %[[ROWS]]#1 :
// CHECK:         %[[P:.*]]:2 = linalg.generic {indexing_maps = [#[[$TR]], #[[$TR]], #[[$COL]], #[[$COL]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]], %[[G]], %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}}, %{{.*}} : tensor<8xf64>, tensor<8xf64>)
// CHECK:         %[[DB:.*]] = linalg.generic {{.*}} ins(%[[P]]#0 : tensor<8xf64>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:         %[[DS:.*]] = linalg.generic {{.*}} ins(%[[P]]#1 : tensor<8xf64>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:         return %[[DX]], %[[DS]], %[[DB]] : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
func.func @layer_norm_grad(%g: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = remat.layer_norm_grad %g, %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// [N, C, H, W] is normalized as [N, C, H*W] with loops (c | n, s).
// CHECK-LABEL: func.func @batch_norm(
// CHECK:         %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<3x4x5x6xf32> into tensor<3x4x30xf32>
// CHECK:         %[[SUMS:.*]]:2 = linalg.generic {indexing_maps = [#[[$BNX]], #[[$BNC]], #[[$BNC]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<3x4x30xf32>) outs(%{{.*}}, %{{.*}} : tensor<4xf64>, tensor<4xf64>)
// CHECK:           arith.constant 9.000000e+01 : f64
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$BNX]], #[[$BNC]], #[[$BNC]], #[[$BNC]], #[[$BNC]], #[[$BNX]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]], %{{.*}}, %{{.*}}, %arg1, %arg2 : tensor<3x4x30xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:         tensor.expand_shape %[[Y]] {{\[}}[0], [1], [2, 3]] output_shape [3, 4, 5, 6] : tensor<3x4x30xf32> into tensor<3x4x5x6xf32>
func.func @batch_norm(%x: tensor<3x4x5x6xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<3x4x5x6xf32> {
  %0 = remat.batch_norm %x, %s, %b : (tensor<3x4x5x6xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4x5x6xf32>
  return %0 : tensor<3x4x5x6xf32>
}

// With its batch statistics: the one statistics generic also yields the
// unbiased variance var * 90 / 89 (f64), and the mean and that variance,
// rounded to f32, are the [C] results; no other pass over x.
// CHECK-LABEL: func.func @batch_norm_stats(
// CHECK:         %[[X:.*]] = tensor.collapse_shape %arg0
// CHECK:         %[[SUMS:.*]]:2 = linalg.generic {{.*}} ins(%[[X]] : tensor<3x4x30xf32>) outs(%{{.*}}, %{{.*}} : tensor<4xf64>, tensor<4xf64>)
// CHECK:         %[[ST:.*]]:3 = linalg.generic {{.*}} ins(%[[SUMS]]#0, %[[SUMS]]#1 : tensor<4xf64>, tensor<4xf64>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
// CHECK:           %[[BESSEL:.*]] = arith.constant 1.0112359550561798 : f64
// CHECK:           %[[UVAR:.*]] = arith.mulf %{{.*}}, %[[BESSEL]] : f64
// CHECK:           linalg.yield %{{.*}}, %{{.*}}, %[[UVAR]] : f64, f64, f64
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[ST]]#0 : tensor<4xf64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[ST]]#1 : tensor<4xf64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         %[[VAR:.*]] = linalg.generic {{.*}} ins(%[[ST]]#2 : tensor<4xf64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MEAN]], %[[RSTD]], %arg1, %arg2 :
// CHECK-NOT:     linalg.generic
// CHECK:         %[[YR:.*]] = tensor.expand_shape %[[Y]]
// CHECK:         return %[[YR]], %[[MEAN]], %[[VAR]] :
func.func @batch_norm_stats(%x: tensor<3x4x5x6xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<3x4x5x6xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0:3 = remat.batch_norm %x, %s, %b : (tensor<3x4x5x6xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<3x4x5x6xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x4x5x6xf32>, tensor<4xf32>, tensor<4xf32>
}

// A spatial size divisible by 8 (4x4): the sums go through 8 lanes, loops
// (c | n, s / 8 | l) into [C, 8] partial sums (lane l: the elements with
// s % 8 == l), then one generic adds the lanes of each channel in order.
// The gradient's dbias / dscale sums likewise.
// CHECK-LABEL: func.func @batch_norm_lanes(
// CHECK:         %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<2x3x4x4xf32> into tensor<2x3x16xf32>
// CHECK:         %[[XL:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 8] : tensor<2x3x16xf32> into tensor<2x3x2x8xf32>
// CHECK:         %[[P:.*]]:2 = linalg.generic {indexing_maps = [#[[$LX]], #[[$LL]], #[[$LL]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%[[XL]] : tensor<2x3x2x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<3x8xf64>, tensor<3x8xf64>)
// CHECK:         %[[S:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[P]]#0, %[[P]]#1 : tensor<3x8xf64>, tensor<3x8xf64>) outs(%{{.*}}, %{{.*}} : tensor<3xf64>, tensor<3xf64>)
// CHECK:         linalg.generic {{.*}} ins(%[[S]]#0, %[[S]]#1 : tensor<3xf64>, tensor<3xf64>)
// CHECK:           arith.constant 3.200000e+01 : f64
// CHECK-LABEL: func.func @batch_norm_grad_lanes(
// CHECK:         %[[P:.*]]:2 = linalg.generic {indexing_maps = [#[[$LX]], #[[$LL]], #[[$LL]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]]#0, %[[P]]#1 : tensor<3x8xf64>, tensor<3x8xf64>)
// CHECK:         %[[G:.*]]:2 = linalg.generic {indexing_maps = [#[[$LX]], #[[$LX]], #[[$LC]], #[[$LC]], #[[$LL]], #[[$LL]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x2x8xf32>, tensor<2x3x2x8xf32>, tensor<3xf32>, tensor<3xf32>) outs(%{{.*}}, %{{.*}} : tensor<3x8xf64>, tensor<3x8xf64>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[G]]#0, %[[G]]#1 : tensor<3x8xf64>, tensor<3x8xf64>) outs(%{{.*}}, %{{.*}} : tensor<3xf64>, tensor<3xf64>)
func.func @batch_norm_lanes(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = remat.batch_norm %x, %s, %b : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}
func.func @batch_norm_grad_lanes(%g: tensor<2x3x4x4xf32>, %x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = remat.batch_norm_grad %g, %x, %s : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// bf16 rank 2: [N, C] viewed as [N, C, 1]; bf16 read with extf, every
// reduction accumulated in f64 and rounded to f32, the elementwise work in
// f32, the three results truncated to bf16.
// CHECK-LABEL: func.func @batch_norm_grad(
// CHECK:         %[[X:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [8, 5, 1] : tensor<8x5xbf16> into tensor<8x5x1xbf16>
// CHECK:         %[[G:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [8, 5, 1]
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<8x5x1xbf16>) outs(%{{.*}}, %{{.*}} : tensor<5xf64>, tensor<5xf64>)
// CHECK:           arith.extf %{{.*}} : bf16 to f64
// CHECK:         %[[P:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]], %[[G]], %{{.*}}, %{{.*}} : tensor<8x5x1xbf16>, tensor<8x5x1xbf16>, tensor<5xf32>, tensor<5xf32>) outs(%{{.*}}, %{{.*}} : tensor<5xf64>, tensor<5xf64>)
// CHECK:         %[[DB32:.*]] = linalg.generic {{.*}} ins(%[[P]]#0 : tensor<5xf64>) outs(%{{.*}} : tensor<5xf32>)
// CHECK:         %[[DS32:.*]] = linalg.generic {{.*}} ins(%[[P]]#1 : tensor<5xf64>) outs(%{{.*}} : tensor<5xf32>)
// CHECK:         %[[DX:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[G]], %arg2, %{{.*}}, %{{.*}}, %[[DB32]], %[[DS32]] : {{.*}}) outs(%{{.*}} : tensor<8x5x1xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         %[[DXR:.*]] = tensor.collapse_shape %[[DX]] {{\[}}[0], [1, 2]] : tensor<8x5x1xbf16> into tensor<8x5xbf16>
// CHECK:         %[[DS:.*]] = linalg.generic {{.*}} ins(%[[DS32]] : tensor<5xf32>) outs(%{{.*}} : tensor<5xbf16>)
// CHECK:         %[[DB:.*]] = linalg.generic {{.*}} ins(%[[DB32]] : tensor<5xf32>) outs(%{{.*}} : tensor<5xbf16>)
// CHECK:         return %[[DXR]], %[[DS]], %[[DB]]
func.func @batch_norm_grad(%g: tensor<8x5xbf16>, %x: tensor<8x5xbf16>, %s: tensor<5xbf16>) -> (tensor<8x5xbf16>, tensor<5xbf16>, tensor<5xbf16>) {
  %0:3 = remat.batch_norm_grad %g, %x, %s : (tensor<8x5xbf16>, tensor<8x5xbf16>, tensor<5xbf16>) -> (tensor<8x5xbf16>, tensor<5xbf16>, tensor<5xbf16>)
  return %0#0, %0#1, %0#2 : tensor<8x5xbf16>, tensor<5xbf16>, tensor<5xbf16>
}

// Ops inside a remat.recompute region are lowered in place; the region
// stays closed.
// CHECK-LABEL: func.func @in_recompute(
// CHECK:         remat.recompute(%arg0, %arg1)
// CHECK:           linalg.conv_2d_nchw_fchw
// CHECK:           linalg.pooling_nchw_max
// CHECK:           remat.yield
// CHECK-NOT:     remat.conv2d
// CHECK-NOT:     remat.max_pool2d
func.func @in_recompute(%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %r = remat.recompute(%x, %w) : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  ^bb0(%a: tensor<1x2x6x6xf32>, %b: tensor<2x2x3x3xf32>):
    %0 = remat.conv2d %a, %b : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
    %1 = remat.max_pool2d %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    remat.yield %1 : tensor<1x2x2x2xf32>
  }
  return %r : tensor<1x2x2x2xf32>
}
