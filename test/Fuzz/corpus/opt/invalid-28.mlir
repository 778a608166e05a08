func.func @opaque_negative_cost(%x: tensor<16xi8>) -> tensor<16xi8> {
  %0 = remat.opaque "op"(%x) {cost = -1.000000e+00 : f64} : (tensor<16xi8>) -> tensor<16xi8>
  return %0 : tensor<16xi8>
}
