func.func @i16_labels(%l: tensor<4x10xf32>, %y: tensor<4xi16>) -> tensor<f32> {
  %0 = remat.softmax_cross_entropy %l, %y : (tensor<4x10xf32>, tensor<4xi16>) -> tensor<f32>
  return %0 : tensor<f32>
}
