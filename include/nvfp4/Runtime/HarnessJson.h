//===- HarnessJson.h - A HarnessSpec as JSON and back -----------*- C++ -*-===//
//
// A kernel artifact (the C API's nvfp4_kernel_save / nvfp4_kernel_load,
// docs/CAPI.md) carries the kernel's whole HarnessSpec, so that a library
// without MLIR launches and checks it as the compiling one does. These turn
// a spec into JSON and back; harnessFromJson refuses unknown members, wrong
// types and out-of-range values with a message naming the member
// ("harness.tensors[2].shape[0]: expected a string, found number 4"), then
// runs verify() on the result.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_HARNESSJSON_H
#define NVFP4_RUNTIME_HARNESSJSON_H

#include "nvfp4/Runtime/Harness.h"
#include "nvfp4/Runtime/Json.h"

#include <string>

namespace nvfp4::rt {

/// The spec as one JSON object (every field, defaults included).
std::string harnessToJson(const HarnessSpec &spec);

/// A launch's configuration as JSON object members, without the braces:
/// "grid", "block", "cluster", "dynamic_smem" and, when set,
/// "programmatic" (the artifact's and the C API metadata's launches).
std::string launchMembersJson(const LaunchConfig &c);

/// The spec a JSON object of harnessToJson describes; `path` prefixes the
/// messages. Members left out keep HarnessSpec's defaults.
Expected<HarnessSpec> harnessFromJson(const json::Value &v,
                                      const std::string &path);

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_HARNESSJSON_H
