func.func @param_dynamic(%x: tensor<?xf32> {remat.param}) {
  return
}
