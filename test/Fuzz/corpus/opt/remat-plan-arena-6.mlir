func.func @returned(%in: memref<16xf32>, %out: memref<16xf32>, %n: index) -> (memref<16xf32>, memref<?xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%b : memref<16xf32>)
  linalg.exp ins(%b : memref<16xf32>) outs(%out : memref<16xf32>)
  %dyn = memref.alloc(%n) : memref<?xf32>
  return %a, %dyn : memref<16xf32>, memref<?xf32>
}
