func.func @alias(%in: memref<4x4xf32>, %in16: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<4x4xf32>
  linalg.exp ins(%in : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  %c = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in16 : memref<16xf32>) outs(%b : memref<16xf32>)
  linalg.add ins(%c, %b : memref<16xf32>, memref<16xf32>) outs(%out : memref<16xf32>)
  return
}
