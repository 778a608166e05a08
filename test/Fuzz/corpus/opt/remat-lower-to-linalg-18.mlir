func.func @slice(%a: tensor<6x9xf32>) -> tensor<2x3xf32> {
  %0 = remat.slice %a {offsets = array<i64: 1, 0>, strides = array<i64: 2, 3>} : (tensor<6x9xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
