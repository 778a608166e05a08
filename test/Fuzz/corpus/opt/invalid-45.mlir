func.func @binary_result_shape(%x: tensor<4x1xf32>, %y: tensor<8xf32>) -> tensor<4x1xf32> {
  %0 = remat.mul %x, %y : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
