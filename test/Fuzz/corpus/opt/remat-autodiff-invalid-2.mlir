func.func @scalar_not_tensor(%w: tensor<4xf32> {remat.param}, %s: f32) -> f32 {
  return %s : f32
}
