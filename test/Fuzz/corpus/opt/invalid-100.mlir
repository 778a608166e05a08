func.func @transpose_element_types(%x: tensor<2x3xf32>) -> tensor<3x2xi32> {
  %0 = remat.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}
