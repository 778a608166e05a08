func.func @broadcast_to_smaller(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  %0 = remat.broadcast_to %x : (tensor<3x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
