//===- LowerAttention.cpp - nvfp4.attention to an sm100 kernel ------------===//
//
// Builds, for every nvfp4.attention, the warp-specialized kernel that
// examples/attention_decode.mlir spells out by hand, generalised by the
// schedule (AttentionSchedule.h): query heads of one KV head times queries
// packed into the MMA's 128 rows, KV tiles of 128 keys through a TMA ring of
// 1-3 stages, S = Q K^T in tensor memory, the online softmax in exp2 by four
// warps (one row per thread), P written back to tensor memory as the `ts`
// A operand of O += P V, and an epilogue that folds in the sink and writes
// O and the natural-log LSE. docs/AttentionLowering.md describes the
// schedule, the barriers and the masks.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Transforms/AttentionSchedule.h"
#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

#include <cmath>
#include <limits>

namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4LOWERATTENTION
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4

using namespace mlir;
using namespace nvfp4;

namespace {

/// Alignment of each 32-element row chunk of O the epilogue stores: Dv and
/// the chunk offsets are multiples of 32 elements, so with a 64-byte-aligned
/// O buffer (any CUDA allocation) every chunk is 64-byte aligned; saying so
/// lets LLVM emit 16-byte vector stores instead of one st.global.b16 per
/// element.
const llvm::Align kOutAlign(64);

constexpr const char *kKernelAttr = "nvfp4.kernel";
constexpr const char *kHarnessAttr = "nvfp4.harness";
/// mbarrier.try_wait suspend-time hint (ns), as in the examples.
constexpr int64_t kWaitTicks = 10000000;

/// Builds one kernel. Member functions follow the kernel's structure:
/// prologue (shared memory, barriers, TMEM), the three roles, teardown.
class KernelBuilder {
public:
  KernelBuilder(const AttentionSchedule &s, ImplicitLocOpBuilder &b)
      : s(s), p(s.problem), b(b), ctx(b.getContext()) {}

  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name);

private:
  // Constants.
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, v, 32).getResult();
  }
  Value f32(double v) {
    return arith::ConstantFloatOp::create(b, b.getF32Type(),
                                          APFloat(float(v)))
        .getResult();
  }
  Value i1(bool v) { return arith::ConstantIntOp::create(b, v, 1); }
  Value negInf() {
    return f32(-std::numeric_limits<double>::infinity());
  }
  /// (v & 1) as i1: the parity of a phase counter.
  Value parityOf(Value v) {
    Value i = arith::IndexCastOp::create(b, b.getI32Type(), v);
    Value a = arith::AndIOp::create(b, i, i32(1));
    return arith::TruncIOp::create(b, b.getI1Type(), a);
  }
  /// Inline PTX with read-only operands `ins` ($0.. are the results, then
  /// the operands); it has side effects, so LLVM neither hoists nor drops it.
  ResultRange inlinePtx(StringRef code, TypeRange results, ValueRange ins) {
    return NVVM::InlinePtxOp::create(b, results, ins, ValueRange{},
                                     b.getStringAttr(code), Value())
        .getResults();
  }
  Value ptx(StringRef code, Value x) {
    return inlinePtx(code, b.getF32Type(), x)[0];
  }
  Value ex2(Value x) { return ptx("ex2.approx.ftz.f32 $0, $1;", x); }
  /// `v` through an opaque move: LLVM cannot hoist what is computed from
  /// it out of the loop it is in. The MMA warp's shared-memory descriptors
  /// (D / 16 per operand) would otherwise all be hoisted and held in
  /// registers across the KV loop, spilling at head dim 512.
  Value opaque(Value v) {
    Value i = arith::IndexCastOp::create(b, b.getI32Type(), v);
    Value m = inlinePtx("mov.b32 $0, $1;", b.getI32Type(), i)[0];
    return arith::IndexCastOp::create(b, b.getIndexType(), m);
  }
  Value lg2(Value x) { return ptx("lg2.approx.ftz.f32 $0, $1;", x); }
  /// try_wait.parity on barrier `index` of `group`.
  void wait(Value group, Value index, Value parity) {
    nvgpu::MBarrierTryWaitParityOp::create(b, group, parity, idx(kWaitTicks),
                                           index);
  }
  void fence(sm100::FenceKind k) { sm100::FenceOp::create(b, k); }
  /// The CTAs of a Dv split form a cluster (AttentionSchedule::clustered).
  bool clustered() const { return s.dvSplit > 1; }
  /// Both CTAs of the pair compute S from the same Q and K tiles, each
  /// loading half of the boxes and multicasting them (no D split).
  bool multicastQK() const { return clustered() && !s.exchangeS; }
  /// Both CTAs of the cluster reach this point before either goes on.
  void clusterSync() {
    NVVM::ClusterArriveOp::create(b, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, b.getUnitAttr());
  }
  /// The multicast mask naming both CTAs of the cluster.
  Value bothCtas() {
    return arith::ConstantIntOp::create(b, 3, 16).getResult();
  }
  /// scf.if without results, body built by `f`.
  template <typename F> void ifThen(Value cond, F f) {
    auto op = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(op.thenBlock());
    f();
  }
  /// scf.for without results, body built by `f(iv)`.
  template <typename F> void forLoop(Value lb, Value ub, Value step, F f) {
    auto op = scf::ForOp::create(b, lb, ub, step);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(op.getBody());
    f(op.getInductionVar());
  }

  // Types.
  Attribute wg() {
    return gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  }
  MemRefType smemMemref(ArrayRef<int64_t> shape, Type elem) {
    return MemRefType::get(shape, elem, MemRefLayoutAttrInterface(),
                           wg());
  }
  Type groupType(unsigned n) {
    return nvgpu::MBarrierGroupType::get(ctx, wg(), n);
  }
  nvgpu::TensorMapDescriptorType tmapType(MemRefType box) {
    return nvgpu::TensorMapDescriptorType::get(
        ctx, box, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
        nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  }
  sm100::TmemType tmem(int64_t rows, int64_t cols, Type elem,
                       sm100::TmemLayout layout) {
    return sm100::TmemType::get(ctx, rows, cols, elem, layout);
  }

  // Pieces.
  void prologue(gpu::GPUFuncOp func);
  void softmaxRole();
  void loadRole();
  void mmaRole();
  /// scale_log2 * s for keys kb + i in [lo, hi), -inf elsewhere.
  Value maskedLogits(Value s, Value kb);
  /// A view of `bytes` of dynamic shared memory at `offset` as `type`.
  Value view(Value offset, MemRefType type) {
    return memref::ViewOp::create(b, type, smem, offset, ValueRange{});
  }

  const AttentionSchedule &s;
  const AttentionProblemShape &p;
  ImplicitLocOpBuilder &b;
  MLIRContext *ctx;

  // Kernel arguments.
  Value tmapQ, tmapK, tmapV, tmapKc, tmapVc, outO, outLse, lens, sink,
      scaleLog2;
  // Per-CTA values.
  Value tid, warp, batch, kvHead, rowBlock, split, dvBase, dBase, len,
      keyLo, keyHi, tileLo, tileCount;
  /// The chunks [first, end) of local tile `n` that hold a key this CTA
  /// sees (AttentionSchedule::kChunkKeys keys each).
  std::pair<Value, Value> chunkRange(Value n);
  Value smem, qOff;
  /// Byte offsets of stage `stage`'s K and V tiles (first box).
  Value kOffset(Value stage) {
    return arith::AddIOp::create(
        b, arith::AddIOp::create(b, qOff, idx(s.qBytes)),
        arith::MulIOp::create(b, stage, idx(s.stageBytes())));
  }
  Value vOffset(Value kOff) {
    return p.kvSame ? kOff : arith::AddIOp::create(b, kOff, idx(s.kBytes));
  }
  Value qFull, kvFull, kvEmpty, sFull, pFull, oDone;
  /// exchangeS: the partial-S buffer (byte offset) and its barriers: xFull
  /// counts the peer's 128 threads having written theirs, xEmpty the peer's
  /// having read ours.
  Value xOff, xFull, xEmpty;
  /// The peer CTA's rank in the cluster (i32).
  Value peer;
  void exchangePartialS(Value n);
  /// Shared-window address (i32) of barrier 0 of `group`.
  Value barrierAddress(Value group);
  /// Arrive (release at cluster scope) on the peer's copy of the barrier at
  /// shared address `addr`.
  void remoteArrive(Value addr);
  /// Wait (acquire at cluster scope) for phase `parity` of the barrier at
  /// `addr`.
  void clusterWait(Value addr, Value parity);
  /// sAcc: all S buffers (the softmax addresses buffer n mod sBuffers by a
  /// column offset, bufferColumn(n)); sBuf: one slice per buffer (the MMA's
  /// D); pTm: P over the same columns, in the ts A-operand layout.
  Value all, sAcc, oAcc, pTm;
  SmallVector<Value, 2> sBuf;
  /// First column (relative to sAcc / pTm) of tile n's S buffer.
  Value bufferColumn(Value n) {
    if (s.sBuffers == 1)
      return idx(0);
    return arith::MulIOp::create(
        b, arith::RemUIOp::create(b, n, idx(s.sBuffers)), idx(s.kvTile));
  }
  /// Runs `f(i)` for buffer i = n mod sBuffers with i a constant (an
  /// scf.if per buffer when there are two).
  template <typename F> void forBuffer(Value n, F f) {
    if (s.sBuffers == 1)
      return f(0);
    Value odd = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ne,
        arith::RemUIOp::create(b, n, idx(2)), idx(0));
    auto op = scf::IfOp::create(b, odd, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(op.thenBlock());
    f(1);
    b.setInsertionPointToStart(op.elseBlock());
    f(0);
  }
  // Softmax per-row values.
  Value rowLo, rowHi;
};

