//===- LowerHost.cpp - nvfp4.launch to tensor maps and gpu.launch_func ----===//
//
// The host side of an nvfp4 kernel: what nvfp4-run does at run time from the
// kernel's nvfp4.harness attribute, generated as IR. Every parameter of the
// kernel becomes a value of the function (a tensor map, a buffer, a
// constant), the scratch buffers are allocated around the launches, and the
// kernel and the kernels after it are launched with their grid, block,
// cluster and dynamic shared memory. docs/Host.md.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Transforms/HarnessAttr.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "nvfp4/Support/TensorMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

#include <string>

namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4LOWERHOST
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4

using namespace mlir;
using namespace nvfp4;

namespace {

Type elementType(MLIRContext *ctx, rt::ElemType t) {
  Builder b(ctx);
  switch (t) {
  case rt::ElemType::F32:
    return b.getF32Type();
  case rt::ElemType::BF16:
    return b.getBF16Type();
  case rt::ElemType::F16:
    return b.getF16Type();
  case rt::ElemType::I32:
    return b.getI32Type();
  case rt::ElemType::U8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  }
  return {};
}

/// Element types upstream's tensor-map encoder (nvgpu.tma.create.descriptor
/// lowered by convert-nvgpu-to-nvvm) maps to their own CUDA data type; it
/// maps the others (i8, f8E4M3FN, ...) to bf16.
bool encodableInTensorMap(Type t) {
  return t.isBF16() || t.isF16() || t.isF32() || t.isSignlessInteger(32) ||
         t.isUnsignedInteger(8);
}

nvgpu::TensorMapSwizzleKind swizzleKind(rt::TmaSwizzle s) {
  switch (s) {
  case rt::TmaSwizzle::B32:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_32B;
  case rt::TmaSwizzle::B64:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_64B;
  case rt::TmaSwizzle::B128:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_128B;
  default:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
  }
}

/// Bytes of `type`'s data as the kernels lay them out: f4E2M1FN packed two
/// per byte (MLIR's LLVM lowering gives them a byte each).
int64_t dataBytes(MemRefType type) {
  if (isa<Float4E2M1FNType>(type.getElementType()))
    return type.getNumElements() / 2;
  return type.getNumElements() * int64_t(type.getElementTypeBitWidth() / 8);
}

/// An f4E2M1FN memref's packed bytes: the same shape with the innermost
/// extent halved, as ui8.
MemRefType packedType(MemRefType type) {
  SmallVector<int64_t> shape(type.getShape());
  if (!shape.empty())
    shape.back() /= 2;
  return MemRefType::get(shape,
                         IntegerType::get(type.getContext(), 8,
                                          IntegerType::Unsigned));
}

/// A memref of `type` (static, identity layout) over the memory of `value`
/// from its aligned pointer: the LLVM memref descriptor built directly, so
/// that the element type may change, which no memref op does (f4E2M1FN
/// data seen as their packed bytes and back, f8E4M3FN scale factors as
/// the i8 the kernels take). The conversions to LLVM fold the cast.
Value retype(OpBuilder &b, Location loc, Value value, MemRefType type) {
  MLIRContext *ctx = b.getContext();
  auto i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  Value address = arith::IndexCastOp::create(
      b, loc, i64,
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, value));
  Value pointer = LLVM::IntToPtrOp::create(b, loc, ptr, address);
  int64_t rank = type.getRank();
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (rank) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value d = LLVM::PoisonOp::create(b, loc, structType);
  auto constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v))
        .getResult();
  };
  d = LLVM::InsertValueOp::create(b, loc, d, pointer, ArrayRef<int64_t>{0});
  d = LLVM::InsertValueOp::create(b, loc, d, pointer, ArrayRef<int64_t>{1});
  d = LLVM::InsertValueOp::create(b, loc, d, constant(0), ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    d = LLVM::InsertValueOp::create(b, loc, d, constant(type.getDimSize(i)),
                                    ArrayRef<int64_t>{3, i});
    d = LLVM::InsertValueOp::create(b, loc, d, constant(stride),
                                    ArrayRef<int64_t>{4, i});
    stride *= type.getDimSize(i);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, d).getResult(0);
}

/// Generates the host side of one nvfp4.launch.
class LaunchLowering {
public:
  LaunchLowering(LaunchOp op, gpu::GPUFuncOp kernel)
      : op(op), kernel(kernel), b(op) {}

