func.func @region_in_recompute(%x: tensor<4xf32>) {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = scf.execute_region -> tensor<4xf32> {
      scf.yield %a : tensor<4xf32>
    }
    remat.yield %1 : tensor<4xf32>
  }
  return
}
