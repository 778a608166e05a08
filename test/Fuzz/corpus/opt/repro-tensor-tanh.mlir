func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = math.tanh %0 : tensor<4xf32>
  %2 = remat.mse %1, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}
