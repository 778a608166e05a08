func.func @overlap(%in: memref<10xf32>, %in32: memref<32xf32>, %out: memref<10xf32>, %out32: memref<32xf32>) {
  %a = memref.alloc() : memref<10xf32>
  %b = memref.alloc() : memref<10xf32>
  %big = memref.alloc() : memref<32xf32>
  linalg.exp ins(%in : memref<10xf32>) outs(%a : memref<10xf32>)
  linalg.exp ins(%in : memref<10xf32>) outs(%b : memref<10xf32>)
  linalg.exp ins(%in32 : memref<32xf32>) outs(%big : memref<32xf32>)
  linalg.add ins(%a, %b : memref<10xf32>, memref<10xf32>) outs(%out : memref<10xf32>)
  linalg.exp ins(%big : memref<32xf32>) outs(%out32 : memref<32xf32>)
  return
}
