func.func @softmax_grads(%dy: tensor<2x5xf32>, %y: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = remat.softmax_grad %dy, %y : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = remat.log_softmax_grad %dy, %y : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0, %1 : tensor<2x5xf32>, tensor<2x5xf32>
}
