func.func @ce_grad_labels(%l: tensor<4x10xf32>, %y: tensor<4x1xi32>, %g: tensor<f32>) -> tensor<4x10xf32> {
  %0 = remat.softmax_cross_entropy_grad %l, %y, %g : (tensor<4x10xf32>, tensor<4x1xi32>, tensor<f32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}
