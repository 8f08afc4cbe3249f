gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.func @f(%p: !llvm.ptr<1>, %i: i32) attributes {nvvm.kernel} {
    %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f8E4M3FN
    llvm.store %i, %q : i32, !llvm.ptr<1>
    llvm.return
  }
}