gpu::GPUFuncOp KernelBuilder::build(gpu::GPUModuleOp module, StringRef name) {
  // Argument types.
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> args = {ptrTy, ptrTy};
  if (!p.kvSame)
    args.push_back(ptrTy);
  // The chunk maps of K (and V) for partly visible tiles.
  args.push_back(ptrTy);
  if (!p.kvSame)
    args.push_back(ptrTy);
  args.push_back(MemRefType::get({p.batch, p.seqQ, p.headsQ, p.headDimV},
                                 p.outElement));
  args.push_back(MemRefType::get({p.batch, p.headsQ, p.seqQ}, b.getF32Type()));
  if (p.hasLens)
    args.push_back(MemRefType::get({p.batch}, b.getI32Type()));
  if (p.hasSink)
    args.push_back(MemRefType::get({p.headsQ}, b.getF32Type()));
  args.push_back(b.getF32Type());

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  // The TMEM allocation slot.
  memref::GlobalOp::create(b, "tmem_slot", b.getStringAttr("private"),
                           smemMemref({1}, b.getI32Type()), Attribute(),
                           /*constant=*/false, IntegerAttr());
  auto func = gpu::GPUFuncOp::create(b, name, b.getFunctionType(args, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(AttentionSchedule::kThreads), 1, 1}));
  func->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(int32_t(s.maxRegs)));
  if (clustered())
    func->setAttr("nvvm.cluster_dim",
                  b.getDenseI32ArrayAttr({int32_t(s.dvSplit), 1, 1}));

  b.setInsertionPointToStart(&func.getBody().front());
  prologue(func);

  auto roles = sm100::WarpRolesOp::create(
      b, uint32_t(AttentionSchedule::kThreads / 32));
  roles.getBody().push_back(new Block());
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&roles.getBody().front());
    auto makeRole = [&](StringRef roleName, uint32_t begin, uint32_t end,
                        int64_t regs) {
      auto role = sm100::RoleOp::create(b, roleName, begin, end,
                                        b.getI32IntegerAttr(int32_t(regs)));
      role.getBody().push_back(new Block());
      return role;
    };
    auto softmax = makeRole("softmax", 0, 4, s.softmaxRegs);
    auto load = makeRole("load", 4, 5, s.otherRegs);
    auto mma = makeRole("mma", 5, 6, s.otherRegs);
    makeRole("spare", 6, 8, s.otherRegs);
    b.setInsertionPointToStart(&softmax.getBody().front());
    softmaxRole();
    b.setInsertionPointToStart(&load.getBody().front());
    loadRole();
    b.setInsertionPointToStart(&mma.getBody().front());
    mmaRole();
  }

  // Teardown: everyone is done with TMEM before warp 0 frees it; in a
  // cluster, neither CTA exits while the peer may still signal its
  // barriers.
  fence(sm100::FenceKind::before_thread_sync);
  gpu::BarrierOp::create(b);
  fence(sm100::FenceKind::after_thread_sync);
  if (clustered())
    clusterSync();
  ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warp, idx(0)),
         [&] {
           sm100::TmemDeallocOp::create(b, all, uint32_t(s.tmemColumns));
         });
  gpu::ReturnOp::create(b);
  return func;
}

