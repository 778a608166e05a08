func.func @keep_is_not_a_use(%x: tensor<8xf16>) {
  %0 = remat.exp %x : (tensor<8xf16>) -> tensor<8xf16>
  %1 = remat.neg %0 : (tensor<8xf16>) -> tensor<8xf16>
  %2 = remat.tanh %1 : (tensor<8xf16>) -> tensor<8xf16>
  remat.keep %0 : tensor<8xf16>
  return
}
