func.func @pool_element_types(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf16> {
  %0 = remat.max_pool2d %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf16>
  return %0 : tensor<1x1x2x2xf16>
}
