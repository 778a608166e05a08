func.func @log_softmax_grad_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = remat.log_softmax_grad %x, %x {axis = 5 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
