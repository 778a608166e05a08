func.func @concat_result_shape(%x: tensor<2x3xf32>) -> tensor<2x7xf32> {
  %0 = remat.concat %x, %x {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}
