func.func @embedding_grad_element_types(%g: tensor<3x4xbf16>, %i: tensor<3xi64>) -> tensor<10x4xf32> {
  %0 = remat.embedding_grad %g, %i : (tensor<3x4xbf16>, tensor<3xi64>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}
