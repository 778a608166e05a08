func.func @matmul_4d(%a: tensor<2x2x3x5xf32>, %b: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %0 = remat.matmul %a, %b : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}
