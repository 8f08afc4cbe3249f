"builtin.module"() ({
  "gpu.module"() <{sym_name = "kernels"}> ({
      "sm100.fence"() <{kind = 1 : i32}> : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
