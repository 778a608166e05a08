func.func @ce_grad_result_shape(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %g: tensor<f32>) -> tensor<4x9xf32> {
  %0 = remat.softmax_cross_entropy_grad %l, %y, %g : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}
