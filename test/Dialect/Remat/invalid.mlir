// Verifier diagnostics of the remat dialect: one case per error branch of
// RematOps.cpp (op verifiers), RematDialect.cpp (discardable and argument
// attributes) and the type/attribute constraints declared in the .td files.
//
// RUN: remat-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Type constraints (RematOps.td)
//===----------------------------------------------------------------------===//

func.func @dynamic_float_tensor(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of f16, bf16 or f32}}
  %0 = remat.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @unranked_tensor(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of f16, bf16 or f32}}
  %0 = remat.tanh %x : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f64_not_allowed(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of f16, bf16 or f32}}
  %0 = remat.exp %x : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @integer_add(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of f16, bf16 or f32}}
  %0 = remat.add %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of f16, bf16 or f32}}
  %0 = remat.neg %x : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @unary_type_change(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = remat.sigmoid %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @activation_grad_types(%g: tensor<4xf32>, %x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = remat.relu_grad %g, %x : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @softmax_grad_shapes(%g: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = remat.softmax_grad %g, %y : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of i32 or i64}}
  %0 = remat.embedding %t, %i : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @i16_labels(%l: tensor<4x10xf32>, %y: tensor<4xi16>) -> tensor<f32> {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of i32 or i64}}
  %0 = remat.softmax_cross_entropy %l, %y : (tensor<4x10xf32>, tensor<4xi16>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @dynamic_static_tensor(%x: tensor<?x4xi32>) -> tensor<4x?xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = remat.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x4xi32>) -> tensor<4x?xi32>
  return %0 : tensor<4x?xi32>
}

// -----