void KernelBuilder::prologue(gpu::GPUFuncOp func) {
  unsigned a = 0;
  tmapQ = func.getArgument(a++);
  tmapK = func.getArgument(a++);
  tmapV = p.kvSame ? tmapK : func.getArgument(a++);
  tmapKc = func.getArgument(a++);
  tmapVc = p.kvSame ? tmapKc : func.getArgument(a++);
  outO = func.getArgument(a++);
  outLse = func.getArgument(a++);
  lens = p.hasLens ? func.getArgument(a++) : Value();
  sink = p.hasSink ? func.getArgument(a++) : Value();
  scaleLog2 = func.getArgument(a++);

  // The TMA descriptors, typed by their boxes.
  auto qBox = smemMemref({s.queriesPerCta, s.group, 64}, p.element);
  auto kBox = smemMemref({s.kvTile, 1, 64}, p.element);
  tmapQ = UnrealizedConversionCastOp::create(b, tmapType(qBox), tmapQ)
              .getResult(0);
  Value tK = UnrealizedConversionCastOp::create(b, tmapType(kBox), tmapK)
                 .getResult(0);
  tmapV = p.kvSame ? tK
                   : UnrealizedConversionCastOp::create(b, tmapType(kBox),
                                                        tmapV)
                         .getResult(0);
  tmapK = tK;
  auto cBox = smemMemref({AttentionSchedule::kChunkKeys, 1, 64}, p.element);
  Value tKc = UnrealizedConversionCastOp::create(b, tmapType(cBox), tmapKc)
                  .getResult(0);
  tmapVc = p.kvSame ? tKc
                    : UnrealizedConversionCastOp::create(b, tmapType(cBox),
                                                         tmapVc)
                          .getResult(0);
  tmapKc = tKc;

  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  warp = arith::DivUIOp::create(b, tid, idx(32));
  // blockIdx.x = row block x dvSplit + the CTA's part of Dv.
  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  rowBlock = arith::DivUIOp::create(b, bx, idx(s.dvSplit));
  split = arith::RemUIOp::create(b, bx, idx(s.dvSplit));
  dvBase = arith::MulIOp::create(b, split, idx(s.dvPerCta()));
  dBase = s.exchangeS ? arith::MulIOp::create(b, split, idx(s.dPerCta()))
                            .getResult()
                      : idx(0);
  kvHead = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  batch = gpu::BlockIdOp::create(b, gpu::Dimension::z);
  if (p.hasLens) {
    Value l = memref::LoadOp::create(b, lens, ValueRange{batch});
    len = arith::IndexCastOp::create(b, b.getIndexType(), l);
  } else {
    len = idx(p.seqKv);
  }

  // The KV tiles this CTA visits: keys [keyLo, keyHi) cover every key any
  // of its queries sees (docs/AttentionLowering.md, "Masks").
  Value iFirst = arith::MulIOp::create(b, rowBlock, idx(s.queriesPerCta));
  Value iEnd = arith::MinSIOp::create(
      b, arith::AddIOp::create(b, iFirst, idx(s.queriesPerCta)),
      idx(p.seqQ));
  Value base = arith::SubIOp::create(b, len, idx(p.seqQ)); // p = base + i
  keyHi = len;
  if (p.causal) // last position + 1
    keyHi = arith::MinSIOp::create(b, len,
                                   arith::AddIOp::create(b, base, iEnd));
  keyLo = idx(0);
  if (p.window) {
    Value first = arith::AddIOp::create(b, base, iFirst);
    keyLo = arith::MaxSIOp::create(
        b, idx(0), arith::SubIOp::create(b, first, idx(*p.window - 1)));
  }
  keyHi = arith::MaxSIOp::create(b, keyHi, keyLo);
  tileLo = arith::DivUIOp::create(b, keyLo, idx(s.kvTile));
  Value tileHi = arith::CeilDivUIOp::create(b, keyHi, idx(s.kvTile));
  tileCount = arith::SubIOp::create(b, tileHi, tileLo);

  // Dynamic shared memory, 1024-aligned: Q | stage 0 (K, V) | stage 1 ...
  auto smemTy = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                MemRefLayoutAttrInterface(),
                                wg());
  smem = gpu::DynamicSharedMemoryOp::create(b, smemTy);
  Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
  Value up = arith::AddIOp::create(b, ptr, idx(1023));
  Value aligned = arith::AndIOp::create(b, up, idx(-1024));
  qOff = arith::SubIOp::create(b, aligned, ptr);
  // Barriers: q_full (TMA), kv_full / kv_empty per stage (TMA / MMA
  // commit), s_full (commit), p_full (128 softmax threads), o_done
  // (commit).
  qFull = nvgpu::MBarrierCreateOp::create(b, groupType(1));
  kvFull = nvgpu::MBarrierCreateOp::create(b, groupType(unsigned(s.stages)));
  kvEmpty = nvgpu::MBarrierCreateOp::create(b, groupType(unsigned(s.stages)));
  sFull = nvgpu::MBarrierCreateOp::create(b, groupType(unsigned(s.sBuffers)));
  pFull = nvgpu::MBarrierCreateOp::create(b, groupType(1));
  oDone = nvgpu::MBarrierCreateOp::create(b, groupType(1));
  if (s.exchangeS) {
    xFull = nvgpu::MBarrierCreateOp::create(b, groupType(1));
    xEmpty = nvgpu::MBarrierCreateOp::create(b, groupType(1));
    xOff = arith::AddIOp::create(
        b, qOff, idx(s.qBytes + s.stages * s.stageBytes()));
    Value r = NVVM::ClusterId::create(b, b.getI32Type());
    peer = arith::XOrIOp::create(b, r, i32(1));
  }
  Value slot = memref::GetGlobalOp::create(
      b, smemMemref({1}, b.getI32Type()), "tmem_slot");
  ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, idx(0)),
         [&] {
           Value c0 = idx(0), c1 = idx(1);
           nvgpu::MBarrierInitOp::create(b, qFull, c1, c0, Value());
           for (int64_t st = 0; st < s.stages; ++st) {
             nvgpu::MBarrierInitOp::create(b, kvFull, c1, idx(st), Value());
             // In a cluster both CTAs' MMAs must release a stage: the
             // peer's next multicast load writes it here too.
             nvgpu::MBarrierInitOp::create(
                 b, kvEmpty, idx(multicastQK() ? 2 : 1),
                 idx(st), Value());
           }
           for (int64_t i = 0; i < s.sBuffers; ++i)
             nvgpu::MBarrierInitOp::create(b, sFull, c1, idx(i), Value());
           nvgpu::MBarrierInitOp::create(b, pFull, idx(128), c0, Value());
           nvgpu::MBarrierInitOp::create(b, oDone, c1, c0, Value());
           if (s.exchangeS) {
             nvgpu::MBarrierInitOp::create(b, xFull, idx(128), c0, Value());
             nvgpu::MBarrierInitOp::create(b, xEmpty, idx(128), c0, Value());
           }
         });
  ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warp, idx(0)),
         [&] {
           sm100::TmemAllocOp::create(b, slot, uint32_t(s.tmemColumns));
         });
  fence(sm100::FenceKind::before_thread_sync);
  gpu::BarrierOp::create(b);
  fence(sm100::FenceKind::after_thread_sync);
  // The peer multicasts into our barriers: they must be initialised (and
  // the initialisation visible to the cluster) first.
  if (clustered()) {
    NVVM::FenceMbarrierInitOp::create(b);
    clusterSync();
  }

  all = sm100::TmemBaseOp::create(
      b, tmem(128, s.tmemColumns, b.getF32Type(), sm100::TmemLayout::acc),
      slot);
  sAcc = sm100::TmemSliceOp::create(
      b,
      tmem(128, s.sBuffers * s.kvTile, b.getF32Type(),
           sm100::TmemLayout::acc),
      all, uint32_t(s.tmemS));
  for (int64_t i = 0; i < s.sBuffers; ++i)
    sBuf.push_back(sm100::TmemSliceOp::create(
        b, tmem(128, s.kvTile, b.getF32Type(), sm100::TmemLayout::acc), all,
        uint32_t(s.tmemS + i * s.kvTile)));
  oAcc = sm100::TmemSliceOp::create(
      b, tmem(128, s.dvPerCta(), b.getF32Type(), sm100::TmemLayout::acc),
      all, uint32_t(s.tmemO));
  // P over the S buffers: 2 x kvTile 16-bit keys per buffer's kvTile
  // columns, of which P uses the first half.
  pTm = sm100::TmemSliceOp::create(
      b,
      tmem(128, 2 * s.sBuffers * s.kvTile, p.element,
           sm100::TmemLayout::operand_a),
      all, uint32_t(s.tmemP));
}

std::pair<Value, Value> KernelBuilder::chunkRange(Value n) {
  const int64_t ck = AttentionSchedule::kChunkKeys;
  Value start = arith::MulIOp::create(
      b, arith::AddIOp::create(b, tileLo, n), idx(s.kvTile));
  // keyLo <= start except in the first tile; keyHi > start in every
  // visited tile.
  Value first = arith::DivUIOp::create(
      b, arith::SubIOp::create(b, arith::MaxSIOp::create(b, keyLo, start),
                               start),
      idx(ck));
  Value end = arith::MinSIOp::create(
      b, idx(s.chunksPerTile()),
      arith::CeilDivUIOp::create(b, arith::SubIOp::create(b, keyHi, start),
                                 idx(ck)));
  return {first, end};
}

