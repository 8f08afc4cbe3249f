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

#endif // NVFP4_PIPELINES_PASSES_TD
