func.func @embedding(%t: tensor<5x4xf32>, %i: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
  %0 = remat.embedding %t, %i : (tensor<5x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
