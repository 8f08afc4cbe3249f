// RUN: nvfp4-opt %s -nvfp4-lower-quantize -split-input-file | FileCheck %s
// RUN: nvfp4-opt %s -nvfp4-lower-quantize -split-input-file -nvfp4-lower-quantize | FileCheck %s --check-prefix=TWICE

// The engines' recipe, instruction by instruction (docs/NVFP4.md): the
// block amax with max.NaN (propagate), SF = e4m3(gs * (amax * rcp(6))),
// multiplier rcp(SF * rcp(gs)) unless SF is 0, and the e2m1 pairs
// converted with the odd element first (element 2i in the low nibble).

// CHECK-LABEL: gpu.module @q_quantize
// CHECK: gpu.func @q_quantize(%{{.+}}: memref<1x200x320xbf16>, %{{.+}}: memref<1xf32>, %{{.+}}: memref<1x200x160xi8>, %{{.+}}: memref<5120xi8>) kernel
// CHECK-SAME: nvfp4.harness = {args = [{buffer = "x"}, {buffer = "gs"}, {buffer = "data"}, {buffer = "sf"}], block = array<i32: 32, 1, 1>, grid = array<i32: 40, 1, 1>, operands = ["x", "gs"], options = {nan = 0 : i64, recipe = 0 : i64, sf_layout = 0 : i64}, reference = "nvfp4_quantize", results = ["data", "sf"]
// CHECK: %[[GS:.+]] = memref.load
// CHECK: %[[R6:.+]] = nvvm.inline_ptx "rcp.approx.ftz.f32 $0, $1;" ro(%{{.+}} : f32)
// CHECK: %[[RGS:.+]] = nvvm.inline_ptx "rcp.approx.ftz.f32 $0, $1;" ro(%[[GS]] : f32)
// CHECK: vector.load %{{.+}} {alignment = 16 : i64} : memref<1x200x320xbf16>, vector<8xbf16>
// CHECK-COUNT-15: arith.maximumf
// CHECK: %[[AR:.+]] = arith.mulf %[[AMAX:.+]], %[[R6]] : f32
// CHECK: %[[SFV:.+]] = arith.mulf %[[GS]], %[[AR]] : f32
// CHECK: nvvm.convert.f32x2.to.f8x2 %{{.+}}, %[[SFV]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK: %[[SF:.+]] = vector.extract
// CHECK: %[[SFF:.+]] = arith.extf %[[SF]] : f16 to f32
// CHECK: %[[NZ:.+]] = arith.cmpf une, %[[SFF]]
// CHECK: %[[P:.+]] = arith.mulf %[[SFF]], %[[RGS]] : f32
// CHECK: %[[R:.+]] = nvvm.inline_ptx "rcp.approx.ftz.f32 $0, $1;" ro(%[[P]] : f32)
// CHECK: %[[MULT:.+]] = arith.select %[[NZ]], %[[R]]
// CHECK: %[[E:.+]] = arith.mulf %{{.+}}, %[[MULT]] : f32
// CHECK-NEXT: %[[O:.+]] = arith.mulf %{{.+}}, %[[MULT]] : f32
// CHECK-NEXT: nvvm.convert.f32x2.to.f4x2 %[[O]], %[[E]] : i8(f4E2M1FN)
// CHECK: vector.store %{{.+}} {alignment = 8 : i64} : memref<1x200x160xi8>, vector<8xi8>
// The four scale factors of a group: one aligned word of the swizzled layout.
// CHECK: vector.store %{{.+}} {alignment = 4 : i64} : memref<5120xi8>, vector<4xi8>
// TWICE-COUNT-1: gpu.module @q_quantize
// TWICE-NOT: gpu.module @q_quantize_0
func.func @q(%x: tensor<200x320xbf16>, %gs: tensor<f32>) -> (tensor<200x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>) {
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<200x320xbf16>, tensor<f32>) -> (tensor<200x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>)
  return %q, %sf : tensor<200x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>
}

// -----

// Transformer Engine's recipe, NaN ignored: max.f32, amax * (gs * (1/6)),
// fminf(1 / (SF * (1 / gs)), FLT_MAX) with IEEE divisions.

