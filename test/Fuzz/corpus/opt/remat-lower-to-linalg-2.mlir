func.func @matmul_batched_transpose_b(%a: tensor<2x3x5xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x4xf32> {
  %0 = remat.matmul %a, %b {transpose_b} : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
