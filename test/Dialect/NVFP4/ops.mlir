// Round trip of nvfp4.attention in the custom and in the generic form: with
// and without each optional part, K and V as one value, MHA / GQA / MQA,
// every head dim, f16, dynamic batch and lengths.

// RUN: nvfp4-opt %s | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --mlir-print-op-generic | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The DeepSeek-V4 decode shape: 128 query heads, one 512-wide latent that
// is both K and V, a sink, per-sequence lengths, a causal sliding window.
// CHECK-LABEL: func.func @dsv4_decode
// CHECK-SAME: (%[[Q:.+]]: tensor<4x1x128x512xbf16>, %[[KV:.+]]: tensor<4x4096x1x512xbf16>, %[[S:.+]]: tensor<128xf32>, %[[L:.+]]: tensor<4xi32>)
// CHECK: %[[O:.+]], %[[LSE:.+]] = nvfp4.attention %[[Q]], %[[KV]], %[[KV]] sink(%[[S]]) kv_lens(%[[L]]) softmax_scale(0.0441941731) causal window(128) : (tensor<4x1x128x512xbf16>, tensor<4x4096x1x512xbf16>, tensor<4x4096x1x512xbf16>, tensor<128xf32>, tensor<4xi32>) -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
// CHECK: return %[[O]], %[[LSE]]
// GENERIC-LABEL: sym_name = "dsv4_decode"
// GENERIC: "nvfp4.attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{causal, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>, softmax_scale = 0.0441941731 : f32, window = 128 : i64}>
func.func @dsv4_decode(%q: tensor<4x1x128x512xbf16>, %kv: tensor<4x4096x1x512xbf16>,
                       %sink: tensor<128xf32>, %lens: tensor<4xi32>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%sink) kv_lens(%lens)
      softmax_scale(0.0441941738) causal window(128)
      : (tensor<4x1x128x512xbf16>, tensor<4x4096x1x512xbf16>,
         tensor<4x4096x1x512xbf16>, tensor<128xf32>, tensor<4xi32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  return %o, %lse : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}

// No optional part: plain MHA prefill, distinct K and V.
// CHECK-LABEL: func.func @mha_plain
// CHECK: nvfp4.attention %{{.+}}, %{{.+}}, %{{.+}} softmax_scale(1.250000e-01) : (tensor<2x256x8x64xbf16>, tensor<2x256x8x64xbf16>, tensor<2x256x8x64xbf16>) -> (tensor<2x256x8x64xbf16>, tensor<2x8x256xf32>)
// GENERIC-LABEL: sym_name = "mha_plain"
// GENERIC: "nvfp4.attention"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0>, softmax_scale = 1.250000e-01 : f32}>
func.func @mha_plain(%q: tensor<2x256x8x64xbf16>, %k: tensor<2x256x8x64xbf16>,
                     %v: tensor<2x256x8x64xbf16>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x256x8x64xbf16>, tensor<2x256x8x64xbf16>, tensor<2x256x8x64xbf16>)
      -> (tensor<2x256x8x64xbf16>, tensor<2x8x256xf32>)
  return
}

// Only a sink; GQA (8 query heads per KV head), D != Dv, f16 in and out.
// CHECK-LABEL: func.func @gqa_sink_only
// CHECK: nvfp4.attention %{{.+}}, %{{.+}}, %{{.+}} sink(%{{.+}}) softmax_scale(1.000000e+00) : (tensor<1x16x32x128xf16>, tensor<1x64x4x128xf16>, tensor<1x64x4x256xf16>, tensor<32xf32>) -> (tensor<1x16x32x256xf16>, tensor<1x32x16xf32>)
// GENERIC-LABEL: sym_name = "gqa_sink_only"
// GENERIC: operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>
func.func @gqa_sink_only(%q: tensor<1x16x32x128xf16>, %k: tensor<1x64x4x128xf16>,
                         %v: tensor<1x64x4x256xf16>, %sink: tensor<32xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v sink(%sink) softmax_scale(1.0)
      : (tensor<1x16x32x128xf16>, tensor<1x64x4x128xf16>, tensor<1x64x4x256xf16>,
         tensor<32xf32>)
      -> (tensor<1x16x32x256xf16>, tensor<1x32x16xf32>)
  return
}

