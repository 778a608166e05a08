func.func @argument_sum_overflow(%x: tensor<4611686018427387904xi8>, %y: tensor<4611686018427387904xi8>) {
  return
}
