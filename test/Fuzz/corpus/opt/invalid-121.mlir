func.func @embedding_table_rank(%t: tensor<10xf32>, %i: tensor<3xi32>) -> tensor<3xf32> {
  %0 = remat.embedding %t, %i : (tensor<10xf32>, tensor<3xi32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
