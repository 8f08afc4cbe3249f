//===- LowerAttention.cpp - nvfp4.attention to an sm100 kernel ------------===//
//
// Builds, for every nvfp4.attention, the warp-specialized kernel that
// examples/attention_decode.mlir spells out by hand, generalised by the
// schedule (AttentionSchedule.h): query heads of one KV head times queries
// packed into the MMA's 128 rows, KV tiles through a TMA ring of 1-3
// stages, S = Q K^T in tensor memory, the online softmax in exp2 by four
// warps (one row per thread), P written back to tensor memory as the `ts`
// A operand of O += P V, and an epilogue per piece. The parts that vary
// (where K/V rows come from, which pieces a CTA processes, what a piece
// writes, the combine kernel) are in AttentionKernel.h;
// docs/AttentionLowering.md describes the schedule, the barriers and the
// masks.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "AttentionKernel.h"

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
using namespace nvfp4::attn;

namespace {

constexpr const char *kHarnessAttr = "nvfp4.harness";

/// Builds one kernel. Member functions follow the kernel's structure:
/// prologue (shared memory, barriers, TMEM, the CTA's pieces), the three
/// roles, teardown.
class KernelBuilder {
public:
  KernelBuilder(const AttentionSchedule &s, ImplicitLocOpBuilder &b)
      : s(s), p(s.problem), b(b), ctx(b.getContext()), ir(b), env(s, ir),
        kv(env), work(env), epi(env, work) {}

  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name);
  /// The kernel's harness argument entries, in order.
  SmallVector<Attribute> harnessArgs(Builder &hb) const;

private:
  // Shorthands.
  Value idx(int64_t v) { return ir.idx(v); }
  Value i32(int64_t v) { return ir.i32(v); }
  Value f32(double v) { return ir.f32(v); }
  Value i1(bool v) { return ir.i1(v); }
  Value parityOf(Value v) { return ir.parityOf(v); }
  void wait(Value group, Value index, Value parity, const Twine &role) {
    ir.wait(group, index, parity, role);
  }
  template <typename F> void ifThen(Value cond, F f) { ir.ifThen(cond, f); }
  template <typename F> void forLoop(Value lb, Value ub, Value step, F f) {
    ir.forLoop(lb, ub, step, f);
  }
  Value opaque(Value v) { return ir.opaque(v); }
  void fence(sm100::FenceKind k, const Twine &role) {
    ir.named(sm100::FenceOp::create(b, k), role);
  }
  /// The CTAs of a Dv split form a cluster.
  bool clustered() const { return s.dvSplit > 1; }
  /// Both CTAs of the pair compute S from the same Q and K tiles, each
  /// loading half of the boxes and multicasting them (no D split).
  bool multicastQK() const { return clustered() && !s.exchangeS; }
  /// The multicast mask naming both CTAs of the cluster.
  Value bothCtas() {
    return arith::ConstantIntOp::create(b, 3, 16).getResult();
  }
  Type groupType(unsigned n) {
    return nvgpu::MBarrierGroupType::get(ctx, ir.workgroup(), n);
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
  /// A view of dynamic shared memory at `offset` as `type`.
  Value view(Value offset, MemRefType type) {
    return memref::ViewOp::create(b, type, smem, offset, ValueRange{});
  }

  // Pieces.
  void prologue(gpu::GPUFuncOp func);
  void softmaxRole();
  void loadRole();
  /// One lane: Q of unit `u` into the Q tile once the consumers released
  /// the previous one (`qLoads` loads before it), counted on q_full.
  void loadQ(const UnitGeom &u, Value qLoads);
  /// The load of box `c` (Q's or K's): in a cluster without the D split
  /// each CTA loads every other box and multicasts it to both (the peer's
  /// barrier at the same offset counts the bytes); with exchangeS each CTA
  /// loads only its own D columns.
  void shared(int64_t c, function_ref<void(Value mask)> load) {
    if (!multicastQK())
      return load(Value());
    ifThen(ir.eq(split, idx(c % s.dvSplit)), [&] { load(bothCtas()); });
  }
  /// sm_90a, sparse: warps 4 consumers + 1 and + 2 gather the keys of each
  /// tile, a lane a key (no .tile::gather4 on sm_90a; one thread issuing
  /// D / 64 loads a key spills the loader's 56 registers). With a quantized
  /// cache all four producer warps gather (gatherWarps()): each pair takes
  /// every key, the first pair the slots, the key mask, the bf16 boxes and
  /// the first half of the e4m3 boxes, the second pair the rest; warp 0
  /// also loads Q, the load warp's work otherwise. With one key set the
  /// first pair also prefetches the next tile's rows into L2.
  void gatherRole();
  /// A quantized cache: prefetch.global.L2 of every 128-byte line of the
  /// row of slot `slot` (a valid slot of the first key set's cache).
  void prefetchRow(Value slot);
  /// A quantized cache: the global address (index) of the row of `slot`,
  /// in the extra cache where `extra` (i1, or null: the first) is set.
  Value cacheRowAddress(Value slot, Value extra);
  /// The warps of the gather role (sm_90a, sparse).
  int64_t gatherWarps() const { return p.cache ? 4 : 2; }
  /// 8 e4m3 bytes (vector<8xi8>) times the scale `scv` (vector<8xf32>) as
  /// 8 values of the element type.
  Value dequant8(Value bytes, Value scv);
  /// sm_90a, a quantized cache: key `k` (of the tile from `key0`) with
  /// slot `slot` into stage `stage`: with `rope`, its bf16 boxes by TMA
  /// (counted on `mbar`); its e4m3 boxes [boxLo, boxHi) dequantized from
  /// global memory.
  void gatherCacheKey(Value key0, Value k, Value slot, Value stage, Value mbar,
                      Value rope, Value boxLo, Value boxHi);
  bool hopperGather() const { return s.hopper() && p.sparse(); }
  /// The L2 prefetch beside the gather's copy buffers: only with a plan
  /// made at compile time, whose bounds the gather then re-reads for each
  /// piece (forEachPiece's `lean`) rather than holding the prologue's
  /// across its loop; with either held, or with a device plan, the gather
  /// spilled 88-148 bytes of its 56 registers (docs/Hopper.md).
  bool prefetchBesideStaging() const {
    return s.gatherStaging && s.split == WorkSplit::Balanced;
  }
  void mmaRole();
  /// scale_log2 * s for keys kb + i in [rowLo, rowHi) (and, with `bits`,
  /// whose bit i is set), -inf elsewhere.
  Value maskedLogits(Value s, Value kb, Value rowLo, Value rowHi,
                     Value bits = Value());
  /// The loader's and the MMA warp's walk over the CTA's pieces: `f(piece,
  /// g0, q)` for each piece with tiles, with g0 its first CTA-wide tile and
  /// q the number of Q loads before it (the pieces without tiles load
  /// nothing).
  void forEachPieceWithTiles(
      function_ref<void(const Piece &piece, Value g0, Value qLoads)> f,
      bool lean = false) {
    work.forEachPiece(
        ValueRange{idx(0), idx(0)},
        [&](const Piece &piece, ValueRange args) -> SmallVector<Value> {
          ifThen(piece.any, [&] { f(piece, args[0], args[1]); });
          return {ir.add(args[0], piece.tiles),
                  ir.add(args[1], ir.select(piece.any, idx(1), idx(0)))};
        },
        lean);
  }
  /// The gather role's walk: lean (its bounds re-read per piece) when it
  /// prefetches beside the copy buffers.
  void forEachGatherPiece(
      function_ref<void(const Piece &piece, Value g0, Value qLoads)> f) {
    forEachPieceWithTiles(f, prefetchBesideStaging());
  }
  /// Runs `f(i, col)` for every 64-column box i of D this CTA holds (its
  /// Q and K boxes, in shared-memory order): col is the box's first column
  /// of D; a box only CTA 0 of the pair holds is guarded by its rank.
  void forEachDBox(function_ref<void(int64_t i, Value col)> f);
  /// The chunks [first, end) of the unit's tile `t` that hold a key some
  /// row of the unit sees (AttentionSchedule::kChunkKeys keys each), in
  /// t's type (index, or i32 in the loader's tile loop).
  std::pair<Value, Value> chunkRange(const Piece &piece, Value t);
  /// Sparse: the byte offset of stage `stage`'s key mask (kvTile / 32
  /// words: bit j of word w for key 32 w + j of the tile).
  Value maskOffset(Value stage) {
    return ir.add(ir.add(qOff, idx(s.qBytes + s.stages * s.stageBytes() +
                                   s.xBytes())),
                  ir.mul(stage, idx(s.maskBytesPerStage())));
  }
  /// Sparse (the loader): stage `stage`'s key mask for the tile of unit
  /// `u` from key `key0`: a key is set when its position is below the
  /// top-k length and its index is not -1; an index that is neither -1 nor
  /// a slot stops the kernel.
  void writeKeyMask(const UnitGeom &u, Value key0, Value stage);
  /// Sparse: stage `stage`'s slots (tile i32 after its mask words).
  Value stageSlots(Value stage) {
    return view(ir.add(maskOffset(stage), idx(s.kvTile / 8)),
                ir.smemMemref({s.kvTile}, b.getI32Type()));
  }

  const AttentionSchedule &s;
  const AttentionProblemShape &p;
  ImplicitLocOpBuilder &b;
  MLIRContext *ctx;
  IR ir;
  KernelEnv env;
  KvSource kv;
  WorkPlan work;
  Epilogue epi;

  // Kernel arguments besides the parts'.
  Value tmapQ, sink, scaleLog2;
  // Per-CTA values.
  Value tid, warp, split, dvBase;
  Value smem, qOff;
  /// sm_90a with a Dv split: the hand-over buffer's byte offset (after the
  /// stages, where the SM100 pair's partial-S buffer would be).
  Value handOff;
  /// Byte offsets of stage `stage`'s K and V tiles (first box).
  Value kOffset(Value stage) {
    return ir.add(ir.add(qOff, idx(s.qBytes)),
                  ir.mul(stage, idx(s.stageBytes())));
  }
  Value vOffset(Value kOff) {
    return p.kvSame ? kOff : ir.add(kOff, idx(s.kBytes));
  }
  Value qFull, qEmpty, kvFull, kvEmpty, sFull, pFull, oDone;
  /// A quantized cache: raw_full per stage (the loader's bytes landed);
  /// kv_full then counts the dequantizing threads.
  Value rawFull;
  /// A quantized cache: byte offset of stage `stage`'s raw region.
  Value rawOffset(Value stage) {
    return ir.add(kOffset(stage), idx(s.kBytes + s.vBytes));
  }
  /// A quantized cache: warps 6-7 turn the raw e4m3 bytes of each stage
  /// into the bf16 K tile.
  void dequantRole();
  /// Runs `f(q)` for D box position i of this CTA (its box dBoxes[split][i])
  /// when that box is e4m3 (q) or bf16 (!q), with q a constant; a position
  /// the two CTAs disagree on is guarded by the CTA's rank.
  void forEachCacheBox(int64_t i, function_ref<void(bool quant)> f);
  /// The box of D at this CTA's position `i` (index; a position past the
  /// CTA's boxes gives a box past D).
  Value boxAt(Value i);
  /// exchangeS: the partial-S buffer (byte offset) and its barriers: xFull
  /// counts the peer's 128 threads having written theirs, xEmpty the peer's
  /// having read ours.
  Value xOff, xFull, xEmpty;
  /// The peer CTA's rank in the cluster (i32).
  Value peer;
  void exchangePartialS(Value n);
  /// Shared-window address (i32) of barrier 0 of `group`.
  Value barrierAddress(Value group);
  /// sAcc: all S buffers (the softmax addresses buffer n mod sBuffers by a
  /// column offset, bufferColumn(n)); sBuf: one slice per buffer (the MMA's
  /// D); pTm: P over the same columns, in the ts A-operand layout.
  Value all, sAcc, oAcc, pTm;
  SmallVector<Value, 2> sBuf;
  /// First column (relative to sAcc / pTm) of tile n's S buffer.
  Value bufferColumn(Value n) {
    if (s.sBuffers == 1)
      return idx(0);
    return ir.mul(ir.remu(n, idx(s.sBuffers)), idx(s.kvTile));
  }
  /// Runs `f(i)` for buffer i = n mod sBuffers with i a constant (an
  /// scf.if per buffer when there are two).
  template <typename F> void forBuffer(Value n, F f) {
    if (s.sBuffers == 1)
      return f(0);
    Value odd = ir.ne(ir.remu(n, idx(2)), idx(0));
    ir.ifThenElse(
        odd, [&] { f(1); }, [&] { f(0); });
  }
};

gpu::GPUFuncOp KernelBuilder::build(gpu::GPUModuleOp module, StringRef name) {
  // Arguments: tmap_q, the KV source's, the epilogue's, kv_lens, sink,
  // scale_log2.
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> args = {ptrTy};
  kv.appendArgTypes(args);
  epi.appendArgTypes(args);
  if (p.hasLens)
    args.push_back(MemRefType::get({p.batch}, b.getI32Type()));
  if (p.hasSink)
    args.push_back(MemRefType::get({p.headsQ}, b.getF32Type()));
  args.push_back(b.getF32Type());

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  // The TMEM allocation slot.
  if (!s.hopper())
    memref::GlobalOp::create(b, "tmem_slot", b.getStringAttr("private"),
                             ir.smemMemref({1}, b.getI32Type()), Attribute(),
                             /*constant=*/false, IntegerAttr());
  auto func = gpu::GPUFuncOp::create(b, name, b.getFunctionType(args, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(s.threads), 1, 1}));
  func->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(int32_t(s.maxRegs)));
  // A Dv split's pair, or the CTAs whose pieces a cluster merges.
  if (s.clusterCtas() > 1)
    func->setAttr("nvvm.cluster_dim",
                  b.getDenseI32ArrayAttr({int32_t(s.clusterCtas()), 1, 1}));

  b.setInsertionPointToStart(&func.getBody().front());
  prologue(func);

  auto roles = sm100::WarpRolesOp::create(b, uint32_t(s.threads / 32));
  roles.getBody().push_back(new Block());
  if (s.hopper()) {
    // Consumer warpgroups first (thread 0 is a consumer: it writes the
    // unit records), then the producer warpgroup: the TMA warp and three
    // idle warps that give their registers away.
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&roles.getBody().front());
    // With a Dv split the two consumer warpgroups are roles of their own
    // ("consumer": S, the softmax and O's first half; "consumer_dv": O's
    // second half).
    uint32_t c = uint32_t(4 * s.consumers);
    uint32_t c0 = s.dvGroups > 1 ? 4 : c;
    auto consumer = ir.role<sm100::RoleOp>("consumer", 0, c0, s.softmaxRegs);
    sm100::RoleOp consumerDv;
    if (s.dvGroups > 1)
      consumerDv =
          ir.role<sm100::RoleOp>("consumer_dv", c0, c, s.dvGroupRegs);
    // A quantized sparse cache: the four producer warps gather (warp 0
    // loads Q too); sparse: two gather, one loads Q, one idles.
    sm100::RoleOp load, gather, idle;
    if (hopperGather() && gatherWarps() == 4) {
      gather = ir.role<sm100::RoleOp>("gather", c, c + 4, s.otherRegs);
    } else {
      load = ir.role<sm100::RoleOp>("load", c, c + 1, s.otherRegs);
      if (hopperGather())
        gather = ir.role<sm100::RoleOp>("gather", c + 1, c + 3, s.otherRegs);
      idle = ir.role<sm100::RoleOp>("idle", hopperGather() ? c + 3 : c + 1,
                                    c + 4, s.otherRegs);
    }
    b.setInsertionPointToStart(&consumer.getBody().front());
    HopperKernel hk;
    hk.smem = smem;
    hk.qOff = qOff;
    hk.kOffset = [this](Value stage) { return kOffset(stage); };
    hk.vOffset = [this](Value stage) { return vOffset(kOffset(stage)); };
    hk.qFull = qFull;
    hk.qEmpty = qEmpty;
    hk.kvFull = kvFull;
    hk.kvEmpty = kvEmpty;
    hk.scaleLog2 = scaleLog2;
    hk.sink = sink;
    hk.handOff = handOff;
    if (p.sparse())
      hk.maskOffset = [this](Value stage) { return maskOffset(stage); };
    buildHopperConsumers(env, work, epi, hk, 0);
    if (consumerDv) {
      b.setInsertionPointToStart(&consumerDv.getBody().front());
      buildHopperConsumers(env, work, epi, hk, 1);
    }
    if (load) {
      b.setInsertionPointToStart(&load.getBody().front());
      loadRole();
    }
    if (gather) {
      b.setInsertionPointToStart(&gather.getBody().front());
      gatherRole();
    }
    // The cluster merge's two cluster barriers (docs/Hopper.md, "The
    // cluster merge"): the producer warps arrive and wait too, after
    // their loads, rather than count on leaving (barrier.cluster waits
    // only for threads that have not exited).
    if (s.clusterMerge)
      for (sm100::RoleOp r : {load, gather, idle})
        if (r) {
          b.setInsertionPointToEnd(&r.getBody().front());
          ir.clusterSync(r.getRoleName() + ": merge");
          ir.clusterSync(r.getRoleName() + ": merge end");
        }
  } else {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&roles.getBody().front());
    auto makeRole = [&](StringRef roleName, uint32_t begin, uint32_t end,
                        int64_t regs) {
      return ir.role<sm100::RoleOp>(roleName, begin, end, regs);
    };
    auto softmax = makeRole("softmax", 0, 4, s.softmaxRegs);
    auto load = makeRole("load", 4, 5, s.otherRegs);
    auto mma = makeRole("mma", 5, 6, s.otherRegs);
    auto spare = makeRole(p.cache ? "dequant" : "spare", 6, 8, s.otherRegs);
    if (p.cache) {
      b.setInsertionPointToStart(&spare.getBody().front());
      dequantRole();
    }
    b.setInsertionPointToStart(&softmax.getBody().front());
    softmaxRole();
    b.setInsertionPointToStart(&load.getBody().front());
    loadRole();
    b.setInsertionPointToStart(&mma.getBody().front());
    mmaRole();
  }

  if (s.hopper()) {
    gpu::ReturnOp::create(b);
    return func;
  }
  // Teardown: everyone is done with TMEM before warp 0 frees it; in a
  // cluster, neither CTA exits while the peer may still signal its
  // barriers.
  fencedBarrier(ir, "end");
  if (clustered())
    ir.clusterSync("end");
  ifThen(ir.eq(warp, idx(0)), [&] {
    sm100::TmemDeallocOp::create(b, all, uint32_t(s.tmemColumns));
  });
  gpu::ReturnOp::create(b);
  return func;
}

