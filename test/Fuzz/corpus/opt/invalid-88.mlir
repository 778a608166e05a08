func.func @avg_pool_grad_element_types(%g: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xbf16> {
  %0 = remat.avg_pool2d_grad %g : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xbf16>
  return %0 : tensor<1x1x4x4xbf16>
}
