func.func @dynamic_static_tensor(%x: tensor<?x4xi32>) -> tensor<4x?xi32> {
  %0 = remat.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x4xi32>) -> tensor<4x?xi32>
  return %0 : tensor<4x?xi32>
}
