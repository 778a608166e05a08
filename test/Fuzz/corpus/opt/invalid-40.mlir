func.func @matmul_batch_dims(%a: tensor<2x4x8xf32>, %b: tensor<3x8x6xf32>) -> tensor<2x4x6xf32> {
  %0 = remat.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}
