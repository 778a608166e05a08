// RUN: remat-opt %s -split-input-file -verify-diagnostics --mlir-very-unsafe-disable-verifier-on-parsing --remat-verify-schedule

// IR that the MLIR verifiers (dominance, remat.recompute's verifier) would
// reject, parsed without verification as a buggy rewrite run without
// -verify-each could produce it: the schedule verifier must catch these on
// its own, without relying on those verifiers.

// A recompute captures a value defined after it.
func.func @input_defined_later(%x: tensor<100xi8>) -> tensor<10xi8> {
  // expected-error @below {{operand #0 of 'remat.recompute' is not available: it is not a function argument or a value defined earlier in the function body}}
  %r = remat.recompute(%a) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    %0 = remat.opaque "b"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %g = remat.opaque "g"(%b, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// A recomputed value used before the recompute runs.
func.func @result_used_before(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  // expected-error @below {{operand #0 of 'remat.opaque' "g" is not available}}
  %g = remat.opaque "g"(%r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<10xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  return %g : tensor<10xi8>
}

// -----

// Inside a region, an op reads a region value defined after it.
func.func @inner_use_before_def(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{operand #0 of 'remat.opaque' "b" is not available in the recompute region: it is neither a block argument of the region nor defined earlier in it}}
    %1 = remat.opaque "b"(%0) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %1 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%b, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// A backward op inside a region.
func.func @backward_in_region(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %ga = remat.opaque "a_grad"(%a) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%a) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{backward op 'remat.opaque' "a_grad" inside a recompute region}}
    %0 = remat.opaque "a_grad"(%y) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%ga, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// -----

// An op with side effects inside a region.
func.func @side_effect_in_region(%x: tensor<100xi8>) -> tensor<100xi8> {
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{'remat.keep' inside a recompute region has side effects}}
    remat.keep %y : tensor<100xi8>
    remat.yield %y : tensor<100xi8>
  }
  return %r : tensor<100xi8>
}

// -----

// An op marked remat.no_recompute inside a region.
func.func @no_recompute_in_region(%x: tensor<100xi8>) -> tensor<100xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64, remat.no_recompute} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{'remat.opaque' "a" inside a recompute region is marked remat.no_recompute}}
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64, remat.no_recompute} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  return %r : tensor<100xi8>
}

// -----

// A nested remat.recompute (the recompute op has side effects and regions).
func.func @nested_region(%x: tensor<100xi8>) -> tensor<100xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    // expected-error @below {{'remat.recompute' cannot be recomputed: it has regions}}
    %0 = remat.recompute(%y) : (tensor<100xi8>) -> tensor<100xi8> {
    ^bb0(%z: tensor<100xi8>):
      %1 = remat.opaque "a"(%z) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
      remat.yield %1 : tensor<100xi8>
    }
    remat.yield %0 : tensor<100xi8>
  }
  return %r : tensor<100xi8>
}
