// The original training steps that test/Transforms/remat-verify-schedule-original.mlir
// mutates after rewriting (do not edit: its diagnostics name lines of this file).
// @chain:   python/remat-gen.py chain -n 6 --no-header | remat-opt --remat-autodiff
// @dropout: two dropout layers with their own seeds, through --remat-autodiff
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.mse_grad %11, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %14 = remat.tanh_grad %13, %11 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %15 = remat.matmul %14, %arg7 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %16 = remat.matmul %9, %14 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %17 = remat.tanh_grad %15, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %18 = remat.matmul %17, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %7, %17 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %20 = remat.tanh_grad %18, %7 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %21 = remat.matmul %20, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %22 = remat.matmul %5, %20 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %23 = remat.tanh_grad %21, %5 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %23, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %25 = remat.matmul %3, %23 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %26 = remat.tanh_grad %24, %3 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %27 = remat.matmul %26, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %28 = remat.matmul %1, %26 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %27, %1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %arg0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %12, %30, %28, %25, %22, %19, %16 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

func.func @dropout(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<i64>, %arg3: tensor<i64>, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.dropout %0, %arg2 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %2 = remat.tanh %1 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = remat.matmul %2, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %4 = remat.dropout %3, %arg3 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.mse %5, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %7 = remat.mse_grad %5, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %8 = remat.tanh_grad %7, %5 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %9 = remat.dropout %8, %arg3 {rate = 5.000000e-01 : f64, remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.matmul %2, %9 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %12 = remat.tanh_grad %10, %2 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %13 = remat.dropout %12, %arg2 {rate = 5.000000e-01 : f64, remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %14 = remat.matmul %arg0, %13 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %6, %14, %11 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>
}