void KernelBuilder::prologue(gpu::GPUFuncOp func) {
  unsigned a = 0;
  // The Q descriptor, typed by its box.
  auto qBox = ir.smemMemref({s.queriesPerCta, s.headsPerCta, 64}, p.element);
  tmapQ = UnrealizedConversionCastOp::create(b, tmapType(qBox),
                                             func.getArgument(a++))
              .getResult(0);
  kv.bindArgs(func, a);
  epi.bindArgs(func, a);
  env.lens = p.hasLens ? func.getArgument(a++) : Value();
  sink = p.hasSink ? func.getArgument(a++) : Value();
  scaleLog2 = func.getArgument(a++);

  tid = env.tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  warp = env.warp = ir.divu(tid, idx(32));
  // blockIdx.x = partition x dvSplit + the CTA's part of Dv.
  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  env.partition = ir.divu(bx, idx(s.dvSplit));
  split = env.split = ir.remu(bx, idx(s.dvSplit));
  dvBase = ir.mul(split, idx(s.dvPerCta()));

  // Dynamic shared memory, 1024-aligned: Q | stage 0 (K, V) | stage 1 ...
  auto smemTy = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                MemRefLayoutAttrInterface(), ir.workgroup());
  smem = gpu::DynamicSharedMemoryOp::create(b, smemTy);
  Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
  Value aligned = ir.andi(ir.add(ptr, idx(1023)), idx(-1024));
  qOff = ir.sub(aligned, ptr);
  // Barriers: q_full (TMA) / q_empty (MMA commit after a piece's last S),
  // kv_full / kv_empty per stage (TMA / MMA commit), s_full (commit),
  // p_full (128 softmax threads), o_done (commit).
  qFull = nvgpu::MBarrierCreateOp::create(b, groupType(1));
  qEmpty = nvgpu::MBarrierCreateOp::create(b, groupType(1));
  kvFull = nvgpu::MBarrierCreateOp::create(b, groupType(unsigned(s.stages)));
  kvEmpty = nvgpu::MBarrierCreateOp::create(b, groupType(unsigned(s.stages)));
  // (sm_90a's gather role dequantizes in registers: no raw region.)
  if (p.cache && !s.hopper())
    rawFull = nvgpu::MBarrierCreateOp::create(b, groupType(unsigned(s.stages)));
  if (!s.hopper()) {
    sFull = nvgpu::MBarrierCreateOp::create(b, groupType(unsigned(s.sBuffers)));
    pFull = nvgpu::MBarrierCreateOp::create(b, groupType(1));
    oDone = nvgpu::MBarrierCreateOp::create(b, groupType(1));
  }
  if (s.exchangeS) {
    xFull = nvgpu::MBarrierCreateOp::create(b, groupType(1));
    xEmpty = nvgpu::MBarrierCreateOp::create(b, groupType(1));
    xOff = ir.add(qOff, idx(s.qBytes + s.stages * s.stageBytes()));
    Value r = NVVM::ClusterId::create(b, b.getI32Type());
    peer = arith::XOrIOp::create(b, r, i32(1));
  }
  Value slot;
  if (!s.hopper())
    slot = memref::GetGlobalOp::create(b, ir.smemMemref({1}, b.getI32Type()),
                                       "tmem_slot");
  // In a cluster both CTAs' MMAs must release what the peer's multicast
  // loads write here too; on sm_90a every consumer warp releases.
  Value releasers = idx(s.hopper() ? 4 * s.consumers : multicastQK() ? 2 : 1);
  ifThen(ir.eq(tid, idx(0)), [&] {
    Value c1 = idx(1);
    auto init = [&](Value group, Value count, int64_t i, StringRef name) {
      ir.named(nvgpu::MBarrierInitOp::create(b, group, count, idx(i), Value()),
               "init " + name + "[" + Twine(i) + "]");
    };
    init(qFull, c1, 0, "q_full");
    init(qEmpty, releasers, 0, "q_empty");
    for (int64_t st = 0; st < s.stages; ++st) {
      // (sm_90a sparse: the gather warps arrive, each after its lanes'
      // expect_tx.)
      init(kvFull,
           hopperGather() ? idx(gatherWarps())
           : p.cache      ? idx(AttentionSchedule::kDequantThreads)
                          : c1,
           st, "kv_full");
      init(kvEmpty, releasers, st, "kv_empty");
      if (rawFull)
        init(rawFull, c1, st, "raw_full");
    }
    if (!s.hopper()) {
      for (int64_t i = 0; i < s.sBuffers; ++i)
        init(sFull, c1, i, "s_full");
      init(pFull, idx(128), 0, "p_full");
      init(oDone, c1, 0, "o_done");
    }
    if (s.exchangeS) {
      init(xFull, idx(128), 0, "x_full");
      init(xEmpty, idx(128), 0, "x_empty");
    }
  });
  work.initShared();
  if (s.hopper()) {
    if (s.dvGroups > 1 || s.pShared())
      handOff = ir.add(qOff, idx(s.qBytes + s.stages * s.stageBytes()));
    // The V tiles start as zeros: O += P V multiplies whole tiles, and
    // the rows of a partly loaded tile that were not loaded hold what an
    // earlier tile loaded there (finite, with P = 0) or, before any load,
    // whatever shared memory held (possibly NaN, and 0 x NaN is NaN). A
    // wgmma under a branch would be serialized by ptxas (C7520). K's rows
    // need no zeros: a key that was not loaded is outside the piece, so
    // the masked logits replace its S by -inf whatever K held (the tile is
    // not whole, so the plain path is not taken). With V inside K (K = V,
    // or V a prefix of K) that is the K tile. Not where every tile is
    // loaded whole (AttentionSchedule::zeroV).
    if (s.zeroV) {
      const int64_t stageVecs = s.stageBytes() / 16;
      const int64_t zeroFirst = s.vBytes ? s.kBytes / 16 : 0;
      const int64_t zeroVecs = (s.vBytes ? s.vBytes : s.kBytes) / 16;
      auto v4 = VectorType::get({4}, b.getI32Type());
      Value stagesView =
          view(ir.add(qOff, idx(s.qBytes)),
               ir.smemMemref({s.stages * stageVecs, 4}, b.getI32Type()));
      Value zeros = arith::ConstantOp::create(
          b, DenseElementsAttr::get(v4, b.getI32IntegerAttr(0)));
      forLoop(tid, idx(s.stages * zeroVecs), idx(s.threads), [&](Value i) {
        Value at = ir.add(ir.mul(ir.divu(i, idx(zeroVecs)), idx(stageVecs)),
                          ir.add(idx(zeroFirst), ir.remu(i, idx(zeroVecs))));
        vector::StoreOp::create(b, zeros, stagesView, ValueRange{at, idx(0)});
      });
      // ... before the TMA (the async proxy) writes there.
      ir.fenceProxyAsync("start: fence.proxy.async");
    }
    ir.named(gpu::BarrierOp::create(b), "start: barrier");
    work.computePartition();
    return;
  }
  ifThen(ir.eq(warp, idx(0)),
         [&] { sm100::TmemAllocOp::create(b, slot, uint32_t(s.tmemColumns)); });
  fencedBarrier(ir, "alloc");
  // The peer multicasts into our barriers: they must be initialised (and
  // the initialisation visible to the cluster) first.
  if (clustered()) {
    ir.named(NVVM::FenceMbarrierInitOp::create(b), "start: fence.mbarrier_init");
    ir.clusterSync("start");
  }
  // The pieces this CTA processes (both CTAs of a pair compute the same).
  work.computePartition();

  all = sm100::TmemBaseOp::create(
      b, tmem(128, s.tmemColumns, b.getF32Type(), sm100::TmemLayout::acc),
      slot);
  sAcc = sm100::TmemSliceOp::create(
      b,
      tmem(128, s.sBuffers * s.kvTile, b.getF32Type(), sm100::TmemLayout::acc),
      all, uint32_t(s.tmemS));
  for (int64_t i = 0; i < s.sBuffers; ++i)
    sBuf.push_back(sm100::TmemSliceOp::create(
        b, tmem(128, s.kvTile, b.getF32Type(), sm100::TmemLayout::acc), all,
        uint32_t(s.tmemS + i * s.kvTile)));
  oAcc = sm100::TmemSliceOp::create(
      b, tmem(128, s.dvPerCta(), b.getF32Type(), sm100::TmemLayout::acc), all,
      uint32_t(s.tmemO));
  // P over the S buffers: 2 x kvTile 16-bit keys per buffer's kvTile
  // columns, of which P uses the first half.
  pTm =
      sm100::TmemSliceOp::create(b,
                                 tmem(128, 2 * s.sBuffers * s.kvTile, p.element,
                                      sm100::TmemLayout::operand_a),
                                 all, uint32_t(s.tmemP));
}

