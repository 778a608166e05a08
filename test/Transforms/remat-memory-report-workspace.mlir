// --remat-memory-report: the scratch bytes of the convolution and pooling
// ops (RematCostOpInterface::getWorkspaceBytes) count at the op's own step,
// on top of its operands and results. Each figure is the liveness lower
// bound of the arena remat-compile plans for the function alone (checked by
// hand on this build: the lowering's padded copies, f32 accumulators,
// windows and index buffers; for the max-pool gradient, whose result is
// allocated after its argmax, that bound less the result, checked with
// --remat-plan-arena's remark); docs/Design.md lists the formulas.
//
// RUN: remat-opt %s --remat-memory-report=per-op -split-input-file -verify-diagnostics -o /dev/null
// RUN: remat-opt %s --remat-memory-report="json-file=%t.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t.json

// conv2d, padding 1: the padded input 2x3x10x10 f32 = 2400 bytes during the
// conv (live: its result 2x4x8x8 = 2048); the ReLU after it sees none.
// expected-remark @+1 {{peak activation bytes 4448}}
func.func @conv_then_relu(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  // expected-remark @+2 {{live bytes 2048, workspace bytes 2400}}
  // expected-remark @+1 {{memory peak: 4448 activation bytes live (2400 of them the op's workspace)}}
  %0 = remat.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  // expected-remark @+1 {{live bytes 2048}}
  %1 = remat.relu %0 : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %1 : tensor<2x4x8x8xf32>
}

// CHECK-LABEL: "function": "conv_then_relu"
// CHECK-NEXT: "peak_activation_bytes": 4448,
// CHECK: "index": 0,
// CHECK-NEXT: "op": "remat.conv2d",
// CHECK-NEXT: "live_bytes": 2048,
// CHECK-NEXT: "workspace_bytes": 2400
// CHECK: "index": 1,
// CHECK-NEXT: "op": "remat.relu",
// CHECK-NEXT: "live_bytes": 2048
// CHECK-NEXT: }
// CHECK-NEXT: ],
// CHECK-NEXT: "peak_workspace_bytes": 2400

// -----

// f16: the padded input 2x3x10x10 f16 = 1200 and the f32 accumulator
// 2x4x8x8 = 2048 (the result is its truncation).
// expected-remark @+1 {{peak activation bytes 3248}}
func.func @conv_f16(%x: tensor<2x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x8x8xf16> {
  // expected-remark @+2 {{live bytes 0, workspace bytes 3248}}
  // expected-remark @+1 {{memory peak}}
  %0 = remat.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x8x8xf16>
  return %0 : tensor<2x4x8x8xf16>
}

// -----

// Input gradient, padding 1: the f32 gradient of the padded input,
// 2x3x10x10 = 2400, sliced into the result. Filter gradient: the padded
// input, 2400. Without padding in f32 neither has a workspace.
// expected-remark @+1 {{peak activation bytes 2400}}
func.func @conv_grads(%g: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>, %x: tensor<2x3x8x8xf32>, %w1: tensor<4x3x1x1xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2x3x8x8xf32>) {
  // expected-remark @+2 {{live bytes 0, workspace bytes 2400}}
  // expected-remark @+1 {{memory peak}}
  %0 = remat.conv2d_input_grad %g, %w {padding = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  // expected-remark @+1 {{live bytes 0, workspace bytes 2400}}
  %1 = remat.conv2d_filter_grad %g, %x {padding = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  // expected-remark @+1 {{live bytes 0}}
  %2 = remat.conv2d_input_grad %g, %w1 : (tensor<2x4x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<2x3x8x8xf32>
  return %0, %1, %2 : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2x3x8x8xf32>
}

// -----

// Pooling, input 2x3x8x8 f32.
// max_pool2d 2x2: the window, 16 bytes. 3x3 padding 1: + the padded input
// 2x3x10x10 = 2400 (2436 with the 36-byte window).
// max_pool2d_grad 2x2: the argmax (window 16 + maxima 2x3x4x4 = 384 +
// indices 384 = 784) runs before the result R (2x3x8x8 = 1536) exists; the
// gather then holds the indices 384, the 1x1 cover window 4 and R: the
// peak 1924 less R = 388.
// avg_pool2d 2x2 padding 1 (output 2x3x5x5): padded input 2400 + f32 window
// 16 + f32 sums 600 = 3016.
// avg_pool2d_grad 2x2: the dilated gradient 1944 + window 16 + f32 sums
// 2x3x8x8 = 1536 = 3496.
// global_avg_pool: the f32 sums 2x3 = 24.
// expected-remark @+1 {{peak activation bytes 3496}}
func.func @pools(%x: tensor<2x3x8x8xf32>, %g: tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>, tensor<2x3x5x5xf32>, tensor<2x3x8x8xf32>, tensor<2x3xf32>) {
  // expected-remark @+1 {{live bytes 0, workspace bytes 16}}
  %0 = remat.max_pool2d %x : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // expected-remark @+1 {{live bytes 0, workspace bytes 2436}}
  %1 = remat.max_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // expected-remark @+1 {{live bytes 0, workspace bytes 388}}
  %2 = remat.max_pool2d_grad %g, %x : (tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  // expected-remark @+1 {{live bytes 0, workspace bytes 3016}}
  %3 = remat.avg_pool2d %x {padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x5x5xf32>
  // expected-remark @+2 {{live bytes 0, workspace bytes 3496}}
  // expected-remark @+1 {{memory peak}}
  %4 = remat.avg_pool2d_grad %g : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // expected-remark @+1 {{live bytes 0, workspace bytes 24}}
  %5 = remat.global_avg_pool %x : (tensor<2x3x8x8xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>, tensor<2x3x5x5xf32>, tensor<2x3x8x8xf32>, tensor<2x3xf32>
}

// -----

// max_pool2d_grad 3x3, stride 2, padding 1, input 2x3x7x8. f32: the argmax
// phase holds the padded input 2x3x9x10 = 2160, the window 36, the maxima
// 2x3x4x4 = 384 and the indices 384 (2964); the gather holds the indices,
// the 2x2 cover window 16 and R = 2x3x7x8 = 1344 (1744): 2964 - R = 1620.
// f16: argmax 1080 + 18 + 192 + 384 = 1674; gather 384 + 8 + the f32
// accumulator 1344 = 1736; the truncation holds the accumulator and R = 672
// (2016): 2016 - R = 1344.
// expected-remark @+1 {{peak activation bytes 1620}}
func.func @max_pool_grad_padded(%g: tensor<2x3x4x4xf32>, %x: tensor<2x3x7x8xf32>, %g16: tensor<2x3x4x4xf16>, %x16: tensor<2x3x7x8xf16>) -> (tensor<2x3x7x8xf32>, tensor<2x3x7x8xf16>) {
  // expected-remark @+2 {{live bytes 0, workspace bytes 1620}}
  // expected-remark @+1 {{memory peak}}
  %0 = remat.max_pool2d_grad %g, %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>, tensor<2x3x7x8xf32>) -> tensor<2x3x7x8xf32>
  // expected-remark @+1 {{live bytes 0, workspace bytes 1344}}
  %1 = remat.max_pool2d_grad %g16, %x16 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<2x3x4x4xf16>, tensor<2x3x7x8xf16>) -> tensor<2x3x7x8xf16>
  return %0, %1 : tensor<2x3x7x8xf32>, tensor<2x3x7x8xf16>
}
