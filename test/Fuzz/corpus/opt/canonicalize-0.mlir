func.func @recompute_not_merged_with_original(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = remat.recompute(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %3 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %4 = remat.relu %3 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    remat.yield %4 : tensor<4x8xf32>
  }
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @two_recomputes_not_merged(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  %2 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %3 = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %3 : tensor<4xf32>
  }
  %4 = remat.add %0, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

func.func @unused_recompute_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = remat.sigmoid %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  %2 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    remat.yield %a : tensor<4xf32>
  }
  return %x : tensor<4xf32>
}

func.func @keep_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  remat.keep %0 : tensor<4xf32>
  remat.keep %x : tensor<4xf32>
  remat.keep %x : tensor<4xf32>
  return %x : tensor<4xf32>
}

func.func @control_pure_ops_merged(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %dead = remat.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = remat.add %0, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
