// Every verifier rule of nvfp4.attention (numbered in NVFP4Ops.td), broken
// once; a rule with several diagnostics gets one case per diagnostic. Each
// case breaks exactly the rule named in the comment above it; the other
// operands are a valid GQA configuration (B = 2, Sq = 16, Skv = 64, Hq = 8,
// Hkv = 2, D = Dv = 128). "Constraint:" marks the ODS operand constraints
// and "Parser:" the assembly format.

// RUN: nvfp4-opt %s -split-input-file -verify-diagnostics

// Rule: nvfp4.attention 1 — Q is 4-D
func.func @rule1_0(%q: tensor<16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects Q to be a 4-D tensor [B, Sq, Hq, D], found 'tensor<16x8x128xbf16>'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 1 — K is 4-D
func.func @rule1_1(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x1x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K to be a 4-D tensor [B, Skv, Hkv, D], found 'tensor<2x64x2x1x128xbf16>'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x1x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 1 — V is 4-D
func.func @rule1_2(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects V to be a 4-D tensor [B, Skv, Hkv, Dv], found 'tensor<128xbf16>'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 2 — Q is bf16 or f16
func.func @rule2_3(%q: tensor<2x16x8x128xf32>, %k: tensor<2x64x2x128xf32>, %v: tensor<2x64x2x128xf32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects Q's element type to be bf16 or f16, found 'f32'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xf32>, tensor<2x64x2x128xf32>, tensor<2x64x2x128xf32>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 3 — K has Q's element type
func.func @rule3_4(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K's element type to equal Q's ('bf16'), found 'f16'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 3 — V has Q's element type
func.func @rule3_5(%q: tensor<2x16x8x128xf16>, %k: tensor<2x64x2x128xf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects V's element type to equal Q's ('f16'), found 'bf16'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xf16>, tensor<2x64x2x128xf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 4 — Hq is static
func.func @rule4_6(%q: tensor<2x16x?x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects Q's head count (dim 2) to be static, found a dynamic size}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x?x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 4 — D is static in Q
func.func @rule4_7(%q: tensor<2x16x8x?xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects Q's head dim (dim 3) to be static, found a dynamic size}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x?xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 4 — Hkv is static in K
func.func @rule4_8(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x?x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K's head count (dim 2) to be static, found a dynamic size}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x?x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 4 — D is static in K
func.func @rule4_9(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x?xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K's head dim (dim 3) to be static, found a dynamic size}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x?xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 4 — Hkv is static in V
func.func @rule4_10(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x?x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects V's head count (dim 2) to be static, found a dynamic size}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x?x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 4 — Dv is static
func.func @rule4_11(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x?xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects V's head dim (dim 3) to be static, found a dynamic size}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x?xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 5 — D is positive
func.func @rule5_12(%q: tensor<2x16x8x0xbf16>, %k: tensor<2x64x2x0xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects Q's head dim (dim 3) to be positive, found 0}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x0xbf16>, tensor<2x64x2x0xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 5 — Dv is positive
func.func @rule5_13(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x0xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects V's head dim (dim 3) to be positive, found 0}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x0xbf16>) -> (tensor<2x16x8x0xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 6 — K's batch equals Q's
func.func @rule6_14(%q: tensor<2x16x8x128xbf16>, %k: tensor<3x64x2x128xbf16>, %v: tensor<3x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K's batch (dim 0) to equal Q's (2), found 3}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<3x64x2x128xbf16>, tensor<3x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 6 — K's head dim equals Q's
func.func @rule6_15(%q: tensor<2x16x8x512xbf16>, %k: tensor<2x64x2x256xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K's head dim (dim 3) to equal Q's (512), found 256}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x512xbf16>, tensor<2x64x2x256xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 7 — V's batch equals K's
func.func @rule7_16(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<1x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects V's batch (dim 0) to equal K's (2), found 1}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<1x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 7 — V's key length equals K's
func.func @rule7_17(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x32x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects V's key length (dim 1) to equal K's (64), found 32}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x32x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 7 — V's head count equals K's
func.func @rule7_18(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x4x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects V's head count (dim 2) to equal K's (2), found 4}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x4x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 8 — Hkv is positive
func.func @rule8_19(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x0x128xbf16>, %v: tensor<2x64x0x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K's head count (dim 2) to be positive, found 0}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x0x128xbf16>, tensor<2x64x0x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 8 — Hq is a multiple of Hkv
func.func @rule8_20(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x3x128xbf16>, %v: tensor<2x64x3x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects Q's head count (dim 2) to be a positive multiple of K's (3), found 8}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x3x128xbf16>, tensor<2x64x3x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 8 — Hq is positive
func.func @rule8_21(%q: tensor<2x16x0x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects Q's head count (dim 2) to be a positive multiple of K's (2), found 0}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x0x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x0x128xbf16>, tensor<2x0x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 9 — sink has Hq elements
func.func @rule9_22(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects sink to be 'tensor<8xf32>' (one f32 logit per query head), found 'tensor<2xf32>'}}
  %o, %lse = nvfp4.attention %q, %k, %v sink(%s) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2xf32>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 9 — sink is f32
func.func @rule9_23(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %s: tensor<8xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects sink to be 'tensor<8xf32>' (one f32 logit per query head), found 'tensor<8xbf16>'}}
  %o, %lse = nvfp4.attention %q, %k, %v sink(%s) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<8xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 9 — sink is static 1-D
func.func @rule9_24(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %s: tensor<?xf32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects sink to be 'tensor<8xf32>' (one f32 logit per query head), found 'tensor<?xf32>'}}
  %o, %lse = nvfp4.attention %q, %k, %v sink(%s) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<?xf32>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 10 — kv_lens has B elements
func.func @rule10_25(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %l: tensor<4xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects kv_lens to be 'tensor<2xi32>' (one i32 length per sequence), found 'tensor<4xi32>'}}
  %o, %lse = nvfp4.attention %q, %k, %v kv_lens(%l) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<4xi32>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 10 — kv_lens is i32
func.func @rule10_26(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %l: tensor<2xi64>) {
  // expected-error @+1 {{'nvfp4.attention' op expects kv_lens to be 'tensor<2xi32>' (one i32 length per sequence), found 'tensor<2xi64>'}}
  %o, %lse = nvfp4.attention %q, %k, %v kv_lens(%l) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2xi64>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 10 — kv_lens is 1-D (dynamic batch)
func.func @rule10_27(%q: tensor<?x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %l: tensor<2x1xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects kv_lens to be 'tensor<?xi32>' (one i32 length per sequence), found 'tensor<2x1xi32>'}}
  %o, %lse = nvfp4.attention %q, %k, %v kv_lens(%l) softmax_scale(0.125)
      : (tensor<?x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x1xi32>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 11 — O is 4-D
func.func @rule11_28(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O to be a 4-D tensor [B, Sq, Hq, Dv], found 'tensor<2x16x1024xbf16>'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x1024xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 11 — O's batch is B
func.func @rule11_29(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O's batch (dim 0) to equal Q's (2), found 1}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<1x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 11 — O's query length is Sq
func.func @rule11_30(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O's query length (dim 1) to equal Q's (16), found 1}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x1x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 11 — O's head count is Hq
func.func @rule11_31(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O's head count (dim 2) to equal Q's (8), found 2}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x2x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 11 — O's head dim is Dv
func.func @rule11_32(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x64xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O's head dim (dim 3) to equal V's (64), found 128}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x64xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 11 — O's head count is static
func.func @rule11_33(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O's head count (dim 2) to equal Q's (8), found ?}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x?x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 12 — O is bf16 or f16
func.func @rule12_34(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O's element type to be bf16 or f16, found 'f32'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xf32>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 13 — LSE is 3-D
func.func @rule13_35(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects LSE to be a 3-D tensor [B, Hq, Sq], found 'tensor<2x16x8x1xf32>'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x16x8x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 13 — LSE's batch is B
func.func @rule13_36(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects LSE's batch (dim 0) to equal Q's (2), found 4}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<4x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 13 — LSE's head count is Hq (LSE is [B, Hq, Sq], not [B, Sq, Hq])
func.func @rule13_37(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects LSE's head count (dim 1) to equal Q's (8), found 16}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x16x8xf32>)
  return
}

// -----

// Rule: nvfp4.attention 13 — LSE's query length is Sq
func.func @rule13_38(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects LSE's query length (dim 2) to equal Q's (16), found 15}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x15xf32>)
  return
}

// -----

// Rule: nvfp4.attention 14 — LSE is f32
func.func @rule14_39(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects LSE's element type to be f32, found 'bf16'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xbf16>)
  return
}

// -----

// Rule: nvfp4.attention 15 — softmax_scale is positive (zero)
func.func @rule15_40(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects softmax_scale to be finite and positive, found 0.000000e+00 : f32}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.0)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 15 — softmax_scale is positive (negative)
func.func @rule15_41(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects softmax_scale to be finite and positive, found -1.250000e-01 : f32}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(-0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 15 — softmax_scale is finite (inf)
func.func @rule15_42(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects softmax_scale to be finite and positive, found 0x7F800000 : f32}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0x7F800000)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 15 — softmax_scale is finite (NaN)
func.func @rule15_43(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects softmax_scale to be finite and positive, found 0x7FC00000 : f32}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0x7FC00000)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 16 — window is at least 1
func.func @rule16_44(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects window to be at least 1, found 0}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125) causal window(0)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Constraint: Q is a ranked tensor
func.func @constraint_memref(%q: memref<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op operand #0 must be ranked tensor of any type values, but got 'memref<2x16x8x128xbf16>'}}
  %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.125)
      : (memref<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>)
      -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Constraint: LSE is a ranked tensor
func.func @constraint_unranked(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op result #1 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>)
      -> (tensor<2x16x8x128xbf16>, tensor<*xf32>)
  return
}

// -----

// Rule: nvfp4.attention 17 — block_table is a 2-D i32 tensor
func.func @rule17_0(%q: tensor<2x16x8x128xbf16>, %k: tensor<40x64x2x128xbf16>, %t: tensor<2x8xi64>) {
  // expected-error @+1 {{'nvfp4.attention' op expects block_table to be a 2-D i32 tensor [B, MaxPages], found 'tensor<2x8xi64>'}}
  %o, %lse = nvfp4.attention %q, %k, %k block_table(%t) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<40x64x2x128xbf16>, tensor<40x64x2x128xbf16>, tensor<2x8xi64>)
      -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 17 — block_table's batch equals Q's
func.func @rule17_1(%q: tensor<2x16x8x128xbf16>, %k: tensor<40x64x2x128xbf16>, %t: tensor<3x8xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects block_table's batch (dim 0) to equal Q's (2), found 3}}
  %o, %lse = nvfp4.attention %q, %k, %k block_table(%t) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<40x64x2x128xbf16>, tensor<40x64x2x128xbf16>, tensor<3x8xi32>)
      -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 17 — the page size is 16, 64, 128 or 256
func.func @rule17_2(%q: tensor<2x16x8x128xbf16>, %k: tensor<40x32x2x128xbf16>, %t: tensor<2x8xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K's page size (dim 1) to be 16, 64, 128 or 256 with a block table, found 32}}
  %o, %lse = nvfp4.attention %q, %k, %k block_table(%t) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<40x32x2x128xbf16>, tensor<40x32x2x128xbf16>, tensor<2x8xi32>)
      -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 17 — the page size is static
func.func @rule17_3(%q: tensor<2x16x8x128xbf16>, %k: tensor<40x?x2x128xbf16>, %t: tensor<2x8xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K's page size (dim 1) to be 16, 64, 128 or 256 with a block table, found ?}}
  %o, %lse = nvfp4.attention %q, %k, %k block_table(%t) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<40x?x2x128xbf16>, tensor<40x?x2x128xbf16>, tensor<2x8xi32>)
      -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 18 — num_splits is at least 1
func.func @rule18(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects num_splits to be at least 1, found 0}}
  %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.125) num_splits(0)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>)
      -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 19 — indices is 3-D i32
func.func @rule19_rank(%q: tensor<2x1x8x128xbf16>, %k: tensor<8x64x1x128xbf16>, %i: tensor<2x64xi32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects indices to be a 3-D i32 tensor [B, Sq, TopK], found 'tensor<2x64xi32>'}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) softmax_scale(0.125)
      : (tensor<2x1x8x128xbf16>, tensor<8x64x1x128xbf16>, tensor<8x64x1x128xbf16>, tensor<2x64xi32>)
      -> (tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 19 — indices is i32
func.func @rule19_type(%q: tensor<2x1x8x128xbf16>, %k: tensor<8x64x1x128xbf16>, %i: tensor<2x1x64xi64>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects indices to be a 3-D i32 tensor [B, Sq, TopK], found 'tensor<2x1x64xi64>'}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) softmax_scale(0.125)
      : (tensor<2x1x8x128xbf16>, tensor<8x64x1x128xbf16>, tensor<8x64x1x128xbf16>, tensor<2x1x64xi64>)
      -> (tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 19 — indices' batch equals Q's
func.func @rule19_batch(%q: tensor<2x1x8x128xbf16>, %k: tensor<8x64x1x128xbf16>, %i: tensor<3x1x64xi32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects indices' batch (dim 0) to equal Q's (2), found 3}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) softmax_scale(0.125)
      : (tensor<2x1x8x128xbf16>, tensor<8x64x1x128xbf16>, tensor<8x64x1x128xbf16>, tensor<3x1x64xi32>)
      -> (tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 19 — indices' query length equals Q's
func.func @rule19_sq(%q: tensor<2x1x8x128xbf16>, %k: tensor<8x64x1x128xbf16>, %i: tensor<2x2x64xi32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects indices' query length (dim 1) to equal Q's (1), found 2}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) softmax_scale(0.125)
      : (tensor<2x1x8x128xbf16>, tensor<8x64x1x128xbf16>, tensor<8x64x1x128xbf16>, tensor<2x2x64xi32>)
      -> (tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 19 — no block_table with indices
func.func @rule19_table(%q: tensor<2x1x8x128xbf16>, %k: tensor<8x64x1x128xbf16>, %i: tensor<2x1x64xi32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects no block_table with indices (an index is already a slot: page * PageSize + offset)}}
  %o, %lse = nvfp4.attention %q, %k, %k block_table(%t) indices(%i) softmax_scale(0.125)
      : (tensor<2x1x8x128xbf16>, tensor<8x64x1x128xbf16>, tensor<8x64x1x128xbf16>, tensor<2x4xi32>, tensor<2x1x64xi32>)
      -> (tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 19 — no causal with indices
func.func @rule19_causal(%q: tensor<2x1x8x128xbf16>, %k: tensor<8x64x1x128xbf16>, %i: tensor<2x1x64xi32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects no causal or window with indices (the index rows choose each query's keys)}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) softmax_scale(0.125) causal
      : (tensor<2x1x8x128xbf16>, tensor<8x64x1x128xbf16>, tensor<8x64x1x128xbf16>, tensor<2x1x64xi32>)
      -> (tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 19 — no window with indices
func.func @rule19_window(%q: tensor<2x1x8x128xbf16>, %k: tensor<8x64x1x128xbf16>, %i: tensor<2x1x64xi32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects no causal or window with indices (the index rows choose each query's keys)}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) softmax_scale(0.125) window(128)
      : (tensor<2x1x8x128xbf16>, tensor<8x64x1x128xbf16>, tensor<8x64x1x128xbf16>, tensor<2x1x64xi32>)
      -> (tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 20 — K and V are one value
func.func @rule20_same(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %v: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K and V to be the same value with kv_cache (V is the first Dv values of a token)}}
  %o, %lse = nvfp4.attention %q, %k, %v indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 20 — K's pages have the layout's bytes
func.func @rule20_bytes(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37376xi8>, %i: tensor<1x1x64xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K to be a static tensor<NumPages x 37440 x i8> (deepseek_v4_fp8 pages of 64 tokens), found 'tensor<4x37376xi8>'}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37376xi8>, tensor<4x37376xi8>, tensor<1x1x64xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 20 — K is i8
func.func @rule20_type(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi16>, %i: tensor<1x1x64xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects K to be a static tensor<NumPages x 37440 x i8> (deepseek_v4_fp8 pages of 64 tokens), found 'tensor<4x37440xi16>'}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi16>, tensor<4x37440xi16>, tensor<1x1x64xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 20 — indices are required
func.func @rule20_indices(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>) {
  // expected-error @+1 {{'nvfp4.attention' op expects indices with kv_cache (the keys are slots of the cache)}}
  %o, %lse = nvfp4.attention %q, %k, %k kv_cache(<"deepseek_v4_fp8", page_size = 64>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 20 — Q is bf16
func.func @rule20_bf16(%q: tensor<1x1x64x512xf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects Q's element type to be bf16 with kv_cache (keys dequantize to bf16), found 'f16'}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) softmax_scale(0.125)
      : (tensor<1x1x64x512xf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>)
      -> (tensor<1x1x64x512xf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 20 — Q has the layout's D
func.func @rule20_d(%q: tensor<1x1x64x576xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects Q's head dim (dim 3) to be 512 (the deepseek_v4_fp8 layout's D), found 576}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) softmax_scale(0.125)
      : (tensor<1x1x64x576xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 20 — O has the layout's Dv
func.func @rule20_dv(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O's head dim (dim 3) to be 512 (the deepseek_v4_fp8 layout's Dv), found 448}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>)
      -> (tensor<1x1x64x448xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Attribute: #nvfp4.kv_cache — a known layout
func.func @kv_cache_unknown(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>) {
  // expected-error @+2 {{unknown KV-cache layout "fp8_ds_mla" (known: deepseek_v4_fp8, deepseek_v32_fp8)}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i)
      kv_cache(<"fp8_ds_mla", page_size = 64>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Attribute: #nvfp4.kv_cache — a positive page size
func.func @kv_cache_page(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>) {
  // expected-error @+2 {{expects the page size to be at least 1, found 0}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i)
      kv_cache(<"deepseek_v4_fp8", page_size = 0>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 21 — extra needs both caches
func.func @rule21_cache(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>, %k2: tensor<2x149760xi8>, %i2: tensor<1x1x32xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects indices, kv_cache and extra_kv_cache with extra (a second quantized cache read through indices)}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) extra(%k2, %i2) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>, tensor<2x149760xi8>, tensor<1x1x32xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 21 — the same layout
func.func @rule21_layout(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>, %k2: tensor<2x41984xi8>, %i2: tensor<1x1x32xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects extra_kv_cache's layout to be kv_cache's (deepseek_v4_fp8), found deepseek_v32_fp8}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) extra(%k2, %i2) extra_kv_cache(<"deepseek_v32_fp8", page_size = 64>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>, tensor<2x41984xi8>, tensor<1x1x32xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 21 — extra's pages have the layout's bytes
func.func @rule21_bytes(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>, %k2: tensor<2x37440xi8>, %i2: tensor<1x1x32xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects extra's cache to be a static tensor<NumPages x 149760 x i8> (deepseek_v4_fp8 pages of 256 tokens), found 'tensor<2x37440xi8>'}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) extra(%k2, %i2) extra_kv_cache(<"deepseek_v4_fp8", page_size = 256>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>, tensor<2x37440xi8>, tensor<1x1x32xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 21 — extra's indices are [B, Sq, TopK2] i32
func.func @rule21_indices(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>, %k2: tensor<2x149760xi8>, %i2: tensor<1x2x32xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects extra's indices to be a 3-D i32 tensor [B, Sq, TopK2] with Q's B and Sq, found 'tensor<1x2x32xi32>'}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) extra(%k2, %i2) extra_kv_cache(<"deepseek_v4_fp8", page_size = 256>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>, tensor<2x149760xi8>, tensor<1x2x32xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 21 — extra_lens is [B] i32
func.func @rule21_lens(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>, %k2: tensor<2x149760xi8>, %i2: tensor<1x1x32xi32>, %l2: tensor<2xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects extra_lens to be 'tensor<1xi32>' (one i32 top-k length per sequence), found 'tensor<2xi32>'}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) extra(%k2, %i2) extra_lens(%l2) extra_kv_cache(<"deepseek_v4_fp8", page_size = 256>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>, tensor<2x149760xi8>, tensor<1x1x32xi32>, tensor<2xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 21 — extra_kv_cache needs extra
func.func @rule21_lonely(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects extra_kv_cache only with extra}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) extra_kv_cache(<"deepseek_v4_fp8", page_size = 256>) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Rule: nvfp4.attention 21 — extra_lens needs extra
func.func @rule21_lens_alone(%q: tensor<1x1x64x512xbf16>, %k: tensor<4x37440xi8>, %i: tensor<1x1x64xi32>, %l2: tensor<1xi32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects extra_lens only with extra}}
  %o, %lse = nvfp4.attention %q, %k, %k indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>) extra_lens(%l2) softmax_scale(0.125)
      : (tensor<1x1x64x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>, tensor<1x1x64xi32>, tensor<1xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// -----

// Parser: softmax_scale is required
func.func @parser_no_scale(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{expected 'softmax_scale'}}
  %o, %lse = nvfp4.attention %q, %k, %k causal
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>)
      -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 22 — o_scale is tensor<f32>
func.func @rule22_scale(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %gs: tensor<1xf32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects o_scale to be tensor<f32> (one f32 encode scale), found 'tensor<1xf32>'}}
  %o, %lse, %sf = nvfp4.attention %q, %k, %v o_scale(%gs) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<1xf32>) -> (tensor<2x16x8x128xf4E2M1FN>, tensor<2x8x16xf32>, tensor<128x64xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.attention 22 — O is f4E2M1FN with o_scale
func.func @rule22_otype(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O's element type to be f4E2M1FN with o_scale (an NVFP4 output), found 'bf16'}}
  %o, %lse, %sf = nvfp4.attention %q, %k, %v o_scale(%gs) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<f32>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>, tensor<128x64xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.attention 22 — o_scales is the third result
func.func @rule22_nosf(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects a third result (o_scales, O's scale factors) with o_scale}}
  %o, %lse = nvfp4.attention %q, %k, %v o_scale(%gs) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<f32>) -> (tensor<2x16x8x128xf4E2M1FN>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention 22 — o_scales is 2-D f8E4M3FN
func.func @rule22_sftype(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects o_scales to be a 2-D f8E4M3FN tensor [round_up(B * Sq, 128), round_up(Hq * Dv / 16, 4)], found 'tensor<128x64xi8>'}}
  %o, %lse, %sf = nvfp4.attention %q, %k, %v o_scale(%gs) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<f32>) -> (tensor<2x16x8x128xf4E2M1FN>, tensor<2x8x16xf32>, tensor<128x64xi8>)
  return
}

// -----

// Rule: nvfp4.attention 22 — o_scales' rows are B * Sq rounded up to 128
func.func @rule22_rows(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects o_scales' dim 0 to be 128 (B * Sq rounded up to 128), found 32}}
  %o, %lse, %sf = nvfp4.attention %q, %k, %v o_scale(%gs) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<f32>) -> (tensor<2x16x8x128xf4E2M1FN>, tensor<2x8x16xf32>, tensor<32x64xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.attention 22 — o_scales' columns are Hq * Dv / 16 rounded up to 4
func.func @rule22_cols(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.attention' op expects o_scales' dim 1 to be 64 (Hq * Dv / 16 rounded up to 4), found 8}}
  %o, %lse, %sf = nvfp4.attention %q, %k, %v o_scale(%gs) softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>, tensor<f32>) -> (tensor<2x16x8x128xf4E2M1FN>, tensor<2x8x16xf32>, tensor<128x8xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.attention 22 — no o_scales without o_scale
func.func @rule22_extra(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects no third result (o_scales) without o_scale(%gs), found 'tensor<128x64xf8E4M3FN>'}}
  %o, %lse, %sf = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xbf16>, tensor<2x8x16xf32>, tensor<128x64xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.attention 12 — an f4E2M1FN O without o_scale
func.func @rule12_fp4(%q: tensor<2x16x8x128xbf16>, %k: tensor<2x64x2x128xbf16>, %v: tensor<2x64x2x128xbf16>) {
  // expected-error @+1 {{'nvfp4.attention' op expects O's element type to be bf16 or f16, found 'f4E2M1FN' (an NVFP4 O needs o_scale(%gs))}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x16x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>) -> (tensor<2x16x8x128xf4E2M1FN>, tensor<2x8x16xf32>)
  return
}

// -----

// Rule: nvfp4.attention_merge 1 — O1 is 4-D
func.func @merge_rule1_0(%o1: tensor<8x64xbf16>, %l1: tensor<2x8x4xf32>, %o2: tensor<2x4x8x64xbf16>, %l2: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'nvfp4.attention_merge' op expects O1 to be a 4-D tensor [B, Sq, Hq, Dv], found 'tensor<8x64xbf16>'}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<8x64xbf16>, tensor<2x8x4xf32>, tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>) -> (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>)
  return
}

// -----

// Rule: nvfp4.attention_merge 1 — LSE2 is 3-D
func.func @merge_rule1_1(%o1: tensor<2x4x8x64xbf16>, %l1: tensor<2x8x4xf32>, %o2: tensor<2x4x8x64xbf16>, %l2: tensor<2x8xf32>) {
  // expected-error @+1 {{'nvfp4.attention_merge' op expects LSE2 to be a 3-D tensor [B, Hq, Sq], found 'tensor<2x8xf32>'}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>, tensor<2x4x8x64xbf16>, tensor<2x8xf32>) -> (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>)
  return
}

// -----

// Rule: nvfp4.attention_merge 2 — O2's shape is O1's
func.func @merge_rule2_0(%o1: tensor<2x4x8x64xbf16>, %l1: tensor<2x8x4xf32>, %o2: tensor<2x4x8x128xbf16>, %l2: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'nvfp4.attention_merge' op expects O2's dim 3 to equal O1's (64), found 128}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>, tensor<2x4x8x128xbf16>, tensor<2x8x4xf32>) -> (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>)
  return
}

// -----

// Rule: nvfp4.attention_merge 2 — LSE is [B, Hq, Sq] of O1
func.func @merge_rule2_1(%o1: tensor<2x4x8x64xbf16>, %l1: tensor<2x8x4xf32>, %o2: tensor<2x4x8x64xbf16>, %l2: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'nvfp4.attention_merge' op expects LSE's dim 1 to equal O1's dim 2 (8), found 4}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>, tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>) -> (tensor<2x4x8x64xbf16>, tensor<2x4x4xf32>)
  return
}

// -----

// Rule: nvfp4.attention_merge 3 — O1 is bf16, f16 or f32
func.func @merge_rule3_0(%o1: tensor<2x4x8x64xi32>, %l1: tensor<2x8x4xf32>, %o2: tensor<2x4x8x64xbf16>, %l2: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'nvfp4.attention_merge' op expects O1's element type to be bf16, f16 or f32, found 'i32'}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<2x4x8x64xi32>, tensor<2x8x4xf32>, tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>) -> (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>)
  return
}

// -----

// Rule: nvfp4.attention_merge 3 — O2 has O1's type
func.func @merge_rule3_1(%o1: tensor<2x4x8x64xbf16>, %l1: tensor<2x8x4xf32>, %o2: tensor<2x4x8x64xf16>, %l2: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'nvfp4.attention_merge' op expects O2's element type to equal O1's ('bf16'), found 'f16'}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>, tensor<2x4x8x64xf16>, tensor<2x8x4xf32>) -> (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>)
  return
}

// -----

// Rule: nvfp4.attention_merge 3 — O is bf16, f16 or f32
func.func @merge_rule3_2(%o1: tensor<2x4x8x64xbf16>, %l1: tensor<2x8x4xf32>, %o2: tensor<2x4x8x64xbf16>, %l2: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'nvfp4.attention_merge' op expects O's element type to be bf16, f16 or f32, found 'f64'}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>, tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>) -> (tensor<2x4x8x64xf64>, tensor<2x8x4xf32>)
  return
}

// -----

// Rule: nvfp4.attention_merge 4 — LSEs are f32
func.func @merge_rule4(%o1: tensor<2x4x8x64xbf16>, %l1: tensor<2x8x4xf16>, %o2: tensor<2x4x8x64xbf16>, %l2: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'nvfp4.attention_merge' op expects LSE1's element type to be f32, found 'f16'}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<2x4x8x64xbf16>, tensor<2x8x4xf16>, tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>) -> (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>)
  return
}

// -----

// Rule: nvfp4.attention_merge 5 — sink is [Hq] f32
func.func @merge_rule5(%o1: tensor<2x4x8x64xbf16>, %l1: tensor<2x8x4xf32>, %o2: tensor<2x4x8x64xbf16>, %l2: tensor<2x8x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'nvfp4.attention_merge' op expects sink to be tensor<8xf32> (one f32 logit per query head), found 'tensor<4xf32>'}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2 sink(%s)
      : (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>, tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>, tensor<4xf32>) -> (tensor<2x4x8x64xbf16>, tensor<2x8x4xf32>)
  return
}