  LogicalResult run(unsigned &launches) {
    if (failed(readHarness(kernel, spec)))
      return op.emitOpError("cannot read the nvfp4.harness attribute of ")
             << op.getKernelAttr() << " (the diagnostic above)";
    auto resolved = rt::resolveSizes(spec, {});
    if (!resolved)
      return op.emitOpError() << resolved.takeError().message();
    sizes = *resolved;
    if (failed(bind(spec.opOperands, op.getInputs(), "input")) ||
        failed(bind(spec.opResults, op.getOutputs(), "output")))
      return failure();

    SmallVector<Value> scratch;
    for (const rt::HarnessTensor &t : spec.tensors) {
      if (!t.workspace)
        continue;
      SmallVector<int64_t> shape(t.dims.begin(), t.dims.end());
      auto type = MemRefType::get(shape, elementType(op.getContext(), t.type));
      Value buffer = gpu::AllocOp::create(b, op.getLoc(), type, Type(),
                                          ValueRange(), ValueRange(),
                                          ValueRange())
                         .getMemref();
      buffers[t.name] = buffer;
      scratch.push_back(buffer);
    }
    if (failed(launch(kernel, spec.args, spec.launch)))
      return failure();
    ++launches;
    auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
    for (const rt::HarnessLaunch &next : spec.then) {
      auto func = module.lookupSymbol<gpu::GPUFuncOp>(next.kernel);
      if (failed(launch(func, next.args, next.launch)))
        return failure();
      ++launches;
    }
    for (Value buffer : scratch)
      gpu::DeallocOp::create(b, op.getLoc(), Type(), ValueRange(), buffer);
    op.erase();
    return success();
  }

private:
  /// Names the op's buffers with the harness's tensor names.
  LogicalResult bind(const std::vector<std::string> &names, ValueRange values,
                     StringRef what) {
    for (auto [name, value] : llvm::zip_equal(names, values)) {
      auto [it, inserted] = buffers.try_emplace(name, value);
      if (!inserted && it->second != value)
        return op.emitOpError("expects the ")
               << what << "s named '" << name
               << "' by the kernel's harness to be one buffer, found two";
    }
    return success();
  }

  const rt::HarnessTensor *tensor(const std::string &name) {
    for (const rt::HarnessTensor &t : spec.tensors)
      if (t.name == name)
        return &t;
    return nullptr;
  }

