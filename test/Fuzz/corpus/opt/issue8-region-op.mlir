// A training step with an op holding a region (scf.if): the memory analysis
// cannot measure the rewritten IR, so a budget is refused up front (it used to
// name a smallest budget, 768 bytes, that every rewrite then failed on).
func.func @step(%x: tensor<64xf32>, %c: i1) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = remat.tanh %x : (tensor<64xf32>) -> tensor<64xf32>
  %r = scf.if %c -> tensor<64xf32> {
    %t = remat.exp %a : (tensor<64xf32>) -> tensor<64xf32>
    scf.yield %t : tensor<64xf32>
  } else {
    scf.yield %a : tensor<64xf32>
  }
  %b = remat.tanh %r : (tensor<64xf32>) -> tensor<64xf32>
  %c2 = remat.tanh %b : (tensor<64xf32>) -> tensor<64xf32>
  %g1 = remat.mul %c2, %b {remat.phase = #remat.phase<backward>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %g2 = remat.mul %g1, %a {remat.phase = #remat.phase<backward>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %g3 = remat.mul %g2, %r {remat.phase = #remat.phase<backward>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %c2, %g3 : tensor<64xf32>, tensor<64xf32>
}