Value KernelBuilder::maskedLogits(Value sv, Value kb) {
  auto vi32 = VectorType::get({32}, b.getI32Type());
  auto vf32 = VectorType::get({32}, b.getF32Type());
  SmallVector<int32_t> steps;
  for (int32_t i = 0; i < 32; ++i)
    steps.push_back(i);
  Value step = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vi32, ArrayRef<int32_t>(steps)));
  Value kbi = arith::IndexCastOp::create(b, b.getI32Type(), kb);
  Value keys = arith::AddIOp::create(
      b, step, vector::BroadcastOp::create(b, vi32, kbi));
  Value lo = vector::BroadcastOp::create(b, vi32, rowLo);
  Value hi = vector::BroadcastOp::create(b, vi32, rowHi);
  Value ok = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::sge, keys, lo),
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, keys, hi));
  Value x = arith::MulFOp::create(
      b, sv, vector::BroadcastOp::create(b, vf32, scaleLog2));
  Value ninf = arith::ConstantOp::create(
      b, DenseElementsAttr::get(
             vf32, APFloat::getInf(APFloat::IEEEsingle(), /*Negative=*/true)));
  return arith::SelectOp::create(b, ok, x, ninf);
}

Value KernelBuilder::barrierAddress(Value group) {
  // nvgpu.mbarrier.get yields the barrier's shared-window address.
  return nvgpu::MBarrierGetOp::create(b, b.getI32Type(), group, idx(0));
}

void KernelBuilder::remoteArrive(Value addr) {
  inlinePtx("{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $0, $1; "
            "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra]; }",
            TypeRange{}, ValueRange{addr, peer});
}

void KernelBuilder::clusterWait(Value addr, Value parity) {
  Value par = arith::ExtUIOp::create(b, b.getI32Type(), parity);
  auto loop = scf::WhileOp::create(b, TypeRange{}, ValueRange{});
  {
    OpBuilder::InsertionGuard g(b);
    Block *before = b.createBlock(&loop.getBefore());
    b.setInsertionPointToStart(before);
    Value done =
        inlinePtx("{ .reg .pred P; "
                  "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
                  "P, [$1], $2; selp.u32 $0, 1, 0, P; }",
                  b.getI32Type(), ValueRange{addr, par})[0];
    Value again =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, done, i32(0));
    scf::ConditionOp::create(b, again, ValueRange{});
    Block *after = b.createBlock(&loop.getAfter());
    b.setInsertionPointToStart(after);
    scf::YieldOp::create(b, ValueRange{});
  }
}

void KernelBuilder::exchangePartialS(Value n) {
  // Each CTA holds S over its half of D. In each of xRounds rounds, thread r
  // writes its row of a slice of the partial S to its own buffer
  // (chunk-major: [slice / 32][128 rows][32]), tells the peer, reads the
  // peer's row of the slice through distributed shared memory, stores the
  // sum back into TMEM, and tells the peer that its buffer may be reused.
  // Round h of tile n is phase n * xRounds + h of both barriers.
  const int64_t tile = s.kvTile, rounds = s.xRounds;
  const int64_t perRound = tile / 32 / rounds; // 32-column chunks
  auto vf32 = VectorType::get({32}, b.getF32Type());
  auto xTy = smemMemref({perRound, 128, 32}, b.getF32Type());
  Value xbuf = view(xOff, xTy);
  Value fullAddr = barrierAddress(xFull);
  Value emptyAddr = barrierAddress(xEmpty);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
  Value rowAddr = arith::AddIOp::create(
      b, arith::AddIOp::create(b, base, xOff),
      arith::MulIOp::create(b, tid, idx(128)));
  Value rowAddr32 = arith::IndexCastOp::create(b, b.getI32Type(), rowAddr);
  Value remote = inlinePtx("mapa.shared::cluster.u32 $0, $1, $2;",
                           b.getI32Type(), ValueRange{rowAddr32, peer})[0];
  Type f32Ty = b.getF32Type();
  Value phase0 = arith::MulIOp::create(b, n, idx(rounds));
  Value bufCol = bufferColumn(n);
  for (int64_t h = 0; h < rounds; ++h) {
    Value phase = arith::AddIOp::create(b, phase0, idx(h));
    // Our buffer still holds the previous round until the peer has read it.
    auto waitEmpty = [&] {
      clusterWait(emptyAddr,
                  parityOf(arith::SubIOp::create(b, phase, idx(1))));
    };
    if (h == 0)
      ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::ne, n, idx(0)),
             waitEmpty);
    else
      waitEmpty();
    for (int64_t c = 0; c < perRound; ++c) {
      Value sv = sm100::TmemLoadOp::create(
          b, vf32, sAcc,
          arith::AddIOp::create(b, bufCol, idx((h * perRound + c) * 32)),
          sm100::LdStShape::shape_32x32b, 32, false, IntegerAttr(),
          IntegerAttr());
      vector::StoreOp::create(b, sv, xbuf, ValueRange{idx(c), tid, idx(0)});
    }
    remoteArrive(fullAddr);
    clusterWait(fullAddr, parityOf(phase));
    for (int64_t c = 0; c < perRound; ++c) {
      SmallVector<Value> parts;
      for (int64_t q = 0; q < 8; ++q) {
        int64_t off = c * 128 * 128 + q * 16;
        std::string code =
            "ld.shared::cluster.v4.f32 {$0, $1, $2, $3}, [$4+" +
            std::to_string(off) + "];";
        llvm::append_range(
            parts,
            inlinePtx(code, TypeRange{f32Ty, f32Ty, f32Ty, f32Ty}, remote));
      }
      Value theirs = vector::FromElementsOp::create(b, vf32, parts);
      Value mine = vector::LoadOp::create(b, vf32, xbuf,
                                          ValueRange{idx(c), tid, idx(0)});
      Value sum = arith::AddFOp::create(b, mine, theirs);
      sm100::TmemStoreOp::create(
          b, sum, sAcc,
          arith::AddIOp::create(b, bufCol, idx((h * perRound + c) * 32)),
          sm100::LdStShape::shape_32x32b, 32, false, IntegerAttr(),
          IntegerAttr());
    }
    remoteArrive(emptyAddr);
  }
  sm100::WaitOp::create(b, sm100::WaitKind::store);
}