// Only kv_lens and causal; dynamic B, Sq and Skv; f16 inputs, bf16 output;
// head dim 256.
// CHECK-LABEL: func.func @dynamic_lens_causal
// CHECK: nvfp4.attention %{{.+}}, %{{.+}}, %{{.+}} kv_lens(%{{.+}}) softmax_scale(6.250000e-02) causal : (tensor<?x?x16x256xf16>, tensor<?x?x2x256xf16>, tensor<?x?x2x256xf16>, tensor<?xi32>) -> (tensor<?x?x16x256xbf16>, tensor<?x16x?xf32>)
// GENERIC-LABEL: sym_name = "dynamic_lens_causal"
// GENERIC: <{causal, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0>, softmax_scale = 6.250000e-02 : f32}>
func.func @dynamic_lens_causal(%q: tensor<?x?x16x256xf16>, %k: tensor<?x?x2x256xf16>,
                               %v: tensor<?x?x2x256xf16>, %lens: tensor<?xi32>) {
  %o, %lse = nvfp4.attention %q, %k, %v kv_lens(%lens) softmax_scale(0.0625) causal
      : (tensor<?x?x16x256xf16>, tensor<?x?x2x256xf16>, tensor<?x?x2x256xf16>,
         tensor<?xi32>)
      -> (tensor<?x?x16x256xbf16>, tensor<?x16x?xf32>)
  return
}

// A window without causal (it bounds only the past); static and dynamic
// sizes mixed between operands and results; K = V at head dim 128.
// CHECK-LABEL: func.func @window_only_mixed_dynamic
// CHECK: nvfp4.attention %[[KV:.+]], %[[KV2:.+]], %[[KV2]] softmax_scale(5.000000e-01) window(1) : (tensor<3x?x4x128xbf16>, tensor<?x512x1x128xbf16>, tensor<?x512x1x128xbf16>) -> (tensor<?x7x4x128xbf16>, tensor<3x4x?xf32>)
// GENERIC-LABEL: sym_name = "window_only_mixed_dynamic"
// GENERIC: <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0>, softmax_scale = 5.000000e-01 : f32, window = 1 : i64}>
func.func @window_only_mixed_dynamic(%q: tensor<3x?x4x128xbf16>,
                                     %kv: tensor<?x512x1x128xbf16>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv softmax_scale(0.5) window(1)
      : (tensor<3x?x4x128xbf16>, tensor<?x512x1x128xbf16>, tensor<?x512x1x128xbf16>)
      -> (tensor<?x7x4x128xbf16>, tensor<3x4x?xf32>)
  return
}

// Everything present with a dynamic batch: kv_lens may have a static size.
// CHECK-LABEL: func.func @all_parts_dynamic_batch
// CHECK: nvfp4.attention %{{.+}}, %{{.+}}, %{{.+}} sink(%{{.+}}) kv_lens(%{{.+}}) softmax_scale(2.500000e-01) causal window(4096) : (tensor<?x2x64x512xbf16>, tensor<?x8192x1x512xbf16>, tensor<?x8192x1x512xbf16>, tensor<64xf32>, tensor<2xi32>) -> (tensor<2x2x64x512xf16>, tensor<?x64x2xf32>)
func.func @all_parts_dynamic_batch(%q: tensor<?x2x64x512xbf16>,
                                   %k: tensor<?x8192x1x512xbf16>,
                                   %v: tensor<?x8192x1x512xbf16>,
                                   %sink: tensor<64xf32>, %lens: tensor<2xi32>) {
  %o, %lse = nvfp4.attention %q, %k, %v sink(%sink) kv_lens(%lens)
      softmax_scale(0.25) causal window(4096)
      : (tensor<?x2x64x512xbf16>, tensor<?x8192x1x512xbf16>,
         tensor<?x8192x1x512xbf16>, tensor<64xf32>, tensor<2xi32>)
      -> (tensor<2x2x64x512xf16>, tensor<?x64x2xf32>)
  return
}

