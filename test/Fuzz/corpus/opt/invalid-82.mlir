func.func @max_pool_grad_rank(%g: tensor<1x1x2x2xf32>, %x: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  %0 = remat.max_pool2d_grad %g, %x : (tensor<1x1x2x2xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  return %0 : tensor<1x4x4xf32>
}
