func.func @activation_grad_types(%g: tensor<4xf32>, %x: tensor<4xf16>) -> tensor<4xf32> {
  %0 = remat.relu_grad %g, %x : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
