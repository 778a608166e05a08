func.func @sum_to(%a: tensor<2x3x4xf32>) -> tensor<3x1xf32> {
  %0 = remat.sum_to %a : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}
