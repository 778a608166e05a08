func.func @dropout_result_element_type(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf16> {
  %0 = remat.dropout %x, %s {rate = 5.000000e-01 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
