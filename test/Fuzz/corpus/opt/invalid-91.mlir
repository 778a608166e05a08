func.func @global_pool_element_types(%x: tensor<2x3x4x4xf16>) -> tensor<2x3xf32> {
  %0 = remat.global_avg_pool %x : (tensor<2x3x4x4xf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
