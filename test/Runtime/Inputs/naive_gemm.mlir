// A scalar GEMM for nvfp4-run's MLIR-input tests: no tensor cores, no TMA,
// so it runs on the emulator today. D[16x32] (f32) = A[16xK] * B[32xK]^T
// with bf16 inputs, K = 64; thread (x, y) of one 32x16 CTA computes
// D[y, x] if y < rows (the last argument, m: every row). mlir-harness.test
// also runs copies with rows = 15 (the last row keeps its NaN poison) and
// with a wrong accumulation, which must FAIL.

module attributes {gpu.container_module} {
  gpu.module @naive {
    gpu.func @naive_gemm(%a: memref<16x64xbf16>, %b: memref<32x64xbf16>,
                         %d: memref<16x32xf32>, %k: index, %rows: index) kernel
        attributes {nvfp4.harness = {reference = "gemm_abt",
                      types = {a = "bf16", b = "bf16", d = "f32"},
                      sizes = {m = 16 : i64, n = 32 : i64, k = 64 : i64},
                      grid = array<i32: 1>, block = array<i32: 32, 16, 1>,
                      args = [{buffer = "a"}, {buffer = "b"}, {buffer = "d"},
                              {scalar = "i64", value = "k"},
                              {scalar = "i64", value = "m"}]}} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      %x = gpu.thread_id x
      %y = gpu.thread_id y
      %in = arith.cmpi ult, %y, %rows : index
      scf.if %in {
        %sum = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero) -> f32 {
          %av = memref.load %a[%y, %i] : memref<16x64xbf16>
          %bv = memref.load %b[%x, %i] : memref<32x64xbf16>
          %af = arith.extf %av : bf16 to f32
          %bf = arith.extf %bv : bf16 to f32
          %p = arith.mulf %af, %bf : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        memref.store %sum, %d[%y, %x] : memref<16x32xf32>
      }
      gpu.return
    }
  }
}
