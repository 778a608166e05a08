func.func @conv_filter_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %0 = remat.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
