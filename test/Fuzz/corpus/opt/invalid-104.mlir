func.func @concat_rank(%x: tensor<2x3xf32>, %y: tensor<6xf32>) -> tensor<2x6xf32> {
  %0 = remat.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<6xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
