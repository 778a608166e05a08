func.func @unary_type_change(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = remat.sigmoid %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
