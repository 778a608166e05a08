// A forward function with state (used by runner-state.test): a running mean
// of the activation, 0.9 * rm + 0.1 * (column mean of x w), and a step
// counter, as the PyTorch importer writes batch-norm running statistics.
func.func @train(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param},
                 %t: tensor<4x8xf32>, %rm: tensor<1x8xf32> {remat.state},
                 %n: tensor<i64> {remat.state})
    -> (tensor<f32>, tensor<1x8xf32> {remat.state = 3 : i64},
        tensor<i64> {remat.state = 4 : i64}) {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.tanh %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %loss = remat.mse %1, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  %s = remat.sum_to %0 : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %c1 = arith.constant dense<2.500000e-02> : tensor<f32>
  %m = remat.mul %s, %c1 : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %c9 = arith.constant dense<9.000000e-01> : tensor<f32>
  %o = remat.mul %rm, %c9 : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %next = remat.add %o, %m : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  %e = tensor.empty() : tensor<i64>
  %count = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%n : tensor<i64>) outs(%e : tensor<i64>) {
  ^bb0(%a: i64, %b: i64):
    %one = arith.constant 1 : i64
    %sum = arith.addi %a, %one : i64
    linalg.yield %sum : i64
  } -> tensor<i64>
  return %loss, %next, %count : tensor<f32>, tensor<1x8xf32>, tensor<i64>
}
