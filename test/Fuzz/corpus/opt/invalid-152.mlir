func.func @no_recompute_not_unit(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.relu %x {remat.no_recompute = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
