func.func @phase_not_enum(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.relu %x {remat.phase = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
