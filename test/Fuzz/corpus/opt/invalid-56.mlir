func.func @norm_grad_input_grad_shape(%g: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<8xf32> {
  %0:3 = remat.layer_norm_grad %g, %g, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<32xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#1 : tensor<8xf32>
}