  /// The buffer of tensor `name`, checked: contiguous, row-major, with the
  /// tensor's element size and count at the kernel's sizes.
  FailureOr<Value> buffer(const std::string &name) {
    auto it = buffers.find(name);
    const rt::HarnessTensor *t = tensor(name);
    if (it == buffers.end() || !t)
      return op.emitOpError("has no buffer for tensor '")
             << name << "', which kernel " << op.getKernelAttr()
             << " reads (its harness 'operands' and 'results' do not name "
                "it)";
    Value value = it->second;
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type || !type.getLayout().isIdentity() || !type.hasStaticShape())
      return op.emitOpError("expects the buffer of '")
             << name
             << "' to be contiguous and row-major (a static shape and the "
                "identity layout; bufferize function boundaries with "
                "function-boundary-type-conversion=identity-layout-map), "
                "found "
             << type;
    // The kernel's tensor is bytes (u8) for NVFP4 data, e2m1 packed two
    // per byte, and for e4m3 scale factors.
    if (isa<Float4E2M1FNType>(type.getElementType()) &&
        (t->type != rt::ElemType::U8 || type.getRank() == 0 ||
         type.getShape().back() % 2))
      return op.emitOpError("expects the f4E2M1FN buffer of '")
             << name
             << "' to be a u8 tensor of the kernel with an even innermost "
                "extent (two e2m1 values a byte), found "
             << type << " for a " << rt::stringify(t->type) << " tensor";
    if (uint64_t(dataBytes(type)) !=
            rt::tensorElements(*t, sizes) * rt::elemBytes(t->type) ||
        (!isa<Float4E2M1FNType>(type.getElementType()) &&
         type.getElementTypeBitWidth() != 8 * rt::elemBytes(t->type)))
      return op.emitOpError("expects the buffer of '")
             << name << "' to hold " << rt::tensorElements(*t, sizes) << " "
             << rt::stringify(t->type) << " elements, found " << type;
    return value;
  }

  /// `value` seen as a row-major memref of `shape` (element type kept).
  Value reshape(Value value, ArrayRef<int64_t> shape) {
    auto type = cast<MemRefType>(value.getType());
    if (type.getShape() == shape)
      return value;
    SmallVector<int64_t> strides(shape.size(), 1);
    for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
    auto target = MemRefType::get(shape, type.getElementType(),
                                  MemRefLayoutAttrInterface(),
                                  type.getMemorySpace());
    return memref::ReinterpretCastOp::create(b, op.getLoc(), target, value,
                                             /*offset=*/0, shape, strides);
  }

  FailureOr<Value> argument(gpu::GPUFuncOp func, unsigned i,
                            const rt::HarnessArg &a) {
    Location loc = op.getLoc();
    Type param = func.getArgument(i).getType();
    auto fail = [&](const Twine &message) {
      return op.emitOpError("cannot pass argument ")
             << i << " of " << func.getName() << ": " << message;
    };
    switch (a.kind) {
    case rt::HarnessArg::Kind::TensorMap: {
      if (!a.byPointer || !isa<LLVM::LLVMPointerType>(param))
        return fail("expected a tensor map passed by pointer (!llvm.ptr)");
      FailureOr<Value> value = buffer(a.tensor);
      if (failed(value))
        return failure();
      Type element = cast<MemRefType>(value->getType()).getElementType();
      // NVFP4 data and fp8 values are bytes to the kernel: seen as i8 and
      // encoded by the runtime (upstream's encoder takes i8 and f8 for
      // bf16, and f4E2M1FN is a byte an element in MLIR's lowering).
      if (isa<Float4E2M1FNType, Float8E4M3FNType>(element) ||
          (element.isInteger(8) && !element.isSignlessInteger(8) &&
           !element.isUnsignedInteger(8))) {
        auto type = cast<MemRefType>(value->getType());
        MemRefType bytes = isa<Float4E2M1FNType>(element)
                               ? packedType(type)
                               : MemRefType::get(type.getShape(),
                                                 b.getIntegerType(8));
        element = b.getIntegerType(8);
        value = retype(b, loc,
                       *value,
                       MemRefType::get(bytes.getShape(), element));
      }
      bool bytes = element.isSignlessInteger(8);
      if (!encodableInTensorMap(element) && !bytes)
        return fail("a tensor map over '" + a.tensor +
                    "' needs bf16, f16, f32, i32, i8 or ui8 elements, found " +
                    llvm::Twine([&] {
                      std::string str;
                      llvm::raw_string_ostream os(str);
                      os << element;
                      return str;
                    }()));
      auto dims = rt::viewDims(*tensor(a.tensor), a.view, sizes);
      if (!dims)
        return fail(dims.takeError().message());
      SmallVector<int64_t> shape(dims->begin(), dims->end());
      Value view = reshape(*value, shape);
      Value unranked = memref::CastOp::create(
          b, loc, UnrankedMemRefType::get(element, Attribute()), view);
      if (bytes)
        return encodeBytes(unranked, param, a);
      SmallVector<int64_t> boxShape(a.box.rbegin(), a.box.rend());
      SmallVector<Value> box;
      for (int64_t d : boxShape)
        box.push_back(arith::ConstantIndexOp::create(b, loc, d));
      auto boxType = MemRefType::get(
          boxShape, element, MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(op.getContext(),
                                     gpu::AddressSpace::Workgroup));
      auto descriptorType = nvgpu::TensorMapDescriptorType::get(
          op.getContext(), boxType, swizzleKind(a.swizzle),
          nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
          nvgpu::TensorMapOOBKind::OOB_ZERO,
          nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
      Value descriptor = nvgpu::TmaCreateDescriptorOp::create(
          b, loc, descriptorType, unranked, box);
      return UnrealizedConversionCastOp::create(b, loc, param, descriptor)
          .getResult(0);
    }
    case rt::HarnessArg::Kind::Buffer: {
      FailureOr<Value> value = buffer(a.tensor);
      if (failed(value))
        return failure();
      auto want = dyn_cast<MemRefType>(param);
      auto have = cast<MemRefType>(value->getType());
      // Bytes of another element type (NVFP4 data, fp8 scale factors) for
      // a kernel that takes i8: the same memory retyped.
      if (want && want.hasStaticShape() && want.getLayout().isIdentity() &&
          want.getElementType() != have.getElementType() &&
          want.getElementType().isInteger(8) &&
          (isa<Float4E2M1FNType>(have.getElementType()) ||
           have.getElementTypeBitWidth() == 8) &&
          dataBytes(have) == want.getNumElements())
        return retype(b, loc, *value, want);
      if (!want || !want.hasStaticShape() || !want.getLayout().isIdentity() ||
          want.getElementType() != have.getElementType() ||
          want.getNumElements() != have.getNumElements())
        return fail("the kernel takes " + llvm::Twine([&] {
                      std::string s;
                      llvm::raw_string_ostream os(s);
                      os << param << " for '" << a.tensor << "', not a view of "
                         << have;
                      return s;
                    }()));
      return reshape(*value, want.getShape());
    }
    case rt::HarnessArg::Kind::Scalar: {
      bool isFloat = a.scalarType == rt::KernelArg::Kind::F32 ||
                     a.scalarType == rt::KernelArg::Kind::F64;
      if (isFloat) {
        auto v = rt::evalFloat(a.value, sizes, spec.options);
        if (!v)
          return fail(v.takeError().message());
        auto type = dyn_cast<FloatType>(param);
        if (!type)
          return fail("expected a float parameter for '" + a.value + "'");
        return arith::ConstantOp::create(b, loc, type,
                                         b.getFloatAttr(type, *v))
            .getResult();
      }
      auto v = rt::evalScalar(a.value, sizes);
      if (!v)
        return fail(v.takeError().message());
      if (param.isIndex())
        return arith::ConstantIndexOp::create(b, loc, int64_t(*v)).getResult();
      if (!param.isInteger())
        return fail("expected an integer parameter for '" + a.value + "'");
      return arith::ConstantOp::create(
                 b, loc, param, b.getIntegerAttr(param, int64_t(*v)))
          .getResult();
    }
    }
    return failure();
  }

  /// A tensor map over i8 elements (an fp8 KV cache as bytes): upstream's
  /// encoder would take i8 for bf16, so the runtime's own entry point
  /// (same arguments as mgpuTensorMapEncodeTiledMemref, the data type
  /// explicit: U8) is called.
  Value encodeBytes(Value unranked, Type ptrType, const rt::HarnessArg &a) {
    Location loc = op.getLoc();
    auto i64 = b.getI64Type();
    auto constant = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, v, 64).getResult();
    };
    Value box = LLVM::AllocaOp::create(b, loc, ptrType, i64,
                                       constant(int64_t(a.box.size())));
    // Outermost first, as upstream passes it.
    for (auto [i, d] : llvm::enumerate(llvm::reverse(a.box))) {
      Value slot = LLVM::GEPOp::create(b, loc, ptrType, i64, box,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(b, loc, constant(d), slot);
    }
    StringRef name = "nvfp4TensorMapEncodeTiledMemref";
    auto module = op->getParentOfType<ModuleOp>();
    auto type = b.getFunctionType(
        {unranked.getType(), i64, i64, i64, i64, i64, ptrType}, {ptrType});
    if (!module.lookupSymbol(name)) {
      OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
      auto decl = func::FuncOp::create(top, loc, name, type);
      decl.setPrivate();
    }
    Value args[] = {unranked,
                    constant(int64_t(rt::TmaDataType::U8)),
                    constant(0),
                    constant(int64_t(a.swizzle)),
                    constant(0),
                    constant(0),
                    box};
    return func::CallOp::create(b, loc, name, TypeRange{ptrType}, args)
        .getResult(0);
  }

  LogicalResult launch(gpu::GPUFuncOp func, const std::vector<rt::HarnessArg> &args,
                       const rt::LaunchConfig &config) {
    if (args.size() != func.getNumArguments())
      return op.emitOpError("expects ")
             << func.getNumArguments() << " harness arguments for "
             << func.getName() << ", found " << args.size();
    if (failed(checkBufferShapes(func, spec, args, sizes)))
      return failure();
    SmallVector<Value> operands;
    for (auto [i, a] : llvm::enumerate(args)) {
      FailureOr<Value> v = argument(func, unsigned(i), a);
      if (failed(v))
        return failure();
      operands.push_back(*v);
    }
    Location loc = op.getLoc();
    auto dim3 = [&](const rt::Dim3 &d) {
      return gpu::KernelDim3{arith::ConstantIndexOp::create(b, loc, d.x),
                             arith::ConstantIndexOp::create(b, loc, d.y),
                             arith::ConstantIndexOp::create(b, loc, d.z)};
    };
    std::optional<gpu::KernelDim3> cluster;
    if (config.cluster.x * config.cluster.y * config.cluster.z > 1)
      cluster = dim3(config.cluster);
    Value smem = arith::ConstantIntOp::create(
        b, loc, int64_t(config.dynamicSmemBytes), 32);
    gpu::LaunchFuncOp::create(b, loc, func, dim3(config.grid),
                              dim3(config.block), smem, operands,
                              /*asyncTokenType=*/nullptr,
                              /*asyncDependencies=*/{}, cluster);
    return success();
  }

  LaunchOp op;
  gpu::GPUFuncOp kernel;
  OpBuilder b;
  rt::HarnessSpec spec;
  std::map<std::string, uint64_t> sizes;
  std::map<std::string, Value> buffers;
};

