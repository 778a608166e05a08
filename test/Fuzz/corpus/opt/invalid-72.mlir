func.func @conv_input_grad_element_types(%g: tensor<1x2x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf16> {
  %0 = remat.conv2d_input_grad %g, %w : (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf16>
  return %0 : tensor<1x2x5x5xf16>
}
