// RUN: nvfp4-opt %s -nvfp4-lower-scaled-matmul | FileCheck %s
// RUN: nvfp4-opt %s -nvfp4-lower-scaled-matmul="cta-group=2" | FileCheck %s --check-prefix=PAIR

// A dense GEMM of at most 64 rows of A swaps the operands (docs/NVFP4.md,
// "Block-scaled matmul"): the MMA's 128 rows are 128 of B's (a 128-row box
// of B at the weight tile's row, its scale-factor tile), its N the 13
// tokens rounded up to 16 (A's box of 16 rows, A's scale-factor tile 0),
// and each epilogue thread stores its weight row's column of D, token by
// token. 300 weight rows: 3 tiles, 3 CTAs. Forcing CTA pairs builds the
// pair kernel instead.

// CHECK-LABEL: gpu.func @mm_matmul
// CHECK-SAME: {box = array<i64: 128, 16>, swizzle = "128B", tmap = "a", view = ["m", "kh"]}
// CHECK-SAME: {box = array<i64: 128, 128>, swizzle = "128B", tmap = "b", view = ["n", "kh"]}
// CHECK-SAME: grid = array<i32: 3, 1, 1>
// CHECK: sm100.role "epilogue"
// CHECK: memref.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : memref<13x300xf32>
// CHECK: sm100.role "load"
// CHECK-COUNT-4: nvgpu.tma.async.load
// CHECK: sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 16, scale_type = ue4m3>
// PAIR: cluster = array<i32: 2, 1, 1>
// PAIR: m = 256, n = 256, cta_group = 2
func.func @mm(%a: tensor<13x2080xf4E2M1FN>, %sfa: tensor<128x132xf8E4M3FN>, %gsa: tensor<f32>,
              %b: tensor<300x2080xf4E2M1FN>, %sfb: tensor<384x132xf8E4M3FN>, %gsb: tensor<f32>) -> tensor<13x300xf32> {
  %d = nvfp4.scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb
      : (tensor<13x2080xf4E2M1FN>, tensor<128x132xf8E4M3FN>, tensor<f32>,
         tensor<300x2080xf4E2M1FN>, tensor<384x132xf8E4M3FN>, tensor<f32>) -> tensor<13x300xf32>
  return %d : tensor<13x300xf32>
}
