func.func @result_bytes_overflow(%x: tensor<1xf32>) {
  %0 = remat.broadcast_to %x : (tensor<1xf32>) -> tensor<2305843009213693952xf32>
  return
}
