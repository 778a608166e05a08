func.func @non_scalar_loss(%w: tensor<4xf32> {remat.param}) -> tensor<4xf32> {
  %0 = remat.relu %w : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
