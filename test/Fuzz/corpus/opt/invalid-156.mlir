func.func @forward_only_not_unit() attributes {remat.forward_only = true} {
  return
}
