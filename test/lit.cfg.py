# -*- Python -*-
# lit configuration for the nvfp4 regression tests. The build writes
# lit.site.cfg.py (from lit.site.cfg.py.in) with the paths, then loads this.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "NVFP4"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nvfp4_obj_root, "test")

# Inputs/ hold files that tests read; they are not tests themselves.
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
# FileCheck, `| not` and `| count` from llvm-22-tools.
llvm_config.use_default_substitutions()

config.substitutions.append(("%nvfp4_src", config.nvfp4_src_root))
config.substitutions.append(("%nvfp4_build", config.nvfp4_obj_root))
config.substitutions.append(("%nvfp4_libs", config.nvfp4_libs_dir))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%cuda_root", config.nvfp4_cuda_root))

# PATH: our tools first, then LLVM's (FileCheck, not, count, split-file,
# mlir-opt); both go before the system's.
llvm_config.with_environment(
    "PATH", [config.nvfp4_tools_dir, config.llvm_tools_dir], append_path=True
)
# nvfp4-opt from this build; mlir-opt is Debian's, for the plugin tests.
llvm_config.add_tool_substitutions(
    ["nvfp4-opt", "mlir-opt"], [config.nvfp4_tools_dir, config.llvm_tools_dir]
)

# The build's C++ flags and build type, for test/Install's consumer project
# (built against the installed package, so with the same flags: an
# AddressSanitizer build's libraries need -fsanitize in the consumer too).
config.substitutions.append(("%cmake_cxx_flags", config.nvfp4_cxx_flags))
config.substitutions.append(("%cmake_build_type", config.nvfp4_build_type))

# test/Host: a C++ program linked with host-lowered code (an object from
# nvfp4-opt --nvfp4-to-llvm, mlir-translate and llc): the build's compiler
# and flags, the runtime's static libraries (fills, float64 references) and
# libnvfp4_host_runtime (the mgpu* entry points).
lib = os.path.join(config.nvfp4_obj_root, "lib")
config.substitutions.append(("%host_cxx", "%s %s -std=c++17 -O1 -I%s" % (
    config.nvfp4_cxx, config.nvfp4_cxx_flags,
    os.path.join(config.nvfp4_src_root, "include"))))
config.substitutions.append(("%host_libs", " ".join([
    os.path.join(lib, "Runtime", "libNVFP4Runtime.a"),
    os.path.join(lib, "Emulator", "libNVFP4Emulator.a"),
    os.path.join(lib, "Support", "libNVFP4Support.a"),
    "-L" + lib, "-lnvfp4_host_runtime", "-Wl,-rpath," + lib, "-ldl",
    "-lpthread"])))

# test/CAPI: a C program against the C API (libnvfp4.so), and the Python
# package (python/) with the library it loads.
config.substitutions.append(("%capi_cc", "%s -std=c11 -O1 -I%s" % (
    config.nvfp4_cc, os.path.join(config.nvfp4_src_root, "include"))))
config.substitutions.append(("%capi_libs", "-L%s -lnvfp4 -Wl,-rpath,%s -lm" % (
    lib, lib)))
config.environment["NVFP4_LIBRARY"] = os.path.join(lib, "libnvfp4.so")
# The C API without the compiler (libnvfp4_runtime.so), for artifacts.
config.substitutions.append(("%nvfp4_runtime_lib",
                             os.path.join(lib, "libnvfp4_runtime.so")))
config.environment["PYTHONPATH"] = os.path.join(config.nvfp4_src_root,
                                                "python")

# CUDA's ptxas: `%ptxas`, and the feature `ptxas` for `REQUIRES: ptxas`.
ptxas = os.path.join(config.nvfp4_cuda_root, "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
else:
    lit_config.note("ptxas not found at %s: tests that REQUIRE ptxas are "
                    "unsupported" % ptxas)
