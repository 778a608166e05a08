func.func @broadcast_to_element_types(%x: tensor<4xf16>) -> tensor<3x4xf32> {
  %0 = remat.broadcast_to %x : (tensor<4xf16>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
