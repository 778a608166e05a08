func.func @dynamic_result(%x: tensor<4xf32>) {
  %0 = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  return
}
