//===- SM100ToNVVM.cpp - lower sm100 ops to nvvm and llvm ------------------===//
//
// `!sm100.tmem` becomes `!llvm.ptr<6>` (a 32-bit TMEM address); every op
// becomes the matching `nvvm.tcgen05.*` op. Descriptors are folded to
// constants by the encoder library except for the start address.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/SM100ToNVVM/SM100ToNVVM.h"

#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace nvfp4 {
#define GEN_PASS_DEF_CONVERTSM100TONVVM
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::sm100;

/// NVPTX address space of tensor memory.
static constexpr unsigned kTmemAddressSpace =
    static_cast<unsigned>(NVVM::NVVMMemorySpace::Tensor);

namespace {

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v);
}

NVVM::CTAGroupKind toNVVMGroup(int64_t ctaGroup) {
  return ctaGroup == 2 ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1;
}

/// `tmem` + `lane << 16` + `column` as a TMEM pointer.
Value offsetTmem(OpBuilder &b, Location loc, Value tmem, Value laneOffset,
                 Value column) {
  if (!laneOffset && !column)
    return tmem;
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), tmem);
  if (laneOffset) {
    Value shift = i32Const(b, loc, tmem::kLaneShift);
    addr = LLVM::AddOp::create(b, loc, addr,
                               LLVM::ShlOp::create(b, loc, laneOffset, shift));
  }
  if (column)
    addr = LLVM::AddOp::create(b, loc, addr, column);
  return LLVM::IntToPtrOp::create(b, loc, tmem.getType(), addr);
}

/// The first lane of the executing warp's quadrant: 32 * ((tid.x / 32) % 4).
Value warpQuadrantLane(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value warp = LLVM::LShrOp::create(b, loc, tid, i32Const(b, loc, 5));
  Value quadrant = LLVM::AndOp::create(b, loc, warp, i32Const(b, loc, 3));
  return LLVM::MulOp::create(b, loc, quadrant,
                             i32Const(b, loc, tmem::kLanesPerWarp));
}

NVVM::Tcgen05LdStShape toNVVMShape(LdStShape shape) {
  switch (shape) {
  case LdStShape::shape_16x64b:
    return NVVM::Tcgen05LdStShape::SHAPE_16X64B;
  case LdStShape::shape_16x128b:
    return NVVM::Tcgen05LdStShape::SHAPE_16X128B;
  case LdStShape::shape_16x256b:
    return NVVM::Tcgen05LdStShape::SHAPE_16X256B;
  case LdStShape::shape_32x32b:
    return NVVM::Tcgen05LdStShape::SHAPE_32X32B;
  case LdStShape::shape_16x32bx2:
    return NVVM::Tcgen05LdStShape::SHAPE_16X32BX2;
  }
  llvm_unreachable("unknown shape");
}

/// The address a tcgen05.ld/st accesses: tile + lane base + column.
template <typename OpT>
Value ldStAddress(OpT op, Value tmem, Value column,
                  ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value lane = op.getLaneBase() ? i32Const(rewriter, loc, *op.getLaneBase())
                                : warpQuadrantLane(rewriter, loc);
  Value col;
  if (column)
    col = LLVM::TruncOp::create(rewriter, loc, rewriter.getI32Type(), column);
  return offsetTmem(rewriter, loc, tmem, lane, col);
}

/// The immHalfSplitoff operand of a 16x32bx2 access (null otherwise).
template <typename OpT>
Value halfSplitOffset(OpT op, OpBuilder &b) {
  std::optional<uint32_t> offset = op.getHalfSplitOffset();
  if (!offset)
    return Value();
  return LLVM::ConstantOp::create(b, op.getLoc(), b.getI64Type(), *offset);
}

struct TmemAllocLowering : ConvertOpToLLVMPattern<TmemAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmemAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value slot = getStridedElementPtr(rewriter, loc, op.getSlot().getType(),
                                      adaptor.getSlot(),
                                      {createIndexAttrConstant(
                                          rewriter, loc, getIndexType(), 0)});
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05AllocOp>(
        op, slot, i32Const(rewriter, loc, op.getColumns()),
        toNVVMGroup(op.getCtaGroup()));
    return success();
  }
};

struct TmemBaseLowering : ConvertOpToLLVMPattern<TmemBaseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmemBaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value slot = getStridedElementPtr(rewriter, loc, op.getSlot().getType(),
                                      adaptor.getSlot(),
                                      {createIndexAttrConstant(
                                          rewriter, loc, getIndexType(), 0)});
    Value addr = LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(),
                                      slot, /*alignment=*/4);
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(
        op, LLVM::LLVMPointerType::get(getContext(), kTmemAddressSpace), addr);
    return success();
  }
};

