func.func @recompute_region(%w: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> tensor<f32> {
  %0 = remat.recompute(%w) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = remat.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  %2 = remat.mse %0, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}
