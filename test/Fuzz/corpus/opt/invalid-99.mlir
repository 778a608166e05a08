func.func @transpose_result_shape(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = remat.transpose %x {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}