struct TmemDeallocLowering : ConvertOpToLLVMPattern<TmemDeallocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmemDeallocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05DeallocOp>(
        op, adaptor.getTmem(), i32Const(rewriter, op.getLoc(), op.getColumns()),
        toNVVMGroup(op.getCtaGroup()));
    return success();
  }
};

struct TmemRelinquishLowering : ConvertOpToLLVMPattern<TmemRelinquishOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmemRelinquishOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05RelinquishAllocPermitOp>(
        op, toNVVMGroup(op.getCtaGroup()));
    return success();
  }
};

struct TmemSliceLowering : ConvertOpToLLVMPattern<TmemSliceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmemSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value column = op.getColumn() == 0
                       ? Value()
                       : i32Const(rewriter, op.getLoc(), op.getColumn());
    rewriter.replaceOp(op, offsetTmem(rewriter, op.getLoc(),
                                      adaptor.getSource(), Value(), column));
    return success();
  }
};

/// tcgen05.ld returns i32 for one register and vector<N x i32> otherwise.
Type ldStRegisterType(OpBuilder &b, unsigned n) {
  if (n == 1)
    return b.getI32Type();
  return VectorType::get({n}, b.getI32Type());
}

/// The registers of a tcgen05.ld may be read only after tcgen05.wait::ld,
/// but LLVM sees them as defined by the ld itself and schedules their uses
/// above a separate wait (the emulator caught the GEMM epilogue packing
/// them before the wait). So the loaded values pass through an inline-asm
/// `tcgen05.wait::ld` with tied operands: the wait becomes their definition
/// and every use follows it (docs/Rationale.md, "tmem_load waits").
Value bindToLoadWait(ConversionPatternRewriter &rewriter, Location loc,
                     Value regs, unsigned n) {
  Type i32 = rewriter.getI32Type();
  SmallVector<Value> elems;
  if (n == 1) {
    elems.push_back(regs);
  } else {
    for (unsigned i = 0; i < n; ++i)
      elems.push_back(LLVM::ExtractElementOp::create(
          rewriter, loc, regs,
          LLVM::ConstantOp::create(rewriter, loc, i32,
                                   rewriter.getI32IntegerAttr(i))));
  }
  std::string constraints;
  for (unsigned i = 0; i < n; ++i)
    constraints += (i ? ",=r" : "=r");
  for (unsigned i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  Type resTy = i32;
  if (n > 1)
    resTy = LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                             SmallVector<Type>(n, i32));
  auto asmOp = LLVM::InlineAsmOp::create(
      rewriter, loc, resTy, elems, "tcgen05.wait::ld.sync.aligned;",
      constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  if (n == 1)
    return asmOp.getResult(0);
  Value vec = LLVM::PoisonOp::create(rewriter, loc, regs.getType());
  for (unsigned i = 0; i < n; ++i)
    vec = LLVM::InsertElementOp::create(
        rewriter, loc, vec,
        LLVM::ExtractValueOp::create(rewriter, loc, asmOp.getResult(0), i),
        LLVM::ConstantOp::create(rewriter, loc, i32,
                                 rewriter.getI32IntegerAttr(i)));
  return vec;
}

struct TmemLoadLowering : ConvertOpToLLVMPattern<TmemLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmemLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr =
        ldStAddress(op, adaptor.getTmem(), adaptor.getColumn(), rewriter);
    auto resultType = op.getResult().getType();
    unsigned n = resultType.getNumElements();
    auto ld = NVVM::Tcgen05LdOp::create(
        rewriter, loc, ldStRegisterType(rewriter, n), op.getPackAttr(),
        NVVM::Tcgen05LdStShapeAttr::get(getContext(),
                                        toNVVMShape(op.getShape())),
        addr, halfSplitOffset(op, rewriter));
    Value regs = bindToLoadWait(rewriter, loc, ld.getRes(), n);
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, resultType, regs);
    return success();
  }
};

struct TmemStoreLowering : ConvertOpToLLVMPattern<TmemStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmemStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr =
        ldStAddress(op, adaptor.getTmem(), adaptor.getColumn(), rewriter);
    unsigned n = op.getValue().getType().getNumElements();
    Value regs = LLVM::BitcastOp::create(
        rewriter, loc, ldStRegisterType(rewriter, n), adaptor.getValue());
    NVVM::Tcgen05StOp::create(
        rewriter, loc, op.getUnpackAttr(),
        NVVM::Tcgen05LdStShapeAttr::get(getContext(),
                                        toNVVMShape(op.getShape())),
        addr, regs, halfSplitOffset(op, rewriter));
    rewriter.eraseOp(op);
    return success();
  }
};

