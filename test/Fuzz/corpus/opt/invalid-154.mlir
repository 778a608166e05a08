func.func @no_recompute_on_region_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) {remat.no_recompute} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    remat.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
