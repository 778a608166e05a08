func.func @slice_element_types(%x: tensor<6x8xi64>) -> tensor<2x3xi32> {
  %0 = remat.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<6x8xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