// The generic form parses too (and prints back in the custom form).
// CHECK-LABEL: func.func @from_generic
// CHECK: nvfp4.attention %{{.+}}, %{{.+}}, %{{.+}} kv_lens(%{{.+}}) softmax_scale(1.000000e+00) causal : (tensor<1x1x4x64xbf16>, tensor<1x8x4x64xbf16>, tensor<1x8x4x64xbf16>, tensor<1xi32>) -> (tensor<1x1x4x64xbf16>, tensor<1x4x1xf32>)
func.func @from_generic(%q: tensor<1x1x4x64xbf16>, %k: tensor<1x8x4x64xbf16>,
                        %lens: tensor<1xi32>) {
  %0:2 = "nvfp4.attention"(%q, %k, %k, %lens)
      <{causal, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0>,
        softmax_scale = 1.0 : f32}>
      : (tensor<1x1x4x64xbf16>, tensor<1x8x4x64xbf16>, tensor<1x8x4x64xbf16>,
         tensor<1xi32>) -> (tensor<1x1x4x64xbf16>, tensor<1x4x1xf32>)
  return
}

// A paged cache: K and V are [NumPages, PageSize, Hkv, D] with a block table
// [B, MaxPages]; K's batch need not equal Q's. num_splits forces the split.
// CHECK-LABEL: func.func @paged_num_splits
// CHECK: nvfp4.attention %{{.+}}, %[[KV:.+]], %[[KV]] kv_lens(%{{.+}}) block_table(%{{.+}}) softmax_scale(1.250000e-01) num_splits(4) : (tensor<2x1x16x128xbf16>, tensor<40x64x2x128xbf16>, tensor<40x64x2x128xbf16>, tensor<2xi32>, tensor<2x16xi32>) -> (tensor<2x1x16x128xbf16>, tensor<2x16x1xf32>)
// GENERIC-LABEL: sym_name = "paged_num_splits"
// GENERIC: <{num_splits = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0>, softmax_scale = 1.250000e-01 : f32}>
func.func @paged_num_splits(%q: tensor<2x1x16x128xbf16>,
                            %kv: tensor<40x64x2x128xbf16>,
                            %lens: tensor<2xi32>, %table: tensor<2x16xi32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv kv_lens(%lens) block_table(%table)
      softmax_scale(0.125) num_splits(4)
      : (tensor<2x1x16x128xbf16>, tensor<40x64x2x128xbf16>,
         tensor<40x64x2x128xbf16>, tensor<2xi32>, tensor<2x16xi32>)
      -> (tensor<2x1x16x128xbf16>, tensor<2x16x1xf32>)
  return
}

// Sparse top-k: indices [B, Sq, TopK] name slots of a cache of pages; K's
// batch need not equal Q's; kv_lens is the top-k length.
// CHECK-LABEL: func.func @sparse_topk
// CHECK: nvfp4.attention %{{.+}}, %[[KV:.+]], %[[KV]] sink(%{{.+}}) kv_lens(%{{.+}}) indices(%{{.+}}) softmax_scale(0.0441941731) : (tensor<2x2x128x512xbf16>, tensor<40x64x1x512xbf16>, tensor<40x64x1x512xbf16>, tensor<128xf32>, tensor<2xi32>, tensor<2x2x100xi32>) -> (tensor<2x2x128x512xbf16>, tensor<2x128x2xf32>)
// GENERIC-LABEL: sym_name = "sparse_topk"
// GENERIC: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0>
func.func @sparse_topk(%q: tensor<2x2x128x512xbf16>,
                       %kv: tensor<40x64x1x512xbf16>, %sink: tensor<128xf32>,
                       %lens: tensor<2xi32>, %idx: tensor<2x2x100xi32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%sink) kv_lens(%lens)
      indices(%idx) softmax_scale(0.0441941738)
      : (tensor<2x2x128x512xbf16>, tensor<40x64x1x512xbf16>,
         tensor<40x64x1x512xbf16>, tensor<128xf32>, tensor<2xi32>,
         tensor<2x2x100xi32>)
      -> (tensor<2x2x128x512xbf16>, tensor<2x128x2xf32>)
  return
}

