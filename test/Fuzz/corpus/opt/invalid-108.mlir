func.func @slice_rank(%x: tensor<6x8xf32>) -> tensor<2x3xf32> {
  %0 = remat.slice %x {offsets = array<i64: 0>, strides = array<i64: 1, 1>} : (tensor<6x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
