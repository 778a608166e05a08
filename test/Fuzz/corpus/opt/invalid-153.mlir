func.func @no_recompute_without_results(%x: tensor<4xf32>) {
  remat.keep %x {remat.no_recompute} : tensor<4xf32>
  return
}
