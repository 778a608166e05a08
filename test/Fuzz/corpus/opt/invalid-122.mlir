func.func @embedding_rows(%t: tensor<10x4xf32>, %i: tensor<2x3xi32>) -> tensor<6x4xf32> {
  %0 = remat.embedding %t, %i : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}
