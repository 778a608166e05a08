func.func @param_scalar(%x: f32 {remat.param}) {
  return
}
