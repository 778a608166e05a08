func.func @pool_rank(%x: tensor<2x4x4xf32>) -> tensor<2x2x2xf32> {
  %0 = remat.max_pool2d %x : (tensor<2x4x4xf32>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}
