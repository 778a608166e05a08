// RUN: remat-opt %s --remat-lower-to-linalg --split-input-file --verify-diagnostics

func.func @opaque(%x: tensor<16xi8>) -> tensor<64xi8> {
  // expected-error @below {{remat.opaque 'block1_conv1' has no semantics and cannot be lowered}}
  %0 = remat.opaque "block1_conv1"(%x) {cost = 385.0 : f64} : (tensor<16xi8>) -> tensor<64xi8>
  return %0 : tensor<64xi8>
}

// -----

// Inside a recompute region as well, and every opaque op is reported.
func.func @opaque_in_region(%x: tensor<16xi8>) -> (tensor<16xi8>, tensor<8xi8>) {
  %r = remat.recompute(%x) : (tensor<16xi8>) -> tensor<16xi8> {
  ^bb0(%a: tensor<16xi8>):
    // expected-error @below {{remat.opaque 'inner' has no semantics and cannot be lowered}}
    %0 = remat.opaque "inner"(%a) {cost = 1.0 : f64} : (tensor<16xi8>) -> tensor<16xi8>
    remat.yield %0 : tensor<16xi8>
  }
  // expected-error @below {{remat.opaque 'outer' has no semantics and cannot be lowered}}
  %1 = remat.opaque "outer"(%r) {cost = 2.0 : f64} : (tensor<16xi8>) -> tensor<8xi8>
  return %r, %1 : tensor<16xi8>, tensor<8xi8>
}
