// RUN: remat-opt %s -split-input-file -verify-diagnostics --remat-verify-schedule=budget=1000

// Hand-broken rewrites of verified IR: every case below is accepted by the
// MLIR verifiers (dominance, the remat.recompute verifier) and rejected by
// the schedule verifier. The budget (1000 bytes) only matters for the last
// cases; all the others fail before the peak is computed.

// A recomputed op whose attribute differs from its original.
func.func @attr_differs(%x: tensor<8xi8>) -> tensor<10xi8> {
  // expected-note @below {{closest original: attribute 'cost' differs: 1.000000e+00 : f64 here, 2.000000e+00 : f64 in the original}}
  %a = remat.opaque "a"(%x) {cost = 2.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<8xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<8xi8>):
    // expected-error @below {{recomputed op 'remat.opaque' "a" is not a clone of any original op}}
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%a, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// A unit attribute that the original does not have (transpose_b).
func.func @unit_attr_added(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // expected-note @below {{closest original: the original has no attribute 'transpose_b'}}
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %r = remat.recompute(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    // expected-error @below {{recomputed op 'remat.matmul' is not a clone of any original op}}
    %1 = remat.matmul %a, %b {transpose_b} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    remat.yield %1 : tensor<4x8xf32>
  }
  %2 = remat.add %0, %r {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// The recomputed op reads a different value than its original: "b" was
// computed from %a, the clone from %x.
func.func @operand_differs(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  // expected-note @below {{closest original: operand #0 of the recomputed op corresponds to %arg0, the original reads %0}}
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{recomputed op 'remat.opaque' "b" is not a clone of any original op}}
    %0 = remat.opaque "b"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%b, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// The operands are swapped inside the region.
func.func @operands_swapped(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{closest original: operand #0 of the recomputed op corresponds to %arg1, the original reads %arg0}}
  %0 = remat.sub %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = remat.recompute(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    // expected-error @below {{recomputed op 'remat.sub' is not a clone of any original op}}
    %1 = remat.sub %b, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  %2 = remat.mul %0, %r {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// The region captures a backward value (the gradient) where the original
// read a forward one: dominance-legal, but not the same computation.
func.func @captures_backward_value(%x: tensor<100xi8>) -> tensor<100xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  // expected-note @below {{closest original: operand #0 of the recomputed op corresponds to %2, the original reads %0}}
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %ga = remat.opaque "a_grad"(%b) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%ga) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{recomputed op 'remat.opaque' "b" is not a clone of any original op}}
    %0 = remat.opaque "b"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  return %r : tensor<100xi8>
}

// -----

// The second op of a region reads the result of the first: it must match an
// original applied to the first op's original, which is "a", not "c".
func.func @inner_operand_differs(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %c = remat.opaque "c"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  // expected-note @below {{closest original: operand #0 of the recomputed op corresponds to %1, the original reads %0}}
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    %0 = remat.opaque "c"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    // expected-error @below {{recomputed op 'remat.opaque' "b" is not a clone of any original op}}
    %1 = remat.opaque "b"(%0) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %1 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%b, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// A different result type.
func.func @result_type_differs(%x: tensor<8xi8>) -> tensor<10xi8> {
  // expected-note @below {{closest original: the result types differ}}
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<8xi8>) -> tensor<50xi8> {
  ^bb0(%y: tensor<8xi8>):
    // expected-error @below {{recomputed op 'remat.opaque' "a" is not a clone of any original op}}
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<50xi8>
    remat.yield %0 : tensor<50xi8>
  }
  %g = remat.opaque "g"(%a, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<50xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// An op that the original function never computed.
func.func @no_original(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %r = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @below {{recomputed op 'remat.tanh' is not a clone of any original op}}
    %1 = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  %2 = remat.add %0, %r {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// A backward op recomputed: the clone dropped the phase attribute, so the
// remat.recompute verifier cannot see it, but its original is backward.
func.func @backward_clone(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  // expected-note @below {{original op}}
  %ga = remat.opaque "a_grad"(%a) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%a) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{recomputed op 'remat.opaque' "a_grad" is a clone of a backward op}}
    %0 = remat.opaque "a_grad"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%ga, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// An op marked remat.no_recompute recomputed by a clone without the mark.
func.func @no_recompute_clone(%x: tensor<100xi8>) -> tensor<10xi8> {
  // expected-note @below {{original op}}
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64, remat.no_recompute} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{recomputed op 'remat.opaque' "a" is a clone of an op marked remat.no_recompute}}
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%a, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// A value hinted remat.keep is recomputed.
func.func @kept_value_recomputed(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  // expected-note @below {{keep hint}}
  remat.keep %a : tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{recomputed op 'remat.opaque' "a" recomputes a value hinted remat.keep}}
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// The keep hint is on the recomputed value itself.
func.func @keep_on_recomputed(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{recomputed op 'remat.opaque' "a" recomputes a value hinted remat.keep}}
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  // expected-note @below {{keep hint}}
  remat.keep %r : tensor<100xi8>
  %g = remat.opaque "g"(%b, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// Peak over the budget (1000 bytes). Live bytes per step:
//   a:600 b:1000 (a, b) a':1000 (b, a') g:1010 (b, a', g) g2:10 (g2 is
//   returned) return:0. The budget is exceeded at "g".
func.func @over_budget(%x: tensor<8xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<600xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<600xi8>) -> tensor<400xi8>
  %r = remat.recompute(%x) : (tensor<8xi8>) -> tensor<600xi8> {
  ^bb0(%y: tensor<8xi8>):
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<600xi8>
    remat.yield %0 : tensor<600xi8>
  }
  // expected-error @below {{schedule exceeds the memory budget: peak 1010 activation bytes > budget 1000 bytes in @over_budget, reached at 'remat.opaque' "g"}}
  %g = remat.opaque "g"(%b, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<400xi8>, tensor<600xi8>) -> tensor<10xi8>
  %g2 = remat.opaque "g2"(%g) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<10xi8>) -> tensor<10xi8>
  return %g2 : tensor<10xi8>
}

// -----

// The peak is inside a recompute region, at the second recomputed op.
// Live bytes per step: a:400 b:700 c:650 (a died at b); region a':750
// (c, a'), b':1050 (c, a', b'; a' dies); g:650 (c, b'; g is returned);
// return:0.
func.func @peak_in_region(%x: tensor<8xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<400xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<400xi8>) -> tensor<300xi8>
  %c = remat.opaque "c"(%b) {cost = 1.0 : f64} : (tensor<300xi8>) -> tensor<350xi8>
  %r = remat.recompute(%x) : (tensor<8xi8>) -> tensor<300xi8> {
  ^bb0(%y: tensor<8xi8>):
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<400xi8>
    // expected-error @below {{schedule exceeds the memory budget: peak 1050 activation bytes > budget 1000 bytes in @peak_in_region, reached at 'remat.opaque' "b"}}
    %1 = remat.opaque "b"(%0) {cost = 1.0 : f64} : (tensor<400xi8>) -> tensor<300xi8>
    remat.yield %1 : tensor<300xi8>
  }
  %g = remat.opaque "g"(%c, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<350xi8>, tensor<300xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// Two blocks: the verifier handles single-block bodies only (the error is at
// the function, without its body).
// expected-error @below {{schedule verification needs @two_blocks to have a body of exactly one block}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<4xf32>
}