void KernelBuilder::forEachDBox(function_ref<void(int64_t i, Value col)> f) {
  const auto &b0 = s.dBoxes[0], &b1 = s.dBoxes[1];
  for (size_t i = 0; i < b0.size(); ++i) {
    auto body = [&] {
      Value col = idx(64 * b0[i]);
      if (i < b1.size() && b1[i] != b0[i])
        col = ir.select(ir.eq(split, idx(0)), col, idx(64 * b1[i]));
      f(int64_t(i), col);
    };
    if (i < b1.size())
      body();
    else
      ifThen(ir.eq(split, idx(0)), body);
  }
}

std::pair<Value, Value> KernelBuilder::chunkRange(const Piece &piece,
                                                  Value t) {
  // In t's type (index, or i32 in the loader's tile loop).
  const bool narrow = !t.getType().isIndex();
  auto as = [&](Value v) { return narrow ? ir.toI32(v) : v; };
  auto cst = [&](int64_t v) { return narrow ? ir.i32(v) : idx(v); };
  const int64_t ck = AttentionSchedule::kChunkKeys;
  Value start = ir.mul(t, cst(s.kvTile));
  // kLo <= start except in the piece's first tile; kHi > start in every
  // tile of the piece.
  Value first = ir.divu(ir.sub(ir.maxs(as(piece.kLo), start), start), cst(ck));
  Value end = ir.mins(cst(s.chunksPerTile()),
                      ir.ceilDivu(ir.sub(as(piece.kHi), start), cst(ck)));
  return {first, end};
}

void KernelBuilder::writeKeyMask(const UnitGeom &u, Value key0, Value stage) {
  // 16 keys per iteration, unrolled, so that one thread has 16 independent
  // index loads in flight rather than one (a loop that uses each load at
  // once waits a memory latency per key); their 16 mask bits are one half
  // of a mask word (the softmax reads whole words). A bad index is looked
  // for again, key by key, only when one of the 16 is bad (the kernel
  // stops there).
  constexpr int64_t kGroup = 16;
  Type i16 = b.getIntegerType(16);
  Value halves = view(maskOffset(stage),
                      ir.smemMemref({s.kvTile / kGroup}, i16));
  Value slots = stageSlots(stage);
  forLoop(idx(0), idx(s.kvTile / kGroup), idx(1), [&](Value g) {
    Value base = ir.mul(g, idx(kGroup));
    Value first = ir.add(key0, base);
    Value bits = i32(0), bad = i1(false);
    for (int64_t j = 0; j < kGroup; ++j) {
      Value pos = ir.add(first, idx(j));
      Value slot = kv.slotAt(u, pos);
      memref::StoreOp::create(b, slot, slots,
                              ValueRange{ir.add(base, idx(j))});
      Value set = ir.cmp(arith::CmpIPredicate::sge, slot, i32(0));
      bits = ir.select(set, ir.ori(bits, i32(int64_t(1) << j)), bits);
      bad = ir.ori(bad, kv.badSlot(pos, slot));
    }
    memref::StoreOp::create(b, arith::TruncIOp::create(b, i16, bits), halves,
                            ValueRange{g});
    ifThen(bad, [&] {
      forLoop(idx(0), idx(kGroup), idx(1), [&](Value j) {
        Value pos = ir.add(first, j);
        kv.checkSlot(u, pos, kv.slotAt(u, pos));
      });
    });
  });
}

Value KernelBuilder::maskedLogits(Value sv, Value kb, Value rowLo,
                                  Value rowHi, Value bits) {
  auto vi32 = VectorType::get({32}, b.getI32Type());
  auto vf32 = VectorType::get({32}, b.getF32Type());
  SmallVector<int32_t> steps;
  for (int32_t i = 0; i < 32; ++i)
    steps.push_back(i);
  Value step = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vi32, ArrayRef<int32_t>(steps)));
  Value keys = ir.add(step, vector::BroadcastOp::create(b, vi32, ir.toI32(kb)));
  Value lo = vector::BroadcastOp::create(b, vi32, rowLo);
  Value hi = vector::BroadcastOp::create(b, vi32, rowHi);
  Value ok = ir.andi(ir.cmp(arith::CmpIPredicate::sge, keys, lo),
                     ir.cmp(arith::CmpIPredicate::slt, keys, hi));
  if (bits) {
    // Bit i of `bits` for key kb + i.
    Value word = vector::BroadcastOp::create(b, vi32, bits);
    Value one = vector::BroadcastOp::create(b, vi32, i32(1));
    Value bit = ir.andi(arith::ShRUIOp::create(b, word, step), one);
    ok = ir.andi(ok, ir.cmp(arith::CmpIPredicate::ne, bit,
                            vector::BroadcastOp::create(b, vi32, i32(0))));
  }
  Value x = arith::MulFOp::create(
      b, sv, vector::BroadcastOp::create(b, vf32, scaleLog2));
  Value ninf = arith::ConstantOp::create(
      b, DenseElementsAttr::get(
             vf32, APFloat::getInf(APFloat::IEEEsingle(), /*Negative=*/true)));
  return ir.select(ok, x, ninf);
}

Value KernelBuilder::barrierAddress(Value group) {
  // nvgpu.mbarrier.get yields the barrier's shared-window address.
  return nvgpu::MBarrierGetOp::create(b, b.getI32Type(), group, idx(0));
}

void KernelBuilder::exchangePartialS(Value n) {
  // Each CTA holds S over its half of D. In each of xRounds rounds, thread r
  // writes its row of a slice of the partial S to its own buffer
  // (chunk-major: [slice / 32][128 rows][32]), tells the peer, reads the
  // peer's row of the slice through distributed shared memory, stores the
  // sum back into TMEM, and tells the peer that its buffer may be reused.
  // Round h of (CTA-wide) tile n is phase n * xRounds + h of both barriers.
  const int64_t tile = s.kvTile, rounds = s.xRounds;
  const int64_t perRound = tile / 32 / rounds; // 32-column chunks
  auto vf32 = VectorType::get({32}, b.getF32Type());
  auto xTy = ir.smemMemref({perRound, 128, 32}, b.getF32Type());
  Value xbuf = view(xOff, xTy);
  Value fullAddr = barrierAddress(xFull);
  Value emptyAddr = barrierAddress(xEmpty);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
  Value rowAddr = ir.add(ir.add(base, xOff), ir.mul(tid, idx(128)));
  Value remote =
      ir.inlinePtx("mapa.shared::cluster.u32 $0, $1, $2;", b.getI32Type(),
                   ValueRange{ir.toI32(rowAddr), peer})[0];
  Type f32Ty = b.getF32Type();
  Value phase0 = ir.mul(n, idx(rounds));
  Value bufCol = bufferColumn(n);
  for (int64_t h = 0; h < rounds; ++h) {
    Value phase = ir.add(phase0, idx(h));
    // Our buffer still holds the previous round until the peer has read it.
    auto waitEmpty = [&] {
      ir.clusterWait(emptyAddr, parityOf(ir.sub(phase, idx(1))),
                  "exchange: wait x_empty");
    };
    if (h == 0)
      ifThen(ir.ne(n, idx(0)), waitEmpty);
    else
      waitEmpty();
    for (int64_t c = 0; c < perRound; ++c) {
      Value sv = sm100::TmemLoadOp::create(
          b, vf32, sAcc, ir.add(bufCol, idx((h * perRound + c) * 32)),
          sm100::LdStShape::shape_32x32b, 32, false, IntegerAttr(),
          IntegerAttr());
      vector::StoreOp::create(b, sv, xbuf, ValueRange{idx(c), tid, idx(0)});
    }
    ir.remoteArrive(fullAddr, peer, "exchange: arrive x_full");
    ir.clusterWait(fullAddr, parityOf(phase), "exchange: wait x_full");
    for (int64_t c = 0; c < perRound; ++c) {
      SmallVector<Value> parts;
      for (int64_t q = 0; q < 8; ++q) {
        int64_t off = c * 128 * 128 + q * 16;
        std::string code = "ld.shared::cluster.v4.f32 {$0, $1, $2, $3}, [$4+" +
                           std::to_string(off) + "];";
        llvm::append_range(
            parts,
            ir.inlinePtx(code, TypeRange{f32Ty, f32Ty, f32Ty, f32Ty}, remote));
      }
      Value theirs = vector::FromElementsOp::create(b, vf32, parts);
      Value mine = vector::LoadOp::create(b, vf32, xbuf,
                                          ValueRange{idx(c), tid, idx(0)});
      Value sum = arith::AddFOp::create(b, mine, theirs);
      sm100::TmemStoreOp::create(b, sum, sAcc,
                                 ir.add(bufCol, idx((h * perRound + c) * 32)),
                                 sm100::LdStShape::shape_32x32b, 32, false,
                                 IntegerAttr(), IntegerAttr());
    }
    ir.remoteArrive(emptyAddr, peer, "exchange: arrive x_empty");
  }
  ir.named(sm100::WaitOp::create(b, sm100::WaitKind::store),
           "exchange: wait::st");
}

