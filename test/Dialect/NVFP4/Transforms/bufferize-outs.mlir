// The matmuls' outs(%init) in one-shot bufferization (docs/Host.md): the
// kernel writes into init's buffer, in place when nothing reads init
// afterwards, else into a copy; a dense matmul overwrites all of init, so
// its copy is a fresh buffer with nothing copied in, while the grouped one
// keeps the rows outside its groups and copies init first.

// RUN: nvfp4-opt %s --nvfp4-lower-scaled-matmul \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @dense_in_place(
// CHECK-SAME:    %[[D0:[a-z0-9]+]]: memref<128x64xf32>) -> memref<128x64xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         nvfp4.launch @dense_in_place_matmul::@dense_in_place_matmul ins({{.*}}) outs(%[[D0]] : memref<128x64xf32>)
// CHECK-NEXT:    return %[[D0]]
func.func @dense_in_place(%a: tensor<128x64xf4E2M1FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x64xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>, %d0: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g outs(%d0) : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf32>) -> tensor<128x64xf32>
  return %d : tensor<128x64xf32>
}

// init read afterwards (returned too): the dense kernel gets a new buffer,
// nothing copied into it.
// CHECK-LABEL: func.func @dense_init_kept(
// CHECK-SAME:    %[[D0:[a-z0-9]+]]: memref<128x64xf32>)
// CHECK:         %[[NEW:.*]] = memref.alloc() {{.*}} : memref<128x64xf32>
// CHECK-NOT:     memref.copy
// CHECK:         nvfp4.launch {{.*}} outs(%[[NEW]] : memref<128x64xf32>)
// CHECK-NEXT:    return %[[NEW]], %[[D0]]
func.func @dense_init_kept(%a: tensor<128x64xf4E2M1FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x64xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>, %d0: tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>) {
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g outs(%d0) : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf32>) -> tensor<128x64xf32>
  return %d, %d0 : tensor<128x64xf32>, tensor<128x64xf32>
}

// The grouped op with init read afterwards: init copied, then the kernel
// writes the groups' rows into the copy.
// CHECK-LABEL: func.func @grouped_init_kept(
// CHECK-SAME:    %[[D0:[a-z0-9]+]]: memref<256x64xf32>)
// CHECK:         %[[NEW:.*]] = memref.alloc() {{.*}} : memref<256x64xf32>
// CHECK:         memref.copy %[[D0]], %[[NEW]]
// CHECK:         nvfp4.launch {{.*}} outs(%[[NEW]] : memref<256x64xf32>)
// CHECK-NEXT:    return %[[NEW]], %[[D0]]
func.func @grouped_init_kept(%a: tensor<256x64xf4E2M1FN>, %sfa: tensor<256x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x64xf4E2M1FN>, %sfb: tensor<4x128x4xf8E4M3FN>, %n: tensor<4xi32>, %d0: tensor<256x64xf32>) -> (tensor<256x64xf32>, tensor<256x64xf32>) {
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n outs(%d0) : (tensor<256x64xf4E2M1FN>, tensor<256x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x64xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>, tensor<256x64xf32>) -> tensor<256x64xf32>
  return %d, %d0 : tensor<256x64xf32>, tensor<256x64xf32>
}
