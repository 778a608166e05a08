func.func @avg_pool_grad_shape(%g: tensor<1x1x2x2xf32>) -> tensor<1x1x6x6xf32> {
  %0 = remat.avg_pool2d_grad %g : (tensor<1x1x2x2xf32>) -> tensor<1x1x6x6xf32>
  return %0 : tensor<1x1x6x6xf32>
}
