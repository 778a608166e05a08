func.func @layer_norm_element_types(%x: tensor<4x8xf16>, %s: tensor<8xf32>) -> tensor<4x8xf16> {
  %0 = remat.layer_norm %x, %s, %s : (tensor<4x8xf16>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}
