func.func @opaque_dynamic(%x: tensor<16xi8>) -> tensor<?xi8> {
  %0 = remat.opaque "op"(%x) {cost = 1.000000e+00 : f64} : (tensor<16xi8>) -> tensor<?xi8>
  return %0 : tensor<?xi8>
}
