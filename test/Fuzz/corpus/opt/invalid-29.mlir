func.func @permutation_missing(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = remat.transpose %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
