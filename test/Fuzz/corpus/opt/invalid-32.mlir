func.func @result_element_type_differs(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xbf16> {
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xbf16>
  return %0 : tensor<4x6xbf16>
}
