func.func @keep_dynamic(%x: tensor<?xf32>) {
  remat.keep %x : tensor<?xf32>
  return
}
