func.func @mse_grad_result_shape(%p: tensor<4x3xf32>, %g: tensor<f32>) -> tensor<3x4xf32> {
  %0 = remat.mse_grad %p, %p, %g : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
