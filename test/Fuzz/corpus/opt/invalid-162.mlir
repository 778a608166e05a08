func.func @param_not_unit(%x: tensor<4xf32> {remat.param = 1 : i64}) {
  return
}
