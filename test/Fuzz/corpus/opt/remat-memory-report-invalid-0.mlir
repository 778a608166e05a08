func.func @result_overflow(%x: tensor<4xf32>) {
  %0 = remat.broadcast_to %x : (tensor<4xf32>) -> tensor<4611686018427387904x4xf32>
  return
}