void KernelBuilder::softmaxRole() {
  Type f32Ty = b.getF32Type();
  Type i32Ty = b.getI32Type();
  auto vf32 = VectorType::get({32}, f32Ty);
  const int64_t tile = s.kvTile;

  // Thread tid owns TMEM lane tid: row r = query (r / G) of the block, head
  // g * G + r % G.
  Value r = tid;
  Value iLocal = arith::DivUIOp::create(b, r, idx(s.group));
  Value hh = arith::RemUIOp::create(b, r, idx(s.group));
  Value i = arith::AddIOp::create(
      b, arith::MulIOp::create(b, rowBlock, idx(s.queriesPerCta)), iLocal);
  Value head = arith::AddIOp::create(
      b, arith::MulIOp::create(b, kvHead, idx(s.group)), hh);
  Value valid = arith::AndIOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, r,
                            idx(s.usedRows())),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, i, idx(p.seqQ)));
  // Visible keys of this row: [rowLo, rowHi) (docs/AttentionLowering.md).
  Value pos = arith::AddIOp::create(
      b, arith::SubIOp::create(b, len, idx(p.seqQ)), i);
  Value posI = arith::IndexCastOp::create(b, i32Ty, pos);
  Value lenI = arith::IndexCastOp::create(b, i32Ty, len);
  rowHi = lenI;
  if (p.causal)
    rowHi = arith::MinSIOp::create(b, lenI,
                                   arith::AddIOp::create(b, posI, i32(1)));
  rowLo = i32(std::numeric_limits<int32_t>::min());
  if (p.window)
    rowLo = arith::SubIOp::create(b, posI, i32(*p.window - 1));

  Value ninf = negInf();
  Value zero = f32(0.0);
  auto loop = scf::ForOp::create(b, idx(0), tileCount, idx(1),
                                 ValueRange{ninf, zero});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value n = loop.getInductionVar();
    Value m = loop.getRegionIterArgs()[0];
    Value l = loop.getRegionIterArgs()[1];
    Value t = arith::AddIOp::create(b, tileLo, n);
    // S of tile n is in buffer n mod sBuffers, whose barrier completes
    // once per use: phase n / sBuffers.
    Value buf = arith::RemUIOp::create(b, n, idx(s.sBuffers));
    wait(sFull, buf,
         parityOf(arith::DivUIOp::create(b, n, idx(s.sBuffers))));
    fence(sm100::FenceKind::after_thread_sync);
    if (s.exchangeS)
      exchangePartialS(n);
    Value key0 = arith::MulIOp::create(b, t, idx(tile));
    Value bufCol = bufferColumn(n);

    // Pass 1: the tile's max of the scaled, masked logits.
    auto maxLoop = scf::ForOp::create(b, idx(0), idx(tile), idx(32),
                                      ValueRange{ninf});
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(maxLoop.getBody());
      Value ch = maxLoop.getInductionVar();
      Value sv = sm100::TmemLoadOp::create(
          b, vf32, sAcc, arith::AddIOp::create(b, bufCol, ch),
          sm100::LdStShape::shape_32x32b, 32, false, IntegerAttr(),
          IntegerAttr());
      Value x = maskedLogits(sv, arith::AddIOp::create(b, key0, ch));
      Value red = vector::ReductionOp::create(
          b, vector::CombiningKind::MAXIMUMF, x,
          maxLoop.getRegionIterArgs()[0]);
      scf::YieldOp::create(b, red);
    }
    Value mNew = arith::MaximumFOp::create(b, m, maxLoop.getResult(0));
    // A row that has seen no visible key yet keeps m = -inf; exponents are
    // taken against 0 then, so that no -inf - -inf appears.
    Value isInf = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew,
                                        ninf);
    Value mUse = arith::SelectOp::create(b, isInf, zero, mNew);
    Value alpha = ex2(arith::SubFOp::create(b, m, mUse));

    // Pass 2: P = exp2(x - m) as 16-bit pairs (key 2j low, 2j + 1 high:
    // the ts A-operand packing), and the row sum of the f32 values.
    auto sumLoop = scf::ForOp::create(b, idx(0), idx(tile / 64), idx(1),
                                      ValueRange{zero});
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(sumLoop.getBody());
      Value pc = sumLoop.getInductionVar();
      Value ch0 = arith::MulIOp::create(b, pc, idx(64));
      Value ch1 = arith::AddIOp::create(b, ch0, idx(32));
      Value mv = vector::BroadcastOp::create(b, vf32, mUse);
      Value sum = sumLoop.getRegionIterArgs()[0];
      SmallVector<Value> halves;
      for (Value ch : {ch0, ch1}) {
        Value sv = sm100::TmemLoadOp::create(
            b, vf32, sAcc, arith::AddIOp::create(b, bufCol, ch),
            sm100::LdStShape::shape_32x32b, 32, false, IntegerAttr(),
            IntegerAttr());
        Value x = maskedLogits(sv, arith::AddIOp::create(b, key0, ch));
        Value e = math::Exp2Op::create(
            b, arith::SubFOp::create(b, x, mv),
            arith::FastMathFlagsAttr::get(ctx, arith::FastMathFlags::afn));
        sum = vector::ReductionOp::create(b, vector::CombiningKind::ADD, e,
                                          sum);
        halves.push_back(arith::TruncFOp::create(
            b, VectorType::get({32}, p.element), e));
      }
      SmallVector<int64_t> order;
      for (int64_t k = 0; k < 64; ++k)
        order.push_back(k);
      Value cat = vector::ShuffleOp::create(b, halves[0], halves[1], order);
      Value packed = vector::BitCastOp::create(
          b, VectorType::get({32}, i32Ty), cat);
      // Over the S columns of this 64-key pair, already read.
      Value pcol = arith::AddIOp::create(
          b, bufCol, arith::MulIOp::create(b, pc, idx(32)));
      sm100::TmemStoreOp::create(b, packed, pTm, pcol,
                                 sm100::LdStShape::shape_32x32b, 32, false,
                                 IntegerAttr(), IntegerAttr());
      scf::YieldOp::create(b, sum);
    }
    // O may be touched only after the previous P V finished (waited every
    // tile, after P is written, so that the exponentials overlap that P V
    // and the o_done phases are never two behind).
    ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::ne, n, idx(0)),
           [&] {
             wait(oDone, idx(0),
                  parityOf(arith::SubIOp::create(b, n, idx(1))));
             fence(sm100::FenceKind::after_thread_sync);
             // Rescale O only when the running max of a row of this warp
             // grew (alpha < 1); the vote keeps the TMEM accesses, which are
             // warp-collective, uniform across the warp.
             Value grew = arith::CmpFOp::create(b, arith::CmpFPredicate::UNE,
                                                alpha, f32(1.0));
             Value anyGrew = NVVM::VoteSyncOp::create(
                 b, b.getI1Type(), i32(-1), grew, NVVM::VoteSyncKind::any);
             ifThen(anyGrew, [&] {
               forLoop(idx(0), idx(s.dvPerCta()), idx(32), [&](Value oc) {
                 Value ov = sm100::TmemLoadOp::create(
                     b, vf32, oAcc, oc, sm100::LdStShape::shape_32x32b, 32,
                     false, IntegerAttr(), IntegerAttr());
                 Value scaled = arith::MulFOp::create(
                     b, ov, vector::BroadcastOp::create(b, vf32, alpha));
                 sm100::TmemStoreOp::create(
                     b, scaled, oAcc, oc, sm100::LdStShape::shape_32x32b, 32,
                     false, IntegerAttr(), IntegerAttr());
               });
             });
           });
    sm100::WaitOp::create(b, sm100::WaitKind::store);
    fence(sm100::FenceKind::before_thread_sync);
    nvgpu::MBarrierArriveOp::create(
        b, nvgpu::MBarrierTokenType::get(ctx), pFull, idx(0));
    Value lNew = arith::AddFOp::create(b, arith::MulFOp::create(b, l, alpha),
                                       sumLoop.getResult(0));
    scf::YieldOp::create(b, ValueRange{mNew, lNew});
  }
  Value m = loop.getResult(0);
  Value l = loop.getResult(1);

  // Epilogue. With the sink (in base 2: sink * log2 e) in the denominator:
  // m_f = max(m, sink), Z = l 2^(m - m_f) + 2^(sink - m_f),
  // LSE = (m_f + log2 Z) ln 2, O = acc 2^(m - m_f) / Z; a row without any
  // visible key and without a sink gets O = 0 and LSE = -inf.
  Value mF = m, e2 = zero;
  Value sinkL = ninf;
  if (p.hasSink) {
    Value sk = memref::LoadOp::create(b, sink, ValueRange{head});
    sinkL = arith::MulFOp::create(b, sk, f32(1.4426950408889634));
    mF = arith::MaximumFOp::create(b, m, sinkL);
  }
  Value fInf = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mF, ninf);
  Value mS = arith::SelectOp::create(b, fInf, zero, mF);
  Value e1 = ex2(arith::SubFOp::create(b, m, mS));
  if (p.hasSink)
    e2 = ex2(arith::SubFOp::create(b, sinkL, mS));
  Value z = arith::AddFOp::create(b, arith::MulFOp::create(b, l, e1), e2);
  Value lse = arith::MulFOp::create(b, arith::AddFOp::create(b, mS, lg2(z)),
                                    f32(0.69314718055994530942));
  Value positive =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, z, zero);
  Value inv = arith::SelectOp::create(
      b, positive, arith::DivFOp::create(b, e1, z), zero);
  // The CTAs of a Dv split compute the same LSE; the first writes it.
  Value writesLse = valid;
  if (s.dvSplit > 1)
    writesLse = arith::AndIOp::create(
        b, valid,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, split, idx(0)));
  ifThen(writesLse, [&] {
    memref::StoreOp::create(b, lse, outLse, ValueRange{batch, head, i});
  });
  auto outVec = VectorType::get({32}, p.outElement);
  Value any = arith::CmpIOp::create(b, arith::CmpIPredicate::ne, tileCount,
                                    idx(0));
  auto ifAny = scf::IfOp::create(b, any, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifAny.thenBlock());
    wait(oDone, idx(0),
         parityOf(arith::SubIOp::create(b, tileCount, idx(1))));
    fence(sm100::FenceKind::after_thread_sync);
    forLoop(idx(0), idx(s.dvPerCta()), idx(32), [&](Value oc) {
      Value ov = sm100::TmemLoadOp::create(
          b, vf32, oAcc, oc, sm100::LdStShape::shape_32x32b, 32, false,
          IntegerAttr(), IntegerAttr());
      Value on = arith::MulFOp::create(
          b, ov, vector::BroadcastOp::create(b, vf32, inv));
      Value ob = arith::TruncFOp::create(b, outVec, on);
      ifThen(valid, [&] {
        vector::StoreOp::create(
            b, ob, outO,
            ValueRange{batch, i, head, arith::AddIOp::create(b, dvBase, oc)},
            /*nontemporal=*/false, kOutAlign);
      });
    });
    b.setInsertionPointToStart(ifAny.elseBlock());
    Value zeros = arith::ConstantOp::create(
        b, DenseElementsAttr::get(
               outVec, FloatAttr::get(p.outElement, 0.0)));
    ifThen(valid, [&] {
      forLoop(idx(0), idx(s.dvPerCta()), idx(32), [&](Value oc) {
        vector::StoreOp::create(
            b, zeros, outO,
            ValueRange{batch, i, head, arith::AddIOp::create(b, dvBase, oc)},
            /*nontemporal=*/false, kOutAlign);
      });
    });
  }
}

