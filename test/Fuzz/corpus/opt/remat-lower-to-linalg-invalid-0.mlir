func.func @opaque(%x: tensor<16xi8>) -> tensor<64xi8> {
  %0 = remat.opaque "block1_conv1"(%x) {cost = 385.0 : f64} : (tensor<16xi8>) -> tensor<64xi8>
  return %0 : tensor<64xi8>
}
