func.func @conv_element_types(%x: tensor<1x2x5x5xf16>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %0 = remat.conv2d %x, %w : (tensor<1x2x5x5xf16>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
