func.func @unranked_tensor(%x: tensor<*xf32>) -> tensor<*xf32> {
  %0 = remat.tanh %x : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
