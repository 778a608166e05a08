func.func @dilations_length(%g: tensor<1x2x3x3xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<2x2x3x3xf32> {
  %0 = remat.conv2d_filter_grad %g, %x {dilations = array<i64: 1, 1, 1>} : (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<2x2x3x3xf32>
  return %0 : tensor<2x2x3x3xf32>
}
