func.func @total_overflow(%x: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> {
  %0 = remat.neg %x : (tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32>
  return %0 : tensor<1152921504606846976xf32>
}
