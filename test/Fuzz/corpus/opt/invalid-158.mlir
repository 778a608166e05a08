func.func @forward_only_with_backward(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.forward_only} {
  %0 = remat.relu %x {remat.phase = #remat.phase<backward>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
