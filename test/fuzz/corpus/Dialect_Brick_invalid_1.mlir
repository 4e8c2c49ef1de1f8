func.func @num_programs_axis() {
  %0 = brick.num_programs 7
  return
}
