// Round trip of every remat op in its custom form, through the custom and the
// generic printer. Attributes that differ from their defaults must survive;
// default-valued ones are elided by the custom printer and materialized as
// properties in the generic form (GENERIC lines).
//
// RUN: remat-opt %s | remat-opt | FileCheck %s
// RUN: remat-opt %s --mlir-print-op-generic | remat-opt | FileCheck %s
// RUN: remat-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// All four transpose combinations, batched, and a 2-D rhs shared by a batched lhs.
// GENERIC-LABEL: sym_name = "matmul"
// GENERIC: "remat.matmul"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
// GENERIC: "remat.matmul"(%{{.*}}, %{{.*}}) <{transpose_b}>
// GENERIC: "remat.matmul"(%{{.*}}, %{{.*}}) <{transpose_a}>
// GENERIC: "remat.matmul"(%{{.*}}, %{{.*}}) <{transpose_a, transpose_b}>
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %arg0: tensor<4x8xf32>, %arg1: tensor<8x6xf32>, %arg2: tensor<6x8xf32>, %arg3: tensor<8x4xf32>, %arg4: tensor<3x4x8xf32>, %arg5: tensor<3x8x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<3x4x6xf32>, tensor<3x4x6xf32>) {
// CHECK-NEXT: %0 = remat.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %1 = remat.matmul %arg0, %arg2 {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %2 = remat.matmul %arg3, %arg1 {transpose_a} : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %3 = remat.matmul %arg3, %arg2 {transpose_a, transpose_b} : (tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %4 = remat.matmul %arg4, %arg5 : (tensor<3x4x8xf32>, tensor<3x8x6xf32>) -> tensor<3x4x6xf32>
// CHECK-NEXT: %5 = remat.matmul %arg4, %arg1 : (tensor<3x4x8xf32>, tensor<8x6xf32>) -> tensor<3x4x6xf32>
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<3x4x6xf32>, tensor<3x4x6xf32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %bt: tensor<6x8xf32>, %at: tensor<8x4xf32>, %ba: tensor<3x4x8xf32>, %bb: tensor<3x8x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<3x4x6xf32>, tensor<3x4x6xf32>) {
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %1 = remat.matmul %a, %bt {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %2 = remat.matmul %at, %b {transpose_a} : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %3 = remat.matmul %at, %bt {transpose_a, transpose_b} : (tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %4 = remat.matmul %ba, %bb : (tensor<3x4x8xf32>, tensor<3x8x6xf32>) -> tensor<3x4x6xf32>
  %5 = remat.matmul %ba, %b : (tensor<3x4x8xf32>, tensor<8x6xf32>) -> tensor<3x4x6xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<3x4x6xf32>, tensor<3x4x6xf32>
}

// Broadcasting binary ops on f16, and a rank-0 bf16 operand broadcast to 2x3.
// CHECK-LABEL: func.func @binary(
// CHECK-SAME: %arg0: tensor<4x8xf16>, %arg1: tensor<8xf16>, %arg2: tensor<4x1xf16>, %arg3: tensor<bf16>, %arg4: tensor<2x3xbf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<2x3xbf16>) {
// CHECK-NEXT: %0 = remat.add %arg0, %arg1 : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT: %1 = remat.sub %arg2, %arg1 : (tensor<4x1xf16>, tensor<8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT: %2 = remat.mul %0, %1 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT: %3 = remat.div %2, %arg2 : (tensor<4x8xf16>, tensor<4x1xf16>) -> tensor<4x8xf16>
// CHECK-NEXT: %4 = remat.mul %arg3, %arg4 : (tensor<bf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
// CHECK-NEXT: return %0, %1, %2, %3, %4 : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<2x3xbf16>
func.func @binary(%x: tensor<4x8xf16>, %b: tensor<8xf16>, %c: tensor<4x1xf16>, %y: tensor<bf16>, %z: tensor<2x3xbf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<2x3xbf16>) {
  %0 = remat.add %x, %b : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %1 = remat.sub %c, %b : (tensor<4x1xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %2 = remat.mul %0, %1 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %3 = remat.div %2, %c : (tensor<4x8xf16>, tensor<4x1xf16>) -> tensor<4x8xf16>
  %4 = remat.mul %y, %z : (tensor<bf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %0, %1, %2, %3, %4 : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<2x3xbf16>
}

// Every elementwise activation.
// CHECK-LABEL: func.func @unary(
// CHECK-SAME: %arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %0 = remat.relu %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %1 = remat.gelu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %2 = remat.tanh %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %3 = remat.sigmoid %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %4 = remat.exp %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %5 = remat.log %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %6 = remat.neg %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %6 : tensor<2x3xf32>
func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = remat.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = remat.gelu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = remat.tanh %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = remat.sigmoid %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = remat.exp %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = remat.log %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = remat.neg %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %6 : tensor<2x3xf32>
}

// Activation gradients (bf16).
// CHECK-LABEL: func.func @activation_grads(
// CHECK-SAME: %arg0: tensor<2x3xbf16>, %arg1: tensor<2x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>) {
// CHECK-NEXT: %0 = remat.relu_grad %arg0, %arg1 : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
// CHECK-NEXT: %1 = remat.gelu_grad %arg0, %arg1 : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
// CHECK-NEXT: %2 = remat.tanh_grad %arg0, %arg1 : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
// CHECK-NEXT: %3 = remat.sigmoid_grad %arg0, %arg1 : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
// CHECK-NEXT: return %0, %1, %2, %3 : tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>
func.func @activation_grads(%g: tensor<2x3xbf16>, %s: tensor<2x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>) {
  %0 = remat.relu_grad %g, %s : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
  %1 = remat.gelu_grad %g, %s : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
  %2 = remat.tanh_grad %g, %s : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
  %3 = remat.sigmoid_grad %g, %s : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %0, %1, %2, %3 : tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>
}

// Default axis (-1, elided), explicit positive and negative axes.
// GENERIC-LABEL: sym_name = "softmax"
// GENERIC: "remat.softmax"(%{{.*}}) <{axis = -1 : i64}>
// GENERIC: "remat.log_softmax"(%{{.*}}) <{axis = 1 : i64}>
// GENERIC: "remat.softmax_grad"(%{{.*}}, %{{.*}}) <{axis = -3 : i64}>
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %arg0: tensor<2x3x5xf32>, %arg1: tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
// CHECK-NEXT: %0 = remat.softmax %arg0 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %1 = remat.log_softmax %arg0 {axis = 1 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %2 = remat.softmax_grad %arg1, %0 {axis = -3 : i64} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %3 = remat.log_softmax_grad %arg1, %1 {axis = 1 : i64} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %0, %1, %2, %3 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>
func.func @softmax(%x: tensor<2x3x5xf32>, %g: tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %0 = remat.softmax %x : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %1 = remat.log_softmax %x {axis = 1 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %2 = remat.softmax_grad %g, %0 {axis = -3 : i64} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %3 = remat.log_softmax_grad %g, %1 {axis = 1 : i64} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %0, %1, %2, %3 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>
}

// Default and explicit epsilon; the grad ops have three (named) results.
// GENERIC-LABEL: sym_name = "norms"
// GENERIC: "remat.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 1.000000e-05 : f64}>
// GENERIC: "remat.batch_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 1.000000e-03 : f64}>
// GENERIC: = "remat.layer_norm_grad"(%{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 2.500000e-01 : f64}>
// CHECK-LABEL: func.func @norms(
// CHECK-SAME: %arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>, %arg3: tensor<2x3x4x4xf32>, %arg4: tensor<3xf32>, %arg5: tensor<3xf32>) -> (tensor<4x8xf32>, tensor<2x3x4x4xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x3x4x4xf32>) {
// CHECK-NEXT: %0 = remat.layer_norm %arg0, %arg1, %arg2 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %1 = remat.batch_norm %arg3, %arg4, %arg5 {epsilon = 1.000000e-03 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
// CHECK-NEXT: %input_grad, %scale_grad, %bias_grad = remat.layer_norm_grad %0, %arg0, %arg1 {epsilon = 2.500000e-01 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT: %input_grad_0, %scale_grad_1, %bias_grad_2 = remat.batch_norm_grad %1, %arg3, %arg4 : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: return %0, %1, %input_grad, %scale_grad, %bias_grad, %input_grad_0 : tensor<4x8xf32>, tensor<2x3x4x4xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x3x4x4xf32>
func.func @norms(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %y: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %d: tensor<3xf32>) -> (tensor<4x8xf32>, tensor<2x3x4x4xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x3x4x4xf32>) {
  %0 = remat.layer_norm %x, %s, %b : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = remat.batch_norm %y, %c, %d {epsilon = 1.000000e-03 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %2:3 = remat.layer_norm_grad %0, %x, %s {epsilon = 2.500000e-01 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %3:3 = remat.batch_norm_grad %1, %y, %c : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0, %1, %2#0, %2#1, %2#2, %3#0 : tensor<4x8xf32>, tensor<2x3x4x4xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x3x4x4xf32>
}

// batch_norm over [N, C].
// CHECK-LABEL: func.func @batch_norm_2d(
// CHECK-SAME: %arg0: tensor<16x8xf32>, %arg1: tensor<8xf32>) -> tensor<16x8xf32> {
// CHECK-NEXT: %0 = remat.batch_norm %arg0, %arg1, %arg1 : (tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<16x8xf32>
// CHECK-NEXT: return %0 : tensor<16x8xf32>
func.func @batch_norm_2d(%x: tensor<16x8xf32>, %s: tensor<8xf32>) -> tensor<16x8xf32> {
  %0 = remat.batch_norm %x, %s, %s : (tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// batch_norm with its batch statistics (mean and unbiased variance, [C]).
// GENERIC-LABEL: sym_name = "batch_norm_stats"
// GENERIC: %{{.*}}:3 = "remat.batch_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 1.000000e-05 : f64}> : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-LABEL: func.func @batch_norm_stats(
// CHECK-NEXT: %0, %batch_mean, %batch_var = remat.batch_norm %arg0, %arg1, %arg2 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: return %0, %batch_mean, %batch_var : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
func.func @batch_norm_stats(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = remat.batch_norm %x, %s, %b : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// Non-default strides/padding/dilations/groups survive; defaults are elided.
// GENERIC-LABEL: sym_name = "conv"
// GENERIC: "remat.conv2d"(%{{.*}}, %{{.*}}) <{dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>}>
// GENERIC: "remat.conv2d"(%{{.*}}, %{{.*}}) <{dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}>
// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %arg0: tensor<2x4x9x9xf32>, %arg1: tensor<6x2x3x3xf32>, %arg2: tensor<2x6x4x4xf32>, %arg3: tensor<5x4x3x3xf32>) -> (tensor<2x6x4x4xf32>, tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<2x5x7x7xf32>) {
// CHECK-NEXT: %0 = remat.conv2d %arg0, %arg1 {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
// CHECK-NEXT: %1 = remat.conv2d_input_grad %arg2, %arg1 {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
// CHECK-NEXT: %2 = remat.conv2d_filter_grad %arg2, %arg0 {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32>
// CHECK-NEXT: %3 = remat.conv2d %arg0, %arg3 : (tensor<2x4x9x9xf32>, tensor<5x4x3x3xf32>) -> tensor<2x5x7x7xf32>
// CHECK-NEXT: return %0, %1, %2, %3 : tensor<2x6x4x4xf32>, tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<2x5x7x7xf32>
func.func @conv(%x: tensor<2x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %g: tensor<2x6x4x4xf32>, %w1: tensor<5x4x3x3xf32>) -> (tensor<2x6x4x4xf32>, tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<2x5x7x7xf32>) {
  %0 = remat.conv2d %x, %w {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
  %1 = remat.conv2d_input_grad %g, %w {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
  %2 = remat.conv2d_filter_grad %g, %x {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32>
  %3 = remat.conv2d %x, %w1 : (tensor<2x4x9x9xf32>, tensor<5x4x3x3xf32>) -> tensor<2x5x7x7xf32>
  return %0, %1, %2, %3 : tensor<2x6x4x4xf32>, tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<2x5x7x7xf32>
}

// Pooling: max with kernel 3 and padding 1 (strides default 2x2, elided), avg with strides 1.
// GENERIC-LABEL: sym_name = "pool"
// GENERIC: "remat.max_pool2d"(%{{.*}}) <{kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>}>
// GENERIC: "remat.avg_pool2d"(%{{.*}}) <{kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}>
// CHECK-LABEL: func.func @pool(
// CHECK-SAME: %arg0: tensor<2x3x8x8xf32>, %arg1: tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x7x7xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>, tensor<2x3xf32>, tensor<2x3x8x8xf32>) {
// CHECK-NEXT: %0 = remat.max_pool2d %arg0 {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
// CHECK-NEXT: %1 = remat.avg_pool2d %arg0 {strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x7x7xf32>
// CHECK-NEXT: %2 = remat.max_pool2d_grad %arg1, %arg0 {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %3 = remat.avg_pool2d_grad %1 {strides = array<i64: 1, 1>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %4 = remat.global_avg_pool %arg0 : (tensor<2x3x8x8xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %5 = remat.global_avg_pool_grad %4 : (tensor<2x3xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5 : tensor<2x3x4x4xf32>, tensor<2x3x7x7xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>, tensor<2x3xf32>, tensor<2x3x8x8xf32>
func.func @pool(%x: tensor<2x3x8x8xf32>, %g: tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x7x7xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>, tensor<2x3xf32>, tensor<2x3x8x8xf32>) {
  %0 = remat.max_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  %1 = remat.avg_pool2d %x {strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x7x7xf32>
  %2 = remat.max_pool2d_grad %g, %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %3 = remat.avg_pool2d_grad %1 {strides = array<i64: 1, 1>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x8x8xf32>
  %4 = remat.global_avg_pool %x : (tensor<2x3x8x8xf32>) -> tensor<2x3xf32>
  %5 = remat.global_avg_pool_grad %4 : (tensor<2x3xf32>) -> tensor<2x3x8x8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3x4x4xf32>, tensor<2x3x7x7xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>, tensor<2x3xf32>, tensor<2x3x8x8xf32>
}

// Shape ops, including a slice of an integer tensor and a negative concat axis.
// CHECK-LABEL: func.func @shapes(
// CHECK-SAME: %arg0: tensor<2x3x4xf32>, %arg1: tensor<6x4xi32>, %arg2: tensor<3x1xf32>) -> (tensor<6x4xf32>, tensor<3x4x2xf32>, tensor<6x8xf32>, tensor<2x4xi32>, tensor<1x2x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x1xf32>) {
// CHECK-NEXT: %0 = remat.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %1 = remat.transpose %arg0 {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: %2 = remat.concat %0, %0 {axis = -1 : i64} : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: %3 = remat.slice %arg1 {offsets = array<i64: 1, 0>, strides = array<i64: 3, 1>} : (tensor<6x4xi32>) -> tensor<2x4xi32>
// CHECK-NEXT: %4 = remat.slice %arg0 {offsets = array<i64: 1, 0, 1>, strides = array<i64: 1, 2, 2>} : (tensor<2x3x4xf32>) -> tensor<1x2x2xf32>
// CHECK-NEXT: %5 = remat.slice_grad %4 {offsets = array<i64: 1, 0, 1>, strides = array<i64: 1, 2, 2>} : (tensor<1x2x2xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %6 = remat.broadcast_to %arg2 : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %7 = remat.sum_to %6 : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<6x4xf32>, tensor<3x4x2xf32>, tensor<6x8xf32>, tensor<2x4xi32>, tensor<1x2x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x1xf32>
func.func @shapes(%x: tensor<2x3x4xf32>, %i: tensor<6x4xi32>, %y: tensor<3x1xf32>) -> (tensor<6x4xf32>, tensor<3x4x2xf32>, tensor<6x8xf32>, tensor<2x4xi32>, tensor<1x2x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x1xf32>) {
  %0 = remat.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = remat.transpose %x {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %2 = remat.concat %0, %0 {axis = -1 : i64} : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x8xf32>
  %3 = remat.slice %i {offsets = array<i64: 1, 0>, strides = array<i64: 3, 1>} : (tensor<6x4xi32>) -> tensor<2x4xi32>
  %4 = remat.slice %x {offsets = array<i64: 1, 0, 1>, strides = array<i64: 1, 2, 2>} : (tensor<2x3x4xf32>) -> tensor<1x2x2xf32>
  %5 = remat.slice_grad %4 {offsets = array<i64: 1, 0, 1>, strides = array<i64: 1, 2, 2>} : (tensor<1x2x2xf32>) -> tensor<2x3x4xf32>
  %6 = remat.broadcast_to %y : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %7 = remat.sum_to %6 : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<6x4xf32>, tensor<3x4x2xf32>, tensor<6x8xf32>, tensor<2x4xi32>, tensor<1x2x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x1xf32>
}

// Embedding with i64 indices, its gradient, and dropout with its seed and rate.
// GENERIC-LABEL: sym_name = "embedding_dropout"
// GENERIC: "remat.dropout"(%{{.*}}, %{{.*}}) <{rate = 1.000000e-01 : f64}>
// CHECK-LABEL: func.func @embedding_dropout(
// CHECK-SAME: %arg0: tensor<10x4xbf16>, %arg1: tensor<2x3xi64>, %arg2: tensor<i64>) -> (tensor<2x3x4xbf16>, tensor<10x4xbf16>, tensor<2x3x4xbf16>) {
// CHECK-NEXT: %0 = remat.embedding %arg0, %arg1 : (tensor<10x4xbf16>, tensor<2x3xi64>) -> tensor<2x3x4xbf16>
// CHECK-NEXT: %1 = remat.embedding_grad %0, %arg1 : (tensor<2x3x4xbf16>, tensor<2x3xi64>) -> tensor<10x4xbf16>
// CHECK-NEXT: %2 = remat.dropout %0, %arg2 {rate = 1.000000e-01 : f64} : (tensor<2x3x4xbf16>, tensor<i64>) -> tensor<2x3x4xbf16>
// CHECK-NEXT: return %0, %1, %2 : tensor<2x3x4xbf16>, tensor<10x4xbf16>, tensor<2x3x4xbf16>
func.func @embedding_dropout(%t: tensor<10x4xbf16>, %i: tensor<2x3xi64>, %seed: tensor<i64>) -> (tensor<2x3x4xbf16>, tensor<10x4xbf16>, tensor<2x3x4xbf16>) {
  %0 = remat.embedding %t, %i : (tensor<10x4xbf16>, tensor<2x3xi64>) -> tensor<2x3x4xbf16>
  %1 = remat.embedding_grad %0, %i : (tensor<2x3x4xbf16>, tensor<2x3xi64>) -> tensor<10x4xbf16>
  %2 = remat.dropout %0, %seed {rate = 1.000000e-01 : f64} : (tensor<2x3x4xbf16>, tensor<i64>) -> tensor<2x3x4xbf16>
  return %0, %1, %2 : tensor<2x3x4xbf16>, tensor<10x4xbf16>, tensor<2x3x4xbf16>
}

// Losses (f32 loss of f16 inputs for mse) and their gradients; phase attributes survive.
// CHECK-LABEL: func.func @losses(
// CHECK-SAME: %arg0: tensor<4x10xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4x3xf16>, %arg3: tensor<4x3xf16>, %arg4: tensor<f32>) -> (tensor<f32>, tensor<4x10xf32>, tensor<f32>, tensor<4x3xf16>) {
// CHECK-NEXT: %0 = remat.softmax_cross_entropy %arg0, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
// CHECK-NEXT: %1 = remat.softmax_cross_entropy_grad %arg0, %arg1, %arg4 {remat.phase = #remat.phase<backward>} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
// CHECK-NEXT: %2 = remat.mse %arg2, %arg3 : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<f32>
// CHECK-NEXT: %3 = remat.mse_grad %arg2, %arg3, %arg4 : (tensor<4x3xf16>, tensor<4x3xf16>, tensor<f32>) -> tensor<4x3xf16>
// CHECK-NEXT: return %0, %1, %2, %3 : tensor<f32>, tensor<4x10xf32>, tensor<f32>, tensor<4x3xf16>
func.func @losses(%logits: tensor<4x10xf32>, %labels: tensor<4xi32>, %p: tensor<4x3xf16>, %t: tensor<4x3xf16>, %dl: tensor<f32>) -> (tensor<f32>, tensor<4x10xf32>, tensor<f32>, tensor<4x3xf16>) {
  %0 = remat.softmax_cross_entropy %logits, %labels {remat.phase = #remat.phase<loss>} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  %1 = remat.softmax_cross_entropy_grad %logits, %labels, %dl {remat.phase = #remat.phase<backward>} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  %2 = remat.mse %p, %t : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<f32>
  %3 = remat.mse_grad %p, %t, %dl : (tensor<4x3xf16>, tensor<4x3xf16>, tensor<f32>) -> tensor<4x3xf16>
  return %0, %1, %2, %3 : tensor<f32>, tensor<4x10xf32>, tensor<f32>, tensor<4x3xf16>
}

// Opaque ops with zero, one and two inputs.
// GENERIC-LABEL: sym_name = "opaque"
// GENERIC: "remat.opaque"(%{{.*}}) <{cost = 3.850000e+02 : f64, name = "block1_conv1"}>
// CHECK-LABEL: func.func @opaque(
// CHECK-SAME: %arg0: tensor<16xi8>) -> tensor<64xi8> {
// CHECK-NEXT: %0 = remat.opaque "block1_conv1"(%arg0) {cost = 3.850000e+02 : f64} : (tensor<16xi8>) -> tensor<64xi8>
// CHECK-NEXT: %1 = remat.opaque "source"() {cost = 0.000000e+00 : f64} : () -> tensor<8xi8>
// CHECK-NEXT: %2 = remat.opaque "merge"(%0, %1) {cost = 1.500000e+00 : f64} : (tensor<64xi8>, tensor<8xi8>) -> tensor<64xi8>
// CHECK-NEXT: return %2 : tensor<64xi8>
func.func @opaque(%x: tensor<16xi8>) -> tensor<64xi8> {
  %0 = remat.opaque "block1_conv1"(%x) {cost = 3.850000e+02 : f64} : (tensor<16xi8>) -> tensor<64xi8>
  %1 = remat.opaque "source"() {cost = 0.000000e+00 : f64} : () -> tensor<8xi8>
  %2 = remat.opaque "merge"(%0, %1) {cost = 1.500000e+00 : f64} : (tensor<64xi8>, tensor<8xi8>) -> tensor<64xi8>
  return %2 : tensor<64xi8>
}

// remat.param on an argument, remat.training_step, remat.no_recompute,
// remat.phase (all three values), and remat.keep (with an extra attribute).
// GENERIC: arg_attrs = [{}, {remat.param}]{{.*}}sym_name = "hints"
// GENERIC: "remat.matmul"(%{{.*}}, %{{.*}}) {remat.no_recompute}
// GENERIC: "remat.keep"(%{{.*}}) : (tensor<4x8xf32>) -> ()
// GENERIC: "remat.keep"(%{{.*}}) {note = "input"} : (tensor<4x8xf32>) -> ()
// GENERIC: }) {remat.training_step} : () -> ()
// CHECK-LABEL: func.func @hints(
// CHECK-SAME: %arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32> {remat.param}) -> tensor<4x8xf32> attributes {remat.training_step} {
// CHECK-NEXT: %0 = remat.matmul %arg0, %arg1 {remat.no_recompute} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %1 = remat.relu %0 {remat.phase = #remat.phase<forward>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: remat.keep %1 : tensor<4x8xf32>
// CHECK-NEXT: remat.keep %arg0 {note = "input"} : tensor<4x8xf32>
// CHECK-NEXT: %2 = remat.neg %1 {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %2 : tensor<4x8xf32>
func.func @hints(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param}) -> tensor<4x8xf32> attributes {remat.training_step} {
  %0 = remat.matmul %x, %w {remat.no_recompute} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.relu %0 {remat.phase = #remat.phase<forward>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  remat.keep %1 : tensor<4x8xf32>
  remat.keep %x {note = "input"} : tensor<4x8xf32>
  %2 = remat.neg %1 {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// remat.recompute with two results and its remat.yield, and an empty one.
// GENERIC-LABEL: sym_name = "recompute"
// GENERIC: = "remat.recompute"(%{{.*}}, %{{.*}}) ({
// GENERIC-NEXT: ^bb0(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x8xf32>):
// GENERIC: "remat.yield"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
// GENERIC-NEXT: }) {tag = 3 : i64} : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// GENERIC: "remat.recompute"() ({
// GENERIC-NEXT: "remat.yield"() : () -> ()
// CHECK-LABEL: func.func @recompute(
// CHECK-SAME: %arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT: %0 = remat.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %1:2 = remat.recompute(%arg0, %arg1) {tag = 3 : i64} : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT: ^bb0(%arg2: tensor<4x8xf32>, %arg3: tensor<8x8xf32>):
// CHECK-NEXT: %2 = remat.matmul %arg2, %arg3 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %3 = remat.relu %2 : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: remat.yield %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: remat.recompute() : () -> () {
// CHECK-NEXT: remat.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %1#0, %1#1 : tensor<4x8xf32>, tensor<4x8xf32>
func.func @recompute(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1:2 = remat.recompute(%x, %w) {tag = 3 : i64} : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %2 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %3 = remat.relu %2 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    remat.yield %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  remat.recompute() : () -> () {
    remat.yield
  }
  return %1#0, %1#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// State: an argument marked remat.state and the result holding its next value.
// CHECK-LABEL: func.func @state_round_trip(
// CHECK-SAME: %{{.*}}: tensor<4xf32> {remat.param}, %{{.*}}: tensor<4xf32> {remat.state}, %{{.*}}: tensor<i64> {remat.state})
// CHECK-SAME: -> (tensor<f32>, tensor<4xf32> {remat.state = 1 : i64}, tensor<i64> {remat.state = 2 : i64})
func.func @state_round_trip(%w: tensor<4xf32> {remat.param}, %s: tensor<4xf32> {remat.state}, %n: tensor<i64> {remat.state}) -> (tensor<f32>, tensor<4xf32> {remat.state = 1 : i64}, tensor<i64> {remat.state = 2 : i64}) {
  %0 = remat.mse %w, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0, %s, %n : tensor<f32>, tensor<4xf32>, tensor<i64>
}
