func.func @opaque_in_region(%x: tensor<16xi8>) -> (tensor<16xi8>, tensor<8xi8>) {
  %r = remat.recompute(%x) : (tensor<16xi8>) -> tensor<16xi8> {
  ^bb0(%a: tensor<16xi8>):
    %0 = remat.opaque "inner"(%a) {cost = 1.0 : f64} : (tensor<16xi8>) -> tensor<16xi8>
    remat.yield %0 : tensor<16xi8>
  }
  %1 = remat.opaque "outer"(%r) {cost = 2.0 : f64} : (tensor<16xi8>) -> tensor<8xi8>
  return %r, %1 : tensor<16xi8>, tensor<8xi8>
}