void KernelBuilder::softmaxRole() {
  Type f32Ty = b.getF32Type();
  Type i32Ty = b.getI32Type();
  auto vf32 = VectorType::get({32}, f32Ty);
  const int64_t tile = s.kvTile;
  Value ninf = ir.negInf();
  Value zero = f32(0.0);

  // Thread tid owns TMEM lane tid: row r = query (r / G) of the unit's row
  // block, head g * G + r % G.
  Value r = tid;
  Value iLocal = ir.divu(r, idx(s.headsPerCta));
  Value hh = ir.remu(r, idx(s.headsPerCta));
  // The tile counter runs over all pieces of the CTA (barrier phases).
  work.forEachPiece(
      ValueRange{idx(0)},
      [&](const Piece &piece, ValueRange args) -> SmallVector<Value> {
        const UnitGeom &u = piece.unit;
        Value g0 = args[0];
        Epilogue::Row row = unitRow(env, u, r, iLocal, hh);
        // Visible keys of this row: [rowLo, rowHi) (docs/AttentionLowering.md).
        Value rowLo, rowHi;
        std::tie(rowLo, rowHi) = visibleKeys(env, piece, row.query);

        SmallVector<Value> ml = ir.forLoop(
            idx(0), piece.tiles, idx(1), ValueRange{ninf, zero},
            [&](Value n, ValueRange carried) -> SmallVector<Value> {
              Value m = carried[0], l = carried[1];
              Value first = ir.eq(n, idx(0));
              // CTA-wide tile g: S is in buffer g mod sBuffers, whose barrier
              // completes once per use (phase g / sBuffers).
              Value g = ir.add(g0, n);
              Value t = ir.add(piece.tLo, n);
              wait(sFull, ir.remu(g, idx(s.sBuffers)),
                   parityOf(ir.divu(g, idx(s.sBuffers))),
                   "softmax: wait s_full");
              fence(sm100::FenceKind::after_thread_sync,
                    "softmax: fence after s_full");
              if (s.exchangeS)
                exchangePartialS(g);
              Value key0 = ir.mul(t, idx(tile));
              Value bufCol = bufferColumn(g);
              // Sparse: the tile's key mask, written by the loader before
              // it armed kv_full (this phase completed before s_full's, and
              // the stage is not reloaded before this tile's P V).
              Value maskWords;
              if (p.sparse()) {
                Value stage = ir.remu(g, idx(s.stages));
                wait(kvFull, stage, parityOf(ir.divu(g, idx(s.stages))),
                     "softmax: wait kv_full (key mask)");
                maskWords = view(maskOffset(stage),
                                 ir.smemMemref({tile / 32}, i32Ty));
              }
              auto bitsAt = [&](Value ch) -> Value {
                if (!maskWords)
                  return Value();
                return memref::LoadOp::create(
                    b, maskWords, ValueRange{ir.divu(ch, idx(32))});
              };

              // Pass 1: the tile's max of the scaled, masked logits.
              Value tileMax = ir.forLoop(
                  idx(0), idx(tile), idx(32), ValueRange{ninf},
                  [&](Value ch, ValueRange mx) -> SmallVector<Value> {
                    Value sv = sm100::TmemLoadOp::create(
                        b, vf32, sAcc, ir.add(bufCol, ch),
                        sm100::LdStShape::shape_32x32b, 32, false,
                        IntegerAttr(), IntegerAttr());
                    Value x = maskedLogits(sv, ir.add(key0, ch), rowLo, rowHi,
                                           bitsAt(ch));
                    return {vector::ReductionOp::create(
                        b, vector::CombiningKind::MAXIMUMF, x, mx[0])};
                  })[0];
              Value mNew = arith::MaximumFOp::create(b, m, tileMax);
              // A row that has seen no visible key yet keeps m = -inf;
              // exponents are taken against 0 then, so that no -inf - -inf
              // appears.
              Value isInf = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ,
                                                  mNew, ninf);
              Value mUse = ir.select(isInf, zero, mNew);
              Value alpha = ir.ex2(arith::SubFOp::create(b, m, mUse));

              // Pass 2: P = exp2(x - m) as 16-bit pairs (key 2j low, 2j + 1
              // high: the ts A-operand packing), and the row sum of the f32
              // values.
              Value rowSum = ir.forLoop(
                  idx(0), idx(tile / 64), idx(1), ValueRange{zero},
                  [&](Value pc, ValueRange sums) -> SmallVector<Value> {
                    Value ch0 = ir.mul(pc, idx(64));
                    Value ch1 = ir.add(ch0, idx(32));
                    Value mv = vector::BroadcastOp::create(b, vf32, mUse);
                    Value sum = sums[0];
                    SmallVector<Value> halves;
                    for (Value ch : {ch0, ch1}) {
                      Value sv = sm100::TmemLoadOp::create(
                          b, vf32, sAcc, ir.add(bufCol, ch),
                          sm100::LdStShape::shape_32x32b, 32, false,
                          IntegerAttr(), IntegerAttr());
                      Value x = maskedLogits(sv, ir.add(key0, ch), rowLo,
                                             rowHi, bitsAt(ch));
                      Value e = math::Exp2Op::create(
                          b, arith::SubFOp::create(b, x, mv),
                          arith::FastMathFlagsAttr::get(
                              ctx, arith::FastMathFlags::afn));
                      sum = vector::ReductionOp::create(
                          b, vector::CombiningKind::ADD, e, sum);
                      halves.push_back(arith::TruncFOp::create(
                          b, VectorType::get({32}, p.element), e));
                    }
                    SmallVector<int64_t> order;
                    for (int64_t k = 0; k < 64; ++k)
                      order.push_back(k);
                    Value cat = vector::ShuffleOp::create(b, halves[0],
                                                          halves[1], order);
                    Value packed = vector::BitCastOp::create(
                        b, VectorType::get({32}, i32Ty), cat);
                    // Over the S columns of this 64-key pair, already read.
                    Value pcol = ir.add(bufCol, ir.mul(pc, idx(32)));
                    sm100::TmemStoreOp::create(
                        b, packed, pTm, pcol, sm100::LdStShape::shape_32x32b,
                        32, false, IntegerAttr(), IntegerAttr());
                    return {sum};
                  })[0];
              // O may be touched only after the previous P V of the piece
              // finished (waited every tile, after P is written, so that the
              // exponentials overlap that P V and the o_done phases are never
              // two behind; the first tile of a piece has no previous P V, its
              // last phase was waited by the previous piece's epilogue).
              ifThen(ir.ne(first, i1(true)), [&] {
                wait(oDone, idx(0), parityOf(ir.sub(g, idx(1))),
                     "softmax: wait o_done (rescale)");
                fence(sm100::FenceKind::after_thread_sync,
                      "softmax: fence after o_done (rescale)");
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
              ir.named(sm100::WaitOp::create(b, sm100::WaitKind::store),
                       "softmax: wait::st before p_full");
              fence(sm100::FenceKind::before_thread_sync,
                    "softmax: fence before p_full");
              ir.named(nvgpu::MBarrierArriveOp::create(
                           b, nvgpu::MBarrierTokenType::get(ctx), pFull, idx(0)),
                       "softmax: arrive p_full");
              Value lNew = arith::AddFOp::create(
                  b, arith::MulFOp::create(b, l, alpha), rowSum);
              return {mNew, lNew};
            });

        Value sinkL = ninf;
        if (p.hasSink)
          sinkL = arith::MulFOp::create(
              b, memref::LoadOp::create(b, sink, ValueRange{row.head}),
              f32(1.4426950408889634));
        Value next = ir.add(g0, piece.tiles);
        epi.write(piece, row, ml[0], ml[1], sinkL,
                  epi.tmemO(oAcc, oDone, ir.sub(next, idx(1))), dvBase);
        return {next};
      });
}

void KernelBuilder::gatherRole() {
  const int64_t tile = s.kvTile;
  Type i32Ty = b.getI32Type();
  Value lane = ir.remu(tid, idx(32));
  const bool four = gatherWarps() == 4;
  // This warp of the role; its pair (0 or 1: the first pair takes the
  // slots, the mask and the bf16 boxes) and its 32 keys of each 64.
  Value w = ir.sub(warp, idx(4 * s.consumers + (four ? 0 : 1)));
  Value gw = four ? ir.remu(w, idx(2)) : w;
  Value first = ir.cmp(arith::CmpIPredicate::ult, w, idx(2));
  // A quantized cache (always four warps): its e4m3 boxes of each key,
  // the first pair the first half (rounded down: it also issues the bf16
  // boxes' loads), the second the rest.
  int64_t quantBoxes = p.cache ? p.cache->quantDims / 64 : 0;
  Value boxLo = ir.select(first, idx(0), idx(quantBoxes / 2));
  Value boxHi = ir.select(first, idx(quantBoxes / 2), idx(quantBoxes));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
  const int64_t kBoxes = p.headDim / 64,
                vBoxes = p.kvSame ? 0 : s.dvPerCta() / 64;
  const int64_t keyBytes = (kBoxes + vBoxes) * 128;
  forEachGatherPiece([&](const Piece &piece, Value g0, Value qLoads) {
    const UnitGeom &u = piece.unit;
    // Without a load warp, warp 0 loads Q.
    if (four)
      ifThen(ir.eq(w, idx(0)), [&] {
        auto elect = sm100::ElectOneOp::create(b);
        elect.getBody().push_back(new Block());
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&elect.getBody().front());
        loadQ(u, qLoads);
      });
    // An fp8 cache: each lane reads the index of its key in the next tile
    // at the start of a tile and carries it to that tile (so no tile
    // starts with a wait for its index; FlashMLA's producer does the
    // same), and the first pair prefetches the key's row into L2 after
    // this tile's conversions, so that the next tile's loads wait for L2
    // rather than HBM (one tile ahead measured best; docs/Hopper.md). Not
    // with a second key set: in the V4 layers every form of the prefetch
    // tried spilled the gather warps' 56 registers; beside the copy
    // buffers only with a static plan (prefetchBesideStaging).
    const bool prefetch = four && tile == 64 && !p.extra() &&
                          (!s.gatherStaging || prefetchBesideStaging());
    auto tileBody = [&](Value n, Value carried) -> Value {
      Value gt = ir.add(g0, n);
      Value stage = ir.remu(gt, idx(s.stages));
      Value round = ir.divu(gt, idx(s.stages));
      wait(kvEmpty, stage, ir.xori1(parityOf(round)), "gather: wait kv_empty");
      Value key0 = ir.mul(ir.add(piece.tLo, n), idx(tile));
      Value mbar = nvgpu::MBarrierGetOp::create(b, i32Ty, kvFull, stage);
      Value words = view(maskOffset(stage), ir.smemMemref({tile / 32}, i32Ty));
      Value kOff = kOffset(stage);
      Value vOff = vOffset(kOff);
      auto aheadPos = [&] {
        return ir.add(ir.add(key0, idx(tile)),
                      ir.add(ir.mul(gw, idx(32)), lane));
      };
      Value aheadSlot;
      if (prefetch)
        aheadSlot = kv.slotAt(u, aheadPos());
      for (int64_t j = 0; j < tile / 64; ++j) {
        // Key k of the tile: its index, its mask bit (the warp's word by
        // ballot), and its rows when it has a slot.
        Value k = ir.add(ir.add(ir.mul(gw, idx(32)), lane), idx(64 * j));
        Value pos = ir.add(key0, k);
        Value slot = carried ? carried : kv.slotAt(u, pos);
        Value has = ir.cmp(arith::CmpIPredicate::sge, slot, i32(0));
        auto maskWord = [&] {
          ifThen(kv.badSlot(pos, slot), [&] { kv.checkSlot(u, pos, slot); });
          Value bits = NVVM::VoteSyncOp::create(b, i32Ty, i32(-1), has,
                                                NVVM::VoteSyncKind::ballot);
          ifThen(ir.eq(lane, idx(0)), [&] {
            memref::StoreOp::create(b, bits, words,
                                    ValueRange{ir.add(gw, idx(2 * j))});
          });
        };
        if (four)
          ifThen(first, maskWord);
        else
          maskWord();
        if (p.cache) {
          // A quantized cache: the bf16 boxes by TMA, the e4m3 boxes read
          // into registers, scaled and written as bf16 into the K tile,
          // swizzled as TMA would (no raw region: Q, two stages of D 512
          // and a raw region do not fit 227 KiB).
          ifThen(has, [&] {
            gatherCacheKey(key0, k, slot, stage, mbar, first, boxLo, boxHi);
          });
          continue;
        }
        ifThen(has, [&] {
          ir.expectTx(mbar, keyBytes, "gather: expect_tx kv_full");
          Value row = kv.gatherRow(slot, u.kvHead);
          Value at = ir.add(base, ir.mul(k, idx(128)));
          auto load = [&](Value map, Value region, int64_t box, Value col) {
            ir.tmaLoad(
                map,
                ir.toI32(ir.add(at, ir.add(region, idx(box * s.kvBoxBytes())))),
                ValueRange{ir.toI32(col), row}, mbar, NVVM::TMALoadMode::TILE,
                Value(), NVVM::CTAGroupKindAttr(), "gather: load");
          };
          for (int64_t i = 0; i < kBoxes; ++i)
            load(kv.gk, kOff, i, idx(64 * i));
          for (int64_t i = 0; i < vBoxes; ++i)
            load(kv.gv, vOff, i, idx(64 * i));
        });
      }
      if (aheadSlot) {
        Value ahead = aheadPos();
        Value later =
            ir.cmp(arith::CmpIPredicate::ult, ir.add(n, idx(1)), piece.tiles);
        Value ok = ir.andi(
            ir.andi(first, later),
            ir.andi(ir.cmp(arith::CmpIPredicate::sge, aheadSlot, i32(0)),
                    ir.xori1(kv.badSlot(ahead, aheadSlot))));
        ifThen(ok, [&] { prefetchRow(aheadSlot); });
      }
      // The bf16 values this warp wrote are read by wgmma (the async
      // proxy).
      if (p.cache)
        ir.fenceProxyAsync("gather: fence.proxy.async");
      // Every lane's expect_tx, loads and the mask words before the arrive.
      NVVM::SyncWarpOp::create(b, i32(-1));
      ifThen(ir.eq(lane, idx(0)), [&] {
        ir.named(nvgpu::MBarrierArriveOp::create(
                     b, nvgpu::MBarrierTokenType::get(ctx), kvFull, stage),
                 "gather: arrive kv_full");
      });
      return aheadSlot;
    };
    if (!prefetch)
      return forLoop(idx(0), piece.tiles, idx(1),
                     [&](Value n) { tileBody(n, Value()); });
    Value slot0 = kv.slotAt(u, ir.add(ir.mul(piece.tLo, idx(tile)),
                                      ir.add(ir.mul(gw, idx(32)), lane)));
    ir.forLoop(idx(0), piece.tiles, idx(1), ValueRange{slot0},
               [&](Value n, ValueRange c) -> SmallVector<Value> {
                 return {tileBody(n, c[0])};
               });
  });
}

