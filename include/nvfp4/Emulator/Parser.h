//===- Parser.h - PTX text to the in-memory module --------------*- C++ -*-===//
//
// Parses PTX as LLVM's NVPTX backend and nvcc emit it (module directives,
// variables with initializers, .entry / .func with parameters and
// performance directives, register declarations, nested blocks from inline
// assembly, labels, predicated instructions and every operand form) into a
// ptx::Module. Registers, variables and labels are resolved to indices while
// parsing; a name that cannot be resolved is an error.
//
// Diagnostics have the form "<buffer>:<line>:<col>: error: <message>" and say
// what was expected and what was found.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_EMULATOR_PARSER_H
#define NVFP4_EMULATOR_PARSER_H

#include "nvfp4/Emulator/Error.h"
#include "nvfp4/Emulator/PTX.h"

#include <memory>
#include <string_view>

namespace nvfp4::emu {

/// Limits that keep hostile input (fuzzing) from exhausting memory.
struct ParseLimits {
  /// Registers one function may declare (a %r<N> range counts N).
  uint32_t maxRegistersPerFunction = 1u << 16;
  /// Registers in the whole module.
  uint32_t maxRegistersPerModule = 1u << 20;
  /// Bytes of any one variable (module or function scope).
  uint64_t maxVariableBytes = uint64_t(1) << 32;
  /// Nesting depth of braces and parentheses.
  uint32_t maxNesting = 256;
};

/// Parses the PTX text `text`. `bufferName` starts every diagnostic.
Expected<std::unique_ptr<ptx::Module>>
parseModule(std::string_view text, std::string_view bufferName = "<ptx>",
            const ParseLimits &limits = ParseLimits());

} // namespace nvfp4::emu

#endif // NVFP4_EMULATOR_PARSER_H
