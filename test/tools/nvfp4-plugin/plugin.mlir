// NVFP4Plugin loads our dialect and passes into Debian's mlir-opt, which
// shares libMLIR.so with it.

// Without the plugin, mlir-opt has no sm100 dialect and no sm100 passes.
// RUN: mlir-opt --show-dialects | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: Available Dialects:
// NOPLUGIN-NOT: sm100

// RUN: mlir-opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --show-dialects | FileCheck %s --check-prefix=DIALECT
// DIALECT: Available Dialects:
// DIALECT-SAME: {{[ ,]}}sm100{{(,|$)}}

// RUN: mlir-opt --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext --help \
// RUN:   | FileCheck %s --check-prefix=PASSES
// PASSES-DAG: {{ }}--sm100-plan-tmem{{( |$)}}
// PASSES-DAG: {{ }}--convert-sm100-to-nvvm{{( |$)}}
// PASSES-DAG: {{ }}--nvfp4-sm100-to-cubin{{( |$)}}
