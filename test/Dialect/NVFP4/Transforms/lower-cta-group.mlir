// nvfp4-lower-scaled-matmul's cta-group option: 0, 1 or 2; CTA pairs are
// built for the dense op only, so forcing them on a grouped GEMM is
// diagnosed at the op.
// RUN: not nvfp4-opt %s -nvfp4-lower-scaled-matmul="cta-group=3" 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: nvfp4-lower-scaled-matmul: cta-group must be 0 (by shape), 1 or 2, got 3
// RUN: not nvfp4-opt %s -nvfp4-lower-scaled-matmul="cta-group=2" 2>&1 | FileCheck %s --check-prefix=GROUPED
// GROUPED: error: 'nvfp4.grouped_scaled_matmul' op cannot be lowered with cta-group=2: CTA pairs are built for nvfp4.scaled_matmul only
// RUN: not nvfp4-run --cta-group=4 %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: --cta-group=4: expected 0 (by shape), 1 or 2

func.func @grouped(%a: tensor<256x64xf4E2M1FN>, %sfa: tensor<256x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x64xf4E2M1FN>, %sfb: tensor<4x128x4xf8E4M3FN>, %n: tensor<4xi32>) -> tensor<256x64xf32> {
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n : (tensor<256x64xf4E2M1FN>, tensor<256x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x64xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>) -> tensor<256x64xf32>
  return %d : tensor<256x64xf32>
}
