func.func @mse(%p: tensor<3x4xf32>, %t: tensor<3x4xf32>, %g: tensor<f32>) -> (tensor<f32>, tensor<3x4xf32>) {
  %0 = remat.mse %p, %t : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<f32>
  %1 = remat.mse_grad %p, %t, %g : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<f32>, tensor<3x4xf32>
}
