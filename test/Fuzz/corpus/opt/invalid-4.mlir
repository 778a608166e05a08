func.func @dynamic_result(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = remat.neg %x : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