// A quantized cache (DeepSeek-V4 MODEL1, pages of 256 tokens = 149,760
// bytes): K = V as raw bytes, the layout as an attribute; D = Dv = 512.
// CHECK-LABEL: func.func @kv_cache_v4
// CHECK: indices(%{{.+}}) kv_cache(<"deepseek_v4_fp8", page_size = 256>) softmax_scale
// GENERIC-LABEL: sym_name = "kv_cache_v4"
// GENERIC: kv_cache = #nvfp4.kv_cache<"deepseek_v4_fp8", page_size = 256>
func.func @kv_cache_v4(%q: tensor<2x2x128x512xbf16>, %kv: tensor<10x149760xi8>,
                       %idx: tensor<2x2x300xi32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv indices(%idx)
      kv_cache(#nvfp4.kv_cache<"deepseek_v4_fp8", page_size = 256>)
      softmax_scale(0.0441941738)
      : (tensor<2x2x128x512xbf16>, tensor<10x149760xi8>,
         tensor<10x149760xi8>, tensor<2x2x300xi32>)
      -> (tensor<2x2x128x512xbf16>, tensor<2x128x2xf32>)
  return
}

// DeepSeek-V3.2 (656 bytes per token, 64 per page): D = 576, Dv = 512.
// CHECK-LABEL: func.func @kv_cache_v32
// CHECK: kv_cache(<"deepseek_v32_fp8", page_size = 64>)
func.func @kv_cache_v32(%q: tensor<1x1x64x576xbf16>, %kv: tensor<4x41984xi8>,
                        %idx: tensor<1x1x2048xi32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv indices(%idx)
      kv_cache(<"deepseek_v32_fp8", page_size = 64>)
      softmax_scale(0.0416666679)
      : (tensor<1x1x64x576xbf16>, tensor<4x41984xi8>, tensor<4x41984xi8>,
         tensor<1x1x2048xi32>)
      -> (tensor<1x1x64x512xbf16>, tensor<1x64x1xf32>)
  return
}

// The DeepSeek-V4 decode layer: the window list over one fp8 cache and a
// compressed cache (extra) with its own page size and top-k lengths.
// CHECK-LABEL: func.func @dsv4_layer
// CHECK: indices(%{{.+}}) kv_cache(<"deepseek_v4_fp8", page_size = 64>) extra(%{{.+}}, %{{.+}}) extra_lens(%{{.+}}) extra_kv_cache(<"deepseek_v4_fp8", page_size = 256>) softmax_scale
// GENERIC-LABEL: sym_name = "dsv4_layer"
// GENERIC: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0>
func.func @dsv4_layer(%q: tensor<2x2x128x512xbf16>, %swa: tensor<4x37440xi8>,
                      %sink: tensor<128xf32>, %l: tensor<2xi32>,
                      %i: tensor<2x2x128xi32>, %c: tensor<6x149760xi8>,
                      %i2: tensor<2x2x1024xi32>, %l2: tensor<2xi32>) {
  %o, %lse = nvfp4.attention %q, %swa, %swa sink(%sink) kv_lens(%l)
      indices(%i) kv_cache(<"deepseek_v4_fp8", page_size = 64>)
      extra(%c, %i2) extra_lens(%l2)
      extra_kv_cache(<"deepseek_v4_fp8", page_size = 256>)
      softmax_scale(0.0441941738)
      : (tensor<2x2x128x512xbf16>, tensor<4x37440xi8>, tensor<4x37440xi8>,
         tensor<128xf32>, tensor<2xi32>, tensor<2x2x128xi32>,
         tensor<6x149760xi8>, tensor<2x2x1024xi32>, tensor<2xi32>)
      -> (tensor<2x2x128x512xbf16>, tensor<2x128x2xf32>)
  return
}

// nvfp4.attention_merge, with and without a sink, f32 parts into bf16.
// CHECK-LABEL: func.func @merge_sink
// CHECK: nvfp4.attention_merge %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} sink(%{{.+}}) : (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>, tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>, tensor<128xf32>) -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
// GENERIC-LABEL: sym_name = "merge_sink"
// GENERIC: "nvfp4.attention_merge"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @merge_sink(%o1: tensor<4x1x128x512xbf16>, %l1: tensor<4x128x1xf32>,
                      %o2: tensor<4x1x128x512xbf16>, %l2: tensor<4x128x1xf32>,
                      %s: tensor<128xf32>) {
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2 sink(%s)
      : (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>,
         tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>, tensor<128xf32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  return
}

// CHECK-LABEL: func.func @merge_dynamic
// CHECK: nvfp4.attention_merge %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : (tensor<?x2x8x64xf32>, tensor<?x8x2xf32>, tensor<?x2x8x64xf32>, tensor<?x8x2xf32>) -> (tensor<?x2x8x64xbf16>, tensor<?x8x2xf32>)
func.func @merge_dynamic(%o1: tensor<?x2x8x64xf32>, %l1: tensor<?x8x2xf32>,
                         %o2: tensor<?x2x8x64xf32>, %l2: tensor<?x8x2xf32>) {
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<?x2x8x64xf32>, tensor<?x8x2xf32>, tensor<?x2x8x64xf32>,
         tensor<?x8x2xf32>)
      -> (tensor<?x2x8x64xbf16>, tensor<?x8x2xf32>)
  return
}

