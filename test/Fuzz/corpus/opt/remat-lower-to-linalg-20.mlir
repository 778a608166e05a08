func.func @broadcast_to(%a: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = remat.broadcast_to %a : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
