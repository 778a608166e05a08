func.func @loss_grad_not_scalar(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %g: tensor<4xf32>) -> tensor<4x10xf32> {
  %0 = remat.softmax_cross_entropy_grad %l, %y, %g : (tensor<4x10xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}
