func.func private @param_on_declaration(tensor<4xi32> {remat.param})
