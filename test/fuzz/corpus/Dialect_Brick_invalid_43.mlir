func.func @print_args(%x: tensor<3xf32>) {
  brick.print "x" %x : tensor<3xf32>
  return
}
