func.func @unary(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = remat.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = remat.gelu %x : (tensor<4xf32>) -> tensor<4xf32>
  %2 = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %3 = remat.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %4 = remat.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %5 = remat.log %x : (tensor<4xf32>) -> tensor<4xf32>
  %6 = remat.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
