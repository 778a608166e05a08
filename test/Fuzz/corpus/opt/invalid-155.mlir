func.func @training_step_not_unit() attributes {remat.training_step = "yes"} {
  return
}
