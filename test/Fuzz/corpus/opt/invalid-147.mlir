func.func @recompute_isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute() : () -> tensor<4xf32> {
    %1 = remat.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
