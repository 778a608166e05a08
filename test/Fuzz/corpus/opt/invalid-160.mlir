func.func @unknown_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.relu %x {remat.keep} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
