func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32> {remat.param}, %c: i1) -> tensor<f32> {
  %0 = remat.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = scf.if %c -> tensor<4xf32> {
    %t = remat.tanh %0 : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %t : tensor<4xf32>
  } else {
    scf.yield %0 : tensor<4xf32>
  }
  %2 = remat.tanh %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = remat.mse %2, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %3 : tensor<f32>
}
