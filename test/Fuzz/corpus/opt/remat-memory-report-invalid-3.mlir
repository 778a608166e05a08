func.func @dynamic_argument(%x: tensor<?xf32>) {
  return
}
