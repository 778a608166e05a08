func.func @activation_grads(%dy: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = remat.relu_grad %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = remat.gelu_grad %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = remat.tanh_grad %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = remat.sigmoid_grad %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
