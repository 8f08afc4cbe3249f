//===- SM100Dialect.h - the sm100 dialect -----------------------*- C++ -*-===//
//
// Blackwell (SM100) tensor memory, UMMA descriptors and warp roles.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_SM100_IR_SM100DIALECT_H
#define NVFP4_DIALECT_SM100_IR_SM100DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nvfp4/Support/TensorMemory.h"
#include "nvfp4/Support/UMMADescriptors.h"

#include "nvfp4/Dialect/SM100/IR/SM100Enums.h.inc"

namespace nvfp4::sm100 {
/// True if `type` lives in shared memory: `#gpu.address_space<workgroup>`
/// or the NVVM shared address space 3.
bool isSharedMemory(mlir::MemRefType type);

/// Maps an MLIR element type to the encoder library's element type
/// (bf16 -> BF16, f8E4M3FN -> E4M3, si8 -> S8, ...); std::nullopt if the
/// type has no UMMA encoding.
std::optional<umma::ElemType> toUMMAElemType(mlir::Type type);

/// Conversions between the dialect's enums and the encoder library's.
umma::Swizzle toUMMA(Swizzle s);
umma::Major toUMMA(Major m);
umma::MmaKind toUMMA(MmaKind k);
tmem::LdStShape toTMEM(LdStShape s);
} // namespace nvfp4::sm100

#include "nvfp4/Dialect/SM100/IR/SM100OpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/SM100/IR/SM100Attrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "nvfp4/Dialect/SM100/IR/SM100OpsTypes.h.inc"

#define GET_OP_CLASSES
#include "nvfp4/Dialect/SM100/IR/SM100Ops.h.inc"

#endif // NVFP4_DIALECT_SM100_IR_SM100DIALECT_H
