func.func @slice_result_rank(%x: tensor<6x8xf32>) -> tensor<6xf32> {
  %0 = remat.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<6x8xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
