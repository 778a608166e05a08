func.func @multi_block(%w: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> tensor<f32> {
  cf.br ^bb1
^bb1:
  %0 = remat.mse %w, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
