func.func @matmul_contraction_transpose_a(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %0 = remat.matmul %a, %b {transpose_a} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}
