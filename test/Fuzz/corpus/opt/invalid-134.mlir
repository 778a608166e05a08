func.func @mse_shapes(%p: tensor<4x3xf32>, %t: tensor<3x4xf32>) -> tensor<f32> {
  %0 = remat.mse %p, %t : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
