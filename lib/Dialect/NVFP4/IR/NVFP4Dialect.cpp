//===- NVFP4Dialect.cpp - nvfp4 dialect registration ----------------------===//

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

using namespace mlir;
using namespace nvfp4;

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsDialect.cpp.inc"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Enums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Attrs.cpp.inc"

void NVFP4Dialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Attrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.cpp.inc"
      >();
}

LogicalResult
KvCacheAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                    StringRef format, int64_t pageSize) {
  if (!findKvCacheFormat(format.str()))
    return emitError() << "unknown KV-cache layout \"" << format
                       << "\" (known: " << kvCacheFormatNames() << ")";
  if (pageSize < 1)
    return emitError() << "expects the page size to be at least 1, found "
                       << pageSize;
  return success();
}

const KvCacheFormat *KvCacheAttr::getLayout() const {
  return findKvCacheFormat(getFormat().str());
}
