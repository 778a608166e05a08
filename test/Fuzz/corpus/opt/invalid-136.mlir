func.func @mse_grad_shapes(%p: tensor<4x3xf32>, %t: tensor<12xf32>, %g: tensor<f32>) -> tensor<4x3xf32> {
  %0 = remat.mse_grad %p, %t, %g : (tensor<4x3xf32>, tensor<12xf32>, tensor<f32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
