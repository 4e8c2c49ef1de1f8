// No kernel at all: nothing to bundle.
func.func @helper(%n: i32) {
  return
}
