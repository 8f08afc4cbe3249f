// One-shot bufferization of nvfp4 ops (docs/Host.md): an op whose kernel
// is built becomes nvfp4.launch of it, its operands read in place (no
// copies, even of a value used twice), each result a new buffer.

// RUN: nvfp4-opt %s --nvfp4-lower-attention \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @dsv4
// CHECK-SAME: (%[[Q:.+]]: memref<4x1x128x512xbf16>, %[[KV:.+]]: memref<4x4096x1x512xbf16>, %[[S:.+]]: memref<128xf32>, %[[L:.+]]: memref<4xi32>)
// CHECK-NEXT: %[[O:.+]] = memref.alloc() {{.*}}: memref<4x1x128x512xbf16>
// CHECK-NEXT: %[[LSE:.+]] = memref.alloc() {{.*}}: memref<4x128x1xf32>
// CHECK-NEXT: nvfp4.launch @dsv4_attention::@dsv4_attention ins(%[[Q]], %[[KV]], %[[KV]], %[[S]], %[[L]] : memref<4x1x128x512xbf16>, memref<4x4096x1x512xbf16>, memref<4x4096x1x512xbf16>, memref<128xf32>, memref<4xi32>) outs(%[[O]], %[[LSE]] : memref<4x1x128x512xbf16>, memref<4x128x1xf32>)
// CHECK-NEXT: return %[[O]], %[[LSE]]
// The kernel names the op's operands and results for the host lowering.
// CHECK: gpu.func @dsv4_attention
// CHECK-SAME: operands = ["q", "k", "v", "sink", "kv_lens"]
// CHECK-SAME: results = ["o", "lse"]
func.func @dsv4(%q: tensor<4x1x128x512xbf16>, %kv: tensor<4x4096x1x512xbf16>,
                %sink: tensor<128xf32>, %lens: tensor<4xi32>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%sink) kv_lens(%lens)
      softmax_scale(0.0441941738)
      : (tensor<4x1x128x512xbf16>, tensor<4x4096x1x512xbf16>,
         tensor<4x4096x1x512xbf16>, tensor<128xf32>, tensor<4xi32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  return %o, %lse : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}
