func.func @ce_labels(%l: tensor<4x10xf32>, %y: tensor<10xi32>) -> tensor<f32> {
  %0 = remat.softmax_cross_entropy %l, %y : (tensor<4x10xf32>, tensor<10xi32>) -> tensor<f32>
  return %0 : tensor<f32>
}
