func.func @dynamic_float_tensor(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = remat.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
