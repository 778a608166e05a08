func.func @transpose_duplicate(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = remat.transpose %x {permutation = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