void KernelBuilder::loadRole() {
  const int64_t tile = s.kvTile;
  auto elect = sm100::ElectOneOp::create(b);
  elect.getBody().push_back(new Block());
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&elect.getBody().front());

  // Q: D / 64 boxes of (64, G, queriesPerCta), each into its own 16 KiB
  // column of the K-major tile.
  auto qBox = smemMemref({s.queriesPerCta, s.group, 64}, p.element);
  nvgpu::MBarrierArriveExpectTxOp::create(
      b, qFull, idx(s.qBoxBytes() * (s.dPerCta() / 64)), idx(0), Value());
  Value qRow = arith::AddIOp::create(
      b, arith::MulIOp::create(b, batch, idx(p.seqQ)),
      arith::MulIOp::create(b, rowBlock, idx(s.queriesPerCta)));
  Value qHead = arith::MulIOp::create(b, kvHead, idx(s.group));
  // In a cluster each CTA loads every other box and multicasts it to both
  // (the peer's barrier at the same offset counts the bytes).
  // With exchangeS each CTA loads only its own D columns.
  auto shared = [&](int64_t c, function_ref<void(Value mask)> load) {
    if (!multicastQK())
      return load(Value());
    ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, split,
                                 idx(c % s.dvSplit)),
           [&] { load(bothCtas()); });
  };
  for (int64_t c = 0; c < s.dPerCta() / 64; ++c)
    shared(c, [&](Value mask) {
      Value dst = view(arith::AddIOp::create(
                           b, qOff, idx(c * AttentionSchedule::kBoxBytes)),
                       qBox);
      Value col = arith::AddIOp::create(b, dBase, idx(c * 64));
      nvgpu::TmaAsyncLoadOp::create(b, dst, qFull, tmapQ,
                                    ValueRange{col, qHead, qRow}, idx(0),
                                    mask, Value());
    });

  // K and V tiles through the ring; the first wait on each stage passes at
  // once (a fresh barrier completes "phase -1").
  auto kBox = smemMemref({tile, 1, 64}, p.element);
  Value rowBase = arith::MulIOp::create(b, batch, idx(p.seqKv));
  forLoop(idx(0), tileCount, idx(1), [&](Value n) {
    Value stage = arith::RemUIOp::create(b, n, idx(s.stages));
    Value round = arith::DivUIOp::create(b, n, idx(s.stages));
    Value emptyParity =
        arith::XOrIOp::create(b, parityOf(round), i1(true));
    wait(kvEmpty, stage, emptyParity);
    Value t = arith::AddIOp::create(b, tileLo, n);
    Value row = arith::AddIOp::create(
        b, rowBase, arith::MulIOp::create(b, t, idx(tile)));
    // Only the chunks with a visible key: a whole tile is one box per 64
    // columns, a partly visible one a chunk box per chunk and 64 columns
    // (the bytes past the visible keys are neither read nor waited for).
    auto [cFirst, cEnd] = chunkRange(n);
    nvgpu::MBarrierArriveExpectTxOp::create(
        b, kvFull,
        arith::MulIOp::create(b, arith::SubIOp::create(b, cEnd, cFirst),
                              idx(s.chunkTxBytes())),
        stage, Value());
    Value kOff = kOffset(stage);
    Value vOff = vOffset(kOff);
    // Boxes of `rows` keys at key offset `key0` of the tile, through `k` and
    // `v` (maps whose box has that many rows).
    auto loadBoxes = [&](Value key0, MemRefType box, Value k, Value v) {
      Value at = arith::MulIOp::create(b, key0, idx(128));
      Value r = arith::AddIOp::create(b, row, key0);
      // Box c of the region at `base` (columns colBase + 64 c) via `map`.
      auto one = [&](Value base, Value colBase, Value map, int64_t c,
                     Value mask) {
        Value dst = view(
            arith::AddIOp::create(
                b, arith::AddIOp::create(b, base, idx(c * s.kvBoxBytes())),
                at),
            box);
        Value col = arith::AddIOp::create(b, colBase, idx(c * 64));
        nvgpu::TmaAsyncLoadOp::create(b, dst, kvFull, map,
                                      ValueRange{col, kvHead, r}, stage, mask,
                                      Value());
      };
      for (int64_t c = 0; c < s.dPerCta() / 64; ++c)
        shared(c, [&](Value mask) { one(kOff, dBase, k, c, mask); });
      // This CTA's V columns only (all of them without a Dv split).
      if (!p.kvSame)
        for (int64_t c = 0; c < s.dvPerCta() / 64; ++c)
          one(vOff, dvBase, v, c, Value());
    };
    Value whole = arith::AndIOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, cFirst, idx(0)),
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, cEnd,
                              idx(s.chunksPerTile())));
    auto ifWhole = scf::IfOp::create(b, whole, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard gw(b);
    b.setInsertionPointToStart(ifWhole.thenBlock());
    loadBoxes(idx(0), kBox, tmapK, tmapV);
    b.setInsertionPointToStart(ifWhole.elseBlock());
    const int64_t ck = AttentionSchedule::kChunkKeys;
    auto cBox = smemMemref({ck, 1, 64}, p.element);
    forLoop(cFirst, cEnd, idx(1), [&](Value c) {
      loadBoxes(arith::MulIOp::create(b, c, idx(ck)), cBox, tmapKc, tmapVc);
    });
  });
}