// -----

// Rule: nvfp4.quantize 1 — the input is 2-D or 3-D
func.func @quantize_rule1_rank(%x: tensor<4x2x64x32xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects the input to be a 2-D [M, K] or 3-D [B, M, K] tensor, found 'tensor<4x2x64x32xbf16>'}}
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<4x2x64x32xbf16>, tensor<f32>) -> (tensor<4x2x64x32xf4E2M1FN>, tensor<4x2x128x4xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.quantize 1 — the input is bf16, f16 or f32
func.func @quantize_rule1_type(%x: tensor<64x32xf8E4M3FN>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects the input's element type to be bf16, f16 or f32, found 'f8E4M3FN'}}
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<64x32xf8E4M3FN>, tensor<f32>) -> (tensor<64x32xf4E2M1FN>, tensor<128x4xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.quantize 2 — K is a multiple of 16
func.func @quantize_rule2(%x: tensor<64x40xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects the input's K (dim 1) to be a multiple of 16 (one e4m3 scale per 16 elements), found 40}}
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<64x40xbf16>, tensor<f32>) -> (tensor<64x40xf4E2M1FN>, tensor<128x4xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.quantize 3 — data has the input's shape, f4E2M1FN
func.func @quantize_rule3(%x: tensor<64x32xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects the data result to be 'tensor<64x32xf4E2M1FN>' (the input's shape, f4E2M1FN), found 'tensor<64x16xi8>'}}
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<64x32xbf16>, tensor<f32>) -> (tensor<64x16xi8>, tensor<128x4xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.quantize 4 — scale factors are f8E4M3FN
func.func @quantize_rule4_type(%x: tensor<64x32xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects the scale factors' element type to be f8E4M3FN, found 'i8'}}
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<64x32xbf16>, tensor<f32>) -> (tensor<64x32xf4E2M1FN>, tensor<128x4xi8>)
  return
}

// -----

// Rule: nvfp4.quantize 4 — swizzled scale factors pad M to 128
func.func @quantize_rule4_swizzled(%x: tensor<64x32xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects the scale factors' dim 0 to be 128 (M rounded up to 128, sf_layout swizzled), found 64}}
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<64x32xbf16>, tensor<f32>) -> (tensor<64x32xf4E2M1FN>, tensor<64x2xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.quantize 4 — row-major scale factors are [M, K / 16]
func.func @quantize_rule4_rowmajor(%x: tensor<64x32xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects the scale factors' dim 1 to be 2 (K / 16, sf_layout row_major), found 4}}
  %q, %sf = nvfp4.quantize %x scale(%gs) {sf_layout = #nvfp4.sf_layout<row_major>} : (tensor<64x32xbf16>, tensor<f32>) -> (tensor<64x32xf4E2M1FN>, tensor<64x4xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.quantize 4 — the scale factors have the data's rank
func.func @quantize_rule4_rank(%x: tensor<2x64x32xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects the scale factors to have rank 3 (the data's), found 'tensor<256x4xf8E4M3FN>'}}
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<2x64x32xbf16>, tensor<f32>) -> (tensor<2x64x32xf4E2M1FN>, tensor<256x4xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.quantize 5 — a scale, given or computed
func.func @quantize_rule5_neither(%x: tensor<64x32xbf16>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects a scale operand (scale(%gs)) or a third result for the computed tensor scale, found neither}}
  %q, %sf = nvfp4.quantize %x : (tensor<64x32xbf16>) -> (tensor<64x32xf4E2M1FN>, tensor<128x4xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.quantize 5 — not both
func.func @quantize_rule5_both(%x: tensor<64x32xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects either a scale operand or a computed_scale result, found both}}
  %q, %sf, %g = nvfp4.quantize %x scale(%gs) : (tensor<64x32xbf16>, tensor<f32>) -> (tensor<64x32xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>)
  return
}

// -----

// Rule: nvfp4.quantize 5 — the scale is one f32
func.func @quantize_rule5_type(%x: tensor<64x32xbf16>, %gs: tensor<1xf32>) {
  // expected-error @+1 {{'nvfp4.quantize' op expects the scale operand to be tensor<f32> (one f32 encode scale), found 'tensor<1xf32>'}}
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<64x32xbf16>, tensor<1xf32>) -> (tensor<64x32xf4E2M1FN>, tensor<128x4xf8E4M3FN>)
  return
}

// -----

// Rule: nvfp4.dequantize 1 — data is f4E2M1FN
func.func @dequantize_rule1_type(%q: tensor<64x32xi8>, %sf: tensor<128x4xf8E4M3FN>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.dequantize' op expects the data's element type to be f4E2M1FN, found 'i8'}}
  %x = nvfp4.dequantize %q, %sf scale(%gs) : (tensor<64x32xi8>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<64x32xbf16>
  return
}

// -----

// Rule: nvfp4.dequantize 1 — K is a multiple of 16
func.func @dequantize_rule1_k(%q: tensor<64x24xf4E2M1FN>, %sf: tensor<128x4xf8E4M3FN>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.dequantize' op expects the data's K (dim 1) to be a multiple of 16 (one e4m3 scale per 16 elements), found 24}}
  %x = nvfp4.dequantize %q, %sf scale(%gs) : (tensor<64x24xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<64x24xbf16>
  return
}

// -----

// Rule: nvfp4.dequantize 2 — scale factors match the layout
func.func @dequantize_rule2(%q: tensor<64x32xf4E2M1FN>, %sf: tensor<128x2xf8E4M3FN>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.dequantize' op expects the scale factors' dim 1 to be 4 (K / 16 rounded up to 4, sf_layout swizzled), found 2}}
  %x = nvfp4.dequantize %q, %sf scale(%gs) : (tensor<64x32xf4E2M1FN>, tensor<128x2xf8E4M3FN>, tensor<f32>) -> tensor<64x32xbf16>
  return
}

// -----

// Rule: nvfp4.dequantize 3 — the scale is one f32
func.func @dequantize_rule3(%q: tensor<64x32xf4E2M1FN>, %sf: tensor<128x4xf8E4M3FN>, %gs: tensor<f16>) {
  // expected-error @+1 {{'nvfp4.dequantize' op expects the scale operand to be tensor<f32> (one f32 encode scale), found 'tensor<f16>'}}
  %x = nvfp4.dequantize %q, %sf scale(%gs) : (tensor<64x32xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f16>) -> tensor<64x32xbf16>
  return
}

// -----

// Rule: nvfp4.dequantize 4 — the result has the data's shape, bf16/f16/f32
func.func @dequantize_rule4(%q: tensor<64x32xf4E2M1FN>, %sf: tensor<128x4xf8E4M3FN>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.dequantize' op expects the result to have the data's shape and element type bf16, f16 or f32, found 'tensor<64x32xf8E4M3FN>'}}
  %x = nvfp4.dequantize %q, %sf scale(%gs) : (tensor<64x32xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<64x32xf8E4M3FN>
  return
}

// -----

// Rule: nvfp4.scaled_matmul 1 — A and B are 2-D f4E2M1FN
func.func @matmul_rule1_type(%a: tensor<128x64xf8E4M3FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x64xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>) {
  // expected-error @+1 {{'nvfp4.scaled_matmul' op expects A to be a 2-D tensor of f4E2M1FN, found 'tensor<128x64xf8E4M3FN>'}}
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g : (tensor<128x64xf8E4M3FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

// Rule: nvfp4.scaled_matmul 1 — one K
func.func @matmul_rule1_k(%a: tensor<128x64xf4E2M1FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x128xf4E2M1FN>, %sfb: tensor<128x8xf8E4M3FN>) {
  // expected-error @+1 {{'nvfp4.scaled_matmul' op expects B's K (dim 1) to equal A's (64), found 128}}
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<64x128xf4E2M1FN>, tensor<128x8xf8E4M3FN>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

// Rule: nvfp4.scaled_matmul 1 — K is a multiple of 16
func.func @matmul_rule1_k16(%a: tensor<128x40xf4E2M1FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x40xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>) {
  // expected-error @+1 {{'nvfp4.scaled_matmul' op expects A's K (dim 1) to be a multiple of 16 (one e4m3 scale per 16 elements), found 40}}
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g : (tensor<128x40xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<64x40xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

// Rule: nvfp4.scaled_matmul 2 — scale factors in the swizzled shape
func.func @matmul_rule2(%a: tensor<100x64xf4E2M1FN>, %sfa: tensor<100x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x64xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>) {
  // expected-error @+1 {{'nvfp4.scaled_matmul' op expects the scale factors' dim 0 to be 128 (M rounded up to 128, sf_layout swizzled), found 100}}
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g : (tensor<100x64xf4E2M1FN>, tensor<100x4xf8E4M3FN>, tensor<f32>, tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<100x64xf32>
  return
}

// -----

// Rule: nvfp4.scaled_matmul 3 — the tensor scales are tensor<f32>
func.func @matmul_rule3(%a: tensor<128x64xf4E2M1FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>, %g2: tensor<2xf32>, %b: tensor<64x64xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>) {
  // expected-error @+1 {{'nvfp4.scaled_matmul' op expects b_scale to be tensor<f32> (one f32 encode scale), found 'tensor<2xf32>'}}
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g2 : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<2xf32>) -> tensor<128x64xf32>
  return
}

// -----

// Rule: nvfp4.scaled_matmul 4 — D is [M, N] of bf16 or f32
func.func @matmul_rule4(%a: tensor<128x64xf4E2M1FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x64xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>) {
  // expected-error @+1 {{'nvfp4.scaled_matmul' op expects the result to be [M, N] = [128, 64] of bf16 or f32, found 'tensor<128x64xf16>'}}
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<128x64xf16>
  return
}

// -----

// Rule: nvfp4.scaled_matmul 5 — outs(...) has the result's type
func.func @matmul_rule5(%a: tensor<128x64xf4E2M1FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x64xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>, %d0: tensor<128x64xbf16>) {
  // expected-error @+1 {{'nvfp4.scaled_matmul' op expects outs(...) to have the result's type 'tensor<128x64xf32>', found 'tensor<128x64xbf16>'}}
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g outs(%d0) : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<128x64xbf16>) -> tensor<128x64xf32>
  return
}

// -----

// Rule: nvfp4.grouped_scaled_matmul 1 — A's rank follows the layout
func.func @grouped_rule1_a(%a: tensor<4x128x64xf4E2M1FN>, %sfa: tensor<4x128x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x64xf4E2M1FN>, %sfb: tensor<4x128x4xf8E4M3FN>, %n: tensor<4xi32>) {
  // expected-error @+1 {{'nvfp4.grouped_scaled_matmul' op expects A to be a 2-D tensor of f4E2M1FN ([M, K] for layout contiguous), found 'tensor<4x128x64xf4E2M1FN>'}}
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n : (tensor<4x128x64xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x64xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>) -> tensor<4x128x64xf32>
  return
}

// -----

// Rule: nvfp4.grouped_scaled_matmul 1 — B is [E, N, K]
func.func @grouped_rule1_b(%a: tensor<256x64xf4E2M1FN>, %sfa: tensor<256x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<64x64xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>, %n: tensor<4xi32>) {
  // expected-error @+1 {{'nvfp4.grouped_scaled_matmul' op expects B to be a 3-D [E, N, K] tensor of f4E2M1FN, found 'tensor<64x64xf4E2M1FN>'}}
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n : (tensor<256x64xf4E2M1FN>, tensor<256x4xf8E4M3FN>, tensor<4xf32>, tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>) -> tensor<256x64xf32>
  return
}

// -----

// Rule: nvfp4.grouped_scaled_matmul 1 — masked A has E groups
func.func @grouped_rule1_e(%a: tensor<3x128x64xf4E2M1FN>, %sfa: tensor<3x128x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x64xf4E2M1FN>, %sfb: tensor<4x128x4xf8E4M3FN>, %n: tensor<4xi32>) {
  // expected-error @+1 {{'nvfp4.grouped_scaled_matmul' op expects A's dim 0 to equal the groups of B (4), found 3}}
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n {layout = #nvfp4.group_layout<masked>} : (tensor<3x128x64xf4E2M1FN>, tensor<3x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x64xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>) -> tensor<3x128x64xf32>
  return
}

// -----

// Rule: nvfp4.grouped_scaled_matmul 1 — K is a multiple of 16
func.func @grouped_rule1_k(%a: tensor<256x40xf4E2M1FN>, %sfa: tensor<256x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x40xf4E2M1FN>, %sfb: tensor<4x128x4xf8E4M3FN>, %n: tensor<4xi32>) {
  // expected-error @+1 {{'nvfp4.grouped_scaled_matmul' op expects K to be a multiple of 16 (one e4m3 scale per 16 elements), found 40}}
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n : (tensor<256x40xf4E2M1FN>, tensor<256x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x40xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>) -> tensor<256x64xf32>
  return
}

// -----

// Rule: nvfp4.grouped_scaled_matmul 2 — B's scale factors per expert
func.func @grouped_rule2(%a: tensor<256x64xf4E2M1FN>, %sfa: tensor<256x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x64xf4E2M1FN>, %sfb: tensor<4x64x4xf8E4M3FN>, %n: tensor<4xi32>) {
  // expected-error @+1 {{'nvfp4.grouped_scaled_matmul' op expects the scale factors' dim 1 to be 128 (M rounded up to 128, sf_layout swizzled), found 64}}
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n : (tensor<256x64xf4E2M1FN>, tensor<256x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x64xf4E2M1FN>, tensor<4x64x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>) -> tensor<256x64xf32>
  return
}

// -----

// Rule: nvfp4.grouped_scaled_matmul 3 — sizes is one i32 per group
func.func @grouped_rule3(%a: tensor<256x64xf4E2M1FN>, %sfa: tensor<256x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x64xf4E2M1FN>, %sfb: tensor<4x128x4xf8E4M3FN>, %n: tensor<5xi32>) {
  // expected-error @+1 {{'nvfp4.grouped_scaled_matmul' op expects sizes to be tensor<4xi32> (one per group), found 'tensor<5xi32>'}}
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n : (tensor<256x64xf4E2M1FN>, tensor<256x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x64xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<5xi32>) -> tensor<256x64xf32>
  return
}

// -----

// Rule: nvfp4.grouped_scaled_matmul 4 — D has A's rows and B's N
func.func @grouped_rule4(%a: tensor<256x64xf4E2M1FN>, %sfa: tensor<256x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x64xf4E2M1FN>, %sfb: tensor<4x128x4xf8E4M3FN>, %n: tensor<4xi32>) {
  // expected-error @+1 {{'nvfp4.grouped_scaled_matmul' op expects the result to have A's rows and B's N ([M, N]) of bf16 or f32, found 'tensor<256x32xf32>'}}
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n : (tensor<256x64xf4E2M1FN>, tensor<256x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x64xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>) -> tensor<256x32xf32>
  return
}

// -----

// Rule: nvfp4.grouped_scaled_matmul 5 — outs(...) has the result's type
func.func @grouped_rule5(%a: tensor<256x64xf4E2M1FN>, %sfa: tensor<256x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x64xf4E2M1FN>, %sfb: tensor<4x128x4xf8E4M3FN>, %n: tensor<4xi32>, %d0: tensor<128x64xf32>) {
  // expected-error @+1 {{'nvfp4.grouped_scaled_matmul' op expects outs(...) to have the result's type 'tensor<256x64xf32>', found 'tensor<128x64xf32>'}}
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n outs(%d0) : (tensor<256x64xf4E2M1FN>, tensor<256x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x64xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>, tensor<128x64xf32>) -> tensor<256x64xf32>
  return
}

// -----

// Rule: nvfp4.launch 1 — kernel names a gpu.func kernel
gpu.module @m {
  gpu.func @device_only() {
    gpu.return
  }
}
func.func @launch_rule1(%o: memref<4xf32>) {
  // expected-error @+1 {{'nvfp4.launch' op expects kernel to name a gpu.func kernel, found @m::@device_only}}
  nvfp4.launch @m::@device_only outs(%o : memref<4xf32>)
  return
}

// -----

// Rule: nvfp4.launch 1 — kernel names a gpu.func kernel (no such symbol)
func.func @launch_rule1_missing(%o: memref<4xf32>) {
  // expected-error @+1 {{'nvfp4.launch' op expects kernel to name a gpu.func kernel, found @nowhere::@k}}
  nvfp4.launch @nowhere::@k outs(%o : memref<4xf32>)
  return
}

// -----

// Rule: nvfp4.launch 2 — the kernel's harness names operands and results
gpu.module @m {
  gpu.func @k() kernel attributes {nvfp4.harness = {operands = ["x"], results = [1]}} {
    gpu.return
  }
}
func.func @launch_rule2(%x: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @+1 {{'nvfp4.launch' op expects kernel @m::@k to have an nvfp4.harness dictionary with arrays of tensor names 'operands' and 'results' (its lowering does not describe the op's operands)}}
  nvfp4.launch @m::@k ins(%x : memref<4xf32>) outs(%o : memref<4xf32>)
  return
}

// -----

// Rule: nvfp4.launch 3 — one input per operand, one output per result
gpu.module @m {
  gpu.func @k() kernel attributes {nvfp4.harness = {operands = ["x", "y"], results = ["o"]}} {
    gpu.return
  }
}
func.func @launch_rule3(%x: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @+1 {{'nvfp4.launch' op expects 2 inputs and 1 outputs (the kernel's harness operands and results), found 1 and 1}}
  nvfp4.launch @m::@k ins(%x : memref<4xf32>) outs(%o : memref<4xf32>)
  return
}
