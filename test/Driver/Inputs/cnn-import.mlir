// The imported CNN of python/remat/zoo.py ('cnn': conv 3x3 pad 1, batch norm,
// ReLU, max pool 2, depthwise conv 3x3 pad 1, batch norm, ReLU6, adaptive
// average pool, linear), as remat.torch_import writes it; a fixed input of
// test/Driver/arena-within-plan.test.
// Imported from PyTorch by remat.torch_import; arguments:
//   %_0_weight: parameter '0.weight'
//   %_0_bias: parameter '0.bias'
//   %_1_weight: parameter '1.weight'
//   %_1_bias: parameter '1.bias'
//   %_4_weight: parameter '4.weight'
//   %_5_weight: parameter '5.weight'
//   %_5_bias: parameter '5.bias'
//   %_10_weight: parameter '10.weight'
//   %_10_bias: parameter '10.bias'
//   %_1_running_mean: state '1.running_mean' (updated by the step)
//   %_1_running_var: state '1.running_var' (updated by the step)
//   %_1_num_batches_tracked: state '1.num_batches_tracked' (updated by the step)
//   %_5_running_mean: state '5.running_mean' (updated by the step)
//   %_5_running_var: state '5.running_var' (updated by the step)
//   %_5_num_batches_tracked: state '5.num_batches_tracked' (updated by the step)
func.func @forward(
    %_0_weight: tensor<8x3x3x3xf32> {remat.param},
    %_0_bias: tensor<8xf32> {remat.param},
    %_1_weight: tensor<8xf32> {remat.param},
    %_1_bias: tensor<8xf32> {remat.param},
    %_4_weight: tensor<8x1x3x3xf32> {remat.param},
    %_5_weight: tensor<8xf32> {remat.param},
    %_5_bias: tensor<8xf32> {remat.param},
    %_10_weight: tensor<4x8xf32> {remat.param},
    %_10_bias: tensor<4xf32> {remat.param},
    %_1_running_mean: tensor<8xf32> {remat.state},
    %_1_running_var: tensor<8xf32> {remat.state},
    %_1_num_batches_tracked: tensor<i64> {remat.state},
    %_5_running_mean: tensor<8xf32> {remat.state},
    %_5_running_var: tensor<8xf32> {remat.state},
    %_5_num_batches_tracked: tensor<i64> {remat.state},
    %input: tensor<2x3x8x8xf32>,
    %target: tensor<2xi64>
) -> (tensor<f32>, tensor<8xf32> {remat.state = 9 : i64}, tensor<8xf32> {remat.state = 10 : i64}, tensor<i64> {remat.state = 11 : i64}, tensor<8xf32> {remat.state = 12 : i64}, tensor<8xf32> {remat.state = 13 : i64}, tensor<i64> {remat.state = 14 : i64}) {
  %0 = remat.conv2d %input, %_0_weight {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x8x8xf32>
  %1 = remat.reshape %_0_bias : (tensor<8xf32>) -> tensor<8x1x1xf32>
  %2 = remat.add %0, %1 : (tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<2x8x8x8xf32>
  %3 = remat.batch_norm %2, %_1_weight, %_1_bias {epsilon = 1.0e-05 : f64} : (tensor<2x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
  %4 = remat.sum_to %2 : (tensor<2x8x8x8xf32>) -> tensor<1x8x1x1xf32>
  %5 = arith.constant dense<0.0078125> : tensor<f32>
  %6 = remat.mul %4, %5 : (tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<1x8x1x1xf32>
  %7 = remat.sub %2, %6 : (tensor<2x8x8x8xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x8x8xf32>
  %8 = remat.mul %7, %7 : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %9 = remat.sum_to %8 : (tensor<2x8x8x8xf32>) -> tensor<1x8x1x1xf32>
  %10 = arith.constant dense<0.007874015748031496> : tensor<f32>
  %11 = remat.mul %9, %10 : (tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<1x8x1x1xf32>
  %12 = arith.constant dense<0.9> : tensor<f32>
  %13 = arith.constant dense<0.1> : tensor<f32>
  %14 = remat.reshape %6 : (tensor<1x8x1x1xf32>) -> tensor<8xf32>
  %15 = remat.mul %_1_running_mean, %12 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %16 = remat.mul %14, %13 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %17 = remat.add %15, %16 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %18 = remat.reshape %11 : (tensor<1x8x1x1xf32>) -> tensor<8xf32>
  %19 = remat.mul %_1_running_var, %12 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %20 = remat.mul %18, %13 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %21 = remat.add %19, %20 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %22 = remat.relu %3 : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %23 = remat.max_pool2d %22 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32>
  %24 = remat.conv2d %23, %_4_weight {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 8 : i64} : (tensor<2x8x4x4xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x4x4xf32>
  %25 = remat.batch_norm %24, %_5_weight, %_5_bias {epsilon = 1.0e-05 : f64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %26 = remat.sum_to %24 : (tensor<2x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %27 = arith.constant dense<0.03125> : tensor<f32>
  %28 = remat.mul %26, %27 : (tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<1x8x1x1xf32>
  %29 = remat.sub %24, %28 : (tensor<2x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %30 = remat.mul %29, %29 : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %31 = remat.sum_to %30 : (tensor<2x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %32 = arith.constant dense<0.03225806451612903> : tensor<f32>
  %33 = remat.mul %31, %32 : (tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<1x8x1x1xf32>
  %34 = arith.constant dense<0.9> : tensor<f32>
  %35 = arith.constant dense<0.1> : tensor<f32>
  %36 = remat.reshape %28 : (tensor<1x8x1x1xf32>) -> tensor<8xf32>
  %37 = remat.mul %_5_running_mean, %34 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %38 = remat.mul %36, %35 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %39 = remat.add %37, %38 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %40 = remat.reshape %33 : (tensor<1x8x1x1xf32>) -> tensor<8xf32>
  %41 = remat.mul %_5_running_var, %34 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %42 = remat.mul %40, %35 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %43 = remat.add %41, %42 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %44 = remat.relu6 %25 : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %45 = remat.global_avg_pool %44 : (tensor<2x8x4x4xf32>) -> tensor<2x8xf32>
  %46 = remat.reshape %45 : (tensor<2x8xf32>) -> tensor<2x8x1x1xf32>
  %47 = remat.reshape %46 : (tensor<2x8x1x1xf32>) -> tensor<2x8xf32>
  %48 = remat.matmul %47, %_10_weight {transpose_b} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %49 = remat.add %48, %_10_bias : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %50 = remat.softmax_cross_entropy %49, %target : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<f32>
  %51 = tensor.empty() : tensor<i64>
  %52 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%_1_num_batches_tracked : tensor<i64>) outs(%51 : tensor<i64>) {
  ^bb0(%53: i64, %54: i64):
    %55 = arith.constant 1 : i64
    %56 = arith.addi %53, %55 : i64
    linalg.yield %56 : i64
  } -> tensor<i64>
  %57 = tensor.empty() : tensor<i64>
  %58 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%_5_num_batches_tracked : tensor<i64>) outs(%57 : tensor<i64>) {
  ^bb0(%59: i64, %60: i64):
    %61 = arith.constant 1 : i64
    %62 = arith.addi %59, %61 : i64
    linalg.yield %62 : i64
  } -> tensor<i64>
  return %50, %17, %21, %52, %39, %43, %58 : tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<8xf32>, tensor<8xf32>, tensor<i64>
}
