//===- NVFP4Ops.td - nvfp4 operations ----------------------*- tablegen -*-===//
//
// Operations of the nvfp4 dialect. Each description states the op's tensor
// semantics (in full in docs/Attention.md for attention) and numbers every
// verifier rule; each rule is broken by one case in
// test/Dialect/NVFP4/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4OPS_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4OPS_TD

include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

def NVFP4_AttentionOp : NVFP4_Op<"attention",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention with masks, a sink and the LSE";
  let description = [{
    Computes `O = softmax(softmax_scale * Q K^T + mask [+ sink]) V` per
    sequence and query head, and the natural-log log-sum-exp `LSE` of each
    softmax row, for multi-head, grouped-query and multi-query attention.
    The exact semantics (masks, the sink in the denominator, the values of a
    row that sees no key, precision) are in docs/Attention.md.

    Operands and results (B = batch, Sq = queries per sequence, Skv = keys
    per sequence, Hq / Hkv = query / key-value heads, D = the Q·K head dim,
    Dv = the V head dim):

    | value     | type                            | |
    |-----------|---------------------------------|-|
    | `q`       | `tensor<B x Sq x Hq x D x T>`   | T = bf16 or f16 |
    | `k`       | `tensor<B x Skv x Hkv x D x T>` | |
    | `v`       | `tensor<B x Skv x Hkv x Dv x T>`| may be the same value as `k` (then Dv = D), or its leading columns (`tensor.extract_slice`, absorbed MLA) |
    | `sink`    | `tensor<Hq x f32>`              | optional: one logit per query head, in the denominator only |
    | `kv_lens` | `tensor<B x i32>`               | optional: valid keys of each sequence, L_b ≤ Skv (absent: Skv) |
    | `block_table` | `tensor<B x MaxPages x i32>` | optional: a paged cache (below) |
    | `indices` | `tensor<B x Sq x TopK x i32>` | optional: sparse top-k keys (below) |
    | `o_scale` | `tensor<f32>`                   | optional: O's NVFP4 encode scale (below) |
    | `o`       | `tensor<B x Sq x Hq x Dv x T'>` | T' = bf16 or f16; f4E2M1FN with `o_scale` |
    | `lse`     | `tensor<B x Hq x Sq x f32>`     | natural log |
    | `o_scales`| `tensor<R x C x f8E4M3FN>`      | only with `o_scale`: O's scale factors (below) |

    Query head `h` reads key-value head `h / (Hq / Hkv)`. Query `i` of
    sequence `b` sits at position `p = L_b - Sq + i` (bottom-right
    alignment). Key `j < L_b` is visible to it iff
    (`causal` is absent or `j <= p`) and (`window` is absent or
    `p - j < window`). `softmax_scale` multiplies Q·K before the softmax.
    A row with no visible key gives `O = 0` and `LSE = -inf` (`sink_h` with
    a sink).

    **Paged KV.** With `block_table(%t)`, K and V are caches of pages,
    `tensor<NumPages x PageSize x Hkv x D x T>` (and `Dv` for V), and
    sequence `b`'s key `j` is row `j mod PageSize` of page
    `block_table[b, j / PageSize]`; pages of a sequence need not be
    contiguous or ordered, and Skv = MaxPages x PageSize. Entries past
    the last page a sequence uses are not read.

    **Sparse top-k.** With `indices(%i)`, each query attends to the keys
    its own index row names (DeepSeek-V3.2/V4's indexer output, FlashMLA's
    and vLLM's convention): K and V are caches of slots,
    `tensor<NumPages x PageSize x Hkv x D x T>`, and `indices[b, i, t]`
    is slot `page * PageSize + offset` (no block table), or -1 for no
    key. The key axis is the index position t: Skv = TopK, and `kv_lens`,
    when present, is the top-k length of each sequence (positions
    `t >= kv_lens[b]` are unused). Key t of query i is visible iff
    `t < L_b` and `indices[b, i, t] != -1`; `causal` and `window` do not
    apply. Query heads of one query share its index row; a slot named
    twice counts twice, as a gather would (docs/Attention.md).

    **Quantized caches.** With `kv_cache(#nvfp4.kv_cache<"layout",
    page_size = P>)`, K and V are one value, the cache's raw bytes
    `tensor<NumPages x PageBytes x i8>` in that layout (DeepSeek-V4's
    `"deepseek_v4_fp8"`, DeepSeek-V3.2's `"deepseek_v32_fp8"`), with one KV
    head; D and Dv are the layout's, and a key is its token's values
    dequantized exactly (e4m3 times its scale; the bf16 values as they are),
    V the first Dv of them. Keys are chosen by `indices` (slot = page * P +
    offset).

    **A second key set (the DeepSeek-V4 decode layer).** With
    `extra(%kv2, %i2)` (and optionally `extra_lens(%l2)`,
    `extra_kv_cache(#nvfp4.kv_cache<...>)`), each query also attends to
    the keys its row of `%i2` names in a second cache `%kv2` (its own
    layout's page size): keys t < L2_b (`extra_lens[b]`, else TopK2) whose
    index is not -1. One softmax runs over the union of both sets and the
    sink, which is DeepSeek-V4's sliding-window cache (`indices`, 128
    entries) plus its compressed cache (top-k entries for CSA layers, every
    entry up to the position for HCA layers) in one op, reading Q, each key
    and O once.

    **NVFP4 output.** With `o_scale(%gs)` (the encode scale, as
    `nvfp4.quantize` takes it), O is returned quantized to NVFP4 from the
    f32 result, as `nvfp4.quantize %o scale(%gs)` with the `fast` recipe
    and NaN `propagate` would quantize an f32 O viewed as a
    [B * Sq, Hq * Dv] matrix: e2m1 values two per byte along Dv, one e4m3
    scale per 16 consecutive values of one head, and a third result holding
    the scale factors in the swizzled 128x4 layout over rows = tokens
    (b * Sq + query) and columns = Hq * Dv / 16: R = round_up(B * Sq, 128),
    C = round_up(Hq * Dv / 16, 4). That is the A operand of the output
    projection's `nvfp4.scaled_matmul` (K = Hq * Dv). Scale factors of the
    padding rows (tokens B * Sq .. R) are not written (docs/NVFP4.md).

    The optional parts are introduced by keywords: `sink(%s)`,
    `kv_lens(%l)`, `block_table(%t)`, `indices(%i)`, `kv_cache(#...)`,
    `extra(%kv2, %i2)`, `extra_lens(%l2)`, `extra_kv_cache(#...)`,
    `o_scale(%gs)`, `causal`, `window(N)`,
    `num_splits(N)`; `softmax_scale(x)` is required. `num_splits` is a
    schedule choice, not semantics: it forces the lowering to split every
    sequence's keys into N parts (1: no split-KV); without it the lowering
    balances the keys of all sequences over the SMs
    (docs/AttentionLowering.md).

    B, Sq and Skv may be dynamic; head counts and head dims may not (the
    kernel is specialised on them). When V is K's leading Dv columns
    (absorbed MLA: K = [latent | RoPE], V = latent), write V as
    `tensor.extract_slice %k[0, 0, 0, 0] [B, Skv, Hkv, Dv] [1, 1, 1, 1]`:
    the lowering reads V from K's tiles, so nothing is copied. Where two sizes must agree and one of
    them is dynamic, the verifier accepts them.

    - Rule 1: `q`, `k` and `v` are 4-D tensors.
    - Rule 2: Q's element type is bf16 or f16.
    - Rule 3: K and V have Q's element type.
    - Rule 4: Hq (Q dim 2), Hkv (K and V dim 2), D (Q and K dim 3) and Dv
      (V dim 3) are static.
    - Rule 5: D and Dv are positive. (Which head dims a kernel supports is
      the lowering's limit, diagnosed there: today multiples of 64, D up to
      576 and Dv up to 512.)
    - Rule 6: K's head dim (dim 3) equals Q's, and without a block table
      or indices K's batch (dim 0) too.
    - Rule 7: V's batch (dim 0), key length (dim 1) and head count (dim 2)
      equal K's.
    - Rule 8: Hkv is positive and Hq is a positive multiple of Hkv.
    - Rule 9: `sink`, when present, is `tensor<Hq x f32>`.
    - Rule 10: `kv_lens`, when present, is `tensor<B x i32>`.
    - Rule 11: `o` is 4-D with shape [B, Sq, Hq, Dv] (Hq and Dv static).
    - Rule 12: O's element type is bf16 or f16 (f4E2M1FN with `o_scale`,
      rule 22).
    - Rule 13: `lse` is 3-D with shape [B, Hq, Sq] (Hq static).
    - Rule 14: LSE's element type is f32.
    - Rule 15: `softmax_scale` is finite and positive.
    - Rule 16: `window`, when present, is at least 1.
    - Rule 17: `block_table`, when present, is a 2-D i32 tensor whose dim 0
      equals Q's batch, and K's page size (dim 1) is static and 16, 64,
      128 or 256.
    - Rule 18: `num_splits`, when present, is at least 1.
    - Rule 19: `indices`, when present, is a 3-D i32 tensor [B, Sq, TopK]
      (B and Sq those of Q), and the op has no `block_table`, `causal` or
      `window`.
    - Rule 20: with `kv_cache`, K and V are one value, a static
      `tensor<NumPages x PageBytes x i8>` with PageBytes the layout's page
      bytes for the page size; the op has `indices`; Q is bf16 with the
      layout's D. (Rules 1 and 3-7 then apply to Q only; Hkv = 1 and Dv is
      the layout's, which rule 11 checks against O.)
    - Rule 21: `extra` needs `indices`, `kv_cache` and `extra_kv_cache` of
      the same layout (its own page size); `%kv2` is a static
      `tensor<NumPages2 x PageBytes2 x i8>` of that layout, `%i2` a 3-D i32
      tensor [B, Sq, TopK2] and `extra_lens` a `tensor<B x i32>`;
      `extra_lens` and `extra_kv_cache` need `extra`.
    - Rule 22: with `o_scale` (a `tensor<f32>`), O's element type is
      f4E2M1FN, Dv is a multiple of 16, and a third result `o_scales` is
      `tensor<R x C x f8E4M3FN>` (R, C above; a dynamic size agrees);
      without `o_scale` there is no third result.

    The verifier cannot check what depends on values: `0 <= kv_lens[b] <=
    Skv` (outside it the result is undefined), and `L_b >= Sq` (when
    `L_b < Sq` the first queries have negative positions and, with
    `causal`, see no key).

    Example (DeepSeek-V4 sliding-window decode: 128 query heads over one
    512-wide latent that is both K and V, a sink, per-sequence lengths):

    ```mlir
    %o, %lse = nvfp4.attention %q, %kv, %kv sink(%sink) kv_lens(%lens)
        softmax_scale(0.0441941738) causal window(128)
        : (tensor<4x1x128x512xbf16>, tensor<4x4096x1x512xbf16>,
           tensor<4x4096x1x512xbf16>, tensor<128xf32>, tensor<4xi32>)
        -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                   AnyRankedTensor:$v,
                   Optional<AnyRankedTensor>:$sink,
                   Optional<AnyRankedTensor>:$kv_lens,
                   Optional<AnyRankedTensor>:$block_table,
                   Optional<AnyRankedTensor>:$indices,
                   Optional<AnyRankedTensor>:$extra_k,
                   Optional<AnyRankedTensor>:$extra_indices,
                   Optional<AnyRankedTensor>:$extra_lens,
                   Optional<AnyRankedTensor>:$o_scale,
                   OptionalAttr<NVFP4_KvCacheAttr>:$kv_cache,
                   OptionalAttr<NVFP4_KvCacheAttr>:$extra_kv_cache,
                   F32Attr:$softmax_scale, UnitAttr:$causal,
                   OptionalAttr<I64Attr>:$window,
                   OptionalAttr<I64Attr>:$num_splits);
  let results = (outs AnyRankedTensor:$o, AnyRankedTensor:$lse,
                 Optional<AnyRankedTensor>:$o_scales);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`sink` `(` $sink^ `)`)? (`kv_lens` `(` $kv_lens^ `)`)?
    (`block_table` `(` $block_table^ `)`)? (`indices` `(` $indices^ `)`)?
    (`kv_cache` `(` $kv_cache^ `)`)?
    (`extra` `(` $extra_k^ `,` $extra_indices `)`)?
    (`extra_lens` `(` $extra_lens^ `)`)?
    (`extra_kv_cache` `(` $extra_kv_cache^ `)`)?
    (`o_scale` `(` $o_scale^ `)`)?
    `softmax_scale` `(` $softmax_scale `)` (`causal` $causal^)?
    (`window` `(` $window^ `)`)? (`num_splits` `(` $num_splits^ `)`)?
    attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NVFP4_AttentionMergeOp : NVFP4_Op<"attention_merge", [Pure]> {
  let summary = "merge two attention results over disjoint key sets by "
                "their LSE";
  let description = [{
    Combines the results (O₁, LSE₁) and (O₂, LSE₂) of two `nvfp4.attention`
    ops over disjoint sets of keys of the same queries, computed without a
    sink, into the result over the union, adding the optional sink once
    (docs/Attention.md, "Merging partial results"):

        LSE = ln(e^LSE₁ + e^LSE₂ [+ e^sink])
        O   = (e^LSE₁ · O₁ + e^LSE₂ · O₂) / e^LSE

    A part with LSE = −inf (no visible key) gets weight 0; when both are
    −inf and there is no sink, O = 0 and LSE = −inf (with a sink, O = 0
    and LSE = sink). This is how DeepSeek-V4 combines its compressed and
    sliding-window branches, and how a split-KV attention merges its parts.

    | value   | type                            | |
    |---------|---------------------------------|-|
    | `o1`, `o2` | `tensor<B x Sq x Hq x Dv x T>` | T = bf16, f16 or f32 (both the same) |
    | `lse1`, `lse2` | `tensor<B x Hq x Sq x f32>` | natural log |
    | `sink`  | `tensor<Hq x f32>` | optional |
    | `o`     | `tensor<B x Sq x Hq x Dv x T'>` | T' = bf16, f16 or f32 |
    | `lse`   | `tensor<B x Hq x Sq x f32>` | |

    - Rule 1: `o1`, `o2` and `o` are 4-D and `lse1`, `lse2` and `lse` 3-D.
    - Rule 2: `o2` and `o` have `o1`'s shape, and `lse1`, `lse2` and `lse`
      are [B, Hq, Sq] of it (a dynamic size agrees with any).
    - Rule 3: `o1` and `o2` have one element type, bf16, f16 or f32, and
      `o`'s is bf16, f16 or f32.
    - Rule 4: `lse1`, `lse2` and `lse` are f32.
    - Rule 5: `sink`, when present, is `tensor<Hq x f32>`.

    Example (DeepSeek-V4: the sliding-window branch and the compressed
    branch, the sink added once):

    ```mlir
    %o, %lse = nvfp4.attention_merge %o1, %lse1, %o2, %lse2 sink(%sink)
        : (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>,
           tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>, tensor<128xf32>)
        -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$o1, AnyRankedTensor:$lse1,
                   AnyRankedTensor:$o2, AnyRankedTensor:$lse2,
                   Optional<AnyRankedTensor>:$sink);
  let results = (outs AnyRankedTensor:$o, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $o1 `,` $lse1 `,` $o2 `,` $lse2 (`sink` `(` $sink^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NVFP4_QuantizeOp : NVFP4_Op<"quantize", [Pure]> {
  let summary = "quantize a tensor to NVFP4: e2m1 values, e4m3 block scales";
  let description = [{
    Quantizes `input` ([B x] M x K, bf16, f16 or f32) to NVFP4 along K
    (docs/NVFP4.md): for every block of 16 consecutive elements of a row,
    with `gs` the tensor (encode) scale and `amax` the block's largest
    magnitude, recipe `fast` (the default; bit for bit the engines' bytes):

        sf   = e4m3_rn_satfinite(gs * (amax * rcp(6)))
        mult = sf != 0 ? rcp(sf * rcp(gs)) : 0      (rcp = rcp.approx.ftz.f32)
        q_i  = e2m1_rn_satfinite(x_i * mult)

    recipe `exact` (Transformer Engine): `sf = e4m3(amax * (gs * (1/6)))`,
    `mult = fminf(1 / (sf * (1 / gs)), FLT_MAX)` with IEEE divisions. The
    dequantized value is `q * sf / gs`. `nan` chooses what a NaN does to its
    block, `sf_layout` where the scale factors go.

    The tensor scale is an operand (`scale(%gs)`, the encode scale 448 * 6
    / amax as the engines pass it) or, without one, computed from the
    tensor's amax as `min(2688 / amax, FLT_MAX)` (1 when amax is 0 or
    inf; NaN left out) and returned as a third result.

    | value    | type | |
    |----------|------|-|
    | `input`  | `tensor<[B x] M x K x T>` | T = bf16, f16 or f32 |
    | `scale`  | `tensor<f32>` | optional: the encode scale |
    | `data`   | `tensor<[B x] M x K x f4E2M1FN>` | two per byte, element 2i in the low nibble |
    | `scales` | `tensor<[B x] M' x K' x f8E4M3FN>` | swizzled: M' = round_up(M, 128), K' = round_up(K / 16, 4); row_major: M, K / 16 |
    | `computed_scale` | `tensor<f32>` | only without `scale` |

    - Rule 1: `input` is 2-D or 3-D, of bf16, f16 or f32.
    - Rule 2: K (the last dim) is a multiple of 16.
    - Rule 3: `data` has `input`'s shape and element type f4E2M1FN.
    - Rule 4: `scales` has element type f8E4M3FN and the shape
      `sf_layout` gives (a dynamic size agrees with any).
    - Rule 5: the tensor scale is given (`scale`, a `tensor<f32>`) or
      returned (`computed_scale`, a `tensor<f32>`): exactly one of the two.

    Example (DeepSeek-V4's activations before an expert GEMM):

    ```mlir
    %q, %sf = nvfp4.quantize %x scale(%gs)
        : (tensor<256x7168xbf16>, tensor<f32>)
        -> (tensor<256x7168xf4E2M1FN>, tensor<256x448xf8E4M3FN>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                   Optional<AnyRankedTensor>:$scale,
                   DefaultValuedAttr<NVFP4_SfLayoutAttr,
                                     "::nvfp4::SfLayout::swizzled">:$sf_layout,
                   DefaultValuedAttr<NVFP4_RecipeAttr,
                                     "::nvfp4::QuantRecipe::fast">:$recipe,
                   DefaultValuedAttr<NVFP4_NanPolicyAttr,
                                     "::nvfp4::NanPolicy::propagate">:$nan);
  let results = (outs AnyRankedTensor:$data, AnyRankedTensor:$scales,
                 Optional<AnyRankedTensor>:$computed_scale);
  let assemblyFormat = [{
    $input (`scale` `(` $scale^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NVFP4_DequantizeOp : NVFP4_Op<"dequantize", [Pure]> {
  let summary = "expand an NVFP4 tensor to bf16, f16 or f32";
  let description = [{
    `result[i] = e2m1(data[i]) * e4m3(sf of i's block) / gs`: the product
    is exact in f32, the division by the tensor scale is one IEEE division,
    and the result is rounded to nearest-even into the result type. A NaN
    scale factor gives NaN.

    | value    | type | |
    |----------|------|-|
    | `data`   | `tensor<[B x] M x K x f4E2M1FN>` | |
    | `scales` | `tensor<[B x] M' x K' x f8E4M3FN>` | as `nvfp4.quantize` makes them for `sf_layout` |
    | `scale`  | `tensor<f32>` | the encode scale |
    | `result` | `tensor<[B x] M x K x T>` | T = bf16, f16 or f32 |

    - Rule 1: `data` is 2-D or 3-D of f4E2M1FN, with K a multiple of 16.
    - Rule 2: `scales` has element type f8E4M3FN and the shape
      `sf_layout` gives.
    - Rule 3: `scale` is a `tensor<f32>`.
    - Rule 4: `result` has `data`'s shape and element type bf16, f16 or
      f32.

    ```mlir
    %x = nvfp4.dequantize %q, %sf scale(%gs)
        : (tensor<256x7168xf4E2M1FN>, tensor<256x448xf8E4M3FN>, tensor<f32>)
        -> tensor<256x7168xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$data, AnyRankedTensor:$scales,
                   AnyRankedTensor:$scale,
                   DefaultValuedAttr<NVFP4_SfLayoutAttr,
                                     "::nvfp4::SfLayout::swizzled">:$sf_layout);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $data `,` $scales `scale` `(` $scale `)` attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NVFP4_ScaledMatmulOp : NVFP4_Op<"scaled_matmul", [Pure]> {
  let summary = "NVFP4 x NVFP4 matmul: D = dequant(A) * dequant(B)^T";
  let description = [{
    `D[m, n] = sum_k deq(A)[m, k] * deq(B)[n, k]` with both operands NVFP4
    (docs/NVFP4.md): `deq(X)[r, k] = e2m1(X[r, k]) * e4m3(SF_X[r, k / 16]) /
    gs_X`. The tensor cores multiply the e2m1 values with their block scale
    factors (`tcgen05.mma.kind::mxf4nvf4.block_scale.block16`, f32
    accumulation); the epilogue applies `1 / (gs_A * gs_B)` and rounds to
    the result type. Scale factors are in the swizzled 128x4 layout
    `nvfp4.quantize` writes by default (its padding must not be NaN: the
    kernels multiply the padding's scale factors by zero values).

    | value       | type | |
    |-------------|------|-|
    | `a`         | `tensor<M x K x f4E2M1FN>` | row-major (K contiguous) |
    | `a_scales`  | `tensor<M' x K' x f8E4M3FN>` | M' = round_up(M, 128), K' = round_up(K / 16, 4), swizzled |
    | `a_scale`   | `tensor<f32>` | A's encode scale gs_A |
    | `b`         | `tensor<N x K x f4E2M1FN>` | row-major (K contiguous): B transposed |
    | `b_scales`  | `tensor<N' x K' x f8E4M3FN>` | N' = round_up(N, 128) |
    | `b_scale`   | `tensor<f32>` | gs_B |
    | `d`         | `tensor<M x N x T>` | T = bf16 or f32 |

    - Rule 1: `a` and `b` are 2-D f4E2M1FN with the same K, a multiple of
      16.
    - Rule 2: `a_scales` and `b_scales` are f8E4M3FN of the swizzled shape
      of their operand (a dynamic size agrees with any).
    - Rule 3: `a_scale` and `b_scale` are `tensor<f32>`.
    - Rule 4: `d` is [M, N] of bf16 or f32.
    - Rule 5: `init` (`outs(%init)`), when present, has `d`'s type.

    With `outs(%init)` the result is written over `init` (every element):
    bufferized, the kernel writes into `init`'s buffer, the caller's when
    it is a function argument, with no copy (docs/Host.md).

    Example (a DeepSeek-V4 projection, 256 tokens):

    ```mlir
    %d = nvfp4.scaled_matmul %a, %sfa, %gsa, %w, %sfw, %gsw
        : (tensor<256x7168xf4E2M1FN>, tensor<256x448xf8E4M3FN>, tensor<f32>,
           tensor<2048x7168xf4E2M1FN>, tensor<2048x448xf8E4M3FN>, tensor<f32>)
        -> tensor<256x2048xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$a_scales,
                   AnyRankedTensor:$a_scale, AnyRankedTensor:$b,
                   AnyRankedTensor:$b_scales, AnyRankedTensor:$b_scale,
                   Optional<AnyRankedTensor>:$init);
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a `,` $a_scales `,` $a_scale `,` $b `,` $b_scales `,` $b_scale
    (`outs` `(` $init^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NVFP4_GroupedScaledMatmulOp : NVFP4_Op<"grouped_scaled_matmul", [Pure]> {
  let summary = "NVFP4 matmuls of E groups (MoE experts) in one launch";
  let description = [{
    For every group g (an expert) with `m_g = sizes[g]` rows:
    `D_g = deq(A_g) * deq(B[g])^T` as `nvfp4.scaled_matmul` defines it,
    with the group's tensor scales `a_scale[g]` and `b_scale[g]`
    (docs/NVFP4.md, "Grouped matmul"). The `layout` attribute says where
    group g's rows are:

    - `contiguous` (default): A is `[M, K]` and D `[M, N]`; group g's rows
      start at `start_g = sum over h < g of round_up(m_h, 128)` (every
      group starts on a 128-row boundary, as DeepGEMM's contiguous and
      psum layouts and the engines' per-expert padding have it), and
      `start_E <= M` is required at run time. Rows between groups are
      neither read into D nor written.
    - `masked`: A is `[E, max_m, K]` and D `[E, max_m, N]`; group g's rows
      are the first `m_g <= max_m` (DeepGEMM's masked layout for decode
      with CUDA graphs). Rows past `m_g` are not written.

    A group with no rows costs nothing: the kernel's tiles are those of
    the non-empty groups, spread over the SMs.

    | value       | type | |
    |-------------|------|-|
    | `a`         | contiguous: `tensor<M x K x f4E2M1FN>`; masked: `tensor<E x max_m x K x f4E2M1FN>` | |
    | `a_scales`  | the swizzled scale factors of `a` (masked: per group) | |
    | `a_scale`   | `tensor<E x f32>` | each group's gs_A |
    | `b`         | `tensor<E x N x K x f4E2M1FN>` | the experts' weights, K contiguous |
    | `b_scales`  | `tensor<E x N' x K' x f8E4M3FN>` | per expert, swizzled |
    | `b_scale`   | `tensor<E x f32>` | each expert's gs_B |
    | `sizes`     | `tensor<E x i32>` | the groups' row counts |
    | `d`         | contiguous: `tensor<M x N x T>`; masked: `tensor<E x max_m x N x T>` | T = bf16 or f32 |

    - Rule 1: `a` is 2-D (contiguous) or 3-D (masked) f4E2M1FN, `b` is
      3-D f4E2M1FN, with one K, a multiple of 16; masked: `a`'s dim 0 is E.
    - Rule 2: `a_scales` and `b_scales` are f8E4M3FN of their operand's
      swizzled shape.
    - Rule 3: `a_scale` and `b_scale` are `tensor<E x f32>`, `sizes` is
      `tensor<E x i32>`.
    - Rule 4: `d` has A's rows (contiguous: [M, N]; masked: [E, max_m, N])
      and element type bf16 or f32.
    - Rule 5: `init` (`outs(%init)`), when present, has `d`'s type.

    `outs(%init)` gives D's rows outside the groups: the result is `init`
    with the groups' rows computed. Bufferized, the kernel writes into
    `init`'s buffer (docs/Host.md); without `outs` those rows are
    undefined, so bufferization requires it.

    Example (DeepSeek-V4 routed experts, masked for decode):

    ```mlir
    %d = nvfp4.grouped_scaled_matmul %a, %sfa, %gsa, %w, %sfw, %gsw, %counts
        {layout = #nvfp4.group_layout<masked>}
        : (tensor<8x128x7168xf4E2M1FN>, tensor<8x128x448xf8E4M3FN>, tensor<8xf32>,
           tensor<8x2048x7168xf4E2M1FN>, tensor<8x2048x448xf8E4M3FN>, tensor<8xf32>,
           tensor<8xi32>) -> tensor<8x128x2048xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$a_scales,
                   AnyRankedTensor:$a_scale, AnyRankedTensor:$b,
                   AnyRankedTensor:$b_scales, AnyRankedTensor:$b_scale,
                   AnyRankedTensor:$sizes,
                   Optional<AnyRankedTensor>:$init,
                   DefaultValuedAttr<NVFP4_GroupLayoutAttr,
                                     "::nvfp4::GroupLayout::contiguous">:$layout);
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a `,` $a_scales `,` $a_scale `,` $b `,` $b_scales `,` $b_scale `,` $sizes
    (`outs` `(` $init^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NVFP4_LaunchOp : NVFP4_Op<"launch",
    [AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "run the kernel an nvfp4 op was lowered to, on buffers";
  let description = [{
    The buffer form of an nvfp4 op whose kernel is built: one-shot
    bufferization turns `nvfp4.attention` (and the other nvfp4 ops, once
    their lowering has set `nvfp4.kernel` on them) into this op, with the
    op's operands as `ins` and new buffers for its results as `outs`.
    `nvfp4-lower-host` then replaces it by the host side of the launch:
    tensor maps, scratch buffers, `gpu.launch_func` of the kernel and of
    the kernels launched after it (docs/Host.md).

    `kernel` is the `gpu.func` the lowering built. Its `nvfp4.harness`
    attribute says what the kernel computes and how it is launched
    (docs/Runtime.md); its `operands` and `results` entries name, in order,
    the tensor each input and each output of this op is.

    - Rule 1: `kernel` names a `gpu.func` kernel.
    - Rule 2: the kernel has an `nvfp4.harness` dictionary whose `operands`
      and `results` entries are arrays of tensor names.
    - Rule 3: there is one input per `operands` entry and one output per
      `results` entry.

    Buffers are in device memory: a function that launches nvfp4 kernels
    keeps its buffers there (docs/Host.md, "Buffers").

    Example (after `one-shot-bufferize` of the DeepSeek-V4 decode
    attention):

    ```mlir
    nvfp4.launch @dsv4_decode_attention::@dsv4_decode_attention
        ins(%q, %kv, %kv, %sink, %lens
            : memref<4x1x128x512xbf16>, memref<4x4096x1x512xbf16>,
              memref<4x4096x1x512xbf16>, memref<128xf32>, memref<4xi32>)
        outs(%o, %lse : memref<4x1x128x512xbf16>, memref<4x128x1xf32>)
    ```
  }];
  let arguments = (ins SymbolRefAttr:$kernel,
                   Arg<Variadic<AnyMemRef>, "the op's operands",
                       [MemRead]>:$inputs,
                   Arg<Variadic<AnyMemRef>, "the op's results",
                       [MemWrite]>:$outputs);
  let assemblyFormat = [{
    $kernel (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `outs` `(` $outputs `:` type($outputs) `)` attr-dict
  }];
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4OPS_TD
