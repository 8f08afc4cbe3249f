gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx60">] {
  llvm.func @f(%p: !llvm.ptr<1>, %i: i32) attributes {nvvm.kernel} {
    %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %i, %q : i32, !llvm.ptr<1>
    llvm.return
  }
}
