func.func @argument_overflow(%x: tensor<4xf32>, %y: tensor<4611686018427387904x4xf32>) {
  return
}
