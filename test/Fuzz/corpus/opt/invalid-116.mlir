func.func @broadcast_to_incompatible(%x: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %0 = remat.broadcast_to %x : (tensor<3x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
