func.func @concat_element_types(%x: tensor<2x3xf32>, %y: tensor<2x3xf16>) -> tensor<2x6xf32> {
  %0 = remat.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
