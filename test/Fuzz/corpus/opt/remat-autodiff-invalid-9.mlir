func.func @region_off_path(%w: tensor<4xf32> {remat.param}, %x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32> {
  %0 = scf.execute_region -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  }
  %1 = remat.mse %w, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
