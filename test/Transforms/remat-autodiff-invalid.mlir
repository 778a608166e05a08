// Errors of --remat-autodiff, reported at the offending op or function.
//
// RUN: remat-opt %s --remat-autodiff -split-input-file -verify-diagnostics

func.func @non_scalar_loss(%w: tensor<4xf32> {remat.param}) -> tensor<4xf32> {
  %0 = remat.relu %w : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{the returned loss must be a rank-0 float tensor, got 'tensor<4xf32>'}}
  return %0 : tensor<4xf32>
}

// -----

func.func @integer_loss(%w: tensor<4xf32> {remat.param}, %i: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{the returned loss must be a rank-0 float tensor, got 'tensor<i64>'}}
  return %i : tensor<i64>
}

// -----

func.func @scalar_not_tensor(%w: tensor<4xf32> {remat.param}, %s: f32) -> f32 {
  // expected-error @+1 {{the returned loss must be a rank-0 float tensor, got 'f32'}}
  return %s : f32
}

// -----

// expected-error @+1 {{autodiff needs exactly one returned value besides the 'remat.state' results, the scalar loss; results #0 and #1 are both unmarked}}
func.func @two_results(%p: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %0 = remat.mse %p, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0, %0 : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{autodiff needs a function returning exactly one value, the scalar loss}}
func.func @no_result(%p: tensor<4xf32> {remat.param}) {
  return
}

// -----

func.func @arith_on_path(%w: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'math.sin' is on the path from a parameter to the loss but has no gradient (RematGradientOpInterface)}}
  %0 = math.sin %w : tensor<4xf32>
  %1 = remat.mse %0, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

func.func @opaque_on_path(%w: tensor<16xf32> {remat.param}, %t: tensor<16xf32>) -> tensor<f32> {
  // expected-error @+1 {{'remat.opaque' is on the path from a parameter to the loss but has no gradient}}
  %0 = remat.opaque "block"(%w) {cost = 1.000000e+00 : f64} : (tensor<16xf32>) -> tensor<16xf32>
  %1 = remat.mse %0, %t : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// The gradient op of a gradient (second derivatives) is not differentiable.
func.func @grad_op_on_path(%w: tensor<4xf32> {remat.param}, %g: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'remat.relu_grad' is on the path from a parameter to the loss but has no gradient}}
  %0 = remat.relu_grad %g, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = remat.mse %0, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

func.func @recompute_region(%w: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{autodiff does not support ops with regions}}
  %0 = remat.recompute(%w) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = remat.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  %2 = remat.mse %0, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// Region ops are rejected even off the path from the parameters.
func.func @region_off_path(%w: tensor<4xf32> {remat.param}, %x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{autodiff does not support ops with regions}}
  %0 = scf.execute_region -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  }
  %1 = remat.mse %w, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// expected-error @+1 {{autodiff needs a single-block function body}}
func.func @multi_block(%w: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> tensor<f32> {
  cf.br ^bb1
^bb1:
  %0 = remat.mse %w, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Results besides the loss must be marked remat.state.
// expected-error @+1 {{autodiff needs exactly one returned value besides the 'remat.state' results, the scalar loss; results #0 and #1 are both unmarked (mark state results with 'remat.state = <argument index>')}}
func.func @unmarked_extra_result(%p: tensor<4xf32> {remat.param}, %t: tensor<4xf32>, %s: tensor<4xf32> {remat.state}) -> (tensor<f32>, tensor<4xf32>) {
  %0 = remat.mse %p, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %1 = remat.add %s, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{autodiff needs the scalar loss among the returned values, but every result is marked 'remat.state'}}
func.func @only_state(%p: tensor<4xf32> {remat.param}, %s: tensor<4xf32> {remat.state}) -> (tensor<4xf32> {remat.state = 1 : i64}) {
  %1 = remat.add %s, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// The loss is the unmarked result, wherever it is; it must be a scalar.
func.func @state_and_vector_loss(%p: tensor<4xf32> {remat.param}, %s: tensor<4xf32> {remat.state}) -> (tensor<4xf32> {remat.state = 1 : i64}, tensor<4xf32>) {
  %0 = remat.relu %p : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{the returned loss must be a rank-0 float tensor, got 'tensor<4xf32>'}}
  return %s, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The state may not reach the loss through an op without a gradient rule
// on a parameter path: the state itself is inactive, so this is the usual
// error for the op on the parameter's path.
func.func @state_reads_param_through_opaque(%p: tensor<4xf32> {remat.param}, %t: tensor<4xf32>, %s: tensor<4xf32> {remat.state}) -> (tensor<f32>, tensor<4xf32> {remat.state = 2 : i64}) {
  // expected-error @+1 {{'remat.opaque' is on the path from a parameter to the loss but has no gradient}}
  %0 = remat.opaque "block"(%p, %s) {cost = 1.000000e+00 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = remat.mse %0, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %1, %0 : tensor<f32>, tensor<4xf32>
}

// -----

// A linalg.generic body op without a scalar rule is named.
func.func @generic_body_without_rule(%w: tensor<4xf32> {remat.param}) -> tensor<f32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{autodiff cannot differentiate 'math.cos' in the body of this op: no derivative rule}}
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %t = math.cos %p : f32
    %u = arith.mulf %t, %p : f32
    linalg.yield %u : f32
  } -> tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%c : tensor<4xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// powf with an exponent that is not a constant.
func.func @powf_variable_exponent(%w: tensor<4xf32> {remat.param}, %x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{autodiff differentiates 'math.powf' with a constant exponent only}}
  %p = math.powf %x, %w : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%p : tensor<4xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A min reduction has no rule (sum, max and product reductions do).
func.func @min_reduction(%w: tensor<4xf32> {remat.param}) -> tensor<f32> {
  %one = arith.constant 1.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%one : f32) outs(%i : tensor<f32>) -> tensor<f32>
  // expected-error @+1 {{autodiff cannot differentiate this linalg.generic}}
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%w : tensor<4xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.minimumf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A linalg.matmul whose indexing maps broadcast an operand (A is a vector
// read as every row) is not differentiated: the rule covers the default maps
// and A and/or B transposed (remat-autodiff-upstream-ops.mlir).
func.func @matmul_broadcast_map(%a: tensor<3xf32> {remat.param}, %b: tensor<3x5xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  // expected-error @+1 {{autodiff differentiates linalg.matmul with the default indexing maps or with A and/or B transposed only; A map affine_map<(d0, d1, d2) -> (d2)> is neither}}
  %c = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<3xf32>, tensor<3x5xf32>) outs(%c0 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%c : tensor<4x5xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The same for linalg.batch_matmul whose B is one matrix shared by every
// batch (a broadcast map without the batch dimension).
func.func @batch_matmul_broadcast_map(%a: tensor<2x4x3xf32> {remat.param}, %b: tensor<3x5xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x5xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  // expected-error @+1 {{autodiff differentiates linalg.batch_matmul with the default indexing maps or with A and/or B transposed only; B map affine_map<(d0, d1, d2, d3) -> (d3, d2)> is neither}}
  %c = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
      ins(%a, %b : tensor<2x4x3xf32>, tensor<3x5xf32>) outs(%c0 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%c : tensor<2x4x5xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}
