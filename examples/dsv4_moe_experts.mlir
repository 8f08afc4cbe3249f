// DeepSeek-V4-Flash routed experts as NVFP4 x NVFP4 grouped GEMMs
// (hidden 4096, expert width 2048, 256 routed experts; 8 of them local to
// one GPU, as with expert parallelism over 32 GPUs). Both run on the
// emulator against float64 on the dequantized inputs:
//
//   build/bin/nvfp4-run --backend=emulator examples/dsv4_moe_experts.mlir --kernel=moe_decode_grouped_matmul
//   build/bin/nvfp4-run --backend=emulator examples/dsv4_moe_experts.mlir --kernel=moe_prefill_grouped_matmul
//
// The group sizes come from the harness (rt::fillGroupSizes: uneven, some
// experts empty); `python3 bench/moe.py` reports MMAs / minimum and SM fill.

// Decode: the gate/up projection W13 [E, 2 x 2048, 4096] over the masked
// layout DeepEP's low-latency dispatch produces ([E, max_m, hidden], at
// most 32 tokens per expert), bf16 out (before SiLU-and-mul).
func.func @moe_decode(%x: tensor<8x32x4096xf4E2M1FN>, %sfx: tensor<8x128x256xf8E4M3FN>, %gsx: tensor<8xf32>,
                      %w13: tensor<8x4096x4096xf4E2M1FN>, %sfw: tensor<8x4096x256xf8E4M3FN>, %gsw: tensor<8xf32>,
                      %counts: tensor<8xi32>) -> tensor<8x32x4096xbf16> {
  %h = nvfp4.grouped_scaled_matmul %x, %sfx, %gsx, %w13, %sfw, %gsw, %counts {layout = #nvfp4.group_layout<masked>}
      : (tensor<8x32x4096xf4E2M1FN>, tensor<8x128x256xf8E4M3FN>, tensor<8xf32>,
         tensor<8x4096x4096xf4E2M1FN>, tensor<8x4096x256xf8E4M3FN>, tensor<8xf32>,
         tensor<8xi32>) -> tensor<8x32x4096xbf16>
  return %h : tensor<8x32x4096xbf16>
}

// Prefill: the down projection W2 [E, 4096, 2048] over the contiguous
// layout (the tokens routed to the 8 experts, each expert's rows starting
// on a 128-row boundary, 1024 rows in all), bf16 out.
func.func @moe_prefill(%h: tensor<1024x2048xf4E2M1FN>, %sfh: tensor<1024x128xf8E4M3FN>, %gsh: tensor<8xf32>,
                       %w2: tensor<8x4096x2048xf4E2M1FN>, %sfw: tensor<8x4096x128xf8E4M3FN>, %gsw: tensor<8xf32>,
                       %sizes: tensor<8xi32>) -> tensor<1024x4096xbf16> {
  %y = nvfp4.grouped_scaled_matmul %h, %sfh, %gsh, %w2, %sfw, %gsw, %sizes
      : (tensor<1024x2048xf4E2M1FN>, tensor<1024x128xf8E4M3FN>, tensor<8xf32>,
         tensor<8x4096x2048xf4E2M1FN>, tensor<8x4096x128xf8E4M3FN>, tensor<8xf32>,
         tensor<8xi32>) -> tensor<1024x4096xbf16>
  return %y : tensor<1024x4096xbf16>
}
