func.func @element_sizes(%i: tensor<4x6xi32>, %h: tensor<6x4xbf16> {remat.param}) {
  %0 = remat.reshape %i : (tensor<4x6xi32>) -> tensor<24xi32>
  %1 = remat.slice %0 {offsets = array<i64: 0>, strides = array<i64: 2>} : (tensor<24xi32>) -> tensor<12xi32>
  %2 = remat.transpose %h {permutation = array<i64: 1, 0>} : (tensor<6x4xbf16>) -> tensor<4x6xbf16>
  %3 = remat.gelu %2 : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  return
}
