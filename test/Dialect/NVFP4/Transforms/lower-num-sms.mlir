// A grid needs at least one SM: both lowerings that plan over num-sms say
// so instead of building a 0-CTA grid (the matmul's did before).
// RUN: not nvfp4-opt %s -nvfp4-lower-scaled-matmul="num-sms=0" 2>&1 | FileCheck %s --check-prefix=MATMUL
// MATMUL: error: nvfp4-lower-scaled-matmul: num-sms must be at least 1, got 0
// RUN: not nvfp4-opt %s -nvfp4-lower-attention="num-sms=0" 2>&1 | FileCheck %s --check-prefix=ATTN
// ATTN: error: nvfp4-lower-attention: num-sms must be at least 1, got 0
// A negative shortest piece is refused too (0 is the plan without one).
// RUN: not nvfp4-opt %s -nvfp4-lower-attention="min-piece-keys=-1" 2>&1 | FileCheck %s --check-prefix=PIECE
// PIECE: error: nvfp4-lower-attention: min-piece-keys must be in [0, 2^30], got -1
// RUN: not nvfp4-opt %s -nvfp4-lower-attention="min-piece-keys=1073741825" 2>&1 | FileCheck %s --check-prefix=PIECE2
// PIECE2: error: nvfp4-lower-attention: min-piece-keys must be in [0, 2^30], got 1073741825
// RUN: not nvfp4-opt %s -nvfp4-lower-attention="poly-exp2=9" 2>&1 | FileCheck %s --check-prefix=POLY
// POLY: error: nvfp4-lower-attention: poly-exp2 must be in [0, 8] or -1 (the default rule), got 9
// RUN: not nvfp4-opt %s -nvfp4-lower-attention="poly-exp2=-2" 2>&1 | FileCheck %s --check-prefix=POLY2
// POLY2: error: nvfp4-lower-attention: poly-exp2 must be in [0, 8] or -1 (the default rule), got -2
// RUN: not nvfp4-opt %s -nvfp4-lower-attention="cluster-merge=9" 2>&1 | FileCheck %s --check-prefix=CM
// CM: error: nvfp4-lower-attention: cluster-merge must be in [0, 8], got 9
// RUN: not nvfp4-opt %s -nvfp4-lower-attention="cluster-merge=-1" 2>&1 | FileCheck %s --check-prefix=CM2
// CM2: error: nvfp4-lower-attention: cluster-merge must be in [0, 8], got -1

func.func @mm(%a: tensor<128x64xf4E2M1FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>) -> tensor<128x128xf32> {
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %a, %sfa, %g : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

func.func @attn(%q: tensor<1x1x8x64xbf16>, %kv: tensor<1x128x1x64xbf16>) -> (tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv softmax_scale(0.125)
      : (tensor<1x1x8x64xbf16>, tensor<1x128x1x64xbf16>, tensor<1x128x1x64xbf16>) -> (tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>)
  return %o, %lse : tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>
}
