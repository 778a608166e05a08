func.func @kernel_length(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %0 = remat.max_pool2d %x {kernel = array<i64: 2, 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}
