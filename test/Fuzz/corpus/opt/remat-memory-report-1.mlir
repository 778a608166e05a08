func.func @fan_out(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = remat.exp %x : (tensor<16xf32>) -> tensor<16xf32>
  %1 = remat.neg %0 : (tensor<16xf32>) -> tensor<16xf32>
  %2 = remat.tanh %1 : (tensor<16xf32>) -> tensor<16xf32>
  %3 = remat.add %2, %0 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %4 = remat.sigmoid %3 : (tensor<16xf32>) -> tensor<16xf32>
  return %4 : tensor<16xf32>
}
