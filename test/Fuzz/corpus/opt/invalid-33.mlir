func.func @element_types_differ_any(%x: tensor<2x3xi32>) -> tensor<6xi64> {
  %0 = remat.reshape %x : (tensor<2x3xi32>) -> tensor<6xi64>
  return %0 : tensor<6xi64>
}
