func.func @recompute_empty_block(%x: tensor<4xf32>) {
  remat.recompute(%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xf32>):
  }
  return
}
