func.func @softmax(%x: tensor<2x3x5xf32>, %dy: tensor<2x3x5xf32>)
    -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>,
        tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %0 = remat.softmax %x : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %1 = remat.softmax %x {axis = 1 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %2 = remat.log_softmax %x : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %3 = remat.log_softmax %x {axis = -3 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %4 = remat.softmax_grad %dy, %0 : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %5 = remat.softmax_grad %dy, %1 {axis = 1 : i64} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %6 = remat.log_softmax_grad %dy, %2 : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %7 = remat.log_softmax_grad %dy, %3 {axis = 0 : i64} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
    : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>,
      tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>
}
