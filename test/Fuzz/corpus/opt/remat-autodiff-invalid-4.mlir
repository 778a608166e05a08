func.func @no_result(%p: tensor<4xf32> {remat.param}) {
  return
}
