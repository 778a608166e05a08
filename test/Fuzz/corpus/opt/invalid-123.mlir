func.func @embedding_element_types(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf16> {
  %0 = remat.embedding %t, %i : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}
