func.func @yield_outside_recompute(%x: tensor<4xf32>) {
  remat.yield %x : tensor<4xf32>
}
