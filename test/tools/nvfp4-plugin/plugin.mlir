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

// Every nvfp4 pass and pipeline is an ordinary mlir-opt flag once the
// plugin is loaded (given after the plugin option), its value the pass's
// options; the flags run in order, as one --pass-pipeline.
// RUN: mlir-opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext %s \
// RUN:   --nvfp4-lower-attention | FileCheck %s --check-prefix=LOWER
// LOWER: gpu.module @attention_attention
// LOWER: gpu.func @attention_attention
// RUN: mlir-opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext %s \
// RUN:   --nvfp4-lower-attention="num-sms=3" --sm100-plan-tmem \
// RUN:   | FileCheck %s --check-prefix=OPTS
// OPTS: num_sms = 3
// OPTS-SAME: sm100.tmem_columns = 512
// RUN: mlir-opt --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext %s \
// RUN:   --nvfp4-sm100-to-cubin="format=isa ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: .target sm_100a
// PTX: .entry attention_attention
// Mixing them with mlir-opt's own pass flags, or with --pass-pipeline, is
// an error that says so.
// RUN: not mlir-opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   %s --canonicalize --nvfp4-lower-attention 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MIXED
// MIXED: '-pass-pipeline' option can't be used with individual pass options
// RUN: not mlir-opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   %s --pass-pipeline="builtin.module(canonicalize)" \
// RUN:   --nvfp4-lower-attention 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: NVFP4Plugin: --nvfp4-lower-attention cannot be combined with --pass-pipeline
// RUN: not mlir-opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   %s --nvfp4-lower-attention="bogus=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADOPT
// BADOPT: no such option bogus
// The plugin's flags are exactly nvfp4-opt's nvfp4 passes and pipelines.
// RUN: nvfp4-opt --help > %t.opt.txt
// RUN: mlir-opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --help > %t.plugin.txt
// RUN: %python -c "import re, sys; ours = lambda t: set(re.findall(r'^ +--((?:nvfp4|sm100|convert-sm100)[a-z0-9-]*)\b', t, re.M)); opt = ours(open(sys.argv[1], errors='replace').read()); text = open(sys.argv[2], errors='replace').read(); plugin = ours(text[text.index('nvfp4 passes (NVFP4Plugin):'):]); print(sorted(opt ^ plugin) or 'same', len(opt)); sys.exit(opt != plugin)" %t.opt.txt %t.plugin.txt | FileCheck %s --check-prefix=SAME
// SAME: same 12

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
// The whole-function pipeline in upstream mlir-opt: kernels and host code
// down to the LLVM dialect, with the C interface.
// RUN: mlir-opt --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   %nvfp4_src/examples/dsv4_decode.mlir --nvfp4-to-llvm \
// RUN:   | FileCheck %s --check-prefix=HOST
// HOST-DAG: gpu.binary @dsv4_decode_attention
// HOST-DAG: llvm.func @_mlir_ciface_dsv4_decode(
// HOST-DAG: @dsv4_decode_attention::@dsv4_decode_attention clusters in
