func.func @matmul_rank1(%a: tensor<8xf32>, %b: tensor<8x6xf32>) -> tensor<6xf32> {
  %0 = remat.matmul %a, %b : (tensor<8xf32>, tensor<8x6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
