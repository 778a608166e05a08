func.func @element_types_differ(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  %0 = remat.add %x, %y : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
