# `cmake --install` (docs/Install.md): headers, libraries, tools, the
# mlir-opt plugin and a CMake package, so that another project can
#
#   find_package(NVFP4 CONFIG REQUIRED)   # -DCMAKE_PREFIX_PATH=<prefix>
#   target_link_libraries(app PRIVATE NVFP4::NVFP4InitAll NVFP4::NVFP4Runtime)
#
# The package finds MLIR/LLVM 22 (the same Debian packages) itself; the
# MLIR-based libraries link the shared libMLIR.so, as nvfp4-opt does.
include(CMakePackageConfigHelpers)

set(NVFP4_PLAIN_LIBS NVFP4Support NVFP4Emulator NVFP4Runtime)
set(NVFP4_MLIR_LIBS NVFP4NVFP4Dialect NVFP4NVFP4Transforms NVFP4SM100Dialect
  NVFP4SM100Transforms NVFP4SM100ToNVVM NVFP4Pipelines NVFP4InitAll)
# add_mlir_library sets no include directories on its targets (they come
# from include_directories); a consumer needs ours.
foreach(lib ${NVFP4_MLIR_LIBS})
  target_include_directories(${lib} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
endforeach()

# nvfp4_host_runtime: the mgpu* entry points host-lowered code calls
# (docs/Host.md), as NVFP4::nvfp4_host_runtime; nvfp4_c: the C API
# (libnvfp4.so, docs/CAPI.md), as NVFP4::nvfp4_c; nvfp4_c_runtime: the C API
# without the compiler or MLIR (libnvfp4_runtime.so), as
# NVFP4::nvfp4_c_runtime.
install(TARGETS ${NVFP4_PLAIN_LIBS} ${NVFP4_MLIR_LIBS} nvfp4_host_runtime nvfp4_c
  nvfp4_c_runtime
  EXPORT NVFP4Targets
  ARCHIVE DESTINATION lib
  LIBRARY DESTINATION lib)
install(TARGETS nvfp4-opt nvfp4-run RUNTIME DESTINATION bin)
install(TARGETS NVFP4Plugin LIBRARY DESTINATION lib)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nvfp4 DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td" PATTERN "*.def")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nvfp4-c DESTINATION include)
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/nvfp4 DESTINATION include
  FILES_MATCHING PATTERN "*.inc")
install(EXPORT NVFP4Targets NAMESPACE NVFP4:: DESTINATION lib/cmake/nvfp4)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/NVFP4Config.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/NVFP4Config.cmake
  INSTALL_DESTINATION lib/cmake/nvfp4)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/NVFP4ConfigVersion.cmake
  VERSION 0.1.0 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/NVFP4Config.cmake
  ${PROJECT_BINARY_DIR}/cmake/NVFP4ConfigVersion.cmake
  DESTINATION lib/cmake/nvfp4)
