//===- NVFP4Dialect.cpp - nvfp4 dialect registration ----------------------===//

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

using namespace mlir;
using namespace nvfp4;

#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsDialect.cpp.inc"

void NVFP4Dialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.cpp.inc"
      >();
}
