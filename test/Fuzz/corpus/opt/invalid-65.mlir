func.func @conv_negative_padding(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x1x3xf32> {
  %0 = remat.conv2d %x, %w {padding = array<i64: -1, 0>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x1x3xf32>
  return %0 : tensor<1x2x1x3xf32>
}
