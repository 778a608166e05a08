func.func @batch_norm_result_shape(%x: tensor<16x8xf32>, %s: tensor<8xf32>) -> tensor<16x1xf32> {
  %0 = remat.batch_norm %x, %s, %s : (tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<16x1xf32>
  return %0 : tensor<16x1xf32>
}
