// Targets the NVFP4 kernels cannot be built for are diagnosed instead of
// crashing LLVM's instruction selection (found by scripts/fuzz-opt.py
// --seed 61): the e2m1 conversions need an sm_100a-family chip, the
// block16 MMAs PTX ISA 8.8, and a PTX version LLVM 22 does not know would
// be ignored (and fall back to the chip's default).
// RUN: not nvfp4-opt %s -split-input-file --nvfp4-sm100-to-cubin="chip=sm_80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// SM80: error: 'nvvm.convert.f32x2.to.f4x2' op needs an sm_100a-family chip (cvt with .e2m1x2), got sm_80
// RUN: not nvfp4-opt %s -split-input-file --nvfp4-sm100-to-cubin="chip=sm_100" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM100
// SM100: error: 'nvvm.convert.f32x2.to.f4x2' op needs an sm_100a-family chip (cvt with .e2m1x2), got sm_100
// RUN: not nvfp4-opt %s -split-input-file --nvfp4-sm100-to-cubin="features=+ptx99" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTX99
// PTX99: error: nvfp4-sm100-to-cubin: PTX ISA 9.9 is not known to the LLVM 22 NVPTX back end: expected +ptx90 or older in features, got '+ptx99'
// RUN: not nvfp4-opt %s -split-input-file --nvfp4-sm100-to-cubin="features=+ptx86" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTX86
// PTX86: error: 'nvvm.tcgen05.mma.block_scale' op needs PTX ISA 8.8 (the .block16 / .block32 forms): expected +ptx88 or newer in features, got '+ptx86'
// A function name that is no PTX identifier names its kernels with '_'.
// RUN: nvfp4-opt %s -split-input-file --nvfp4-sm100-to-cubin="stop-after=attention" | FileCheck %s --check-prefix=NAME
// NAME: gpu.module @q__quantize
// NAME: gpu.module @q__matmul

func.func @"q}"(%x: tensor<128x64xbf16>, %gs: tensor<f32>) -> (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>) {
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<128x64xbf16>, tensor<f32>) -> (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>)
  return %q, %sf : tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>
}

// -----

func.func @"q}"(%q: tensor<128x64xf4E2M1FN>, %sf: tensor<128x4xf8E4M3FN>, %gs: tensor<f32>) -> tensor<128x128xf32> {
  %d = nvfp4.scaled_matmul %q, %sf, %gs, %q, %sf, %gs : (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}
