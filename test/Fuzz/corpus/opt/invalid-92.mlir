func.func @global_pool_grad_rank(%g: tensor<2x3xf32>) -> tensor<2x3x4xf32> {
  %0 = remat.global_avg_pool_grad %g : (tensor<2x3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
