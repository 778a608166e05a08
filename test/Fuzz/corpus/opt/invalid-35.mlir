func.func @log_softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = remat.log_softmax %x {axis = -3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