void KernelBuilder::mmaRole() {
  const int64_t tile = s.kvTile;
  auto elect = sm100::ElectOneOp::create(b);
  elect.getBody().push_back(new Block());
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&elect.getBody().front());

  Type e = p.element;
  const int64_t dq = s.dPerCta();
  auto qTileTy = smemMemref({128, dq}, e);
  auto kTileTy = smemMemref({tile, dq}, e);
  // This CTA's V columns: dvPerCta / 64 boxes of (tile keys x 64), read by
  // one MMA per K slice as an N = dvPerCta MN-major operand whose atoms are
  // laid out K-first (the boxes).
  const int64_t dv = s.dvPerCta();
  auto vRegionTy = smemMemref({dv / 64, tile, 64}, e);
  auto layQ = sm100::SmemLayoutAttr::get(ctx, sm100::Major::k,
                                         sm100::Swizzle::sw128, e, 128, dq,
                                         false);
  auto layK = sm100::SmemLayoutAttr::get(ctx, sm100::Major::k,
                                         sm100::Swizzle::sw128, e, tile, dq,
                                         false);
  auto layV = sm100::SmemLayoutAttr::get(ctx, sm100::Major::mn,
                                         sm100::Swizzle::sw128, e, dv, tile,
                                         /*k_first=*/true);
  Type f32Ty = b.getF32Type();
  auto idescS = sm100::IDescAttr::get(ctx, sm100::MmaKind::f16, e, e, f32Ty,
                                      128, tile, sm100::Major::k,
                                      sm100::Major::k, false, false, 1,
                                      sm100::ScaleType::ue8m0);
  auto idescO = sm100::IDescAttr::get(ctx, sm100::MmaKind::f16, e, e, f32Ty,
                                      128, dv, sm100::Major::k,
                                      sm100::Major::mn, false, false, 1,
                                      sm100::ScaleType::ue8m0);
  auto pK = tmem(128, 16, e, sm100::TmemLayout::operand_a);
  Value c0 = idx(0);

  Value yes = i1(true);
  const int64_t sb = s.sBuffers;
  // S = Q K^T of tile n into S buffer n mod sBuffers: D / 16 MMAs of
  // K = 16. The buffer held P of tile n - sBuffers, which that tile's P V
  // reads; the ISA orders MMAs of one thread only within a pipeline (same
  // accumulator and shape), so wait until that P V completed (o_done).
  auto issueS = [&](Value n, Value stage) {
    ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::uge, n, idx(sb)),
           [&] {
             wait(oDone, c0, parityOf(arith::SubIOp::create(b, n, idx(sb))));
           });
    fence(sm100::FenceKind::after_thread_sync);
    Value qTile = view(opaque(qOff), qTileTy);
    Value kTile = view(opaque(kOffset(stage)), kTileTy);
    forBuffer(n, [&](int64_t buf) {
      for (int64_t k = 0; k < dq / 16; ++k) {
        Value qa = sm100::UmmaDescOp::create(b, b.getI64Type(), qTile,
                                             ValueRange{c0, c0}, layQ,
                                             uint32_t(k));
        Value kb = sm100::UmmaDescOp::create(b, b.getI64Type(), kTile,
                                             ValueRange{c0, c0}, layK,
                                             uint32_t(k));
        sm100::MmaOp::create(b, sBuf[buf], qa, kb, k == 0 ? i1(false) : yes,
                             idescS);
      }
      sm100::CommitOp::create(b, sFull, idx(buf), Value(), 1u);
    });
  };
  // O += P V of tile j once the softmax wrote P (and rescaled O); then the
  // tile's stage is free and o_done completes phase j.
  auto issuePV = [&](Value j) {
    Value stage = arith::RemUIOp::create(b, j, idx(s.stages));
    wait(pFull, c0, parityOf(j));
    fence(sm100::FenceKind::after_thread_sync);
    Value notFirst = arith::CmpIOp::create(b, arith::CmpIPredicate::ne, j,
                                           idx(0));
    Value kOff = opaque(kOffset(stage));
    Value vOff = vOffset(kOff);
    // With K = V the CTA's V columns are boxes of the K tile.
    Value vBase = vOff;
    if (p.kvSame && s.dvSplit > 1 && !s.exchangeS)
      vBase = arith::AddIOp::create(
          b, kOff,
          arith::MulIOp::create(b, arith::DivUIOp::create(b, dvBase, idx(64)),
                                idx(s.kvBoxBytes())));
    Value vRegion = view(vBase, vRegionTy);
    // One K = 16 slice per loaded chunk (a whole tile: all of them); O
    // starts from zero at the first slice of the first tile.
    auto [cFirst, cEnd] = chunkRange(j);
    static_assert(AttentionSchedule::kChunkKeys == 16, "one MMA per chunk");
    forBuffer(j, [&](int64_t buf) {
      for (int64_t k = 0; k < tile / 16; ++k) {
        Value kv = idx(k);
        Value loaded = arith::AndIOp::create(
            b,
            arith::CmpIOp::create(b, arith::CmpIPredicate::sge, kv, cFirst),
            arith::CmpIOp::create(b, arith::CmpIPredicate::slt, kv, cEnd));
        ifThen(loaded, [&] {
          Value acc = arith::OrIOp::create(
              b, notFirst,
              arith::CmpIOp::create(b, arith::CmpIPredicate::ne, kv, cFirst));
          Value pa = sm100::TmemSliceOp::create(
              b, pK, pTm, uint32_t(buf * tile + 8 * k));
          Value vb = sm100::UmmaDescOp::create(b, b.getI64Type(), vRegion,
                                               ValueRange{c0, c0, c0}, layV,
                                               uint32_t(k));
          sm100::MmaOp::create(b, oAcc, pa, vb, acc, idescO);
        });
      }
    });
    sm100::CommitOp::create(b, kvEmpty, stage,
                            multicastQK() ? bothCtas() : Value(), 1u);
    sm100::CommitOp::create(b, oDone, c0, Value(), 1u);
  };

  // With two S buffers the MMA warp runs a tile ahead: S(n) is issued
  // before P V of tile n - 1, so the tensor core computes the next S while
  // the softmax works on this one. One loop of tileCount + `ahead` steps:
  // step n issues S(n) if n < tileCount and P V of n - ahead if
  // n >= ahead, so that each exists once in the code.
  const int64_t ahead = sb - 1;
  wait(qFull, c0, i1(false));
  Value steps = arith::AddIOp::create(b, tileCount, idx(ahead));
  forLoop(idx(0), steps, idx(1), [&](Value n) {
    auto stepS = [&] {
      Value stage = arith::RemUIOp::create(b, n, idx(s.stages));
      wait(kvFull, stage,
           parityOf(arith::DivUIOp::create(b, n, idx(s.stages))));
      issueS(n, stage);
    };
    auto stepPV = [&] {
      issuePV(arith::SubIOp::create(b, n, idx(ahead)));
    };
    if (ahead == 0) {
      stepS();
      stepPV();
      return;
    }
    ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::ult, n, tileCount),
           stepS);
    ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::uge, n,
                                 idx(ahead)),
           stepPV);
  });
}

