func.func @two_results(%p: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %0 = remat.mse %p, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0, %0 : tensor<f32>, tensor<f32>
}
