func.func @norm_grad_scale(%g: tensor<2x3x4x4xf32>, %s: tensor<4xf32>) -> tensor<2x3x4x4xf32> {
  %0:3 = remat.batch_norm_grad %g, %g, %s : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<4xf32>) -> (tensor<2x3x4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<2x3x4x4xf32>
}
