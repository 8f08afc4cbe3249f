//===- NVFP4Dialect.h - the nvfp4 dialect -----------------------*- C++ -*-===//
//
// The ops users write (attention first): tensor semantics, no hardware.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_H
#define NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nvfp4/Support/KvCacheFormat.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsDialect.h.inc"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Enums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Attrs.h.inc"

#define GET_OP_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.h.inc"

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_H
