func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>) -> tensor<4x6xf32> {
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
