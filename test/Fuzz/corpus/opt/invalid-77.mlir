func.func @pool_padding_half_kernel(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %0 = remat.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}
