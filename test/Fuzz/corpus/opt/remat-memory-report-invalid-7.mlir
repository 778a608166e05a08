func.func @region_op(%x: tensor<4xf32>) {
  %0 = scf.execute_region -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  }
  return
}
