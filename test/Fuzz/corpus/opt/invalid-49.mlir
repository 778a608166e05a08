func.func @layer_norm_scale(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = remat.layer_norm %x, %s, %b : (tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
