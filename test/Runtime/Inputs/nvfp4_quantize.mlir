// nvfp4.quantize and nvfp4.dequantize in every variant, one function each
// (test/Runtime/nvfp4-quantize.test runs each kernel with --kernel).
// M and K are not multiples of the 128 x 64 swizzle atom: the scale-factor
// padding (rows 200..255, blocks 20..23) must come out zero.

// The engines' recipe (fast, NaN propagated, swizzled scale factors).
func.func @q_bf16(%x: tensor<200x320xbf16>, %gs: tensor<f32>) -> (tensor<200x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>) {
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<200x320xbf16>, tensor<f32>) -> (tensor<200x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>)
  return %q, %sf : tensor<200x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>
}

// f16 input, NaN ignored (TensorRT-LLM's bytes), row-major scale factors.
func.func @q_f16_ignore_rowmajor(%x: tensor<96x208xf16>, %gs: tensor<f32>) -> (tensor<96x208xf4E2M1FN>, tensor<96x13xf8E4M3FN>) {
  %q, %sf = nvfp4.quantize %x scale(%gs) {nan = #nvfp4.nan<ignore>, sf_layout = #nvfp4.sf_layout<row_major>} : (tensor<96x208xf16>, tensor<f32>) -> (tensor<96x208xf4E2M1FN>, tensor<96x13xf8E4M3FN>)
  return %q, %sf : tensor<96x208xf4E2M1FN>, tensor<96x13xf8E4M3FN>
}

// f32 input, Transformer Engine's exact recipe, a batch of 3.
func.func @q_f32_exact_batched(%x: tensor<3x130x64xf32>, %gs: tensor<f32>) -> (tensor<3x130x64xf4E2M1FN>, tensor<3x256x4xf8E4M3FN>) {
  %q, %sf = nvfp4.quantize %x scale(%gs) {recipe = #nvfp4.recipe<exact>} : (tensor<3x130x64xf32>, tensor<f32>) -> (tensor<3x130x64xf4E2M1FN>, tensor<3x256x4xf8E4M3FN>)
  return %q, %sf : tensor<3x130x64xf4E2M1FN>, tensor<3x256x4xf8E4M3FN>
}

// The tensor scale computed from the amax: a tensor one cluster holds in
// registers (160 x 512 bf16: 1280 units of 64 values, 2 CTAs of 1024; an
// f16 one; an f32 one of 3 batches, 6 CTAs of 512) is read once by the
// resident kernel; a larger one (2200 x 512: 17600 units, past the 16384 of
// 16 CTAs) takes two kernels, the amax kernel and the quantize kernel, and
// reads the input twice.
func.func @q_amax(%x: tensor<160x512xbf16>) -> (tensor<160x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<f32>) {
  %q, %sf, %gs = nvfp4.quantize %x : (tensor<160x512xbf16>) -> (tensor<160x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<f32>)
  return %q, %sf, %gs : tensor<160x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<f32>
}

func.func @q_amax_f16(%x: tensor<130x320xf16>) -> (tensor<130x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>, tensor<f32>) {
  %q, %sf, %gs = nvfp4.quantize %x : (tensor<130x320xf16>) -> (tensor<130x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>, tensor<f32>)
  return %q, %sf, %gs : tensor<130x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>, tensor<f32>
}

func.func @q_amax_f32_batched(%x: tensor<3x200x320xf32>) -> (tensor<3x200x320xf4E2M1FN>, tensor<3x200x20xf8E4M3FN>, tensor<f32>) {
  %q, %sf, %gs = nvfp4.quantize %x {sf_layout = #nvfp4.sf_layout<row_major>} : (tensor<3x200x320xf32>) -> (tensor<3x200x320xf4E2M1FN>, tensor<3x200x20xf8E4M3FN>, tensor<f32>)
  return %q, %sf, %gs : tensor<3x200x320xf4E2M1FN>, tensor<3x200x20xf8E4M3FN>, tensor<f32>
}

func.func @q_amax_large(%x: tensor<2200x512xbf16>) -> (tensor<2200x512xf4E2M1FN>, tensor<2304x32xf8E4M3FN>, tensor<f32>) {
  %q, %sf, %gs = nvfp4.quantize %x : (tensor<2200x512xbf16>) -> (tensor<2200x512xf4E2M1FN>, tensor<2304x32xf8E4M3FN>, tensor<f32>)
  return %q, %sf, %gs : tensor<2200x512xf4E2M1FN>, tensor<2304x32xf8E4M3FN>, tensor<f32>
}

func.func @dq_bf16(%q: tensor<200x320xf4E2M1FN>, %sf: tensor<256x20xf8E4M3FN>, %gs: tensor<f32>) -> tensor<200x320xbf16> {
  %x = nvfp4.dequantize %q, %sf scale(%gs) : (tensor<200x320xf4E2M1FN>, tensor<256x20xf8E4M3FN>, tensor<f32>) -> tensor<200x320xbf16>
  return %x : tensor<200x320xbf16>
}

func.func @dq_f32_rowmajor_batched(%q: tensor<2x40x96xf4E2M1FN>, %sf: tensor<2x40x6xf8E4M3FN>, %gs: tensor<f32>) -> tensor<2x40x96xf32> {
  %x = nvfp4.dequantize %q, %sf scale(%gs) {sf_layout = #nvfp4.sf_layout<row_major>} : (tensor<2x40x96xf4E2M1FN>, tensor<2x40x6xf8E4M3FN>, tensor<f32>) -> tensor<2x40x96xf32>
  return %x : tensor<2x40x96xf32>
}

func.func @dq_f16(%q: tensor<128x64xf4E2M1FN>, %sf: tensor<128x4xf8E4M3FN>, %gs: tensor<f32>) -> tensor<128x64xf16> {
  %x = nvfp4.dequantize %q, %sf scale(%gs) : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<128x64xf16>
  return %x : tensor<128x64xf16>
}
