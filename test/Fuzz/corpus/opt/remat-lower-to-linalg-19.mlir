func.func @slice_grad(%g: tensor<2x3xf32>) -> tensor<6x9xf32> {
  %0 = remat.slice_grad %g {offsets = array<i64: 1, 0>, strides = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<6x9xf32>
  return %0 : tensor<6x9xf32>
}