//===----------------------------------------------------------------------===//
// The harness attribute
//===----------------------------------------------------------------------===//

std::string typeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isF32())
    return "f32";
  return "i32";
}

DictionaryAttr harnessAttr(const AttentionSchedule &s, Builder &b) {
  const AttentionProblemShape &p = s.problem;
  auto str = [&](StringRef v) { return b.getStringAttr(v); };
  auto named = [&](StringRef n, Attribute a) {
    return b.getNamedAttr(n, a);
  };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<NamedAttribute> types = {
      named("q", str(typeName(p.element))),
      named("k", str(typeName(p.element))),
      named("v", str(typeName(p.element))),
      named("o", str(typeName(p.outElement))),
      named("lse", str("f32"))};
  if (p.hasSink)
    types.push_back(named("sink", str("f32")));
  if (p.hasLens)
    types.push_back(named("kv_lens", str("i32")));
  SmallVector<Attribute> absent;
  if (!p.hasSink)
    absent.push_back(str("sink"));
  if (!p.hasLens)
    absent.push_back(str("kv_lens"));
  SmallVector<NamedAttribute> sizes = {
      named("b", i64(p.batch)),      named("sq", i64(p.seqQ)),
      named("hq", i64(p.headsQ)),    named("skv", i64(p.seqKv)),
      named("hkv", i64(p.headsKv)),  named("d", i64(p.headDim)),
      named("dv", i64(p.headDimV))};
  SmallVector<NamedAttribute> options = {
      named("softmax_scale", b.getF32FloatAttr(p.softmaxScale)),
      named("causal", b.getBoolAttr(p.causal))};
  if (p.window)
    options.push_back(named("window", i64(*p.window)));

  auto tmapArg = [&](StringRef t, ArrayRef<StringRef> view,
                     ArrayRef<int64_t> box) {
    SmallVector<Attribute> v;
    for (StringRef x : view)
      v.push_back(str(x));
    return b.getDictionaryAttr(
        {named("tmap", str(t)), named("view", b.getArrayAttr(v)),
         named("box", b.getDenseI64ArrayAttr(box)),
         named("swizzle", str("128B"))});
  };
  auto bufArg = [&](StringRef t) {
    return b.getDictionaryAttr({named("buffer", str(t))});
  };
  SmallVector<Attribute> args = {
      tmapArg("q", {"b*sq", "hq", "d"}, {64, s.group, s.queriesPerCta}),
      tmapArg("k", {"b*skv", "hkv", "d"}, {64, 1, s.kvTile})};
  if (!p.kvSame)
    args.push_back(tmapArg("v", {"b*skv", "hkv", "dv"},
                           {64, 1, s.kvTile}));
  const int64_t ck = AttentionSchedule::kChunkKeys;
  args.push_back(tmapArg("k", {"b*skv", "hkv", "d"}, {64, 1, ck}));
  if (!p.kvSame)
    args.push_back(tmapArg("v", {"b*skv", "hkv", "dv"}, {64, 1, ck}));
  args.push_back(bufArg("o"));
  args.push_back(bufArg("lse"));
  if (p.hasLens)
    args.push_back(bufArg("kv_lens"));
  if (p.hasSink)
    args.push_back(bufArg("sink"));
  args.push_back(b.getDictionaryAttr(
      {named("scalar", str("f32")), named("value", str("softmax_scale*log2e"))}));

  SmallVector<NamedAttribute> h = {
      named("reference", str("attention")),
      named("types", b.getDictionaryAttr(types)),
      named("sizes", b.getDictionaryAttr(sizes)),
      named("options", b.getDictionaryAttr(options)),
      named("grid", b.getDenseI32ArrayAttr({int32_t(s.rowBlocks * s.dvSplit),
                                            int32_t(p.headsKv),
                                            int32_t(p.batch)})),
      named("block", b.getDenseI32ArrayAttr(
                         {int32_t(AttentionSchedule::kThreads), 1, 1})),
      named("cluster", b.getDenseI32ArrayAttr({int32_t(s.dvSplit), 1, 1})),
      named("dynamic_smem", i64(s.dynamicSmem)),
      named("args", b.getArrayAttr(args))};
  if (!absent.empty())
    h.push_back(named("absent", b.getArrayAttr(absent)));
  if (p.kvSame)
    h.push_back(named("same", b.getDictionaryAttr({named("v", str("k"))})));
  return b.getDictionaryAttr(h);
}

/// The schedule as attributes on the kernel, for tests and tables.
DictionaryAttr scheduleAttr(const AttentionSchedule &s, Builder &b) {
  auto named = [&](StringRef n, int64_t v) {
    return b.getNamedAttr(n, b.getI64IntegerAttr(v));
  };
  return b.getDictionaryAttr(
      {named("group", s.group), named("queries_per_cta", s.queriesPerCta),
       named("row_blocks", s.rowBlocks), named("kv_tile", s.kvTile),
       named("dv_split", s.dvSplit),
       named("exchange_s", s.exchangeS ? 1 : 0),
       named("x_rounds", s.xRounds), named("s_buffers", s.sBuffers),
       named("stages", s.stages), named("smem_bytes", s.dynamicSmem),
       named("tmem_columns", s.tmemColumns), named("tmem_s", s.tmemS),
       named("tmem_o", s.tmemO), named("tmem_p", s.tmemP),
       named("mmas_per_tile", s.mmasPerTile()), named("max_regs", s.maxRegs),
       named("softmax_regs", s.softmaxRegs), named("other_regs", s.otherRegs)});
}

struct NVFP4LowerAttentionPass
    : nvfp4::impl::NVFP4LowerAttentionBase<NVFP4LowerAttentionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<AttentionOp> ops;
    module.walk([&](AttentionOp op) {
      if (!op->hasAttr(kKernelAttr))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    SymbolTable symbols(module);
    for (AttentionOp op : ops) {
      FailureOr<AttentionSchedule> s = chooseAttentionSchedule(op);
      if (failed(s))
        return signalPassFailure();
      auto parent = op->getParentOfType<FunctionOpInterface>();
      std::string base =
          (parent ? parent.getName().str() : std::string("kernel")) +
          "_attention";
      ImplicitLocOpBuilder b(op.getLoc(), module.getContext());
      b.setInsertionPointToEnd(module.getBody());
      auto gpuModule = gpu::GPUModuleOp::create(b, base);
      symbols.insert(gpuModule); // renames on a clash
      std::string kernelName = base;
      KernelBuilder builder(*s, b);
      gpu::GPUFuncOp func = builder.build(gpuModule, kernelName);
      func->setAttr(kHarnessAttr, harnessAttr(*s, b));
      func->setAttr("nvfp4.schedule", scheduleAttr(*s, b));
      op->setAttr(kKernelAttr,
                  SymbolRefAttr::get(
                      gpuModule.getNameAttr(),
                      {FlatSymbolRefAttr::get(func.getNameAttr())}));
      ++numKernels;
    }
  }
};

} // namespace