struct WaitLowering : ConvertOpToLLVMPattern<WaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(WaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05WaitOp>(
        op, op.getKind() == WaitKind::load ? NVVM::Tcgen05WaitKind::LOAD
                                           : NVVM::Tcgen05WaitKind::STORE);
    return success();
  }
};

struct FenceLowering : ConvertOpToLLVMPattern<FenceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05FenceOp>(
        op, op.getKind() == FenceKind::before_thread_sync
                ? NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC
                : NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    return success();
  }
};

struct UmmaDescLowering : ConvertOpToLLVMPattern<UmmaDescOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(UmmaDescOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmemLayoutAttr layout = op.getLayout();
    umma::SmemLayout tile = layout.toUMMA();
    std::string error;
    std::optional<umma::CanonicalStrides> strides =
        umma::deriveCanonicalStrides(tile, &error);
    if (!strides)
      return op.emitOpError(error);
    umma::SmemDescFields fields;
    fields.lboBytes = strides->lboBytes;
    fields.sboBytes = strides->sboBytes;
    fields.swizzle = tile.swizzle;
    std::optional<uint64_t> high = umma::encodeSmemDescHigh(fields, &error);
    if (!high)
      return op.emitOpError(error);
    uint32_t sliceOffset = umma::kSliceOffsetBytes(
        tile, static_cast<uint32_t>(layout.getKPerMma()),
        static_cast<uint32_t>(op.getKSlice()));

    Value ptr = getStridedElementPtr(rewriter, loc, op.getBuffer().getType(),
                                     adaptor.getBuffer(), adaptor.getIndices());
    Type i64 = rewriter.getI64Type();
    Value addr = LLVM::PtrToIntOp::create(rewriter, loc, i64, ptr);
    if (sliceOffset)
      addr = LLVM::AddOp::create(
          rewriter, loc, addr,
          LLVM::ConstantOp::create(rewriter, loc, i64, sliceOffset));
    // encode(start) = (addr & 0x3FFFF) >> 4 (PTX ISA 9.7.16.4.1).
    Value start = LLVM::LShrOp::create(
        rewriter, loc,
        LLVM::AndOp::create(rewriter, loc, addr,
                            LLVM::ConstantOp::create(rewriter, loc, i64,
                                                     0x3FFFF)),
        LLVM::ConstantOp::create(rewriter, loc, i64, 4));
    rewriter.replaceOpWithNewOp<LLVM::OrOp>(
        op, start,
        LLVM::ConstantOp::create(rewriter, loc, i64,
                                 static_cast<int64_t>(*high)));
    return success();
  }
};

struct MmaLowering : ConvertOpToLLVMPattern<MmaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    IDescAttr idesc = op.getIdesc();
    NVVM::Tcgen05MMAKind kind;
    switch (idesc.getKind()) {
    case MmaKind::f16:
      kind = NVVM::Tcgen05MMAKind::F16;
      break;
    case MmaKind::tf32:
      kind = NVVM::Tcgen05MMAKind::TF32;
      break;
    case MmaKind::f8f6f4:
      kind = NVVM::Tcgen05MMAKind::F8F6F4;
      break;
    case MmaKind::i8:
      kind = NVVM::Tcgen05MMAKind::I8;
      break;
    default:
      return rewriter.notifyMatchFailure(op, "block-scaled kind");
    }
    Value desc = i32Const(rewriter, op.getLoc(),
                          static_cast<int32_t>(idesc.getEncoding()));
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05MMAOp>(
        op, NVVM::Tcgen05MMAKindAttr::get(getContext(), kind),
        NVVM::CTAGroupKindAttr::get(getContext(),
                                    toNVVMGroup(idesc.getCtaGroup())),
        NVVM::Tcgen05MMACollectorOpAttr::get(
            getContext(), NVVM::Tcgen05MMACollectorOp::DISCARD),
        /*aShift=*/UnitAttr(), adaptor.getD(), adaptor.getA(), adaptor.getB(),
        desc, adaptor.getAccumulate(), /*scaleInputD=*/Value(),
        /*disableOutputLane=*/Value());
    return success();
  }
};