/// In a function that launches nvfp4 kernels, buffers are device memory.
/// f4E2M1FN buffers are allocated and copied as their packed bytes (MLIR's
/// lowering would give each element a byte: twice the memory, and copies
/// twice the caller's bytes).
void moveBuffersToDevice(Operation *func) {
  SmallVector<Operation *> ops;
  func->walk([&](Operation *o) {
    if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp>(o))
      ops.push_back(o);
  });
  auto isFp4 = [](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && isa<Float4E2M1FNType>(type.getElementType()) &&
           type.hasStaticShape() && type.getLayout().isIdentity() &&
           type.getRank() && type.getShape().back() % 2 == 0;
  };
  // The packed allocation behind each f4E2M1FN one.
  llvm::DenseMap<Value, Value> packedOf;
  for (Operation *o : ops) {
    OpBuilder b(o);
    Location loc = o->getLoc();
    if (auto alloc = dyn_cast<memref::AllocOp>(o)) {
      if (isFp4(alloc.getMemref())) {
        Value packed = gpu::AllocOp::create(
                           b, loc, packedType(alloc.getType()), Type(),
                           ValueRange(), ValueRange(), ValueRange())
                           .getMemref();
        Value logical = retype(b, loc, packed, alloc.getType());
        packedOf[logical] = packed;
        alloc.replaceAllUsesWith(logical);
      } else {
        auto device = gpu::AllocOp::create(b, loc, alloc.getType(), Type(),
                                           ValueRange(),
                                           alloc.getDynamicSizes(),
                                           alloc.getSymbolOperands());
        alloc.replaceAllUsesWith(device.getMemref());
      }
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(o)) {
      Value memref = packedOf.lookup(dealloc.getMemref());
      gpu::DeallocOp::create(b, loc, Type(), ValueRange(),
                             memref ? memref : dealloc.getMemref());
    } else {
      auto copy = cast<memref::CopyOp>(o);
      Value from = copy.getSource(), to = copy.getTarget();
      if (isFp4(from) && isFp4(to)) {
        MemRefType bytes = packedType(cast<MemRefType>(from.getType()));
        from = retype(b, loc, from, bytes);
        to = retype(b, loc, to, bytes);
      }
      gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), to, from);
    }
    o->erase();
  }
}

struct NVFP4LowerHostPass
    : nvfp4::impl::NVFP4LowerHostBase<NVFP4LowerHostPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LaunchOp> ops;
    module.walk([&](LaunchOp op) { ops.push_back(op); });
    llvm::SetVector<Operation *> funcs;
    SymbolTableCollection symbols;
    unsigned launches = 0;
    for (LaunchOp op : ops) {
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          op, op.getKernelAttr());
      if (!kernel) {
        op.emitOpError("expects kernel to name a gpu.func kernel, found ")
            << op.getKernelAttr();
        return signalPassFailure();
      }
      if (auto func = op->getParentOfType<FunctionOpInterface>())
        funcs.insert(func);
      if (failed(LaunchLowering(op, kernel).run(launches)))
        return signalPassFailure();
    }
    for (Operation *func : funcs) {
      moveBuffersToDevice(func);
      // C programs call it as _mlir_ciface_NAME (memref descriptors by
      // pointer), whatever the LLVM lowering of its signature.
      func->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
    }
    numLaunches += launches;
  }
};

} // namespace
