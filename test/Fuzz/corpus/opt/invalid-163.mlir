func.func @param_integer(%x: tensor<4xf32>, %i: tensor<4xi32> {remat.param}) {
  return
}