void KernelBuilder::gatherCacheKey(Value key0, Value k, Value slot, Value stage,
                                   Value mbar, Value rope, Value boxLo,
                                   Value boxHi) {
  const KvCacheFormat &f = *p.cache;
  Value extraTile = kv.inExtra(key0);
  Value row = kv.cacheRow(slot, extraTile);
  Value ropeMap =
      extraTile ? ir.select(extraTile, kv.xRope, kv.gRope) : kv.gRope;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
  Value at = ir.add(ir.add(base, kOffset(stage)), ir.mul(k, idx(128)));
  const int64_t boxes = p.headDim / 64;
  int64_t ropeBoxes = 0;
  for (int64_t i = 0; i < boxes; ++i)
    ropeBoxes += !s.quantBox(i);
  if (ropeBoxes) {
    ifThen(rope, [&] {
      ir.expectTx(mbar, ropeBoxes * 128, "gather: expect_tx kv_full");
      for (int64_t i = 0; i < boxes; ++i)
        if (!s.quantBox(i))
          ir.tmaLoad(
              ropeMap, ir.toI32(ir.add(at, idx(i * s.kvBoxBytes()))),
              ValueRange{i32(f.ropeOffset - 2 * f.quantDims + i * 128), row},
              mbar, NVVM::TMALoadMode::TILE, Value(), NVVM::CTAGroupKindAttr(),
              "gather: load bf16");
    });
  }
  Value kTile = view(kOffset(stage), ir.smemMemref({s.kBytes / 2}, p.element));
  Value swz = ir.remu(k, idx(8));
  Type f32 = b.getF32Type();
  // The gather's copy buffers (AttentionSchedule::gatherStaging): box i
  // of this lane's key goes to buffer (i - boxLo) mod 2 of its warp, the
  // lane's 64 bytes at 80 x lane (16-byte reads of eight lanes then hit
  // eight distinct bank groups: 5 lane mod 8). The next box is copied (and
  // its scale read) before this one is converted.
  auto stagedBoxesOf = [&](Value extra) {
    Type i8 = b.getI8Type(), i64 = b.getI64Type();
    const int64_t bufBytes = AttentionSchedule::kStagingBufferBytes,
                  rowStride = AttentionSchedule::kStagingRowBytes;
    Value lane = ir.remu(tid, idx(32));
    Value gwarp = ir.sub(warp, idx(4 * s.consumers));
    Value stOff = maskOffset(idx(s.stages));
    Value stView = view(stOff, ir.smemMemref({s.stagingBytes()}, i8));
    // This lane's row of its warp's first buffer (bytes into stView).
    Value mineAt =
        ir.add(ir.mul(gwarp, idx(2 * bufBytes)), ir.mul(lane, idx(rowStride)));
    Value smemBase = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
    Value rowAt = cacheRowAddress(slot, extra);
    auto bufAt = [&](Value par) {
      return ir.add(mineAt, ir.mul(par, idx(bufBytes)));
    };
    auto issue = [&](Value i, Value par) {
      Value dst = ir.toI32(ir.add(ir.add(smemBase, stOff), bufAt(par)));
      Value src =
          arith::IndexCastOp::create(b, i64, ir.add(rowAt, ir.mul(i, idx(64))));
      std::string code;
      for (int64_t c = 0; c < 4; ++c)
        code += "cp.async.cg.shared.global [$0+" + std::to_string(16 * c) +
                "], [$1+" + std::to_string(16 * c) + "], 16; ";
      ir.named(ir.syncPtxOp(code, ValueRange{dst, src}), "gather: cp.async");
    };
    auto commit = [&] {
      ir.named(ir.syncPtxOp("cp.async.commit_group;", ValueRange{}),
               "gather: cp.async.commit_group");
    };
    auto groupOf = [&](Value i) { return ir.divu(i, idx(f.scaleGroup / 64)); };
    auto scaleOf = [&](Value i) { return kv.scale(slot, groupOf(i), extra); };
    Value lo = ir.opaque(boxLo), hi = ir.opaque(boxHi);
    issue(lo, idx(0));
    commit();
    // DeepSeek-V4's scales: the key's whole 8-byte record once, rather
    // than a byte a box read a box ahead (each a round trip).
    const bool whole = kv.scaleRecordWhole() && !extra;
    Value record = whole ? kv.scaleRecord(slot) : Value();
    // Otherwise the next box's scale is carried, read before this box's
    // wait.
    SmallVector<Value> scale0;
    if (!whole)
      scale0.push_back(scaleOf(lo));
    ir.forLoop(
        lo, hi, idx(1), scale0,
        [&](Value i, ValueRange acc) -> SmallVector<Value> {
          Value par = ir.remu(ir.sub(i, lo), idx(2));
          Value next = ir.add(i, idx(1));
          ifThen(ir.cmp(arith::CmpIPredicate::ult, next, hi),
                 [&] { issue(next, ir.xori(par, idx(1))); });
          commit();
          SmallVector<Value> scNext;
          if (!whole)
            scNext.push_back(scaleOf(ir.mins(next, ir.sub(hi, idx(1)))));
          ir.named(ir.syncPtxOp("cp.async.wait_group 1;", ValueRange{}),
                   "gather: cp.async.wait_group");
          Value sc = whole ? kv.scaleFromRecord(record, groupOf(i)) : acc[0];
          Value scv =
              vector::BroadcastOp::create(b, VectorType::get({8}, f32), sc);
          Value rowDst =
              ir.add(ir.mul(i, idx(s.kvBoxBytes() / 2)), ir.mul(k, idx(64)));
          Value buf = bufAt(par);
          forLoop(idx(0), idx(4), idx(1), [&](Value c) {
            Value bytes = vector::LoadOp::create(
                b, VectorType::get({16}, i8), stView,
                ValueRange{ir.add(buf, ir.mul(c, idx(16)))},
                /*nontemporal=*/false, llvm::MaybeAlign(16));
            for (int64_t h = 0; h < 2; ++h) {
              SmallVector<int64_t> pick;
              for (int64_t e = 0; e < 8; ++e)
                pick.push_back(8 * h + e);
              Value half8 = vector::ShuffleOp::create(b, bytes, bytes, pick);
              Value j = ir.add(ir.mul(c, idx(2)), idx(h));
              Value dst = ir.add(rowDst, ir.mul(ir.xori(j, swz), idx(8)));
              vector::StoreOp::create(b, dequant8(half8, scv), kTile,
                                      ValueRange{dst}, /*nontemporal=*/false,
                                      llvm::MaybeAlign(16));
            }
          });
          return scNext;
        });
  };
  // The e4m3 boxes (the first quantDims / 64) in a loop whose bounds LLVM
  // cannot see, so that it is not unrolled: unrolled, the gather warps
  // spill in their 56 registers. A tile of the second key set reads the
  // other cache: one loop for each (a constant `extra` in each), not a
  // choice at every load, which spilled in the DeepSeek-V4 layers.
  auto boxesOf = [&](Value extra) {
    if (s.gatherStaging)
      return stagedBoxesOf(extra);
    forLoop(ir.opaque(boxLo), ir.opaque(boxHi), idx(1), [&](Value i) {
      Value sc = kv.scale(slot, ir.divu(i, idx(f.scaleGroup / 64)), extra);
      Value scv = vector::BroadcastOp::create(b, VectorType::get({8}, f32), sc);
      Value rowDst =
          ir.add(ir.mul(i, idx(s.kvBoxBytes() / 2)), ir.mul(k, idx(64)));
      forLoop(idx(0), idx(8), idx(1), [&](Value j) {
        Value bytes = kv.quantBytes(
            slot, extra, ir.add(ir.mul(i, idx(64)), ir.mul(j, idx(8))));
        Value dst = ir.add(rowDst, ir.mul(ir.xori(j, swz), idx(8)));
        vector::StoreOp::create(b, dequant8(bytes, scv), kTile, ValueRange{dst},
                                /*nontemporal=*/false, llvm::MaybeAlign(16));
      });
    });
  };
  if (!extraTile)
    return boxesOf(Value());
  ir.ifThenElse(
      extraTile, [&] { boxesOf(ir.i1(true)); }, [&] { boxesOf(ir.i1(false)); });
}

Value KernelBuilder::cacheRowAddress(Value slot, Value extra) {
  auto base = [&](Value bytes) -> Value {
    return memref::ExtractAlignedPointerAsIndexOp::create(b, bytes);
  };
  Value rowBase =
      extra ? ir.select(extra, base(kv.xCacheBytes), base(kv.cacheBytes))
            : base(kv.cacheBytes);
  return ir.add(rowBase, ir.mul(ir.toIndex(kv.cacheRow(slot, extra)),
                                idx(p.cache->rowBytes)));
}

void KernelBuilder::prefetchRow(Value slot) {
  const KvCacheFormat &f = *p.cache;
  Value at = arith::IndexCastOp::create(b, b.getI64Type(),
                                        cacheRowAddress(slot, Value()));
  // A row of rowBytes from any 64-byte offset touches these lines.
  for (int64_t off = 0; off < f.rowBytes; off += 128)
    ir.named(
        ir.inlinePtxOp("prefetch.global.L2 [$0+" + std::to_string(off) + "];",
                       TypeRange{}, ValueRange{at}),
        "gather: prefetch.global.L2");
  // Scales after the page's rows (DeepSeek-V4): their record's line too,
  // or the first box's scale read waits for HBM at every tile (the
  // gather's most-sampled stall on the H100; docs/Hopper.md).
  if (!f.scalesInRow)
    ir.named(
        ir.inlinePtxOp("prefetch.global.L2 [$0];", TypeRange{},
                       ValueRange{arith::IndexCastOp::create(
                           b, b.getI64Type(), kv.scaleRecordAddress(slot))}),
        "gather: prefetch.global.L2 (scales)");
}

void KernelBuilder::loadQ(const UnitGeom &u, Value qLoads) {
  auto qBox = ir.smemMemref({s.queriesPerCta, s.headsPerCta, 64}, p.element);
  // Q of the unit: D / 64 boxes of (64, G, queriesPerCta), each into
  // its own 16 KiB column of the K-major tile, once the MMAs of the
  // previous piece have read the last one (a fresh barrier passes).
  wait(qEmpty, idx(0), ir.xori1(parityOf(qLoads)), "load: wait q_empty");
  Value qBoxes = ir.select(ir.eq(split, idx(0)), idx(s.dBoxes[0].size()),
                           idx(s.dBoxes[1].size()));
  ir.named(nvgpu::MBarrierArriveExpectTxOp::create(
               b, qFull, ir.mul(qBoxes, idx(s.qBoxBytes())), idx(0), Value()),
           "load: expect_tx q_full");
  Value qRow = ir.add(ir.mul(u.batch, idx(p.seqQ)), u.firstQuery);
  Value qHead = u.firstHead;
  forEachDBox([&](int64_t c, Value col) {
    shared(c, [&](Value mask) {
      Value dst = view(ir.add(qOff, idx(c * s.qBoxStride())), qBox);
      nvgpu::TmaAsyncLoadOp::create(b, dst, qFull, tmapQ,
                                    ValueRange{col, qHead, qRow}, idx(0), mask,
                                    Value());
    });
  });
}

