func.func @norm_grad_scale_grad_shape(%g: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<8xf32> {
  %0:3 = remat.layer_norm_grad %g, %g, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<1x8xf32>, tensor<8xf32>)
  return %0#2 : tensor<8xf32>
}
