func.func @forward_only_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.relu %x {remat.forward_only} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
