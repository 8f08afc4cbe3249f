// nvfp4-lower-host with NVFP4 data (docs/Host.md): an f4E2M1FN buffer is
// allocated as its packed bytes (ui8, the innermost extent halved) and seen
// as f4E2M1FN through a memref descriptor built on the same pointer; the
// kernels get it, and the f8E4M3FN scale factors, as the i8 buffers they
// take; a copy of f4E2M1FN data copies the packed bytes.

// RUN: nvfp4-opt %s --nvfp4-lower-quantize \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --nvfp4-lower-host | FileCheck %s

// CHECK-LABEL: func.func @roundtrip(
// CHECK:         %[[PACKED:.*]] = gpu.alloc () : memref<128x128xui8>
// CHECK:         %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[PACKED]]
// CHECK:         %[[D:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<128x256xf4E2M1FN>
// CHECK:         %[[S:.*]] = gpu.alloc () : memref<128x16xf8E4M3FN>
// CHECK:         memref.extract_aligned_pointer_as_index %[[D]]
// CHECK:         %[[DK:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<1x128x128xi8>
// CHECK:         %[[SK:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<2048xi8>
// CHECK:         gpu.launch_func @roundtrip_quantize::@roundtrip_quantize {{.*}} args({{.*}}, %[[DK]] : memref<1x128x128xi8>, %[[SK]] : memref<2048xi8>)
// CHECK:         gpu.launch_func @roundtrip_dequantize::@roundtrip_dequantize {{.*}} args(%{{.*}} : memref<1x128x128xi8>, %{{.*}} : memref<2048xi8>,
// CHECK:         return %[[D]], %[[S]], %{{.*}} : memref<128x256xf4E2M1FN>, memref<128x16xf8E4M3FN>, memref<128x256xbf16>
func.func @roundtrip(%x: tensor<128x256xbf16>, %gs: tensor<f32>)
    -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>,
        tensor<128x256xbf16>) {
  %d, %s = nvfp4.quantize %x scale(%gs) : (tensor<128x256xbf16>,
      tensor<f32>) -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>)
  %y = nvfp4.dequantize %d, %s scale(%gs) : (tensor<128x256xf4E2M1FN>,
      tensor<128x16xf8E4M3FN>, tensor<f32>) -> tensor<128x256xbf16>
  return %d, %s, %y : tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>,
      tensor<128x256xbf16>
}

// The copy into the caller's buffer moves 128x128 bytes, and the temporary
// is freed as its packed allocation.
// CHECK-LABEL: func.func @quantize_into(
// CHECK:         %[[T:.*]] = gpu.alloc () : memref<128x128xui8>
// CHECK:         gpu.launch_func
// CHECK:         %[[FROM:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<128x128xui8>
// CHECK:         %[[TO:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<128x128xui8>
// CHECK:         gpu.memcpy %[[TO]], %[[FROM]] : memref<128x128xui8>, memref<128x128xui8>
// CHECK:         gpu.dealloc %[[T]] : memref<128x128xui8>
func.func @quantize_into(%x: tensor<128x256xbf16>, %gs: tensor<f32>,
                         %into: tensor<128x256xf4E2M1FN>)
    -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>) {
  %d, %s = nvfp4.quantize %x scale(%gs) : (tensor<128x256xbf16>,
      tensor<f32>) -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>)
  %r = bufferization.materialize_in_destination %d in %into
      : (tensor<128x256xf4E2M1FN>, tensor<128x256xf4E2M1FN>)
      -> tensor<128x256xf4E2M1FN>
  return %r, %s : tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>
}
