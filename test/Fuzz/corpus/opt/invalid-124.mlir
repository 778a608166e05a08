func.func @embedding_grad_table_rank(%g: tensor<3x4xf32>, %i: tensor<3xi64>) -> tensor<40xf32> {
  %0 = remat.embedding_grad %g, %i : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<40xf32>
  return %0 : tensor<40xf32>
}
