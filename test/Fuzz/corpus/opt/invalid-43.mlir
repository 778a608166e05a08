func.func @matmul_result_shape(%a: tensor<3x8x4xf32>, %b: tensor<6x8xf32>) -> tensor<3x4x8xf32> {
  %0 = remat.matmul %a, %b {transpose_a, transpose_b} : (tensor<3x8x4xf32>, tensor<6x8xf32>) -> tensor<3x4x8xf32>
  return %0 : tensor<3x4x8xf32>
}
