func.func @concat_axis(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = remat.concat %x, %x {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
