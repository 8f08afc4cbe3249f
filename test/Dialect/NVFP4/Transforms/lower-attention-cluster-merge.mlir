// The sm_90a cluster merge (docs/Hopper.md, "The cluster merge"): a plan
// made at compile time whose units are alike is split uniformly, N pieces
// a unit, one a CTA of an N-CTA cluster, and the cluster merges them
// through distributed shared memory instead of a combine kernel.
// RUN: nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90a num-sms=132" | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90a num-sms=132 cluster-merge=0" | FileCheck %s --check-prefix=OFF
// RUN: nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90a num-sms=132 cluster-merge=2" | FileCheck %s --check-prefix=TWO
// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="chip=sm_90a num-sms=132 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: nvfp4-opt %s --nvfp4-lower-attention="chip=sm_100a num-sms=148" | FileCheck %s --check-prefix=SM100

// GQA 64 / 8, D 128, B 1, 1024 keys: 8 units of 8 tiles; min(8, 132 /
// 16, 8 tiles) = 8 pieces a unit (min-piece-keys is the combine's floor,
// not the merge's), 64 CTAs in clusters of 8.
// CHECK-LABEL: gpu.module @b1_decode_attention
// CHECK: gpu.func @b1_decode_attention(
// CHECK-SAME: cluster = array<i32: 8, 1, 1>
// CHECK-SAME: grid = array<i32: 64, 1, 1>
// CHECK-SAME: cluster_merge = 8 : i64
// CHECK-SAME: partitions = 64 : i64
// CHECK-SAME: split = "uniform"
// CHECK-SAME: splits_per_unit = 8 : i64
// Every tile is loaded whole (1024 keys, pieces of one tile): the
// prologue zeroes no V tile and fences nothing for the TMA.
// CHECK-SAME: zero_v = 0 : i64
// CHECK-SAME: nvvm.cluster_dim = array<i32: 8, 1, 1>
// CHECK-NOT: nvvm.fence.proxy
// CHECK: sm100.warp_roles
// The consumers wait for each other before writing the merge buffer over
// the stages, then cluster barriers around the merge.
// CHECK: llvm.inline_asm has_side_effects {{.*}}"bar.sync 8, 128;", "~{memory}"
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: nvvm.mapa {{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.load {{.*}} : !llvm.ptr<7> -> f32
// CHECK: llvm.load {{.*}} : !llvm.ptr<7> -> vector<4xf32>
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// No workspace, no combine kernel.
// CHECK-NOT: _combine
// CHECK-NOT: partial_o

// OFF: gpu.func @b1_decode_attention(
// OFF-SAME: split = "balanced"
// OFF-NOT: nvvm.cluster_dim
// OFF: gpu.func @b1_decode_attention_combine(

// TWO: cluster_merge = 2 : i64
// TWO-SAME: partitions = 16 : i64
// TWO-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>

// PTX: .explicitcluster
// PTX-SAME: .reqnctapercluster 8, 1, 1
// PTX-SAME: bar.sync 8, 128;
// PTX-SAME: barrier.cluster.arrive.aligned;
// PTX-SAME: barrier.cluster.wait.aligned;
// PTX-SAME: mapa.shared::cluster
// PTX-SAME: ld.shared::cluster.v4.b32
// PTX-SAME: barrier.cluster.arrive.aligned;
// PTX-SAME: barrier.cluster.wait.aligned;
// PTX-NOT: b1_decode_attention_combine

// SM100 keeps the combine kernel.
// SM100-NOT: cluster_merge
// SM100: gpu.func @b1_decode_attention_combine(
func.func @b1_decode(%q: tensor<1x1x64x128xbf16>, %k: tensor<1x1024x8x128xbf16>, %v: tensor<1x1024x8x128xbf16>) -> (tensor<1x1x64x128xbf16>, tensor<1x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.0883883476)
      : (tensor<1x1x64x128xbf16>, tensor<1x1024x8x128xbf16>, tensor<1x1024x8x128xbf16>) -> (tensor<1x1x64x128xbf16>, tensor<1x64x1xf32>)
  return %o, %lse : tensor<1x1x64x128xbf16>, tensor<1x64x1xf32>
}

// B 2: 16 units; 8 pieces a unit would fill 128 of the 132 SMs, so the
// plan cuts 4 (at most half of the SMs: 132 / 32).
// CHECK-LABEL: gpu.module @b2_decode_attention
// CHECK: gpu.func @b2_decode_attention(
// CHECK-SAME: cluster = array<i32: 4, 1, 1>
// CHECK-SAME: grid = array<i32: 64, 1, 1>
// CHECK-SAME: cluster_merge = 4 : i64
// CHECK-NOT: gpu.func @b2_decode_attention_combine(
func.func @b2_decode(%q: tensor<2x1x64x128xbf16>, %k: tensor<2x1024x8x128xbf16>, %v: tensor<2x1024x8x128xbf16>) -> (tensor<2x1x64x128xbf16>, tensor<2x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.0883883476)
      : (tensor<2x1x64x128xbf16>, tensor<2x1024x8x128xbf16>, tensor<2x1024x8x128xbf16>) -> (tensor<2x1x64x128xbf16>, tensor<2x64x1xf32>)
  return %o, %lse : tensor<2x1x64x128xbf16>, tensor<2x64x1xf32>
}

// One sequence with kv_lens: its units are alike at any length, so the
// cluster merge is chosen for Skv keys.
// CHECK-LABEL: gpu.module @one_lens_attention
// CHECK: cluster_merge = 8 : i64
// CHECK-NOT: gpu.func @one_lens_attention_combine(
func.func @one_lens(%q: tensor<1x1x64x128xbf16>, %k: tensor<1x1024x8x128xbf16>, %v: tensor<1x1024x8x128xbf16>, %l: tensor<1xi32>) -> (tensor<1x1x64x128xbf16>, tensor<1x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v kv_lens(%l) softmax_scale(0.0883883476)
      : (tensor<1x1x64x128xbf16>, tensor<1x1024x8x128xbf16>, tensor<1x1024x8x128xbf16>, tensor<1xi32>) -> (tensor<1x1x64x128xbf16>, tensor<1x64x1xf32>)
  return %o, %lse : tensor<1x1x64x128xbf16>, tensor<1x64x1xf32>
}

// Two sequences with kv_lens (a plan made on the device, lengths that
// differ) keep the balanced plan and the combine kernel.
// CHECK-LABEL: gpu.module @with_lens_attention
// CHECK-NOT: cluster_merge
// CHECK: zero_v = 1 : i64
// CHECK: gpu.func @with_lens_attention_combine(
func.func @with_lens(%q: tensor<2x1x64x128xbf16>, %k: tensor<2x1024x8x128xbf16>, %v: tensor<2x1024x8x128xbf16>, %l: tensor<2xi32>) -> (tensor<2x1x64x128xbf16>, tensor<2x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v kv_lens(%l) softmax_scale(0.0883883476)
      : (tensor<2x1x64x128xbf16>, tensor<2x1024x8x128xbf16>, tensor<2x1024x8x128xbf16>, tensor<2xi32>) -> (tensor<2x1x64x128xbf16>, tensor<2x64x1xf32>)
  return %o, %lse : tensor<2x1x64x128xbf16>, tensor<2x64x1xf32>
}
