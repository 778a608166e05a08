func.func @disjoint(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  linalg.exp ins(%a : memref<16xf32>) outs(%out : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%b : memref<16xf32>)
  linalg.add ins(%b, %out : memref<16xf32>, memref<16xf32>) outs(%out : memref<16xf32>)
  return
}
