// RUN: remat-opt %s --remat-lower-to-linalg --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   --remat-conv-to-gemm | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-linalg --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   --remat-conv-to-gemm=max-column-bytes=1 | FileCheck %s --check-prefix=ONE
// RUN: not remat-opt %s --remat-conv-to-gemm=max-column-bytes=0 2>&1 | FileCheck %s --check-prefix=ERR
// The convolutions of remat-lower-to-linalg (bufferized) as im2col, matmuls
// on views of the column buffer and col2im. Numbers: test/Execution/
// conv-pool-norm-conv.mlir.

// Two images, one group, 3 x 3 kernel, stride 1: both images in one chunk;
// the column buffer is [g, c, kh, kw, n, oh, ow]; the filter is broadcast
// over the images of the batched matmul.
// CHECK-LABEL: func.func @forward(
// CHECK-NOT: linalg.conv_2d
// CHECK: %[[COL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x3x3x3x2x4x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IM2COL:map[0-9]*]], #{{map[0-9]*}}]{{.*}} ins(%{{.*}} : memref<2x1x3x6x6xf32{{.*}}>) outs(%[[COL]] : memref<1x3x3x3x2x4x4xf32>)
// CHECK: %[[PER:.*]] = memref.transpose %{{.*}} (d0, d1, d2) -> (d1, d0, d2)
// CHECK: linalg.batch_matmul indexing_maps = [#{{map[0-9]*}}, #{{map[0-9]*}}, #{{map[0-9]*}}] ins(%{{.*}}, %[[PER]] : memref<4x27xf32{{.*}}>, memref<2x27x16xf32{{.*}}>) outs(%{{.*}} : memref<2x4x16xf32{{.*}}>)
// CHECK: memref.dealloc %[[COL]]
// CHECK-NOT: linalg.conv_2d
// ONE-LABEL: func.func @forward(
// ONE: memref.alloc() {alignment = 64 : i64} : memref<1x3x3x3x1x4x4xf32>
// ONE: linalg.generic
// ONE: linalg.batch_matmul
// ONE: linalg.generic
// ONE: linalg.batch_matmul
// ONE-NOT: linalg.generic
// ONE: memref.dealloc
func.func @forward(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %y = remat.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  return %y : tensor<2x4x4x4xf32>
}

// Two groups, stride 2, padding 1: one image per chunk; the column buffer
// starts at zero, the matmul (batched over the groups) reads the filter
// transposed, and the col2im gather loops over kernel rows and columns.
// CHECK-LABEL: func.func @input_grad(
// CHECK: %[[COL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x3x3x1x3x3xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[COL]] : memref<2x2x3x3x1x3x3xf32>)
// CHECK: linalg.batch_matmul indexing_maps = [#[[WT:map[0-9]*]], #{{map[0-9]*}}, #{{map[0-9]*}}] ins(%{{.*}}, %{{.*}} : memref<2x3x18xf32{{.*}}>, memref<2x3x9xf32{{.*}}>) outs(%{{.*}} : memref<2x18x9xf32{{.*}}>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<1x2x2x7x7xf32
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.if
// CHECK: memref.load %[[COL]]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[COL]]
// CHECK: linalg.batch_matmul
// CHECK: memref.dealloc %[[COL]]
func.func @input_grad(%dy: tensor<2x6x3x3xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x4x5x5xf32> {
  %r = remat.conv2d_input_grad %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x6x3x3xf32>, tensor<6x2x3x3xf32>) -> (tensor<2x4x5x5xf32>)
  return %r : tensor<2x4x5x5xf32>
}

// Two images, one group: the chunk's output gradient is gathered into
// [f, n, oh*ow] and one matmul sums over all images and pixels.
// CHECK-LABEL: func.func @filter_grad(
// CHECK: %[[COL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x3x3x3x2x4x4xf32>
// CHECK: %[[DY:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x2x16xf32>
// CHECK: linalg.generic {{.*}} outs(%[[COL]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<2x4x16xf32{{.*}}>) outs(%[[DY]] : memref<4x2x16xf32>)
// CHECK: linalg.matmul indexing_maps = [#{{map[0-9]*}}, #{{map[0-9]*}}, #{{map[0-9]*}}] ins(%{{.*}}, %{{.*}} : memref<4x32xf32>, memref<27x32xf32{{.*}}>) outs(%{{.*}} : memref<4x27xf32{{.*}}>)
// CHECK: memref.dealloc %[[DY]]
// CHECK: memref.dealloc %[[COL]]
func.func @filter_grad(%dy: tensor<2x4x4x4xf32>, %x: tensor<2x3x6x6xf32>) -> tensor<4x3x3x3xf32> {
  %r = remat.conv2d_filter_grad %dy, %x {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x4x4x4xf32>, tensor<2x3x6x6xf32>) -> (tensor<4x3x3x3xf32>)
  return %r : tensor<4x3x3x3xf32>
}

// 1x1, stride 1, two images: no column buffer; the forward multiplies the
// input's images ([n, c, h*w]) and the input gradient multiplies into dx.
// CHECK-LABEL: func.func @pointwise(
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<1x3x1x1
// CHECK: linalg.batch_matmul {{.*}} ins(%{{.*}}, %{{.*}} : memref<4x3xf32{{.*}}>, memref<2x3x20xf32{{.*}}>) outs(%{{.*}} : memref<2x4x20xf32
// CHECK: linalg.batch_matmul {{.*}} ins(%{{.*}}, %{{.*}} : memref<2x4x3xf32, strided<[0, 3, 1], offset: ?>>, memref<2x4x20xf32{{.*}}>) outs(%{{.*}} : memref<2x3x20xf32
// CHECK-NOT: scf.for
// CHECK: return
func.func @pointwise(%x: tensor<2x3x4x5xf32>, %w: tensor<4x3x1x1xf32>) -> (tensor<2x4x4x5xf32>, tensor<2x3x4x5xf32>) {
  %y = remat.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x3x4x5xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x4x5xf32>
  %dx = remat.conv2d_input_grad %y, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x4x4x5xf32>, tensor<4x3x1x1xf32>) -> (tensor<2x3x4x5xf32>)
  return %y, %dx : tensor<2x4x4x5xf32>, tensor<2x3x4x5xf32>
}

// f16: not a runtime convolution (f16 operands), left alone.
// CHECK-LABEL: func.func @f16(
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.batch_matmul
func.func @f16(%x: tensor<1x1x3x3xf16>, %w: tensor<1x1x2x2xf16>) -> tensor<1x1x2x2xf16> {
  %y = remat.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x3x3xf16>, tensor<1x1x2x2xf16>) -> tensor<1x1x2x2xf16>
  return %y : tensor<1x1x2x2xf16>
}

// A column buffer of 2^31 elements or more per image (4 x 39999^2): left
// alone.
// CHECK-LABEL: func.func @too_large(
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.batch_matmul
func.func @too_large(%x: tensor<1x1x40000x40000xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x39999x39999xf32> {
  %y = remat.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x40000x40000xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x39999x39999xf32>
  return %y : tensor<1x1x39999x39999xf32>
}

// ERR: error: remat-conv-to-gemm: max-column-bytes must be positive, got 0
