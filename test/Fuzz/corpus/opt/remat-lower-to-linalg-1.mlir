func.func @matmul_transpose_a(%a: tensor<5x3xf32>, %b: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %0 = remat.matmul %a, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
