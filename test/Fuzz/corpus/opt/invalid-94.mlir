func.func @global_pool_grad_element_types(%g: tensor<2x3xf32>) -> tensor<2x3x4x4xbf16> {
  %0 = remat.global_avg_pool_grad %g : (tensor<2x3xf32>) -> tensor<2x3x4x4xbf16>
  return %0 : tensor<2x3x4x4xbf16>
}