void KernelBuilder::loadRole() {
  const int64_t tile = s.kvTile;
  const int64_t ck = AttentionSchedule::kChunkKeys;
  auto elect = sm100::ElectOneOp::create(b);
  elect.getBody().push_back(new Block());
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&elect.getBody().front());

  auto wholeBox = ir.smemMemref({s.boxKeys, 1, 64}, p.element);
  auto chunkBox = ir.smemMemref({ck, 1, 64}, p.element);

  forEachPieceWithTiles([&](const Piece &piece, Value g0, Value qLoads) {
    const UnitGeom &u = piece.unit;
    loadQ(u, qLoads);
    // sm_90a, sparse: the gather warps load the tiles.
    if (hopperGather())
      return;
    // K and V tiles through the ring; the first wait on each stage passes
    // at once (a fresh barrier completes "phase -1").
    // The tile loop counts in i32 (tiles, keys and stages fit; the
    // tensor maps take i32 coordinates): in index (i64) its bookkeeping
    // needed more than the 32 registers a producer warpgroup has beside
    // three consumer warpgroups.
    Value g032 = ir.toI32(g0), tLo32 = ir.toI32(piece.tLo);
    forLoop(ir.i32(0), ir.toI32(piece.tiles), ir.i32(1), [&](Value n32) {
      Value gt = ir.add(g032, n32);
      Value stage = ir.toIndex(ir.remu(gt, ir.i32(s.stages)));
      Value round = ir.divu(gt, ir.i32(s.stages));
      wait(kvEmpty, stage, ir.xori1(parityOf(round)), "load: wait kv_empty");
      Value t32 = ir.add(tLo32, n32);
      Value key032 = ir.mul(t32, ir.i32(tile));
      Value key0 = ir.toIndex(key032);
      // Only the chunks with a visible key: a whole tile is one box per
      // 64 columns (per page of boxKeys keys), a partly visible one a
      // chunk box per chunk and 64 columns (the bytes past the visible
      // keys are neither read nor waited for).
      auto [cFirst32, cEnd32] = chunkRange(piece, t32);
      Value cFirst = ir.toIndex(cFirst32), cEnd = ir.toIndex(cEnd32);
      // This CTA's K boxes (a pair may hold different numbers) and V.
      auto chunkBytes = [&](size_t boxes) {
        return (int64_t(boxes) * s.kvBoxBytes() + s.vBytes) / s.chunksPerTile();
      };
      Value perChunk =
          ir.select(ir.eq(split, idx(0)), idx(chunkBytes(s.dBoxes[0].size())),
                    idx(chunkBytes(s.dBoxes[1].size())));
      // Sparse: the tile's key mask first, released to the softmax by the
      // arrive below.
      if (p.sparse())
        writeKeyMask(u, key0, stage);
      if (p.cache) {
        // Per 16-key chunk: 64 e4m3 bytes per e4m3 box, 128 per bf16 box.
        auto cacheChunk = [&](const SmallVector<int64_t> &boxes) {
          int64_t n = 0;
          for (int64_t bx : boxes)
            n += AttentionSchedule::kChunkKeys * (s.quantBox(bx) ? 64 : 128);
          return n;
        };
        perChunk = ir.select(ir.eq(split, idx(0)), idx(cacheChunk(s.dBoxes[0])),
                             idx(cacheChunk(s.dBoxes[1])));
      }
      ir.named(nvgpu::MBarrierArriveExpectTxOp::create(
                   b, p.cache ? rawFull : kvFull,
                   ir.mul(ir.sub(cEnd, cFirst), perChunk), stage, Value()),
               p.cache ? "load: expect_tx raw_full" : "load: expect_tx kv_full");
      Value kOff = kOffset(stage);
      Value vOff = vOffset(kOff);
      // A box of `box` keys at key offset `off` of the tile, through maps
      // `k` and `v` whose boxes have that many rows.
      auto loadBox = [&](Value off, MemRefType box, Value k, Value v) {
        Value at = ir.mul(off, idx(128));
        Value r = kv.row(u.batch, ir.add(key0, off));
        // Box c of the region at `base` (first column `col`) via `map`.
        auto one = [&](Value base, Value col, Value map, int64_t c,
                       Value mask) {
          Value dst =
              view(ir.add(ir.add(base, idx(c * s.kvBoxBytes())), at), box);
          nvgpu::TmaAsyncLoadOp::create(b, dst, kvFull, map,
                                        ValueRange{col, u.kvHead, r}, stage,
                                        mask, Value());
        };
        forEachDBox([&](int64_t c, Value col) {
          shared(c, [&](Value mask) { one(kOff, col, k, c, mask); });
        });
        // This CTA's V columns only (all of them without a Dv split).
        if (!p.kvSame)
          for (int64_t c = 0; c < s.dvPerCta() / 64; ++c)
            one(vOff, ir.add(dvBase, idx(c * 64)), v, c, Value());
      };
      if (p.sparse()) {
        // Four keys per gather4, every chunk with a visible key.
        Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
        Value mbar = nvgpu::MBarrierGetOp::create(
            b, b.getI32Type(), p.cache ? rawFull : kvFull, stage);
        // With extra, a tile is all main keys or all extra keys.
        Value extraTile = kv.inExtra(key0);
        Value rawMap = kv.gk, ropeMap = kv.gRope;
        if (extraTile) {
          rawMap = ir.select(extraTile, kv.xk, kv.gk);
          ropeMap = ir.select(extraTile, kv.xRope, kv.gRope);
        }
        // One iteration per four keys (off: their first row of the tile).
        forLoop(
            ir.mul(cFirst, idx(ck)), ir.mul(cEnd, idx(ck)), idx(4),
            [&](Value off) {
              SmallVector<Value, 4> rows;
              Value slots = stageSlots(stage);
              for (int64_t j = 0; j < 4; ++j) {
                Value slot = memref::LoadOp::create(
                    b, slots, ValueRange{ir.add(off, idx(j))});
                rows.push_back(p.cache ? kv.cacheRow(slot, extraTile)
                                       : kv.gatherRow(slot, u.kvHead));
              }
              Value at = ir.add(base, ir.mul(off, idx(128)));
              auto dstOf = [&](Value region, int64_t box) {
                return ir.toI32(
                    ir.add(at, ir.add(region, idx(box * s.kvBoxBytes()))));
              };
              if (p.cache) {
                // e4m3 boxes: 64 bytes per row into the raw region; bf16
                // boxes: 128 bytes per row into the K tile, swizzled.
                Value rawAt = ir.add(ir.add(base, rawOffset(stage)),
                                     ir.mul(off, idx(64)));
                const KvCacheFormat &f = *p.cache;
                for (int64_t i = 0; i < int64_t(s.dBoxes[0].size()); ++i) {
                  Value box = boxAt(idx(i));
                  forEachCacheBox(i, [&](bool quant) {
                    if (quant) {
                      kv.gather4(
                          rawMap,
                          ir.toI32(ir.add(rawAt, idx(i * s.kvTile * 64))),
                          ir.mul(box, idx(64)), rows, mbar, Value(),
                          "load: gather4 e4m3");
                    } else {
                      Value col = ir.add(idx(f.ropeOffset - 2 * f.quantDims),
                                         ir.mul(box, idx(128)));
                      kv.gather4(ropeMap, dstOf(kOff, i), col, rows, mbar,
                                 Value(), "load: gather4 bf16");
                    }
                  });
                }
                return;
              }
              forEachDBox([&](int64_t i, Value col) {
                shared(i, [&](Value mask) {
                  kv.gather4(kv.gk, dstOf(kOff, i), col, rows, mbar, mask,
                             "load: gather4 k");
                });
              });
              if (!p.kvSame)
                for (int64_t i = 0; i < s.dvPerCta() / 64; ++i)
                  kv.gather4(kv.gv, dstOf(vOff, i), ir.add(dvBase, idx(i * 64)),
                             rows, mbar, Value(), "load: gather4 v");
            });
        return;
      }
      Value whole = ir.andi(ir.eq(cFirst32, ir.i32(0)),
                            ir.eq(cEnd32, ir.i32(s.chunksPerTile())));
      ir.ifThenElse(
          whole,
          [&] {
            for (int64_t k0 = 0; k0 < tile; k0 += s.boxKeys)
              loadBox(idx(k0), wholeBox, kv.k, kv.v);
          },
          [&] {
            forLoop(cFirst32, cEnd32, ir.i32(1), [&](Value c) {
              loadBox(ir.toIndex(ir.mul(c, ir.i32(ck))), chunkBox, kv.kc,
                      kv.vc);
            });
          });
    });
  });
}

void KernelBuilder::forEachCacheBox(int64_t i,
                                    function_ref<void(bool quant)> f) {
  const bool q0 = s.quantBox(s.dBoxes[0][i]);
  if (i >= int64_t(s.dBoxes[1].size()))
    return ifThen(ir.eq(split, idx(0)), [&] { f(q0); });
  const bool q1 = s.quantBox(s.dBoxes[1][i]);
  if (q0 == q1)
    return f(q0);
  ir.ifThenElse(
      ir.eq(split, idx(0)), [&] { f(q0); }, [&] { f(q1); });
}

Value KernelBuilder::boxAt(Value i) {
  auto table = [&](const SmallVector<int64_t> &boxes) {
    Value v = idx(1 << 20); // past D
    for (int64_t k = int64_t(boxes.size()) - 1; k >= 0; --k)
      v = ir.select(ir.eq(i, idx(k)), idx(boxes[k]), v);
    return v;
  };
  return ir.select(ir.eq(split, idx(0)), table(s.dBoxes[0]),
                   table(s.dBoxes[1]));
}

