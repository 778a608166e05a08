func.func @param_on_op() attributes {remat.param} {
  return
}
