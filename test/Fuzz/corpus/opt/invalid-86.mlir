func.func @avg_pool_grad_padding(%g: tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32> {
  %0 = remat.avg_pool2d_grad %g {padding = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}
