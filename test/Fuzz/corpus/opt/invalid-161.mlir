func.func @unknown_arg_attribute(%x: tensor<4xf32> {remat.parameter}) {
  return
}