// CHECK-LABEL: func.func @quantize_forms
// CHECK: nvfp4.quantize %{{.+}} scale(%{{.+}}) : (tensor<256x7168xbf16>, tensor<f32>) -> (tensor<256x7168xf4E2M1FN>, tensor<256x448xf8E4M3FN>)
// CHECK: nvfp4.quantize %{{.+}} {nan = #nvfp4.nan<ignore>, recipe = #nvfp4.recipe<exact>, sf_layout = #nvfp4.sf_layout<row_major>} : (tensor<?x100x64xf32>) -> (tensor<?x100x64xf4E2M1FN>, tensor<?x100x4xf8E4M3FN>, tensor<f32>)
// CHECK: nvfp4.dequantize %{{.+}}, %{{.+}} scale(%{{.+}}) : (tensor<256x7168xf4E2M1FN>, tensor<256x448xf8E4M3FN>, tensor<f32>) -> tensor<256x7168xf16>
func.func @quantize_forms(%x: tensor<256x7168xbf16>, %gs: tensor<f32>, %y: tensor<?x100x64xf32>) {
  %q, %sf = nvfp4.quantize %x scale(%gs) {sf_layout = #nvfp4.sf_layout<swizzled>}
      : (tensor<256x7168xbf16>, tensor<f32>) -> (tensor<256x7168xf4E2M1FN>, tensor<256x448xf8E4M3FN>)
  %q2, %sf2, %g2 = nvfp4.quantize %y {recipe = #nvfp4.recipe<exact>, nan = #nvfp4.nan<ignore>, sf_layout = #nvfp4.sf_layout<row_major>}
      : (tensor<?x100x64xf32>) -> (tensor<?x100x64xf4E2M1FN>, tensor<?x100x4xf8E4M3FN>, tensor<f32>)
  %d = nvfp4.dequantize %q, %sf scale(%gs)
      : (tensor<256x7168xf4E2M1FN>, tensor<256x448xf8E4M3FN>, tensor<f32>) -> tensor<256x7168xf16>
  return
}

// NVFP4 output: o_scale and a third result with O's swizzled scale factors
// (rows = B * Sq = 4 rounded up to 128, columns = Hq * Dv / 16 = 4096).
// CHECK-LABEL: func.func @nvfp4_output
// CHECK: %{{.+}}, %{{.+}}, %{{.+}} = nvfp4.attention %{{.+}}, %{{.+}}, %{{.+}} sink(%{{.+}}) o_scale(%{{.+}}) softmax_scale(0.0441941731) : (tensor<4x1x128x512xbf16>, tensor<4x4096x1x512xbf16>, tensor<4x4096x1x512xbf16>, tensor<128xf32>, tensor<f32>) -> (tensor<4x1x128x512xf4E2M1FN>, tensor<4x128x1xf32>, tensor<128x4096xf8E4M3FN>)
// GENERIC-LABEL: sym_name = "nvfp4_output"
// GENERIC: operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1>
func.func @nvfp4_output(%q: tensor<4x1x128x512xbf16>, %kv: tensor<4x4096x1x512xbf16>,
                        %sink: tensor<128xf32>, %gs: tensor<f32>)
    -> (tensor<4x1x128x512xf4E2M1FN>, tensor<128x4096xf8E4M3FN>) {
  %o, %lse, %sf = nvfp4.attention %q, %kv, %kv sink(%sink) o_scale(%gs)
      softmax_scale(0.0441941738)
      : (tensor<4x1x128x512xbf16>, tensor<4x4096x1x512xbf16>,
         tensor<4x4096x1x512xbf16>, tensor<128xf32>, tensor<f32>)
      -> (tensor<4x1x128x512xf4E2M1FN>, tensor<4x128x1xf32>,
          tensor<128x4096xf8E4M3FN>)
  return %o, %sf : tensor<4x1x128x512xf4E2M1FN>, tensor<128x4096xf8E4M3FN>
}
