func.func @step(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> tensor<f32> {
  %0 = remat.mse %x, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
