func.func @nested_dealloc_copy(%in: memref<16xf32>, %out: memref<16xf32>, %res: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%b : memref<16xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<16xf32>
    %y = memref.load %b[%i] : memref<16xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %out[%i] : memref<16xf32>
  }
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  linalg.exp ins(%out : memref<16xf32>) outs(%c : memref<16xf32>)
  %d = memref.alloc() : memref<16xf32>
  linalg.exp ins(%c : memref<16xf32>) outs(%d : memref<16xf32>)
  linalg.exp ins(%d : memref<16xf32>) outs(%out : memref<16xf32>)
  memref.copy %c, %res : memref<16xf32> to memref<16xf32>
  return
}
