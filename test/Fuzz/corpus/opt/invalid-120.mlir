func.func @sum_to_element_types(%x: tensor<2x3xbf16>) -> tensor<3xf32> {
  %0 = remat.sum_to %x : (tensor<2x3xbf16>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
