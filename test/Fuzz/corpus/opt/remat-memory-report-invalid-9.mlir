func.func @multi_block(%x: tensor<4xf32>) {
  cf.br ^bb1
^bb1:
  return
}
