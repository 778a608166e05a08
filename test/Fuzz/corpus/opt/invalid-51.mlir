func.func @layer_norm_result_shape(%x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<8x4xf32> {
  %0 = remat.layer_norm %x, %s, %s : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