// CHECK-LABEL: gpu.func @exact_quantize
// CHECK-SAME: options = {nan = 1 : i64, recipe = 1 : i64, sf_layout = 1 : i64}
// CHECK: %[[RGS:.+]] = arith.divf %cst{{.*}}, %{{.+}} : f32
// CHECK-COUNT-15: arith.maxnumf
// CHECK: %[[G6:.+]] = arith.mulf %{{.+}}, %cst{{.*}} : f32
// CHECK: arith.mulf %{{.+}}, %[[G6]] : f32
// CHECK: %[[P:.+]] = arith.mulf %{{.+}}, %[[RGS]] : f32
// CHECK: %[[INV:.+]] = arith.divf %cst{{.*}}, %[[P]] : f32
// CHECK: arith.minnumf %[[INV]], %cst{{.*}} : f32
// Row-major scale factors: one byte per block.
// CHECK: memref.store %{{.+}} : memref<96xi8>
func.func @exact(%x: tensor<32x48xf32>, %gs: tensor<f32>) -> (tensor<32x48xf4E2M1FN>, tensor<32x3xf8E4M3FN>) {
  %q, %sf = nvfp4.quantize %x scale(%gs) {recipe = #nvfp4.recipe<exact>, nan = #nvfp4.nan<ignore>, sf_layout = #nvfp4.sf_layout<row_major>} : (tensor<32x48xf32>, tensor<f32>) -> (tensor<32x48xf4E2M1FN>, tensor<32x3xf8E4M3FN>)
  return %q, %sf : tensor<32x48xf4E2M1FN>, tensor<32x3xf8E4M3FN>
}

// -----

// Without a scale operand, a tensor one cluster holds in registers (here
// 64 x 64: 64 units of four blocks, one CTA) takes one kernel: each thread
// loads its units' vectors once and holds them packed (vector<4xi32>),
// keeps the running max of |x| per lane on the values' bits (NaN, above
// the infinity's bits, as 0), the CTA reduces it (shuffles and shared words),
// gs = min(2688 / amax, FLT_MAX) (1 for amax 0 or inf), and the threads
// quantize what they hold; the padding rows 64..127 get zero words.

// CHECK-LABEL: gpu.module @amax_quantize
// CHECK: memref.global "private" @cta_amax : memref<1xf32, #gpu.address_space<workgroup>> {alignment = 16 : i64}
// CHECK: gpu.func @amax_quantize(%{{.+}}: memref<1x64x64xbf16>, %{{.+}}: memref<1xf32>, %{{.+}}: memref<1x64x32xi8>, %{{.+}}: memref<512xi8>) kernel
// CHECK-SAME: grid = array<i32: 1, 1, 1>
// CHECK-SAME: reference = "nvfp4_quantize_amax"
// CHECK-NOT: nvvm.cluster
// CHECK: vector.bitcast %{{.+}} : vector<8xbf16> to vector<4xi32>
// CHECK: arith.andi %{{.+}} : vector<4xi32>
// CHECK: arith.cmpi ugt
// CHECK: arith.maxui %{{.+}} : vector<4xi32>
// CHECK: gpu.shuffle  xor
// CHECK: %[[Q:.+]] = arith.divf %cst{{.*}}, %[[AMAX:.+]] : f32
// CHECK: arith.minnumf %[[Q]]
// CHECK: arith.cmpf oeq, %[[AMAX]]
// CHECK: nvvm.convert.f32x2.to.f4x2
// CHECK: scf.for
// CHECK: vector.store %{{.+}} {alignment = 4 : i64} : memref<512xi8>, vector<4xi8>
func.func @amax(%x: tensor<64x64xbf16>) -> (tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) {
  %q, %sf, %gs = nvfp4.quantize %x : (tensor<64x64xbf16>) -> (tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>)
  return %q, %sf, %gs : tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>
}

// -----

// More units than one CTA's threads hold (160 x 512 bf16: 1280 units, 1024
// per CTA): a cluster of two; each CTA publishes its amax in shared
// memory, a cluster barrier, every CTA reads both through distributed
// shared memory, and a second cluster barrier before any CTA goes on.

// CHECK-LABEL: gpu.func @amax2_quantize
// CHECK-SAME: cluster = array<i32: 2, 1, 1>
// CHECK-SAME: grid = array<i32: 2, 1, 1>
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: memref.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cluster.arrive
// CHECK: nvvm.cluster.wait
// CHECK-COUNT-2: mapa.shared::cluster.u32 ra, $1, $2; ld.shared::cluster.f32 $0, [ra];
// CHECK: nvvm.cluster.arrive
// CHECK: nvvm.cluster.wait
func.func @amax2(%x: tensor<160x512xbf16>) -> (tensor<160x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<f32>) {
  %q, %sf, %gs = nvfp4.quantize %x : (tensor<160x512xbf16>) -> (tensor<160x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<f32>)
  return %q, %sf, %gs : tensor<160x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<f32>
}

// -----

// Larger than a cluster's registers (2200 x 512 bf16: 17600 units, more
// than 16 CTAs x 256 threads x 4): an amax kernel (each CTA's max of |x| to
// a workspace), then the quantize kernel, which reduces the partial amaxes;
// the input is read twice.

// CHECK-LABEL: gpu.module @amax_large_quantize
// CHECK: gpu.func @amax_large_quantize_amax(%{{.+}}: memref<1x2200x512xbf16>, %{{.+}}: memref<592xf32>) workgroup(%{{.+}} : memref<8xf32, #gpu.address_space<workgroup>>) kernel
// CHECK-SAME: grid = array<i32: 592, 1, 1>
// CHECK-SAME: reference = "nvfp4_quantize_amax"
// CHECK-SAME: then = [{args = [{buffer = "x"}, {buffer = "gs"}, {buffer = "data"}, {buffer = "sf"}, {buffer = "amax_partial"}], block = array<i32: 96, 1, 1>, grid = array<i32: 192, 1, 1>, kernel = "amax_large_quantize"}]
// CHECK-SAME: workspace = [{name = "amax_partial", shape = array<i64: 592>, type = "f32"}]
// CHECK: gpu.shuffle  xor
// CHECK: gpu.func @amax_large_quantize(
// CHECK: %[[Q:.+]] = arith.divf %cst{{.*}}, %[[AMAX:.+]] : f32
// CHECK: arith.minnumf %[[Q]]
// CHECK: arith.cmpf oeq, %[[AMAX]]
func.func @amax_large(%x: tensor<2200x512xbf16>) -> (tensor<2200x512xf4E2M1FN>, tensor<2304x32xf8E4M3FN>, tensor<f32>) {
  %q, %sf, %gs = nvfp4.quantize %x : (tensor<2200x512xbf16>) -> (tensor<2200x512xf4E2M1FN>, tensor<2304x32xf8E4M3FN>, tensor<f32>)
  return %q, %sf, %gs : tensor<2200x512xf4E2M1FN>, tensor<2304x32xf8E4M3FN>, tensor<f32>
}

// -----

// Dequantize: cvt.rn.f16x2.e2m1x2 and the e4m3 scale widened exactly,
// (code * SF) / gs with one IEEE division, rounded to the result type.

// CHECK-LABEL: gpu.func @dq_dequantize(%{{.+}}: memref<1x128x32xi8>, %{{.+}}: memref<512xi8>, %{{.+}}: memref<1xf32>, %{{.+}}: memref<1x128x64xbf16>) kernel
// CHECK-SAME: options = {round_to = 1 : i64, sf_layout = 0 : i64}, reference = "nvfp4_dequantize"
// CHECK: nvvm.convert.f8x2.to.f16x2
// CHECK: nvvm.convert.f4x2.to.f16x2 %{{.+}} : i8(f4E2M1FN) -> vector<2xf16>
// CHECK: %[[P:.+]] = arith.mulf
// CHECK: arith.divf %[[P]], %{{.+}} : f32
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @dq(%q: tensor<128x64xf4E2M1FN>, %sf: tensor<128x4xf8E4M3FN>, %gs: tensor<f32>) -> tensor<128x64xbf16> {
  %x = nvfp4.dequantize %q, %sf scale(%gs) : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<128x64xbf16>
  return %x : tensor<128x64xbf16>
}
