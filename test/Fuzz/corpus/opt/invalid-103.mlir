func.func @concat_axis_missing(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = remat.concat %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