struct MmaBlockScaleLowering : ConvertOpToLLVMPattern<MmaBlockScaleOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MmaBlockScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    IDescAttr idesc = op.getIdesc();
    NVVM::MMABlockScaleKind kind;
    switch (idesc.getKind()) {
    case MmaKind::mxf8f6f4:
      kind = NVVM::MMABlockScaleKind::MXF8F6F4;
      break;
    case MmaKind::mxf4:
      kind = NVVM::MMABlockScaleKind::MXF4;
      break;
    case MmaKind::mxf4nvf4:
      kind = NVVM::MMABlockScaleKind::MXF4NVF4;
      break;
    default:
      return rewriter.notifyMatchFailure(op, "dense kind");
    }
    // The block size is spelled out: ue4m3 scales cover 16 elements
    // (.block16 = .scale_vec::4X), ue8m0 ones 32 (.block32).
    NVVM::Tcgen05MMABlockScale block =
        idesc.getScaleType() == ScaleType::ue4m3
            ? NVVM::Tcgen05MMABlockScale::BLOCK16
            : NVVM::Tcgen05MMABlockScale::BLOCK32;
    Value desc = i32Const(rewriter, op.getLoc(),
                          static_cast<int32_t>(idesc.getEncoding()));
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05MMABlockScaleOp>(
        op, kind, toNVVMGroup(idesc.getCtaGroup()), block,
        NVVM::Tcgen05MMACollectorOp::DISCARD, adaptor.getD(), adaptor.getA(),
        adaptor.getB(), desc, adaptor.getAccumulate(), adaptor.getScaleA(),
        adaptor.getScaleB());
    return success();
  }
};

struct TmemCopyLowering : ConvertOpToLLVMPattern<TmemCopyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmemCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::Tcgen05CpShape shape;
    NVVM::Tcgen05CpMulticast multicast = NVVM::Tcgen05CpMulticast::NONE;
    switch (op.getShape()) {
    case CpShape::shape_32x128b_warpx4:
      shape = NVVM::Tcgen05CpShape::SHAPE_32x128b;
      multicast = NVVM::Tcgen05CpMulticast::WARPX4;
      break;
    case CpShape::shape_128x128b:
      shape = NVVM::Tcgen05CpShape::SHAPE_128x128b;
      break;
    case CpShape::shape_128x256b:
      shape = NVVM::Tcgen05CpShape::SHAPE_128x256b;
      break;
    }
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05CpOp>(
        op, shape, toNVVMGroup(op.getCtaGroup()), multicast,
        NVVM::Tcgen05CpSrcFormatAttr(), adaptor.getDst(), adaptor.getSrc());
    return success();
  }
};

struct CommitLowering : ConvertOpToLLVMPattern<CommitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(CommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getBarriers().getType();
    auto barrierType = dyn_cast<MemRefType>(type);
    if (!barrierType)
      barrierType = nvgpu::getMBarrierMemrefType(
          getContext(), cast<nvgpu::MBarrierGroupType>(type));
    Value barrier =
        getStridedElementPtr(rewriter, op.getLoc(), barrierType,
                             adaptor.getBarriers(), {adaptor.getIndex()});
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05CommitOp>(
        op, barrier, adaptor.getMulticastMask(),
        toNVVMGroup(op.getCtaGroup()));
    return success();
  }
};

struct ConvertSM100ToNVVMPass
    : nvfp4::impl::ConvertSM100ToNVVMBase<ConvertSM100ToNVVMPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Execution regions are lowered by their own pass; say so instead of a
    // bare "failed to legalize".
    WalkResult regions = getOperation()->walk([](Operation *op) {
      if (!isa<WarpRolesOp, ElectOneOp>(op))
        return WalkResult::advance();
      op->emitOpError("must be lowered by sm100-lower-warp-roles before "
                      "convert-sm100-to-nvvm");
      return WalkResult::interrupt();
    });
    if (regions.wasInterrupted())
      return signalPassFailure();
    LLVMTypeConverter converter(ctx);
    populateSM100TypeConversions(converter);
    RewritePatternSet patterns(ctx);
    populateSM100ToNVVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<SM100Dialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void nvfp4::populateSM100TypeConversions(LLVMTypeConverter &converter) {
  MLIRContext *ctx = &converter.getContext();
  converter.addConversion([ctx](TmemType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, kTmemAddressSpace);
  });
  // The same mapping convert-nvgpu-to-nvvm uses, so that the unrealized casts
  // between the two conversions reconcile.
  converter.addConversion([&converter](nvgpu::MBarrierGroupType type) {
    return converter.convertType(
        nvgpu::getMBarrierMemrefType(&converter.getContext(), type));
  });
  nvgpu::populateCommonGPUTypeAndAttributeConversions(converter);
}

void nvfp4::populateSM100ToNVVMConversionPatterns(
    const LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<TmemAllocLowering, TmemBaseLowering, TmemDeallocLowering,
               TmemRelinquishLowering, TmemSliceLowering, TmemLoadLowering,
               TmemStoreLowering, WaitLowering, FenceLowering,
               UmmaDescLowering, MmaLowering, MmaBlockScaleLowering,
               TmemCopyLowering, CommitLowering>(converter);
}
