nvvm.barrier0
