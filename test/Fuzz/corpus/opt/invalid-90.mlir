func.func @global_pool_result_shape(%x: tensor<2x3x4x4xf32>) -> tensor<2x3x1x1xf32> {
  %0 = remat.global_avg_pool %x : (tensor<2x3x4x4xf32>) -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}
