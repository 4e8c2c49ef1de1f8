// Every brick op rejects ill-formed IR with a message naming the operands, shapes and types at fault.

func.func @program_id_axis() {
  %0 = brick.program_id 3
  return
}
