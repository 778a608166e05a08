func.func @sum_to_incompatible(%x: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  %0 = remat.sum_to %x : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
