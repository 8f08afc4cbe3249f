// nvfp4-lower-host: the host side of nvfp4.launch (docs/Host.md), after
// the kernel is built and the function bufferized. Checked: a tensor map per
// `tmap` parameter over the buffer seen with its view (reinterpret_cast,
// box outermost first, swizzle), buffers passed as they are, the scalar
// computed at compile time, scratch buffers allocated and freed around the
// launches, the combine kernel launched after the attention kernel, a
// cluster launch for CTA pairs, and the function's buffers in device memory.

// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-attention \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --nvfp4-lower-host | FileCheck %s

// An fp8 KV cache held as i8 (the DeepSeek-V4-Pro CSA layer): upstream's
// encoder would take i8 elements for bf16, so the runtime's own entry point
// is called with the data type explicit (U8 = 0), the box outermost first.
// RUN: nvfp4-opt %nvfp4_src/examples/dsv4_pro_csa_layer.mlir \
// RUN:   --nvfp4-lower-attention \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --nvfp4-lower-host | FileCheck %s --check-prefix=FP8
// FP8: func.func private @nvfp4TensorMapEncodeTiledMemref(memref<*xi8>, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
// FP8: %[[CACHE:.+]] = memref.cast %{{.+}} : memref<{{[0-9]+}}x{{[0-9]+}}xi8> to memref<*xi8>
// FP8: %[[BOX:.+]] = llvm.alloca %{{.+}} x i64
// FP8: %[[U8:.+]] = arith.constant 0 : i64
// FP8: call @nvfp4TensorMapEncodeTiledMemref(%[[CACHE]], %[[U8]], {{.+}}, %[[BOX]])
// FP8-NOT: nvgpu.tma.create.descriptor %{{.+}} : memref<*xi8>

// GQA prefill, causal: balanced split-KV over 148 SMs, then the combine.
// CHECK-LABEL: func.func @gqa
// CHECK-SAME: (%[[Q:.+]]: memref<2x128x8x128xbf16>, %[[K:.+]]: memref<2x256x2x128xbf16>, %[[V:.+]]: memref<2x256x2x128xbf16>)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-DAG: %[[O:.+]] = gpu.alloc () : memref<2x128x8x128xbf16>
// CHECK-DAG: %[[LSE:.+]] = gpu.alloc () : memref<2x8x128xf32>
// CHECK-DAG: %[[PO:.+]] = gpu.alloc () : memref<296x128x128xf32>
// CHECK-DAG: %[[PL:.+]] = gpu.alloc () : memref<296x128xf32>
// CHECK-DAG: %[[UR:.+]] = gpu.alloc () : memref<16x4xi32>
// CHECK: %[[QV:.+]] = memref.reinterpret_cast %[[Q]] to offset: [0], sizes: [256, 8, 128], strides: [1024, 128, 1] : memref<2x128x8x128xbf16> to memref<256x8x128xbf16>
// CHECK: %[[QU:.+]] = memref.cast %[[QV]] : memref<256x8x128xbf16> to memref<*xbf16>
// CHECK: %[[QD:.+]] = nvgpu.tma.create.descriptor %[[QU]] box[%{{.+}}, %{{.+}}, %{{.+}}] : memref<*xbf16> -> <tensor = memref<32x4x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
// CHECK: %[[QP:.+]] = builtin.unrealized_conversion_cast %[[QD]] : {{.+}} to !llvm.ptr
// CHECK: memref.reinterpret_cast %[[K]] to offset: [0], sizes: [512, 2, 128]
// CHECK: tensor = memref<128x1x64xbf16
// CHECK: memref.reinterpret_cast %[[V]] to offset: [0], sizes: [512, 2, 128]
// CHECK: tensor = memref<128x1x64xbf16
// CHECK: memref.reinterpret_cast %[[K]]
// CHECK: tensor = memref<16x1x64xbf16
// CHECK: memref.reinterpret_cast %[[V]]
// CHECK: tensor = memref<16x1x64xbf16
// softmax_scale * log2(e) = 0.125 * 1.4427
// CHECK: %[[SCALE:.+]] = arith.constant 0.180336878 : f32
// CHECK: %[[SMEM:.+]] = arith.constant 230400 : i32
// CHECK: gpu.launch_func @gqa_attention::@gqa_attention blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%{{.+}}, %{{.+}}, %{{.+}}) dynamic_shared_memory_size %[[SMEM]] args(%[[QP]] : !llvm.ptr, %{{.+}} : !llvm.ptr, %{{.+}} : !llvm.ptr, %{{.+}} : !llvm.ptr, %{{.+}} : !llvm.ptr, %[[O]] : memref<2x128x8x128xbf16>, %[[LSE]] : memref<2x8x128xf32>, %[[PO]] : memref<296x128x128xf32>, %[[PL]] : memref<296x128xf32>, %[[UR]] : memref<16x4xi32>, %[[SCALE]] : f32)
// CHECK: gpu.launch_func @gqa_attention::@gqa_attention_combine blocks in {{.+}} args(%[[O]] : memref<2x128x8x128xbf16>, %[[LSE]] : memref<2x8x128xf32>, %[[PO]] : memref<296x128x128xf32>, %[[PL]] : memref<296x128xf32>, %[[UR]] : memref<16x4xi32>)
// CHECK: gpu.dealloc %[[PO]]
// CHECK: gpu.dealloc %[[PL]]
// CHECK: gpu.dealloc %[[UR]]
// CHECK: return %[[O]], %[[LSE]]
// CHECK-NOT: nvfp4.launch
func.func @gqa(%q: tensor<2x128x8x128xbf16>, %k: tensor<2x256x2x128xbf16>,
               %v: tensor<2x256x2x128xbf16>)
    -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125) causal
      : (tensor<2x128x8x128xbf16>, tensor<2x256x2x128xbf16>,
         tensor<2x256x2x128xbf16>)
      -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>)
  return %o, %lse : tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>
}

