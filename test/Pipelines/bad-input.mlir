// Bad pipeline options and inputs that upstream LLVM would crash or abort on
// get a diagnostic and a non-zero exit (found by scripts/fuzz-opt.py).
//
// RUN: not nvfp4-opt %s --nvfp4-sm100-to-cubin="chip=" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not nvfp4-opt %s --nvfp4-sm100-to-cubin="features=+ptx60" 2>&1 | FileCheck %s --check-prefix=PTX60
// RUN: not nvfp4-opt %s --nvfp4-sm100-to-cubin="features=bogus" 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not nvfp4-opt %s --nvfp4-sm100-to-cubin="opt-level=7" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not nvfp4-opt %S/Inputs/target-ptx60.mlir --nvfp4-serialize-gpu-modules 2>&1 | FileCheck %s --check-prefix=MODULE-PTX60
// RUN: not nvfp4-opt %S/Inputs/non-llvm-element.mlir --nvfp4-serialize-gpu-modules="format=isa" 2>&1 | FileCheck %s --check-prefix=ELEMENT
// RUN: not nvfp4-opt %S/Inputs/scalable-element.mlir --nvfp4-serialize-gpu-modules="format=isa" 2>&1 | FileCheck %s --check-prefix=SCALABLE
// RUN: not nvfp4-opt %S/Inputs/non-llvm-element.mlir --nvfp4-serialize-gpu-modules="toolkit=%t.no-such-dir" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not nvfp4-opt %s --convert-sm100-to-nvvm 2>&1 | FileCheck %s --check-prefix=ROLES
// RUN: not nvfp4-opt %S/Inputs/op-at-module-level.mlir --nvfp4-sm100-to-cubin 2>&1 | FileCheck %s --check-prefix=TOPLEVEL

// CHIP: error: nvfp4-sm100-to-cubin: expected chip to be sm_<digits>[a|f] (e.g. sm_100a), got ''
// PTX60: error: nvfp4-sm100-to-cubin: chip sm_100a needs PTX ISA 8.6 or newer: expected +ptx86 or newer in features, got '+ptx60'
// FEATURES: error: nvfp4-sm100-to-cubin: expected features to be a comma-separated list of +name or -name, got 'bogus'
// OPT: error: nvfp4-sm100-to-cubin: expected opt-level in [0, 3], got 7
// MODULE-PTX60: error: nvfp4-serialize-gpu-modules: chip sm_100a needs PTX ISA 8.6 or newer
// ELEMENT: error: 'llvm.getelementptr' op cannot be translated to LLVM IR for NVPTX: type 'f8E4M3FN' is not an LLVM type (or is a scalable vector)
// SCALABLE: error: 'llvm.getelementptr' op cannot be translated to LLVM IR for NVPTX: type 'vector<[4]xf32>'
// TOOLKIT: error: nvfp4-serialize-gpu-modules: no ptxas at '{{.*}}no-such-dir/bin/ptxas' (set toolkit= to a CUDA 13 toolkit)
// TOPLEVEL: error: 'nvvm.tcgen05.fence' op cannot sit directly in a gpu.module that is translated to LLVM IR (expected functions and globals only)
// ROLES: error: 'sm100.warp_roles' op must be lowered by sm100-lower-warp-roles before convert-sm100-to-nvvm

gpu.module @k {
  gpu.func @f() kernel {
    sm100.warp_roles 1 {
      sm100.role "a" warps [0, 1) {
      }
    }
    gpu.return
  }
}
