func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  %0 = remat.reshape %x : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}
