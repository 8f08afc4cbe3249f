// nvfp4-lower-host and NVFP4 data (docs/Host.md): an f4E2M1FN buffer is
// the packed bytes of a u8 tensor of the kernel, two e2m1 values a byte;
// anything else is refused at the op, naming the tensor. Hand-written
// launches of a merge kernel whose harness says what each tensor is.

// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics --nvfp4-lower-host

// NVFP4 data for an f32 tensor.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<1x1x1x4xf32>) kernel attributes {nvfp4.harness = {
        reference = "attention_merge", operands = ["o1"], results = ["o"],
        sizes = {b = 1 : i64, sq = 1 : i64, hq = 1 : i64, dv = 4 : i64},
        types = {o1 = "f32", lse1 = "f32", o2 = "f32", lse2 = "f32", o = "f32", lse = "f32"},
        absent = ["sink"], grid = array<i32: 1>, block = array<i32: 32>,
        args = [{buffer = "o1"}]}} {
      gpu.return
    }
  }
  func.func @fp4_for_f32(%x: memref<8xf4E2M1FN>, %y: memref<4xf32>) {
    // expected-error @+1 {{'nvfp4.launch' op expects the f4E2M1FN buffer of 'o1' to be a u8 tensor of the kernel with an even innermost extent (two e2m1 values a byte), found 'memref<8xf4E2M1FN>' for a f32 tensor}}
    nvfp4.launch @m::@k ins(%x : memref<8xf4E2M1FN>) outs(%y : memref<4xf32>)
    return
  }
}

// -----

// An odd innermost extent: the last byte would hold half a value.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<1x1x1x3xi8>) kernel attributes {nvfp4.harness = {
        reference = "attention_merge", operands = ["o1"], results = ["o"],
        sizes = {b = 1 : i64, sq = 1 : i64, hq = 1 : i64, dv = 3 : i64},
        types = {o1 = "u8", lse1 = "f32", o2 = "f32", lse2 = "f32", o = "f32", lse = "f32"},
        absent = ["sink"], grid = array<i32: 1>, block = array<i32: 32>,
        args = [{buffer = "o1"}]}} {
      gpu.return
    }
  }
  func.func @odd(%x: memref<3xf4E2M1FN>, %y: memref<3xf32>) {
    // expected-error @+1 {{'nvfp4.launch' op expects the f4E2M1FN buffer of 'o1' to be a u8 tensor of the kernel with an even innermost extent (two e2m1 values a byte), found 'memref<3xf4E2M1FN>' for a u8 tensor}}
    nvfp4.launch @m::@k ins(%x : memref<3xf4E2M1FN>) outs(%y : memref<3xf32>)
    return
  }
}

// -----

// Twice the kernel tensor's bytes.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<1x1x1x4xi8>) kernel attributes {nvfp4.harness = {
        reference = "attention_merge", operands = ["o1"], results = ["o"],
        sizes = {b = 1 : i64, sq = 1 : i64, hq = 1 : i64, dv = 4 : i64},
        types = {o1 = "u8", lse1 = "f32", o2 = "f32", lse2 = "f32", o = "f32", lse = "f32"},
        absent = ["sink"], grid = array<i32: 1>, block = array<i32: 32>,
        args = [{buffer = "o1"}]}} {
      gpu.return
    }
  }
  func.func @too_big(%x: memref<16xf4E2M1FN>, %y: memref<4xf32>) {
    // expected-error @+1 {{'nvfp4.launch' op expects the buffer of 'o1' to hold 4 u8 elements, found 'memref<16xf4E2M1FN>'}}
    nvfp4.launch @m::@k ins(%x : memref<16xf4E2M1FN>) outs(%y : memref<4xf32>)
    return
  }
}
