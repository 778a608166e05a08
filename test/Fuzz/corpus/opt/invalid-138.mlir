func.func @mse_grad_element_types(%p: tensor<4x3xbf16>, %g: tensor<f32>) -> tensor<4x3xf32> {
  %0 = remat.mse_grad %p, %p, %g : (tensor<4x3xbf16>, tensor<4x3xbf16>, tensor<f32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
