func.func @matmul_batched_rank(%a: tensor<4x8xf32>, %b: tensor<3x8x6xf32>) -> tensor<3x4x6xf32> {
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<3x8x6xf32>) -> tensor<3x4x6xf32>
  return %0 : tensor<3x4x6xf32>
}
