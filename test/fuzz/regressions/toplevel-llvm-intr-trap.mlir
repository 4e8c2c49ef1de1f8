"llvm.intr.trap"() : () -> ()