func.func @loss_not_scalar(%p: tensor<4xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{result #0 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float values}}
  %0 = remat.mse %p, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @loss_grad_not_scalar(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %g: tensor<4xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{operand #2 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float values}}
  %0 = remat.softmax_cross_entropy_grad %l, %y, %g : (tensor<4x10xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// The ODS constraint on the seed rejects a non-scalar seed before
// DropoutOp::verify runs, so its own 'seed must be a rank-0 tensor<i64>'
// branch cannot be reached.
func.func @seed_not_rank0(%x: tensor<4xf32>, %s: tensor<1xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #1 must be 0D tensor of 64-bit signless integer values}}
  %0 = remat.dropout %x, %s {rate = 5.000000e-01 : f64} : (tensor<4xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @seed_i32(%x: tensor<4xf32>, %s: tensor<i32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #1 must be 0D tensor of 64-bit signless integer values}}
  %0 = remat.dropout %x, %s {rate = 5.000000e-01 : f64} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @keep_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  remat.keep %x : tensor<?xf32>
  return
}

// -----

func.func @opaque_dynamic(%x: tensor<16xi8>) -> tensor<?xi8> {
  // expected-error @+1 {{result #0 must be statically shaped tensor}}
  %0 = remat.opaque "op"(%x) {cost = 1.000000e+00 : f64} : (tensor<16xi8>) -> tensor<?xi8>
  return %0 : tensor<?xi8>
}

// -----

func.func @recompute_dynamic_result(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{result #0 must be variadic of statically shaped tensor}}
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
    remat.yield %1 : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}

//===----------------------------------------------------------------------===//
// Attribute constraints (RematOps.td)
//===----------------------------------------------------------------------===//

// -----

func.func @epsilon_negative(%x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{attribute 'epsilon' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = remat.layer_norm %x, %s, %s {epsilon = -1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @epsilon_zero(%g: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{attribute 'epsilon' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0:3 = remat.batch_norm_grad %g, %g, %s {epsilon = 0.000000e+00 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0 : tensor<4x8xf32>
}

// -----

func.func @rate_one(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'rate' failed to satisfy constraint: 64-bit float attribute whose value is non-negative whose value is below 1}}
  %0 = remat.dropout %x, %s {rate = 1.000000e+00 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @rate_negative(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'rate' failed to satisfy constraint}}
  %0 = remat.dropout %x, %s {rate = -1.000000e-01 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @rate_missing(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{requires attribute 'rate'}}
  %0 = remat.dropout %x, %s : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @groups_zero(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = remat.conv2d %x, %w {groups = 0 : i64} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @strides_length(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements}}
  %0 = remat.conv2d %x, %w {strides = array<i64: 1>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @kernel_length(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{attribute 'kernel' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements}}
  %0 = remat.max_pool2d %x {kernel = array<i64: 2, 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

func.func @padding_length(%g: tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{attribute 'padding' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements}}
  %0 = remat.avg_pool2d_grad %g {padding = array<i64>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

func.func @dilations_length(%g: tensor<1x2x3x3xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<2x2x3x3xf32> {
  // expected-error @+1 {{attribute 'dilations' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements}}
  %0 = remat.conv2d_filter_grad %g, %x {dilations = array<i64: 1, 1, 1>} : (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<2x2x3x3xf32>
  return %0 : tensor<2x2x3x3xf32>
}

// -----

func.func @opaque_negative_cost(%x: tensor<16xi8>) -> tensor<16xi8> {
  // expected-error @+1 {{attribute 'cost' failed to satisfy constraint: 64-bit float attribute whose value is non-negative}}
  %0 = remat.opaque "op"(%x) {cost = -1.000000e+00 : f64} : (tensor<16xi8>) -> tensor<16xi8>
  return %0 : tensor<16xi8>
}

// -----

func.func @permutation_missing(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{requires attribute 'permutation'}}
  %0 = remat.transpose %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_a_not_unit(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{attribute 'transpose_a' failed to satisfy constraint: unit attribute}}
  %0 = remat.matmul %a, %b {transpose_a = 1 : i64} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

//===----------------------------------------------------------------------===//
// Shared helpers: element types, result shapes, axes
//===----------------------------------------------------------------------===//

// -----

func.func @element_types_differ(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.add' op element types differ: expected 'f32', got 'f16'}}
  %0 = remat.add %x, %y : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @result_element_type_differs(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xbf16> {
  // expected-error @+1 {{'remat.matmul' op element types differ: expected 'bf16', got 'f32'}}
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xbf16>
  return %0 : tensor<4x6xbf16>
}

// -----

func.func @element_types_differ_any(%x: tensor<2x3xi32>) -> tensor<6xi64> {
  // expected-error @+1 {{'remat.reshape' op element types differ: expected 'i64', got 'i32'}}
  %0 = remat.reshape %x : (tensor<2x3xi32>) -> tensor<6xi64>
  return %0 : tensor<6xi64>
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'remat.softmax' op axis 2 is out of range for rank 2}}
  %0 = remat.softmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @log_softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'remat.log_softmax' op axis -3 is out of range for rank 2}}
  %0 = remat.log_softmax %x {axis = -3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @softmax_grad_axis(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'remat.softmax_grad' op axis -1 is out of range for rank 0}}
  %0 = remat.softmax_grad %x, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @log_softmax_grad_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'remat.log_softmax_grad' op axis 5 is out of range for rank 2}}
  %0 = remat.log_softmax_grad %x, %x {axis = 5 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank1(%a: tensor<8xf32>, %b: tensor<8x6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{'remat.matmul' op operands must have rank >= 2}}
  %0 = remat.matmul %a, %b : (tensor<8xf32>, tensor<8x6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @matmul_batched_rank(%a: tensor<4x8xf32>, %b: tensor<3x8x6xf32>) -> tensor<3x4x6xf32> {
  // expected-error @+1 {{'remat.matmul' op batched operands must have the same rank, got 2 and 3}}
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<3x8x6xf32>) -> tensor<3x4x6xf32>
  return %0 : tensor<3x4x6xf32>
}

// -----

func.func @matmul_batch_dims(%a: tensor<2x4x8xf32>, %b: tensor<3x8x6xf32>) -> tensor<2x4x6xf32> {
  // expected-error @+1 {{'remat.matmul' op batch dimensions differ: [2] vs [3]}}
  %0 = remat.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>) -> tensor<4x6xf32> {
  // transpose_b is missing: the contraction is 8 (lhs) against 6 (rhs rows).
  // expected-error @+1 {{'remat.matmul' op contraction dimensions differ: 8 vs 6}}
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @matmul_contraction_transpose_a(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @+1 {{'remat.matmul' op contraction dimensions differ: 4 vs 8}}
  %0 = remat.matmul %a, %b {transpose_a} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

func.func @matmul_result_shape(%a: tensor<3x8x4xf32>, %b: tensor<6x8xf32>) -> tensor<3x4x8xf32> {
  // expected-error @+1 {{'remat.matmul' op result shape [3, 4, 8] does not match the expected shape [3, 4, 6]}}
  %0 = remat.matmul %a, %b {transpose_a, transpose_b} : (tensor<3x8x4xf32>, tensor<6x8xf32>) -> tensor<3x4x8xf32>
  return %0 : tensor<3x4x8xf32>
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// -----

func.func @not_broadcastable(%x: tensor<4x8xf32>, %y: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.sub' op operand shapes [4, 8] and [4] are not broadcastable}}
  %0 = remat.sub %x, %y : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @binary_result_shape(%x: tensor<4x1xf32>, %y: tensor<8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'remat.mul' op result shape [4, 1] does not match the expected shape [4, 8]}}
  %0 = remat.mul %x, %y : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @div_element_types(%x: tensor<4xbf16>, %y: tensor<4xf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{'remat.div' op element types differ: expected 'bf16', got 'f16'}}
  %0 = remat.div %x, %y : (tensor<4xbf16>, tensor<4xf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

// -----

func.func @batch_norm_rank(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'remat.batch_norm' op input must be [N, C] or [N, C, H, W], got rank 3}}
  %0 = remat.batch_norm %x, %s, %s : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @layer_norm_rank0(%x: tensor<f32>, %s: tensor<1xf32>) -> tensor<f32> {
  // expected-error @+1 {{'remat.layer_norm' op input must have rank >= 1}}
  %0 = remat.layer_norm %x, %s, %s : (tensor<f32>, tensor<1xf32>, tensor<1xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @layer_norm_scale(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.layer_norm' op scale and bias must have shape [8], got [4]}}
  %0 = remat.layer_norm %x, %s, %b : (tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @batch_norm_bias(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{'remat.batch_norm' op scale and bias must have shape [3], got [1, 3]}}
  %0 = remat.batch_norm %x, %s, %b : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<1x3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

func.func @layer_norm_result_shape(%x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'remat.layer_norm' op result shape [8, 4] does not match the expected shape [4, 8]}}
  %0 = remat.layer_norm %x, %s, %s : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @batch_norm_result_shape(%x: tensor<16x8xf32>, %s: tensor<8xf32>) -> tensor<16x1xf32> {
  // expected-error @+1 {{'remat.batch_norm' op result shape [16, 1] does not match the expected shape [16, 8]}}
  %0 = remat.batch_norm %x, %s, %s : (tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<16x1xf32>
  return %0 : tensor<16x1xf32>
}

// -----

func.func @batch_norm_one_stat(%x: tensor<16x8xf32>, %s: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.batch_norm' op expects no batch statistics or two (mean and unbiased variance), got 1}}
  %0:2 = remat.batch_norm %x, %s, %s : (tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<16x8xf32>, tensor<8xf32>)
  return %0#1 : tensor<8xf32>
}

// -----

func.func @batch_norm_stat_shape(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{'remat.batch_norm' op result shape [1, 3] does not match the expected shape [3]}}
  %0:3 = remat.batch_norm %x, %s, %s : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<1x3xf32>)
  return %0#2 : tensor<1x3xf32>
}

// -----

func.func @batch_norm_stat_type(%x: tensor<16x8xf32>, %s: tensor<8xf32>) -> tensor<8xf16> {
  // expected-error @+1 {{'remat.batch_norm' op element types differ: expected 'f32', got 'f16'}}
  %0:3 = remat.batch_norm %x, %s, %s : (tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<16x8xf32>, tensor<8xf32>, tensor<8xf16>)
  return %0#2 : tensor<8xf16>
}

// -----

func.func @batch_norm_stats_one_per_channel(%x: tensor<1x8x1x1xf32>, %s: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.batch_norm' op batch statistics need at least two elements per channel for the unbiased variance, got 1}}
  %0:3 = remat.batch_norm %x, %s, %s : (tensor<1x8x1x1xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x1x1xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#2 : tensor<8xf32>
}

// -----

func.func @layer_norm_element_types(%x: tensor<4x8xf16>, %s: tensor<8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'remat.layer_norm' op element types differ: expected 'f16', got 'f32'}}
  %0 = remat.layer_norm %x, %s, %s : (tensor<4x8xf16>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

func.func @norm_grad_shapes(%g: tensor<4x4xf32>, %x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.layer_norm_grad' op gradient and input shapes differ}}
  %0:3 = remat.layer_norm_grad %g, %x, %s : (tensor<4x4xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0 : tensor<4x8xf32>
}

// -----

func.func @norm_grad_scale(%g: tensor<2x3x4x4xf32>, %s: tensor<4xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{'remat.batch_norm_grad' op scale and bias must have shape [3], got [4]}}
  %0:3 = remat.batch_norm_grad %g, %g, %s : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<4xf32>) -> (tensor<2x3x4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<2x3x4x4xf32>
}

// -----

func.func @norm_grad_input_grad_shape(%g: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.layer_norm_grad' op result shape [32] does not match the expected shape [4, 8]}}
  %0:3 = remat.layer_norm_grad %g, %g, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<32xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#1 : tensor<8xf32>
}

// -----

func.func @norm_grad_scale_grad_shape(%g: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.layer_norm_grad' op result shape [1, 8] does not match the expected shape [8]}}
  %0:3 = remat.layer_norm_grad %g, %g, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<1x8xf32>, tensor<8xf32>)
  return %0#2 : tensor<8xf32>
}

// -----

func.func @norm_grad_bias_grad_shape(%g: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.batch_norm_grad' op result shape [4] does not match the expected shape [8]}}
  %0:3 = remat.batch_norm_grad %g, %g, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>)
  return %0#1 : tensor<8xf32>
}

// -----

func.func @norm_grad_element_types(%g: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.layer_norm_grad' op element types differ: expected 'f32', got 'bf16'}}
  %0:3 = remat.layer_norm_grad %g, %g, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xbf16>, tensor<8xf32>)
  return %0#0 : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

// -----

func.func @conv_rank(%x: tensor<2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op input and filter must have rank 4 (NCHW, OIHW)}}
  %0 = remat.conv2d %x, %w : (tensor<2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

func.func @conv_groups_divide(%x: tensor<1x4x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op input channels 4 and output channels 3 must be divisible by groups 2}}
  %0 = remat.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// -----

func.func @conv_filter_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op filter input channels 4 times groups 2 must equal input channels 4}}
  %0 = remat.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @conv_stride_zero(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op strides, dilations and kernel sizes must be >= 1 and padding >= 0}}
  %0 = remat.conv2d %x, %w {strides = array<i64: 1, 0>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @conv_dilation_zero(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op strides, dilations and kernel sizes must be >= 1 and padding >= 0}}
  %0 = remat.conv2d %x, %w {dilations = array<i64: 0, 1>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @conv_negative_padding(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x1x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op strides, dilations and kernel sizes must be >= 1 and padding >= 0}}
  %0 = remat.conv2d %x, %w {padding = array<i64: -1, 0>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x1x3xf32>
  return %0 : tensor<1x2x1x3xf32>
}

// -----

func.func @conv_empty_filter(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x0x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op strides, dilations and kernel sizes must be >= 1 and padding >= 0}}
  %0 = remat.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<2x2x0x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @conv_window_too_large(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x1x1xf32> {
  // A dilation of 3 makes the 3x3 window span 7 > 5 pixels.
  // expected-error @+1 {{'remat.conv2d' op window of extent 7 does not fit input size 5 with padding 0}}
  %0 = remat.conv2d %x, %w {dilations = array<i64: 3, 3>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}

// -----

func.func @conv_result_shape(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op result shape [1, 2, 3, 3] does not match the expected shape [1, 2, 2, 2]}}
  %0 = remat.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @conv_element_types(%x: tensor<1x2x5x5xf16>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op element types differ: expected 'f32', got 'f16'}}
  %0 = remat.conv2d %x, %w : (tensor<1x2x5x5xf16>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @conv_input_grad_rank(%g: tensor<1x2x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<2x5x5xf32> {
  // expected-error @+1 {{'remat.conv2d_input_grad' op input and filter must have rank 4 (NCHW, OIHW)}}
  %0 = remat.conv2d_input_grad %g, %w : (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<2x5x5xf32>
  return %0 : tensor<2x5x5xf32>
}

// -----

func.func @conv_input_grad_shape(%g: tensor<1x2x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  // expected-error @+1 {{'remat.conv2d_input_grad' op convolving the result shape with the filter gives [1, 2, 4, 4], not the gradient shape [1, 2, 3, 3]}}
  %0 = remat.conv2d_input_grad %g, %w : (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}

// -----

func.func @conv_input_grad_element_types(%g: tensor<1x2x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d_input_grad' op element types differ: expected 'f16', got 'f32'}}
  %0 = remat.conv2d_input_grad %g, %w : (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf16>
  return %0 : tensor<1x2x5x5xf16>
}

// -----

func.func @conv_filter_grad_channels(%g: tensor<1x2x3x3xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<2x1x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d_filter_grad' op filter input channels 1 times groups 1 must equal input channels 2}}
  %0 = remat.conv2d_filter_grad %g, %x : (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<2x1x3x3xf32>
  return %0 : tensor<2x1x3x3xf32>
}

// -----

func.func @conv_filter_grad_shape(%g: tensor<1x2x3x3xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<2x2x2x2xf32> {
  // expected-error @+1 {{'remat.conv2d_filter_grad' op convolving the input with the result shape gives [1, 2, 4, 4], not the gradient shape [1, 2, 3, 3]}}
  %0 = remat.conv2d_filter_grad %g, %x : (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<2x2x2x2xf32>
  return %0 : tensor<2x2x2x2xf32>
}

// -----

func.func @conv_filter_grad_element_types(%g: tensor<1x2x3x3xbf16>, %x: tensor<1x2x5x5xf32>) -> tensor<2x2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d_filter_grad' op element types differ: expected 'f32', got 'bf16'}}
  %0 = remat.conv2d_filter_grad %g, %x : (tensor<1x2x3x3xbf16>, tensor<1x2x5x5xf32>) -> tensor<2x2x3x3xf32>
  return %0 : tensor<2x2x3x3xf32>
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// -----

func.func @pool_rank(%x: tensor<2x4x4xf32>) -> tensor<2x2x2xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op input must have rank 4 (NCHW)}}
  %0 = remat.max_pool2d %x : (tensor<2x4x4xf32>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// -----

func.func @pool_padding_half_kernel(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{'remat.avg_pool2d' op padding must be at most half the kernel size}}
  %0 = remat.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @pool_kernel_zero(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op strides, dilations and kernel sizes must be >= 1 and padding >= 0}}
  %0 = remat.max_pool2d %x {kernel = array<i64: 0, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @pool_window_too_large(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op window of extent 5 does not fit input size 4 with padding 0}}
  %0 = remat.max_pool2d %x {kernel = array<i64: 5, 5>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

func.func @pool_result_shape(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  // expected-error @+1 {{'remat.avg_pool2d' op result shape [1, 1, 3, 3] does not match the expected shape [1, 1, 2, 2]}}
  %0 = remat.avg_pool2d %x : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

func.func @pool_element_types(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf16> {
  // expected-error @+1 {{'remat.max_pool2d' op element types differ: expected 'f16', got 'f32'}}
  %0 = remat.max_pool2d %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf16>
  return %0 : tensor<1x1x2x2xf16>
}

// -----

func.func @max_pool_grad_rank(%g: tensor<1x1x2x2xf32>, %x: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d_grad' op input must have rank 4 (NCHW)}}
  %0 = remat.max_pool2d_grad %g, %x : (tensor<1x1x2x2xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  return %0 : tensor<1x4x4xf32>
}

// -----

func.func @max_pool_grad_shape(%g: tensor<1x1x3x3xf32>, %x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d_grad' op pooling the input gives [1, 1, 2, 2], not the gradient shape [1, 1, 3, 3]}}
  %0 = remat.max_pool2d_grad %g, %x : (tensor<1x1x3x3xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @max_pool_grad_result_shape(%g: tensor<1x1x2x2xf32>, %x: tensor<1x1x4x4xf32>) -> tensor<1x1x5x5xf32> {
  // expected-error @+1 {{'remat.max_pool2d_grad' op result shape [1, 1, 5, 5] does not match the expected shape [1, 1, 4, 4]}}
  %0 = remat.max_pool2d_grad %g, %x : (tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x5x5xf32>
  return %0 : tensor<1x1x5x5xf32>
}

// -----

func.func @max_pool_grad_element_types(%g: tensor<1x1x2x2xf16>, %x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d_grad' op element types differ: expected 'f32', got 'f16'}}
  %0 = remat.max_pool2d_grad %g, %x : (tensor<1x1x2x2xf16>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @avg_pool_grad_padding(%g: tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{'remat.avg_pool2d_grad' op padding must be at most half the kernel size}}
  %0 = remat.avg_pool2d_grad %g {padding = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @avg_pool_grad_shape(%g: tensor<1x1x2x2xf32>) -> tensor<1x1x6x6xf32> {
  // expected-error @+1 {{'remat.avg_pool2d_grad' op pooling the result shape gives [1, 1, 3, 3], not the gradient shape [1, 1, 2, 2]}}
  %0 = remat.avg_pool2d_grad %g : (tensor<1x1x2x2xf32>) -> tensor<1x1x6x6xf32>
  return %0 : tensor<1x1x6x6xf32>
}

// -----

func.func @avg_pool_grad_element_types(%g: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xbf16> {
  // expected-error @+1 {{'remat.avg_pool2d_grad' op element types differ: expected 'bf16', got 'f32'}}
  %0 = remat.avg_pool2d_grad %g : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xbf16>
  return %0 : tensor<1x1x4x4xbf16>
}

// -----

func.func @global_pool_rank(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'remat.global_avg_pool' op input must have rank 4 (NCHW)}}
  %0 = remat.global_avg_pool %x : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @global_pool_result_shape(%x: tensor<2x3x4x4xf32>) -> tensor<2x3x1x1xf32> {
  // expected-error @+1 {{'remat.global_avg_pool' op result shape [2, 3, 1, 1] does not match the expected shape [2, 3]}}
  %0 = remat.global_avg_pool %x : (tensor<2x3x4x4xf32>) -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}

// -----

func.func @global_pool_element_types(%x: tensor<2x3x4x4xf16>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'remat.global_avg_pool' op element types differ: expected 'f32', got 'f16'}}
  %0 = remat.global_avg_pool %x : (tensor<2x3x4x4xf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @global_pool_grad_rank(%g: tensor<2x3xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'remat.global_avg_pool_grad' op result must have rank 4 (NCHW)}}
  %0 = remat.global_avg_pool_grad %g : (tensor<2x3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @global_pool_grad_shape(%g: tensor<2x4xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{'remat.global_avg_pool_grad' op gradient shape [2, 4] must be [N, C] of the result [2, 3, 4, 4]}}
  %0 = remat.global_avg_pool_grad %g : (tensor<2x4xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

func.func @global_pool_grad_element_types(%g: tensor<2x3xf32>) -> tensor<2x3x4x4xbf16> {
  // expected-error @+1 {{'remat.global_avg_pool_grad' op element types differ: expected 'bf16', got 'f32'}}
  %0 = remat.global_avg_pool_grad %g : (tensor<2x3xf32>) -> tensor<2x3x4x4xbf16>
  return %0 : tensor<2x3x4x4xbf16>
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{'remat.reshape' op element count changes from 6 to 7}}
  %0 = remat.reshape %x : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @transpose_length(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'remat.transpose' op permutation has 3 entries for rank 2}}
  %0 = remat.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_duplicate(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'remat.transpose' op permutation [1, 1] is not a permutation of 0..1}}
  %0 = remat.transpose %x {permutation = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @transpose_out_of_range(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'remat.transpose' op permutation [-1, 0] is not a permutation of 0..1}}
  %0 = remat.transpose %x {permutation = array<i64: -1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_result_shape(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  // expected-error @+1 {{'remat.transpose' op result shape [4, 3, 2] does not match the expected shape [3, 4, 2]}}
  %0 = remat.transpose %x {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

func.func @transpose_element_types(%x: tensor<2x3xf32>) -> tensor<3x2xi32> {
  // expected-error @+1 {{'remat.transpose' op element types differ: expected 'i32', got 'f32'}}
  %0 = remat.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

func.func @concat_empty() -> tensor<2xf32> {
  // expected-error @+1 {{'remat.concat' op needs at least one input}}
  %0 = remat.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @concat_axis(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'remat.concat' op axis 2 is out of range for rank 2}}
  %0 = remat.concat %x, %x {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_axis_missing(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{requires attribute 'axis'}}
  %0 = remat.concat %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_rank(%x: tensor<2x3xf32>, %y: tensor<6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'remat.concat' op all inputs must have the rank of the result}}
  %0 = remat.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<6xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_other_dim(%x: tensor<2x3xf32>, %y: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'remat.concat' op inputs differ in dimension 0 which is not the concatenation axis}}
  %0 = remat.concat %x, %y {axis = -1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_result_shape(%x: tensor<2x3xf32>) -> tensor<2x7xf32> {
  // expected-error @+1 {{'remat.concat' op result shape [2, 7] does not match the expected shape [2, 6]}}
  %0 = remat.concat %x, %x {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

func.func @concat_element_types(%x: tensor<2x3xf32>, %y: tensor<2x3xf16>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'remat.concat' op element types differ: expected 'f32', got 'f16'}}
  %0 = remat.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_rank(%x: tensor<6x8xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'remat.slice' op offsets, strides and result must have rank 2}}
  %0 = remat.slice %x {offsets = array<i64: 0>, strides = array<i64: 1, 1>} : (tensor<6x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_result_rank(%x: tensor<6x8xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{'remat.slice' op offsets, strides and result must have rank 2}}
  %0 = remat.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<6x8xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @slice_negative_offset(%x: tensor<6x8xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'remat.slice' op offsets must be >= 0 and strides >= 1}}
  %0 = remat.slice %x {offsets = array<i64: 0, -1>, strides = array<i64: 1, 1>} : (tensor<6x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_zero_stride(%x: tensor<6x8xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'remat.slice' op offsets must be >= 0 and strides >= 1}}
  %0 = remat.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 0, 1>} : (tensor<6x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_out_of_bounds(%x: tensor<6x8xf32>) -> tensor<2x3xf32> {
  // The last element of dimension 1 would be 2 + 2 * 3 = 8, past the end.
  // expected-error @+1 {{'remat.slice' op slice exceeds dimension 1 of size 8}}
  %0 = remat.slice %x {offsets = array<i64: 0, 2>, strides = array<i64: 1, 3>} : (tensor<6x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_element_types(%x: tensor<6x8xi64>) -> tensor<2x3xi32> {
  // expected-error @+1 {{'remat.slice' op element types differ: expected 'i32', got 'i64'}}
  %0 = remat.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<6x8xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @slice_grad_out_of_bounds(%g: tensor<2x3xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{'remat.slice_grad' op slice exceeds dimension 0 of size 6}}
  %0 = remat.slice_grad %g {offsets = array<i64: 5, 0>, strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

func.func @slice_grad_element_types(%g: tensor<2x3xf16>) -> tensor<6x8xf32> {
  // expected-error @+1 {{'remat.slice_grad' op element types differ: expected 'f32', got 'f16'}}
  %0 = remat.slice_grad %g {offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3xf16>) -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

func.func @broadcast_to_incompatible(%x: tensor<3x2xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'remat.broadcast_to' op shape [3, 2] does not broadcast to [3, 4]}}
  %0 = remat.broadcast_to %x : (tensor<3x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @broadcast_to_smaller(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  // Broadcasting never shrinks a dimension: [3, 4] and [1, 4] broadcast to [3, 4].
  // expected-error @+1 {{'remat.broadcast_to' op shape [3, 4] does not broadcast to [1, 4]}}
  %0 = remat.broadcast_to %x : (tensor<3x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @broadcast_to_element_types(%x: tensor<4xf16>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'remat.broadcast_to' op element types differ: expected 'f32', got 'f16'}}
  %0 = remat.broadcast_to %x : (tensor<4xf16>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @sum_to_incompatible(%x: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'remat.sum_to' op shape [3, 2] does not broadcast to [2, 3, 4]}}
  %0 = remat.sum_to %x : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @sum_to_element_types(%x: tensor<2x3xbf16>) -> tensor<3xf32> {
  // expected-error @+1 {{'remat.sum_to' op element types differ: expected 'f32', got 'bf16'}}
  %0 = remat.sum_to %x : (tensor<2x3xbf16>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// Embedding and dropout
//===----------------------------------------------------------------------===//

// -----

func.func @embedding_table_rank(%t: tensor<10xf32>, %i: tensor<3xi32>) -> tensor<3xf32> {
  // expected-error @+1 {{'remat.embedding' op table must have rank 2 ([V, D])}}
  %0 = remat.embedding %t, %i : (tensor<10xf32>, tensor<3xi32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @embedding_rows(%t: tensor<10x4xf32>, %i: tensor<2x3xi32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'remat.embedding' op rows have shape [6, 4], expected [2, 3, 4]}}
  %0 = remat.embedding %t, %i : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @embedding_element_types(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf16> {
  // expected-error @+1 {{'remat.embedding' op element types differ: expected 'f16', got 'f32'}}
  %0 = remat.embedding %t, %i : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

func.func @embedding_grad_table_rank(%g: tensor<3x4xf32>, %i: tensor<3xi64>) -> tensor<40xf32> {
  // expected-error @+1 {{'remat.embedding_grad' op table must have rank 2 ([V, D])}}
  %0 = remat.embedding_grad %g, %i : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<40xf32>
  return %0 : tensor<40xf32>
}

// -----

func.func @embedding_grad_rows(%g: tensor<3x5xf32>, %i: tensor<3xi64>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'remat.embedding_grad' op rows have shape [3, 5], expected [3, 4]}}
  %0 = remat.embedding_grad %g, %i : (tensor<3x5xf32>, tensor<3xi64>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @embedding_grad_element_types(%g: tensor<3x4xbf16>, %i: tensor<3xi64>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'remat.embedding_grad' op element types differ: expected 'f32', got 'bf16'}}
  %0 = remat.embedding_grad %g, %i : (tensor<3x4xbf16>, tensor<3xi64>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @dropout_result_type(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'remat.dropout' op result type must equal the input type}}
  %0 = remat.dropout %x, %s {rate = 5.000000e-01 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @dropout_result_element_type(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf16> {
  // expected-error @+1 {{'remat.dropout' op result type must equal the input type}}
  %0 = remat.dropout %x, %s {rate = 5.000000e-01 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// -----

func.func @ce_labels(%l: tensor<4x10xf32>, %y: tensor<10xi32>) -> tensor<f32> {
  // expected-error @+1 {{'remat.softmax_cross_entropy' op labels shape [10] must be the logits shape [4, 10] without its last (class) dimension}}
  %0 = remat.softmax_cross_entropy %l, %y : (tensor<4x10xf32>, tensor<10xi32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @ce_scalar_logits(%l: tensor<f32>, %y: tensor<i32>) -> tensor<f32> {
  // expected-error @+1 {{'remat.softmax_cross_entropy' op labels shape [] must be the logits shape [] without its last (class) dimension}}
  %0 = remat.softmax_cross_entropy %l, %y : (tensor<f32>, tensor<i32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @ce_grad_labels(%l: tensor<4x10xf32>, %y: tensor<4x1xi32>, %g: tensor<f32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{'remat.softmax_cross_entropy_grad' op labels shape [4, 1] must be the logits shape [4, 10] without its last (class) dimension}}
  %0 = remat.softmax_cross_entropy_grad %l, %y, %g : (tensor<4x10xf32>, tensor<4x1xi32>, tensor<f32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @ce_grad_result_shape(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %g: tensor<f32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{'remat.softmax_cross_entropy_grad' op result shape [4, 9] does not match the expected shape [4, 10]}}
  %0 = remat.softmax_cross_entropy_grad %l, %y, %g : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

func.func @ce_grad_element_types(%l: tensor<4x10xf16>, %y: tensor<4xi32>, %g: tensor<f32>) -> tensor<4x10xf32> {
  // The gradient takes the logits' element type (the loss gradient %g may be wider).
  // expected-error @+1 {{'remat.softmax_cross_entropy_grad' op element types differ: expected 'f32', got 'f16'}}
  %0 = remat.softmax_cross_entropy_grad %l, %y, %g : (tensor<4x10xf16>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @mse_shapes(%p: tensor<4x3xf32>, %t: tensor<3x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'remat.mse' op prediction and target shapes differ}}
  %0 = remat.mse %p, %t : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @mse_element_types(%p: tensor<4x3xf16>, %t: tensor<4x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'remat.mse' op element types differ: expected 'f16', got 'f32'}}
  %0 = remat.mse %p, %t : (tensor<4x3xf16>, tensor<4x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @mse_grad_shapes(%p: tensor<4x3xf32>, %t: tensor<12xf32>, %g: tensor<f32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'remat.mse_grad' op prediction and target shapes differ}}
  %0 = remat.mse_grad %p, %t, %g : (tensor<4x3xf32>, tensor<12xf32>, tensor<f32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @mse_grad_result_shape(%p: tensor<4x3xf32>, %g: tensor<f32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'remat.mse_grad' op result shape [3, 4] does not match the expected shape [4, 3]}}
  %0 = remat.mse_grad %p, %p, %g : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @mse_grad_element_types(%p: tensor<4x3xbf16>, %g: tensor<f32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'remat.mse_grad' op element types differ: expected 'f32', got 'bf16'}}
  %0 = remat.mse_grad %p, %p, %g : (tensor<4x3xbf16>, tensor<4x3xbf16>, tensor<f32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

//===----------------------------------------------------------------------===//
// Opaque, keep, recompute, yield
//===----------------------------------------------------------------------===//

// -----

func.func @opaque_empty_name(%x: tensor<16xi8>) -> tensor<16xi8> {
  // expected-error @+1 {{'remat.opaque' op name must not be empty}}
  %0 = remat.opaque ""(%x) {cost = 1.000000e+00 : f64} : (tensor<16xi8>) -> tensor<16xi8>
  return %0 : tensor<16xi8>
}

// -----

func.func @recompute_arg_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.recompute' op body has 2 arguments for 1 inputs}}
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    remat.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @recompute_arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.recompute' op body argument type 'tensor<2x2xf32>' differs from input type 'tensor<4xf32>'}}
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    %1 = remat.reshape %a : (tensor<2x2xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @recompute_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.recompute' op body must end with remat.yield}}
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    func.return %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @recompute_yield_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.recompute' op yielded types do not match the result types}}
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    remat.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @recompute_side_effect(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'memref.alloc' op cannot be recomputed: it has side effects}}
    %m = memref.alloc() : memref<4xf32>
    remat.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @recompute_backward_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'remat.neg' op is a backward op and cannot be recomputed}}
    %1 = remat.neg %a {remat.phase = #remat.phase<backward>} : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @recompute_no_recompute_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'remat.relu' op is marked remat.no_recompute}}
    %1 = remat.relu %a {remat.no_recompute} : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @recompute_isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = remat.recompute() : () -> tensor<4xf32> {
    // expected-error @+1 {{'remat.relu' op using value defined outside the region}}
    %1 = remat.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @recompute_empty_block(%x: tensor<4xf32>) {
  // expected-error @+1 {{'remat.recompute' op expects a non-empty block}}
  remat.recompute(%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xf32>):
  }
  return
}

// -----

func.func @yield_outside_recompute(%x: tensor<4xf32>) {
  // expected-error @+1 {{'remat.yield' op expects parent op 'remat.recompute'}}
  remat.yield %x : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Discardable attributes (RematDialect::verifyOperationAttribute)
//===----------------------------------------------------------------------===//

// -----

func.func @phase_not_enum(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.phase' must be a #remat.phase attribute}}
  %0 = remat.relu %x {remat.phase = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @phase_unknown_case(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::remat::Phase to be one of: forward, loss, backward}}
  // expected-error @+1 {{failed to parse Remat_PhaseAttr parameter 'value'}}
  %0 = remat.relu %x {remat.phase = #remat.phase<sideways>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @no_recompute_not_unit(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.no_recompute' must be a unit attribute}}
  %0 = remat.relu %x {remat.no_recompute = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @no_recompute_without_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{'remat.no_recompute' applies to ops with results and no regions}}
  remat.keep %x {remat.no_recompute} : tensor<4xf32>
  return
}

// -----

func.func @no_recompute_on_region_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.no_recompute' applies to ops with results and no regions}}
  %0 = remat.recompute(%x) {remat.no_recompute} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    remat.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.training_step' must be a unit attribute}}
func.func @training_step_not_unit() attributes {remat.training_step = "yes"} {
  return
}

// -----

// expected-error @+1 {{'remat.forward_only' must be a unit attribute}}
func.func @forward_only_not_unit() attributes {remat.forward_only = true} {
  return
}

// -----

func.func @forward_only_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.forward_only' applies to functions}}
  %0 = remat.relu %x {remat.forward_only} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.forward_only' function holds the backward op 'remat.relu'}}
func.func @forward_only_with_backward(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.forward_only} {
  %0 = remat.relu %x {remat.phase = #remat.phase<backward>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.param' is an argument attribute of a function}}
func.func @param_on_op() attributes {remat.param} {
  return
}

// -----

func.func @unknown_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown remat attribute 'remat.keep'}}
  %0 = remat.relu %x {remat.keep} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Argument attributes (RematDialect::verifyRegionArgAttribute)
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{unknown remat argument attribute 'remat.parameter'}}
func.func @unknown_arg_attribute(%x: tensor<4xf32> {remat.parameter}) {
  return
}

// -----

// expected-error @+1 {{'remat.param' must be a unit attribute}}
func.func @param_not_unit(%x: tensor<4xf32> {remat.param = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{'remat.param' argument #1 must be a statically shaped float tensor, got 'tensor<4xi32>'}}
func.func @param_integer(%x: tensor<4xf32>, %i: tensor<4xi32> {remat.param}) {
  return
}

// -----

// expected-error @+1 {{'remat.param' argument #0 must be a statically shaped float tensor, got 'tensor<?xf32>'}}
func.func @param_dynamic(%x: tensor<?xf32> {remat.param}) {
  return
}

// -----

// expected-error @+1 {{'remat.param' argument #0 must be a statically shaped float tensor, got 'f32'}}
func.func @param_scalar(%x: f32 {remat.param}) {
  return
}

// -----

// Declarations have no body to take the argument type from: the argument
// type is not checked (the empty-region branch of the verifier).
func.func private @param_on_declaration(tensor<4xi32> {remat.param})

// -----

func.func @recompute_empty_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.recompute' op body must end with remat.yield}}
  %0 = "remat.recompute"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %1 = remat.neg %a : (tensor<4xf32>) -> tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Sizes and offsets in checked arithmetic (SizedTensors, RematOps.cpp)
//===----------------------------------------------------------------------===//

// -----

// 2^62 x 4 f32 elements: 2^66 bytes.
func.func @tensor_bytes_overflow(%x: tensor<4611686018427387904x4xf32>, %w: tensor<4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{'remat.mul' op operand #0 of type 'tensor<4611686018427387904x4xf32>' is too large: its size in bytes does not fit in 64 bits}}
  %0 = remat.mul %x, %w : (tensor<4611686018427387904x4xf32>, tensor<4xf32>) -> tensor<4611686018427387904x4xf32>
  return %0 : tensor<4611686018427387904x4xf32>
}

// -----

// A zero dimension does not hide the overflow of the others (2^32 x 2^32).
func.func @matmul_result_overflow(%a: tensor<0x4294967296x1xf32>, %b: tensor<0x1x4294967296xf32>) -> tensor<0x4294967296x4294967296xf32> {
  // expected-error @+1 {{'remat.matmul' op result #0 of type 'tensor<0x4294967296x4294967296xf32>' is too large}}
  %0 = remat.matmul %a, %b : (tensor<0x4294967296x1xf32>, tensor<0x1x4294967296xf32>) -> tensor<0x4294967296x4294967296xf32>
  return %0 : tensor<0x4294967296x4294967296xf32>
}

// -----

// offset + 2 * 2^62 wraps to a negative index without checked arithmetic.
func.func @slice_stride_overflow(%x: tensor<8xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'remat.slice' op slice exceeds dimension 0 of size 8}}
  %0 = remat.slice %x {offsets = array<i64: 1>, strides = array<i64: 4611686018427387904>} : (tensor<8xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @slice_grad_stride_overflow(%g: tensor<3xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.slice_grad' op slice exceeds dimension 0 of size 8}}
  %0 = remat.slice_grad %g {offsets = array<i64: 0>, strides = array<i64: 4611686018427387904>} : (tensor<3xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @conv_dilation_overflow(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op window extent or padded input size overflows 64 bits (kernel 3, dilation 4611686018427387904, padding 0)}}
  %0 = remat.conv2d %x, %w {dilations = array<i64: 4611686018427387904, 1>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @conv_padding_overflow(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'remat.conv2d' op window extent or padded input size overflows 64 bits (kernel 3, dilation 1, padding 4611686018427387904)}}
  %0 = remat.conv2d %x, %w {padding = array<i64: 4611686018427387904, 0>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Twice 2^62 wraps to a negative value, which passed the half-kernel check.
func.func @pool_padding_overflow(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op padding must be at most half the kernel size}}
  %0 = remat.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 4611686018427387904, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @concat_size_overflow(%x: tensor<4611686018427387904xi8>) -> tensor<1xi8> {
  // expected-error @+1 {{'remat.concat' op the concatenated size overflows 64 bits}}
  %0 = remat.concat %x, %x {axis = 0 : i64} : (tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>) -> tensor<1xi8>
  return %0 : tensor<1xi8>
}

// -----

// expected-error @+1 {{'remat.plan' must be a dictionary}}
func.func @plan_not_dictionary() attributes {remat.plan = [1, 2]} {
  return
}

// -----

func.func @plan_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.plan' applies to functions}}
  %0 = remat.relu %x {remat.plan = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// State attributes (verifyRegionArgAttribute, verifyRegionResultAttribute)
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'remat.state' is an argument or result attribute of a function}}
func.func @state_on_op() attributes {remat.state} {
  return
}

// -----

// expected-error @+1 {{'remat.state' must be a unit attribute}}
func.func @state_arg_not_unit(%s: tensor<4xf32> {remat.state = 0 : i64}) {
  return
}

// -----

// expected-error @+1 {{'remat.state' argument #0 must be a statically shaped tensor, got 'tensor<?xf32>'}}
func.func @state_arg_dynamic(%s: tensor<?xf32> {remat.state}) {
  return
}

// -----

// expected-error @+1 {{argument #0 is marked both 'remat.param' and 'remat.state': state is not trained}}
func.func @state_and_param(%s: tensor<4xf32> {remat.param, remat.state}) {
  return
}

// -----

// expected-error @+1 {{'remat.state' on result #0 must be an i64 naming the state argument it updates}}
func.func @state_result_unit(%s: tensor<4xf32> {remat.state}) -> (tensor<4xf32> {remat.state}) {
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.state' on result #0 names argument #1, which is not a 'remat.state' argument}}
func.func @state_result_unmarked_arg(%s: tensor<4xf32> {remat.state}, %x: tensor<4xf32>) -> (tensor<4xf32> {remat.state = 1 : i64}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.state' on result #0 names argument #3, which is not a 'remat.state' argument}}
func.func @state_result_out_of_range(%s: tensor<4xf32> {remat.state}) -> (tensor<4xf32> {remat.state = 3 : i64}) {
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{result #0 ('tensor<2xf32>') updates state argument #0 of type 'tensor<4xf32>'; the types must match}}
func.func @state_result_type(%s: tensor<4xf32> {remat.state}, %x: tensor<2xf32>) -> (tensor<2xf32> {remat.state = 0 : i64}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{results #0 and #1 both update state argument #0}}
func.func @state_result_twice(%s: tensor<4xf32> {remat.state}) -> (tensor<4xf32> {remat.state = 0 : i64}, tensor<4xf32> {remat.state = 0 : i64}) {
  return %s, %s : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown remat result attribute 'remat.param'}}
func.func @param_on_result(%s: tensor<4xf32>) -> (tensor<4xf32> {remat.param}) {
  return %s : tensor<4xf32>
}
