func.func @relu_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = remat.relu %x : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
