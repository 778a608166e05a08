func.func @batch_norm_bias(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = remat.batch_norm %x, %s, %b : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<1x3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}