// -----

// DeepSeek-V4 decode: K = V (one buffer), sink and lengths passed as
// buffers, CTA pairs launched as clusters of 2; O written into the caller's
// buffer (materialize_in_destination: a device-to-device copy).
// CHECK-LABEL: func.func @dsv4
// CHECK-SAME: (%[[Q:.+]]: memref<4x1x128x512xbf16>, %[[KV:.+]]: memref<4x4096x1x512xbf16>, %[[S:.+]]: memref<128xf32>, %[[L:.+]]: memref<4xi32>, %[[OUT:.+]]: memref<4x1x128x512xbf16>)
// CHECK: %[[O:.+]] = gpu.alloc () : memref<4x1x128x512xbf16>
// CHECK: memref.reinterpret_cast %[[KV]]
// CHECK: memref.reinterpret_cast %[[KV]]
// CHECK: gpu.launch_func @dsv4_attention::@dsv4_attention clusters in (%[[C2:.+]], %{{.+}}, %{{.+}}) blocks in
// CHECK-SAME: %[[L]] : memref<4xi32>, %[[S]] : memref<128xf32>
// CHECK: gpu.launch_func @dsv4_attention::@dsv4_attention_combine blocks in
// CHECK: gpu.memcpy %[[OUT]], %[[O]] : memref<4x1x128x512xbf16>, memref<4x1x128x512xbf16>
// CHECK-NOT: memref.copy
func.func @dsv4(%q: tensor<4x1x128x512xbf16>, %kv: tensor<4x4096x1x512xbf16>,
                %sink: tensor<128xf32>, %lens: tensor<4xi32>,
                %out: tensor<4x1x128x512xbf16>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%sink) kv_lens(%lens)
      softmax_scale(0.0441941738)
      : (tensor<4x1x128x512xbf16>, tensor<4x4096x1x512xbf16>,
         tensor<4x4096x1x512xbf16>, tensor<128xf32>, tensor<4xi32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  %r = bufferization.materialize_in_destination %o in %out
      : (tensor<4x1x128x512xbf16>, tensor<4x1x128x512xbf16>)
      -> tensor<4x1x128x512xbf16>
  return %r, %lse : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}
