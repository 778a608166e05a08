func.func @norm_grad_shapes(%g: tensor<4x4xf32>, %x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  %0:3 = remat.layer_norm_grad %g, %x, %s : (tensor<4x4xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0 : tensor<4x8xf32>
}
