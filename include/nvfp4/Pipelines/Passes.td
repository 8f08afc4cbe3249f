//===- Passes.td - nvfp4 pipeline passes -------------------*- tablegen -*-===//

#ifndef NVFP4_PIPELINES_PASSES_TD
#define NVFP4_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def NVFP4SerializeGpuModules : Pass<"nvfp4-serialize-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "compile gpu.modules to binaries and write PTX and cubin files";
  let description = [{
    Serializes every `gpu.module` through its target attribute (for
    `#nvvm.target`: LLVM's NVPTX backend, then CUDA's ptxas), writes the PTX
    and the cubin to the requested files, and replaces the module with a
    `gpu.binary` of the requested format, as upstream `gpu-module-to-binary`
    does (which it calls). With several gpu.modules, each file name gets the
    module's name inserted before the extension.
  }];
  let options = [
    Option<"ptxFile", "ptx-file", "std::string", "\"\"",
           "Write the PTX of each gpu.module to this file">,
    Option<"cubinFile", "cubin-file", "std::string", "\"\"",
           "Write the cubin of each gpu.module to this file">,
    Option<"format", "format", "std::string", "\"bin\"",
           "Format of the gpu.binary left in the IR: offloading, assembly "
           "(isa), binary (bin) or fatbin">,
    Option<"toolkitPath", "toolkit", "std::string", "\"\"",
           "CUDA toolkit path (default: the target's, then /usr/local/cuda)">,
    Option<"ptxasOptions", "ptxas-opts", "std::string", "\"\"",
           "Extra command-line options for ptxas">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def NVFP4ExternDynamicSharedMemory
    : Pass<"nvfp4-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "make gpu.dynamic_shared_memory an extern .shared array";
  let description = [{
    Upstream `convert-gpu-to-nvvm` (LLVM 22) lowers `gpu.dynamic_shared_memory`
    to an *internal* zero-sized `llvm.mlir.global` in address space 3, which
    the NVPTX backend prints as `.shared .align 16 .b8 __dynamic_shmem__0;`:
    ptxas then allocates it as a one-byte *static* variable, so the dynamic
    region the kernel indexes from it overlaps the kernel's other static
    shared variables (mbarriers, the TMEM slot). This pass gives those
    globals external linkage, which prints as
    `.extern .shared .align N .b8 __dynamic_shmem__0[];` (dynamic shared
    memory placed after all static shared memory, as nvcc does for
    `extern __shared__`), and raises their alignment to `alignment` bytes
    (1024 by default: the 128-byte swizzle needs 1024-byte aligned tiles).
  }];
  let options = [
    Option<"alignment", "alignment", "unsigned", "1024",
           "Alignment in bytes of the dynamic shared memory array">,
  ];
  let statistics = [
    Statistic<"numGlobals", "globals", "Dynamic shared memory globals made extern">,
  ];
}

#endif // NVFP4_PIPELINES_PASSES_TD
