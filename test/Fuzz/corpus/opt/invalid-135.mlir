func.func @mse_element_types(%p: tensor<4x3xf16>, %t: tensor<4x3xf32>) -> tensor<f32> {
  %0 = remat.mse %p, %t : (tensor<4x3xf16>, tensor<4x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
