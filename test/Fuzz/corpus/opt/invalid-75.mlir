func.func @conv_filter_grad_element_types(%g: tensor<1x2x3x3xbf16>, %x: tensor<1x2x5x5xf32>) -> tensor<2x2x3x3xf32> {
  %0 = remat.conv2d_filter_grad %g, %x : (tensor<1x2x3x3xbf16>, tensor<1x2x5x5xf32>) -> tensor<2x2x3x3xf32>
  return %0 : tensor<2x2x3x3xf32>
}
