func.func @div_element_types(%x: tensor<4xbf16>, %y: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = remat.div %x, %y : (tensor<4xbf16>, tensor<4xf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