Value KernelBuilder::dequant8(Value bytes, Value scv) {
  Type f16 = b.getF16Type();
  SmallVector<Value, 4> halves;
  for (int64_t k = 0; k < 4; ++k) {
    Value pair = vector::ShuffleOp::create(b, bytes, bytes,
                                           ArrayRef<int64_t>{2 * k, 2 * k + 1});
    halves.push_back(NVVM::ConvertF8x2ToF16x2Op::create(
        b, Type(VectorType::get({2}, f16)), pair,
        /*relu=*/false, Type(b.getType<Float8E4M3FNType>())));
  }
  Value lo = vector::ShuffleOp::create(b, halves[0], halves[1],
                                       ArrayRef<int64_t>{0, 1, 2, 3});
  Value hi = vector::ShuffleOp::create(b, halves[2], halves[3],
                                       ArrayRef<int64_t>{0, 1, 2, 3});
  Value all8 = vector::ShuffleOp::create(
      b, lo, hi, ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  Value wide =
      arith::ExtFOp::create(b, VectorType::get({8}, b.getF32Type()), all8);
  return arith::TruncFOp::create(b, VectorType::get({8}, p.element),
                                 arith::MulFOp::create(b, wide, scv));
}

void KernelBuilder::dequantRole() {
  const int64_t tile = s.kvTile, ck = AttentionSchedule::kChunkKeys;
  const KvCacheFormat &f = *p.cache;
  Type i8 = b.getI8Type(), f32 = b.getF32Type();
  Value lane = ir.sub(tid, idx(192)); // 0 .. 63
  forEachPieceWithTiles([&](const Piece &piece, Value g0, Value) {
    forLoop(idx(0), piece.tiles, idx(1), [&](Value n) {
      Value g = ir.add(g0, n);
      Value stage = ir.remu(g, idx(s.stages));
      wait(rawFull, stage, parityOf(ir.divu(g, idx(s.stages))),
           "dequant: wait raw_full");
      Value t = ir.add(piece.tLo, n);
      Value key0 = ir.mul(t, idx(tile));
      // Only the rows of the chunks the loader gathered.
      auto [cFirst, cEnd] = chunkRange(piece, t);
      Value rowLo = ir.mul(cFirst, idx(ck)), rowHi = ir.mul(cEnd, idx(ck));
      Value raw = view(rawOffset(stage), ir.smemMemref({s.rawBytes}, i8));
      Value kTile = view(kOffset(stage),
                         ir.smemMemref({s.kBytes / 2}, p.element));
      forLoop(lane, idx(tile), idx(AttentionSchedule::kDequantThreads),
              [&](Value r) {
        Value inChunks = ir.andi(ir.cmp(arith::CmpIPredicate::uge, r, rowLo),
                                 ir.cmp(arith::CmpIPredicate::ult, r, rowHi));
        ifThen(inChunks, [&] {
          Value slot = memref::LoadOp::create(b, stageSlots(stage),
                                              ValueRange{r});
          Value extraTile = kv.inExtra(key0);
          Value swz = ir.remu(r, idx(8));
          // One loop over this CTA's e4m3 box positions (one copy of the
          // conversion: the positions' boxes differ between the CTAs).
          forLoop(idx(0), idx(s.rawBoxes), idx(1), [&](Value i) {
            Value box = boxAt(i);
            Value quant = ir.cmp(arith::CmpIPredicate::ult,
                                 ir.mul(box, idx(64)), idx(f.quantDims));
            ifThen(quant, [&] {
              Value sc = kv.scale(slot, ir.divu(box, idx(f.scaleGroup / 64)),
                                  extraTile);
              Value scv = vector::BroadcastOp::create(
                  b, VectorType::get({8}, f32), sc);
              Value rowSrc = ir.mul(ir.add(ir.mul(i, idx(tile)), r), idx(64));
              Value rowDst = ir.add(ir.mul(i, idx(s.kvBoxBytes() / 2)),
                                    ir.mul(r, idx(64)));
              forLoop(idx(0), idx(8), idx(1), [&](Value j) {
                // 8 e4m3 bytes -> 8 bf16 values (16 bytes), at the 16-byte
                // chunk j of row r swizzled as TMA would.
                Value bytes = vector::LoadOp::create(
                    b, VectorType::get({8}, i8), raw,
                    ValueRange{ir.add(rowSrc, ir.mul(j, idx(8)))},
                    /*nontemporal=*/false, llvm::MaybeAlign(8));
                Value out = dequant8(bytes, scv);
                Value dst = ir.add(rowDst, ir.mul(ir.xori(j, swz), idx(8)));
                vector::StoreOp::create(b, out, kTile, ValueRange{dst},
                                        /*nontemporal=*/false,
                                        llvm::MaybeAlign(16));
              });
            });
          });
        });
      });
      // The bf16 tile is read by the MMA (the async proxy).
      ir.fenceProxyAsync("dequant: fence.proxy.async");
      ir.named(nvgpu::MBarrierArriveOp::create(
                   b, nvgpu::MBarrierTokenType::get(ctx), kvFull, stage),
               "dequant: arrive kv_full");
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
  auto qTileTy = ir.smemMemref({128, dq}, e);
  auto kTileTy = ir.smemMemref({tile, dq}, e);
  // This CTA's V columns: dvPerCta / 64 boxes of (tile keys x 64), read by
  // one MMA per K slice as an N = dvPerCta MN-major operand whose atoms are
  // laid out K-first (the boxes).
  const int64_t dv = s.dvPerCta();
  auto vRegionTy = ir.smemMemref({dv / 64, tile, 64}, e);
  auto layQ = sm100::SmemLayoutAttr::get(
      ctx, sm100::Major::k, sm100::Swizzle::sw128, e, 128, dq, false);
  auto layK = sm100::SmemLayoutAttr::get(
      ctx, sm100::Major::k, sm100::Swizzle::sw128, e, tile, dq, false);
  auto layV = sm100::SmemLayoutAttr::get(ctx, sm100::Major::mn,
                                         sm100::Swizzle::sw128, e, dv, tile,
                                         /*k_first=*/true);
  Type f32Ty = b.getF32Type();
  auto idescS = sm100::IDescAttr::get(
      ctx, sm100::MmaKind::f16, e, e, f32Ty, 128, tile, sm100::Major::k,
      sm100::Major::k, false, false, 1, sm100::ScaleType::ue8m0);
  auto idescO = sm100::IDescAttr::get(
      ctx, sm100::MmaKind::f16, e, e, f32Ty, 128, dv, sm100::Major::k,
      sm100::Major::mn, false, false, 1, sm100::ScaleType::ue8m0);
  auto pK = tmem(128, 16, e, sm100::TmemLayout::operand_a);
  Value c0 = idx(0);
  Value yes = i1(true);
  const int64_t sb = s.sBuffers;
  Value releaseMask = multicastQK() ? bothCtas() : Value();

  // S = Q K^T of CTA-wide tile g into S buffer g mod sBuffers: D / 16 MMAs
  // of K = 16. The buffer held P of tile g - sBuffers, which that tile's
  // P V reads; the ISA orders MMAs of one thread only within a pipeline
  // (same accumulator and shape), so wait until that P V completed
  // (o_done). The wait names the phase of the last P V issued, never an
  // older one: at a piece's first tile (g == g0) that is the previous
  // piece's last P V, g - 1, issued after P V of g - sBuffers; were both
  // complete, a wait for the older phase's parity would wait for a phase
  // that no commit completes (mbarrier phase aliasing; the emulator's
  // explored schedules found this deadlock). P V MMAs share the O
  // accumulator, a pipeline, so g - 1 done implies g - sBuffers done.
  auto issueS = [&](Value g, Value stage, Value g0) {
    Value atStart = ir.eq(g, g0);
    Value need = ir.select(atStart, ir.cmp(arith::CmpIPredicate::uge, g, idx(1)),
                           ir.cmp(arith::CmpIPredicate::uge, g, idx(sb)));
    Value phase =
        ir.select(atStart, ir.sub(g, idx(1)), ir.sub(g, idx(sb)));
    ifThen(need,
           [&] { wait(oDone, c0, parityOf(phase), "mma: wait o_done before S"); });
    fence(sm100::FenceKind::after_thread_sync, "mma: fence before S");
    Value qTile = view(opaque(qOff), qTileTy);
    Value kTile = view(opaque(kOffset(stage)), kTileTy);
    // K slices past the boxes of the pair's second CTA: CTA 0's only.
    const int64_t shared16 = 64 * int64_t(s.dBoxes[1].size()) / 16;
    forBuffer(g, [&](int64_t buf) {
      for (int64_t k = 0; k < dq / 16; ++k) {
        auto one = [&] {
          Value qa = sm100::UmmaDescOp::create(
              b, b.getI64Type(), qTile, ValueRange{c0, c0}, layQ, uint32_t(k));
          Value kb = sm100::UmmaDescOp::create(
              b, b.getI64Type(), kTile, ValueRange{c0, c0}, layK, uint32_t(k));
          sm100::MmaOp::create(b, sBuf[buf], qa, kb, k == 0 ? i1(false) : yes,
                               idescS);
        };
        if (k < shared16)
          one();
        else
          ifThen(ir.eq(split, idx(0)), one);
      }
      ir.named(sm100::CommitOp::create(b, sFull, idx(buf), Value(), 1u),
               "mma: commit s_full[" + Twine(buf) + "]");
    });
  };
  // O += P V of CTA-wide tile g (local tile n, the j-th of its piece) once
  // the softmax wrote P (and rescaled O); then the tile's stage is free and
  // o_done completes phase g.
  auto issuePV = [&](const Piece &piece, Value g, Value t, Value j) {
    Value stage = ir.remu(g, idx(s.stages));
    wait(pFull, c0, parityOf(g), "mma: wait p_full");
    fence(sm100::FenceKind::after_thread_sync, "mma: fence before P V");
    Value notFirst = ir.ne(j, idx(0));
    Value kOff = opaque(kOffset(stage));
    Value vOff = vOffset(kOff);
    // With K = V the CTA's V columns are boxes of the K tile.
    Value vBase = vOff;
    if (p.kvSame && s.dvSplit > 1 && !s.exchangeS)
      vBase =
          ir.add(kOff, ir.mul(ir.divu(dvBase, idx(64)), idx(s.kvBoxBytes())));
    Value vRegion = view(vBase, vRegionTy);
    // One K = 16 slice per loaded chunk (a whole tile: all of them); O
    // starts from zero at the first slice of the piece's first tile.
    auto [cFirst, cEnd] = chunkRange(piece, t);
    static_assert(AttentionSchedule::kChunkKeys == 16, "one MMA per chunk");
    forBuffer(g, [&](int64_t buf) {
      for (int64_t k = 0; k < tile / 16; ++k) {
        Value kv = idx(k);
        Value loaded = ir.andi(ir.cmp(arith::CmpIPredicate::sge, kv, cFirst),
                               ir.cmp(arith::CmpIPredicate::slt, kv, cEnd));
        ifThen(loaded, [&] {
          Value acc = ir.ori(notFirst, ir.ne(kv, cFirst));
          Value pa = sm100::TmemSliceOp::create(b, pK, pTm,
                                                uint32_t(buf * tile + 8 * k));
          Value vb = sm100::UmmaDescOp::create(b, b.getI64Type(), vRegion,
                                               ValueRange{c0, c0, c0}, layV,
                                               uint32_t(k));
          sm100::MmaOp::create(b, oAcc, pa, vb, acc, idescO);
        });
      }
    });
    ir.named(sm100::CommitOp::create(b, kvEmpty, stage, releaseMask, 1u),
             "mma: commit kv_empty");
    ir.named(sm100::CommitOp::create(b, oDone, c0, Value(), 1u),
             "mma: commit o_done");
  };

  // With two S buffers the MMA warp runs a tile ahead within a piece: S(n)
  // is issued before P V of tile n - 1, so the tensor core computes the
  // next S while the softmax works on this one. One loop of tiles +
  // `ahead` steps: step n issues S(n) if n < tiles and P V of n - ahead if
  // n >= ahead, so that each exists once in the code. After the piece's
  // last S, q_empty lets the loader bring the next piece's Q.
  const int64_t ahead = sb - 1;
  forEachPieceWithTiles([&](const Piece &piece, Value g0, Value qLoads) {
    Value tiles = piece.tiles;
    wait(qFull, c0, parityOf(qLoads), "mma: wait q_full");
    Value steps = ir.add(tiles, idx(ahead));
    forLoop(idx(0), steps, idx(1), [&](Value n) {
      auto stepS = [&] {
        Value g = ir.add(g0, n);
        Value stage = ir.remu(g, idx(s.stages));
        wait(kvFull, stage, parityOf(ir.divu(g, idx(s.stages))),
             "mma: wait kv_full");
        issueS(g, stage, g0);
        ifThen(ir.eq(n, ir.sub(tiles, idx(1))), [&] {
          ir.named(sm100::CommitOp::create(b, qEmpty, c0, releaseMask, 1u),
                   "mma: commit q_empty");
        });
      };
      auto stepPV = [&] {
        Value j = ir.sub(n, idx(ahead));
        issuePV(piece, ir.add(g0, j), ir.add(piece.tLo, j), j);
      };
      if (ahead == 0) {
        stepS();
        stepPV();
        return;
      }
      ifThen(ir.cmp(arith::CmpIPredicate::ult, n, tiles), stepS);
      ifThen(ir.cmp(arith::CmpIPredicate::uge, n, idx(ahead)), stepPV);
    });
  });
}

SmallVector<Attribute> KernelBuilder::harnessArgs(Builder &hb) const {
  SmallVector<Attribute> args = {harnessTensorMap(
      hb, "q", {"b*sq", "hq", "d"}, {64, s.headsPerCta, s.queriesPerCta})};
  kv.appendHarnessArgs(hb, args);
  epi.appendHarnessArgs(hb, args);
  if (p.hasLens)
    args.push_back(harnessBuffer(hb, "kv_lens"));
  if (p.hasSink)
    args.push_back(harnessBuffer(hb, "sink"));
  args.push_back(hb.getDictionaryAttr(
      {hb.getNamedAttr("scalar", hb.getStringAttr("f32")),
       hb.getNamedAttr("value", hb.getStringAttr("softmax_scale*log2e"))}));
  return args;
}

//===----------------------------------------------------------------------===//
// The harness attribute
//===----------------------------------------------------------------------===//

DictionaryAttr harnessAttr(const AttentionSchedule &s, ArrayRef<Attribute> args,
                           DictionaryAttr combine, Builder &b) {
  const AttentionProblemShape &p = s.problem;
  auto str = [&](StringRef v) { return b.getStringAttr(v); };
  auto named = [&](StringRef n, Attribute a) { return b.getNamedAttr(n, a); };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<NamedAttribute> types = {
      named("q", str(harnessTypeName(p.element))),
      named("o", str(p.nvfp4Out ? "u8" : harnessTypeName(p.outElement))),
      named("lse", str("f32"))};
  if (p.nvfp4Out) {
    types.push_back(named("o_sf", str("u8")));
    types.push_back(named("o_scale", str("f32")));
  }
  if (p.cache) {
    types.push_back(named("kv", str("u8")));
    if (p.extra()) {
      types.push_back(named("kv2", str("u8")));
      types.push_back(named("indices2", str("i32")));
      if (p.hasExtraLens)
        types.push_back(named("kv_lens2", str("i32")));
    }
  } else {
    types.push_back(named("k", str(harnessTypeName(p.element))));
    types.push_back(named("v", str(harnessTypeName(p.element))));
  }
  if (p.hasSink)
    types.push_back(named("sink", str("f32")));
  if (p.hasLens)
    types.push_back(named("kv_lens", str("i32")));
  if (p.paged())
    types.push_back(named("block_table", str("i32")));
  if (p.sparse())
    types.push_back(named("indices", str("i32")));
  SmallVector<Attribute> absent;
  if (!p.hasSink)
    absent.push_back(str("sink"));
  if (!p.hasLens)
    absent.push_back(str("kv_lens"));
  if (p.cache && !p.extra())
    for (StringRef n : {"kv2", "kv_lens2", "indices2"})
      absent.push_back(str(n));
  if (p.extra() && !p.hasExtraLens)
    absent.push_back(str("kv_lens2"));
  SmallVector<NamedAttribute> sizes = {
      named("b", i64(p.batch)),     named("sq", i64(p.seqQ)),
      named("hq", i64(p.headsQ)),   named("skv", i64(p.seqKv)),
      named("hkv", i64(p.headsKv)), named("d", i64(p.headDim)),
      named("dv", i64(p.headDimV))};
  if (p.paged()) {
    sizes.push_back(named("np", i64(p.numPages)));
    sizes.push_back(named("ps", i64(p.pageSize)));
    sizes.push_back(named("mp", i64(p.maxPages)));
  }
  if (p.sparse()) {
    sizes.push_back(named("np", i64(p.slots / p.slotPageSize)));
    sizes.push_back(named("ps", i64(p.slotPageSize)));
    sizes.push_back(named("topk", i64(p.topk)));
  }
  if (p.cache) {
    sizes.push_back(named("rb", i64(p.cache->rowBytes)));
    sizes.push_back(named("rpp", i64(p.cachePageBytes / p.cache->rowBytes)));
  }
  if (p.extra()) {
    sizes.push_back(named("np2", i64(p.extraSlots / p.extraPageSize)));
    sizes.push_back(named("ps2", i64(p.extraPageSize)));
    sizes.push_back(named("rpp2", i64(p.extraPageBytes / p.cache->rowBytes)));
    sizes.push_back(named("topk2", i64(p.extraTopk)));
  }
  if (p.nvfp4Out) {
    sizes.push_back(named("dvh", i64(p.headDimV / 2)));
    sizes.push_back(named("sfn", i64(p.sfRows * p.sfCols)));
    sizes.push_back(named("one", i64(1)));
  }
  SmallVector<NamedAttribute> options = {
      named("softmax_scale", b.getF32FloatAttr(p.softmaxScale))};
  if (!p.sparse())
    options.push_back(named("causal", b.getBoolAttr(p.causal)));
  if (p.window)
    options.push_back(named("window", i64(*p.window)));

  std::string reference =
      p.cache      ? "attention_sparse_" + std::string(p.cache->name)
      : p.sparse() ? std::string("attention_sparse")
      : p.paged()  ? std::string("attention_paged")
                   : std::string("attention");
  if (p.nvfp4Out)
    reference += "_nvfp4_out";
  SmallVector<NamedAttribute> h = {
      named("reference", str(reference)),
      named("types", b.getDictionaryAttr(types)),
      named("sizes", b.getDictionaryAttr(sizes)),
      named("options", b.getDictionaryAttr(options)),
      named("grid",
            b.getDenseI32ArrayAttr({int32_t(s.partitions * s.dvSplit), 1, 1})),
      named("block", b.getDenseI32ArrayAttr({int32_t(s.threads), 1, 1})),
      named("cluster",
            b.getDenseI32ArrayAttr({int32_t(s.clusterCtas()), 1, 1})),
      named("dynamic_smem", i64(s.dynamicSmem)),
      named("args", b.getArrayAttr(args))};
  if (!absent.empty())
    h.push_back(named("absent", b.getArrayAttr(absent)));
  // The op's operands and results, in order, as the tensors above: the
  // host lowering names the buffers of nvfp4.launch with them.
  SmallVector<Attribute> operands = {str("q"), str(p.cache ? "kv" : "k"),
                                     str(p.cache ? "kv" : "v")};
  for (auto [present, name] :
       {std::pair{p.hasSink, "sink"}, {p.hasLens, "kv_lens"},
        {p.paged(), "block_table"}, {p.sparse(), "indices"},
        {p.extra(), "kv2"}, {p.extra(), "indices2"},
        {p.hasExtraLens, "kv_lens2"}, {p.nvfp4Out, "o_scale"}})
    if (present)
      operands.push_back(str(name));
  SmallVector<Attribute> results = {str("o"), str("lse")};
  if (p.nvfp4Out)
    results.push_back(str("o_sf"));
  h.push_back(named("operands", b.getArrayAttr(operands)));
  h.push_back(named("results", b.getArrayAttr(results)));
  // V from K's rows: the whole rows (the same value) or their first Dv
  // columns (an extract_slice).
  if (p.kvSame && !p.cache)
    h.push_back(named(p.headDimV == p.headDim ? "same" : "slice",
                      b.getDictionaryAttr({named("v", str("k"))})));
  if (combine) {
    // The workspace of partial results and the combine launch.
    auto ws = [&](StringRef name, StringRef type, ArrayRef<int64_t> shape) {
      return b.getDictionaryAttr(
          {named("name", str(name)), named("type", str(type)),
           named("shape", b.getDenseI64ArrayAttr(shape))});
    };
    h.push_back(
        named("workspace",
              b.getArrayAttr(
                  {ws("partial_o", "f32",
                      {s.workspaceSlots(), s.usedRows(), p.headDimV}),
                   ws("partial_lse", "f32", {s.workspaceSlots(), s.usedRows()}),
                   ws("unit_records", "i32", {s.units, 4})})));
    h.push_back(named("then", b.getArrayAttr({combine})));
  }
  return b.getDictionaryAttr(h);
}

/// The schedule as attributes on the kernel, for tests and tables.
DictionaryAttr scheduleAttr(const AttentionSchedule &s, Builder &b) {
  auto named = [&](StringRef n, int64_t v) {
    return b.getNamedAttr(n, b.getI64IntegerAttr(v));
  };
  StringRef split = s.split == WorkSplit::Whole     ? "whole"
                    : s.split == WorkSplit::Uniform ? "uniform"
                                                    : "balanced";
  SmallVector<NamedAttribute> attrs = {
      named("group", s.group),
      named("queries_per_cta", s.queriesPerCta),
      named("row_blocks", s.rowBlocks),
      named("kv_tile", s.kvTile),
      named("dv_split", s.dvSplit),
      named("exchange_s", s.exchangeS ? 1 : 0),
      named("x_rounds", s.xRounds),
      named("s_buffers", s.sBuffers),
      named("stages", s.stages),
      named("smem_bytes", s.dynamicSmem),
      named("tmem_columns", s.tmemColumns),
      named("tmem_s", s.tmemS),
      named("tmem_o", s.tmemO),
      named("tmem_p", s.tmemP),
      named("mmas_per_tile", s.mmasPerTile()),
      named("max_regs", s.maxRegs),
      named("softmax_regs", s.softmaxRegs),
      named("other_regs", s.otherRegs),
      named("units", s.units),
      named("partitions", s.partitions),
      named("box_keys", s.boxKeys),
      b.getNamedAttr("split", b.getStringAttr(split))};
  if (s.queryShift)
    attrs.push_back(named("query_shift", s.queryShift));
  if (s.hopper()) {
    attrs.push_back(b.getNamedAttr("chip", b.getStringAttr("sm_90a")));
    attrs.push_back(named("consumers", s.consumers));
    attrs.push_back(named("overlap_softmax", s.overlapSoftmax ? 1 : 0));
    attrs.push_back(named("ping_pong", s.pingPong ? 1 : 0));
    attrs.push_back(named("poly_exp2", s.polyExp2));
    attrs.push_back(named("p_shared", s.pSharedGroups > 0 ? 1 : 0));
    attrs.push_back(named("dv_groups", s.dvGroups));
    if (s.dvGroups > 1)
      attrs.push_back(named("dv_group_regs", s.dvGroupRegs));
    attrs.push_back(named("head_blocks", s.headBlocks));
    attrs.push_back(named("gather_staging", s.gatherStaging ? 1 : 0));
    attrs.push_back(named("zero_v", s.zeroV ? 1 : 0));
  }
  if (s.split == WorkSplit::Uniform)
    attrs.push_back(named("splits_per_unit", s.splitsPerUnit));
  if (s.clusterMerge)
    attrs.push_back(named("cluster_merge", s.clusterMerge));
  if (s.split == WorkSplit::Balanced) {
    attrs.push_back(named("overhead_blocks", s.overheadBlocks));
    attrs.push_back(named("overhead_tiles", s.overheadTiles));
    attrs.push_back(named("plan_keys", s.planKeys));
    if (s.staticPlan)
      attrs.push_back(named("static_plan_keys", s.staticPlanKeys));
    attrs.push_back(named("num_sms", s.numSms));
    attrs.push_back(named("min_piece_keys", s.minPieceKeys));
    attrs.push_back(b.getNamedAttr(
        "plan", b.getStringAttr(s.staticPlan ? "static" : "device")));
  }
  return b.getDictionaryAttr(attrs);
}

struct NVFP4LowerAttentionPass
    : nvfp4::impl::NVFP4LowerAttentionBase<NVFP4LowerAttentionPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops = opsToLower<AttentionOp>(module);
    if (ops.empty())
      return;
    if (failed(checkNumSms(module, "nvfp4-lower-attention", numSms)))
      return signalPassFailure();
    if (minPieceKeys < 0 || minPieceKeys > plan::kMaxMinPieceKeys) {
      module.emitError("nvfp4-lower-attention: min-piece-keys must be in "
                       "[0, 2^30], got ")
          << int64_t(minPieceKeys);
      return signalPassFailure();
    }
    if (clusterMerge < 0 || clusterMerge > plan::kMaxClusterMerge) {
      module.emitError("nvfp4-lower-attention: cluster-merge must be in [0, ")
          << plan::kMaxClusterMerge << "], got " << int64_t(clusterMerge);
      return signalPassFailure();
    }
    if (polyExp2 < kPolyExp2Auto || polyExp2 > kPolyExp2Max) {
      module.emitError("nvfp4-lower-attention: poly-exp2 must be in [0, ")
          << kPolyExp2Max << "] or " << kPolyExp2Auto
          << " (the default rule), got " << int64_t(polyExp2);
      return signalPassFailure();
    }
    if (pShared < AttentionSchedule::kPSharedAuto || pShared > 1) {
      module.emitError("nvfp4-lower-attention: p-shared must be 0, 1 or -1 "
                       "(the default rule), got ")
          << int64_t(pShared);
      return signalPassFailure();
    }
    std::string chipError;
    FailureOr<AttentionChip> target = parseAttentionChip(chip, chipError);
    if (failed(target)) {
      module.emitError("nvfp4-lower-attention: ") << chipError;
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    for (Operation *generic : ops) {
      auto op = cast<AttentionOp>(generic);
      FailureOr<AttentionSchedule> s = chooseAttentionSchedule(
          op, numSms, *target, minPieceKeys, polyExp2, clusterMerge, pShared);
      if (failed(s))
        return signalPassFailure();
      ImplicitLocOpBuilder b(op.getLoc(), module.getContext());
      auto gpuModule =
          createKernelModule(b, module, symbols, op, "_attention");
      std::string kernelName = gpuModule.getName().str();
      KernelBuilder builder(*s, b);
      gpu::GPUFuncOp func = builder.build(gpuModule, kernelName);
      DictionaryAttr combine;
      if (s->splitKv()) {
        combine = buildCombineKernel(*s, b, gpuModule, kernelName + "_combine");
        // The combine is launched programmatically (docs/AttentionLowering.md,
        // "Combine"): each CTA lets it be scheduled as soon as it starts;
        // the combine's griddepcontrol.wait still waits for the whole grid
        // and its memory.
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&func.getBody().front());
        NVVM::GriddepcontrolOp::create(
            b, NVVM::GridDepActionKind::launch_dependents);
      }
      func->setAttr(kHarnessAttr,
                    harnessAttr(*s, builder.harnessArgs(b), combine, b));
      func->setAttr("nvfp4.schedule", scheduleAttr(*s, b));
      recordKernel(op, gpuModule, func.getName());
      ++numKernels;
    }
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Harness helpers (AttentionKernel.h)
//===----------------------------------------------------------------------===//

gpu::GPUModuleOp nvfp4::attn::createKernelModule(ImplicitLocOpBuilder &b,
                                                 ModuleOp module,
                                                 SymbolTable &symbols,
                                                 Operation *op,
                                                 StringRef suffix) {
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, kernelBaseName(op, suffix));
  symbols.insert(gpuModule); // renames on a clash
  b.setInsertionPointToEnd(module.getBody());
  return gpuModule;
}

LogicalResult nvfp4::attn::checkNumSms(ModuleOp module, StringRef pass,
                                      int64_t numSms) {
  if (numSms >= 1)
    return success();
  return module.emitError(pass) << ": num-sms must be at least 1, got "
                                << numSms;
}

void nvfp4::attn::fencedBarrier(IR &ir, const Twine &when) {
  ir.named(sm100::FenceOp::create(ir.b, sm100::FenceKind::before_thread_sync),
           when + ": fence before barrier");
  ir.named(gpu::BarrierOp::create(ir.b), when + ": barrier");
  ir.named(sm100::FenceOp::create(ir.b, sm100::FenceKind::after_thread_sync),
           when + ": fence after barrier");
}

void nvfp4::attn::recordKernel(Operation *op, gpu::GPUModuleOp gpuModule,
                               StringRef kernel) {
  MLIRContext *ctx = op->getContext();
  op->setAttr(kKernelAttrName,
              SymbolRefAttr::get(gpuModule.getNameAttr(),
                                 {FlatSymbolRefAttr::get(ctx, kernel)}));
}

std::string nvfp4::attn::kernelBaseName(Operation *op, StringRef suffix) {
  auto parent = op->getParentOfType<FunctionOpInterface>();
  std::string name =
      (parent ? parent.getName().str() : std::string("kernel")) + suffix.str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  if (name.empty() || llvm::isDigit(name.front()))
    name = "k_" + name;
  return name;
}

std::string nvfp4::attn::harnessTypeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isF32())
    return "f32";
  return "i32";
}

DictionaryAttr nvfp4::attn::harnessBuffer(Builder &b, StringRef tensor) {
  return b.getDictionaryAttr(
      {b.getNamedAttr("buffer", b.getStringAttr(tensor))});
}

DictionaryAttr nvfp4::attn::harnessTensorMap(Builder &b, StringRef tensor,
                                             ArrayRef<StringRef> view,
                                             ArrayRef<int64_t> box,
                                             StringRef swizzle) {
  SmallVector<Attribute> v;
  for (StringRef x : view)
    v.push_back(b.getStringAttr(x));
  return b.getDictionaryAttr(
      {b.getNamedAttr("tmap", b.getStringAttr(tensor)),
       b.getNamedAttr("view", b.getArrayAttr(v)),
       b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
       b.getNamedAttr("swizzle", b.getStringAttr(swizzle))});
}
