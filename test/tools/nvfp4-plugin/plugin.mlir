// NVFP4Plugin loads our dialect and passes into Debian's mlir-opt, which
// shares libMLIR.so with it.

// Without the plugin, mlir-opt has no nvfp4 or sm100 dialect and no sm100
// passes.
// RUN: mlir-opt --show-dialects | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: Available Dialects:
// NOPLUGIN-NOT: {{[ ,]}}nvfp4{{(,|$)}}
// NOPLUGIN-NOT: sm100

// RUN: mlir-opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --show-dialects | FileCheck %s --check-prefix=DIALECT
// DIALECT: Available Dialects:
// DIALECT-SAME: {{[ ,]}}nvfp4,
// DIALECT-SAME: {{[ ,]}}sm100{{(,|$)}}

// RUN: mlir-opt --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext --help \
// RUN:   | FileCheck %s --check-prefix=PASSES
// PASSES-DAG: {{ }}--sm100-plan-tmem{{( |$)}}
// PASSES-DAG: {{ }}--convert-sm100-to-nvvm{{( |$)}}
// PASSES-DAG: {{ }}--nvfp4-sm100-to-cubin{{( |$)}}

// The nvfp4 dialect's ops parse, verify and print in mlir-opt.
// RUN: mlir-opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext %s \
// RUN:   | FileCheck %s --check-prefix=ATTN
// ATTN-LABEL: func.func @attention
// ATTN: nvfp4.attention %{{.+}}, %{{.+}}, %{{.+}} softmax_scale(1.250000e-01) causal :
func.func @attention(%q: tensor<1x4x8x64xbf16>, %kv: tensor<1x32x1x64xbf16>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv softmax_scale(0.125) causal
      : (tensor<1x4x8x64xbf16>, tensor<1x32x1x64xbf16>, tensor<1x32x1x64xbf16>)
      -> (tensor<1x4x8x64xbf16>, tensor<1x8x4xf32>)
  return
}
