// nvfp4-opt registers our pipeline, passes and dialect next to upstream's.

// RUN: nvfp4-opt --help | FileCheck %s
// CHECK-DAG: {{ }}--nvfp4-sm100-to-cubin{{( |$)}}
// CHECK-DAG: {{ }}--sm100-plan-tmem{{( |$)}}
// CHECK-DAG: {{ }}--sm100-lower-warp-roles{{( |$)}}
// CHECK-DAG: {{ }}--convert-sm100-to-nvvm{{( |$)}}
// CHECK-DAG: {{ }}--nvfp4-serialize-gpu-modules{{( |$)}}
// Upstream passes are there too.
// CHECK-DAG: {{ }}--gpu-module-to-binary{{( |$)}}
// CHECK-DAG: {{ }}--convert-nvvm-to-llvm{{( |$)}}

// RUN: nvfp4-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// DIALECTS: Available Dialects:
// DIALECTS-SAME: {{[ ,]}}gpu,
// DIALECTS-SAME: {{[ ,]}}nvfp4,
// DIALECTS-SAME: {{[ ,]}}nvvm,
// DIALECTS-SAME: {{[ ,]}}sm100{{(,|$)}}
