func.func @conv_filter_grad_shape(%g: tensor<1x2x3x3xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<2x2x2x2xf32> {
  %0 = remat.conv2d_filter_grad %g, %x : (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<2x2x2x2xf32>
  return %0 : tensor<2x2x2x2xf32>
}
