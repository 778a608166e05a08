func.func @slice_grad_element_types(%g: tensor<2x3xf16>) -> tensor<6x8xf32> {
  %0 = remat.slice_grad %g {offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3xf16>) -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}
