//===- AttentionHopper.cpp - the sm_90a consumer warpgroups ---------------===//
//
// The part of the attention kernel that differs on Hopper (docs/Hopper.md):
// the consumer warpgroups. Each owns 64 of the CTA's rows (128, or 192 with
// three warpgroups at D <= 64) and does for
// every KV tile what the SM100 kernel spreads over its MMA warp and softmax
// warpgroup:
//
//   S = Q K^T    wgmma m64 n(tile) k16, Q and K from shared memory
//                (descriptors over the TMA's 128-byte-swizzled boxes), S in
//                registers: thread 4 g + t of warp w holds rows 16 w + g
//                and + 8, columns 8 c + 2 t + {0, 1};
//   softmax      the same masks and exp2 arithmetic as SM100, the row max
//                and sum across the four threads of a row by shuffles;
//   O += P V     wgmma m64 n(Dv) k16 with A = P from registers: the bf16
//                pairs of S's fragment are exactly the A fragment of the
//                K = 16 slice (no data movement), B = V from shared memory
//                read transposed (MN-major), one instruction per 16 keys
//                of the tile (the unloaded rows of a partly loaded tile
//                are finite: P = 0 there); or, with AttentionSchedule::
//                pShared, A = P from shared memory: each warpgroup writes
//                tile n's P into its buffer n mod 2 (docs/Hopper.md, "P
//                through shared memory");
//   epilogue     Epilogue::write with O in registers (2-column chunks).
//
// With Dv <= 128 the tiles run as a software pipeline (FlashAttention-3's
// intra-warpgroup overlap: the softmax of tile n under P(n-1) V(n-1)),
// and tiles that cut no row's visible keys skip the masks (a warp vote).
// With Dv > 256 (AttentionSchedule::dvGroups) the two warpgroups share 64
// rows and split Dv (FlashMLA's split): warpgroup 0 computes S, the
// softmax and O's first half and hands P, alpha and the final m and l to
// warpgroup 1 through shared memory and named barriers; warpgroup 1
// computes O's second half with A = P from shared memory. Sparse: the
// softmax also clears the keys the gather role's mask clears.
// The loader (TMA warp), the KV sources, the work plans and the epilogue
// are the SM100 kernel's (LowerAttention.cpp, AttentionKernel.h).
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"

#include "nvfp4/Support/UMMADescriptors.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

namespace {

class Consumer {
public:
  Consumer(KernelEnv &env, WorkPlan &work, Epilogue &epi, const HopperKernel &k,
           int64_t dvGroup)
      : env(env), s(env.s), p(env.p), ir(env.ir), b(env.b), work(work),
        epi(epi), k(k), dvGroup(dvGroup),
        role(dvGroup == 0 ? "consumer" : "consumer_dv") {}

  void build();

private:
  Value idx(int64_t v) { return ir.idx(v); }
  /// An op name of this role: "consumer: what" (or "consumer_dv: what").
  std::string nm(StringRef what) const { return role + ": " + what.str(); }

  // The hand-over of a Dv split (dvGroups = 2): warpgroup 0 sends, per KV
  // tile, P and alpha, and per piece the final m and l; warpgroup 1
  // receives. Named barriers kHandFull (0 arrives, 1 waits) and kHandEmpty
  // (1 arrives, 0 waits), 256 threads each.
  static constexpr int64_t kHandFull = 1, kHandEmpty = 2;
  // Inline PTX: nvvm.barrier with a thread count does not survive a print
  // and parse of the IR in MLIR 22 (the mutation tests re-read it). With a
  // memory clobber (IR::syncPtxOp): the hand-over's loads and stores must
  // stay between its barriers.
  void barSync(int64_t id, StringRef what) {
    ir.named(
        ir.syncPtxOp("bar.sync " + std::to_string(id) + ", 256;", ValueRange{}),
        nm(what));
  }
  void barArrive(int64_t id, StringRef what) {
    ir.named(ir.syncPtxOp("bar.arrive " + std::to_string(id) + ", 256;",
                          ValueRange{}),
             nm(what));
  }
  // The ping-pong of two or three consumer warpgroups
  // (AttentionSchedule::pingPong, FlashAttention-3's): warpgroup w issues
  // its wgmma only on its turn. It waits on named barrier kTurn + w,
  // issues, and passes the turn with an arrival on kTurn + (w + 1) mod
  // consumers (256 threads each: one waiting and one arriving warpgroup),
  // so that one warpgroup's softmax runs while another's GEMMs hold the
  // tensor cores.
  static constexpr int64_t kTurn = 3;
  void turnBarrier(StringRef op, Value id, StringRef what) {
    ir.named(ir.inlinePtxOp((op + " $0, 256;").str(), TypeRange{},
                            ValueRange{ir.toI32(id)}),
             nm(what));
  }
  /// `issue` on this warpgroup's turn (just `issue` without the ping-pong).
  void onTurn(function_ref<void()> issue, StringRef what) {
    if (!s.pingPong)
      return issue();
    turnBarrier("bar.sync", ir.add(idx(kTurn), wg),
                (what + ": wait turn").str());
    issue();
    turnBarrier(
        "bar.arrive",
        ir.add(idx(kTurn), ir.remu(ir.add(wg, idx(1)), idx(s.consumers))),
        (what + ": pass turn").str());
  }
  /// Warpgroup 0: waits until warpgroup 1 has taken the last message,
  /// runs `write`, makes it visible (to wgmma too when `forWgmma`:
  /// fence.proxy.async) and sends it.
  void send(function_ref<void()> write, StringRef what, bool forWgmma) {
    barSync(kHandEmpty, (what + ": wait hand_empty").str());
    write();
    if (forWgmma)
      ir.fenceProxyAsync(nm((what + ": fence.proxy.async").str()));
    barArrive(kHandFull, (what + ": arrive hand_full").str());
  }
  // The cluster merge (AttentionSchedule::clusterMerge; docs/Hopper.md,
  // "The cluster merge"): the CTA holds one piece of its unit, and the
  // cluster's CTAs hold all of them. Each writes its piece's partial
  // result (normalised O in f32, the base-2 LSE without the sink) into
  // its K/V stages; after a cluster barrier the consumer warps of all the
  // CTAs merge the unit's rows, a (row, 128-column chunk) a warp, reading
  // every CTA's partial result through distributed shared memory
  // (emitRowMerge, the combine kernel's arithmetic), and write O and the
  // LSE; a second cluster barrier keeps every CTA's shared memory until
  // the others have read it.
  static constexpr int64_t kMergeBarrier = 8;
  /// The merge buffer (AttentionSchedule::mergeBytes) over the stages: f32
  /// words, row r's O at r * mergeRowFloats, the LSEs after the rows.
  Value mergeView() {
    return memref::ViewOp::create(
        b,
        ir.smemMemref({s.usedRows() * (s.mergeRowFloats() + 1)},
                      b.getF32Type()),
        k.smem, k.kOffset(idx(0)), ValueRange{});
  }
  /// Before the first write of the merge buffer: every consumer warpgroup's
  /// wgmma has read its last stage (the first call only, `first`).
  void stageForMerge(Value row, Value m, Value l, const OSource &os,
                     Value dvBase, bool first);
  /// The merge of the unit's rows (`rowAt(r)`: row r's output geometry;
  /// `rowBatch`: the unit's sequence).
  void mergeInCluster(function_ref<Epilogue::Row(Value)> rowAt, Value rowBatch);

  /// The hand-over's P words (i32 pairs of bf16, 128-byte swizzled rows)
  /// and its f32 words: alpha, then m, then l (64 each).
  Value handP() {
    return memref::ViewOp::create(
        b,
        ir.smemMemref({AttentionSchedule::kWarpgroupRows * s.kvTile / 2},
                      b.getI32Type()),
        k.smem, k.handOff, ValueRange{});
  }
  Value handF() {
    return memref::ViewOp::create(
        b,
        ir.smemMemref({3 * AttentionSchedule::kWarpgroupRows}, b.getF32Type()),
        k.smem,
        ir.add(k.handOff,
               idx(AttentionSchedule::kWarpgroupRows * s.kvTile * 2)),
        ValueRange{});
  }

  Value i32(int64_t v) { return ir.i32(v); }

  /// The descriptor (i64, umma::encodeGmmaDesc) of the 128-byte-swizzled
  /// operand at shared address `addr` (index). The address passes through
  /// IR::opaque: otherwise LLVM computes the loop-invariant Q descriptors
  /// (D / 16 of them, two registers each) once and holds them across the
  /// KV loop, which spills at D 256.
  Value descriptor(Value addr, uint32_t lbo, uint32_t sbo) {
    Value a = arith::IndexCastOp::create(b, b.getI64Type(), ir.opaque(addr));
    a = arith::ShRUIOp::create(
        b, arith::AndIOp::create(b, a, constI64(0x3ffff)), constI64(4));
    return arith::OrIOp::create(b, a,
                                constI64(int64_t(*umma::encodeGmmaDesc(
                                    0, lbo, sbo, umma::Swizzle::B128))));
  }
  Value constI64(int64_t v) {
    return arith::ConstantIntOp::create(b, v, 64).getResult();
  }

  /// Passes `vals` through an empty asm that reads and writes them: LLVM
  /// may neither move their computation past the asm nor their uses before
  /// it (CUTLASS's warpgroup_fence_operand). Around every wgmma chain: the
  /// registers it reads are final before wgmma.fence, and what it wrote is
  /// read only after wgmma.wait_group.
  SmallVector<Value> fenceOperands(ArrayRef<Value> vals);
  /// An empty asm with side effects that reads the i32 registers `vals`:
  /// they stay live up to here. After the wgmma.wait_group that retires a
  /// wgmma reading them as A fragment: otherwise LLVM may give a value
  /// computed in between (the next tile's P) the same register while the
  /// wgmma still reads it (ptxas then serializes the wgmma).
  void keepAlive(ArrayRef<Value> vals);
  /// An inline asm with side effects that reads and writes the f32
  /// registers `acc` ($0 .. $n-1, tied) and reads `ins` (constraints
  /// `inConstraints`, each ",c"); returns the new values of `acc`.
  SmallVector<Value> tiedAsm(StringRef code, ArrayRef<Value> acc,
                             ValueRange ins, StringRef inConstraints);
  /// One wgmma.mma_async m64 n(acc.size() * 2) k16 into the f32
  /// accumulators `acc`: A from the descriptor `aDesc` or the four
  /// registers `aRegs`, B from `bDesc` (read transposed when `transB`),
  /// D = A B + (scaleD ? D : 0). Returns the new accumulators.
  SmallVector<Value> wgmma(ArrayRef<Value> acc, Value aDesc,
                           ArrayRef<Value> aRegs, Value bDesc, bool scaleD,
                           bool transB);
  void fence(const Twine &role) {
    ir.named(NVVM::WgmmaFenceAlignedOp::create(b), role + ": wgmma.fence");
  }
  /// Lane 0 of each consumer warp arrives on barrier `index` of `group`
  /// (the barrier counts 4 x consumers arrivals).
  void warpArrive(Value group, Value index, const Twine &role) {
    ir.ifThen(ir.eq(lane, idx(0)), [&] {
      ir.named(
          nvgpu::MBarrierArriveOp::create(
              b, nvgpu::MBarrierTokenType::get(b.getContext()), group, index),
          role);
    });
  }
  Value shuffleXor(Value v, int64_t mask) {
    auto sh =
        gpu::ShuffleOp::create(b, v, i32(mask), i32(32), gpu::ShuffleMode::XOR);
    return sh.getShuffleResult();
  }

  KernelEnv &env;
  const AttentionSchedule &s;
  const AttentionProblemShape &p;
  IR &ir;
  ImplicitLocOpBuilder &b;
  WorkPlan &work;
  Epilogue &epi;
  const HopperKernel &k;
  /// Which part of Dv this warpgroup computes O for (0 without a split).
  const int64_t dvGroup;
  const std::string role;

  Value wg, lane, g, t;
};

SmallVector<Value> Consumer::tiedAsm(StringRef code, ArrayRef<Value> acc,
                                     ValueRange ins, StringRef inConstraints) {
  // $0 .. $n-1: the f32 outputs, tied to the inputs $n .. $2n-1 (acc);
  // then `ins`.
  const size_t n = acc.size();
  std::string constraints;
  for (size_t i = 0; i < n; ++i)
    constraints += (i ? ",=f" : "=f");
  for (size_t i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  constraints += inConstraints.str();
  SmallVector<Value> operands(acc.begin(), acc.end());
  llvm::append_range(operands, ins);
  SmallVector<Type> types(n, b.getF32Type());
  auto asmOp = LLVM::InlineAsmOp::create(
      b, LLVM::LLVMStructType::getLiteral(b.getContext(), types), operands,
      code, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
  SmallVector<Value> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, asmOp.getResult(0),
                                               ArrayRef<int64_t>{int64_t(i)}));
  return out;
}

SmallVector<Value> Consumer::fenceOperands(ArrayRef<Value> vals) {
  return tiedAsm("", vals, ValueRange{}, "");
}

void Consumer::keepAlive(ArrayRef<Value> vals) {
  std::string constraints;
  for (size_t i = 0; i < vals.size(); ++i)
    constraints += (i ? ",r" : "r");
  LLVM::InlineAsmOp::create(b, TypeRange{}, vals, "", constraints,
                            /*has_side_effects=*/true,
                            /*is_align_stack=*/false, LLVM::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

SmallVector<Value> Consumer::wgmma(ArrayRef<Value> acc, Value aDesc,
                                   ArrayRef<Value> aRegs, Value bDesc,
                                   bool scaleD, bool transB) {
  const size_t n = acc.size();
  std::string type = p.element.isBF16() ? "bf16" : "f16";
  // D in $0 .. $n-1 (tied to $n .. $2n-1), then A (a descriptor or four
  // registers), then B's descriptor. scale-d is a predicate operand: a
  // constant through a local predicate register.
  std::string mma = "wgmma.mma_async.sync.aligned.m64n" +
                    std::to_string(2 * n) + "k16.f32." + type + "." + type +
                    " {";
  for (size_t i = 0; i < n; ++i)
    mma += (i ? ", $" : "$") + std::to_string(i);
  mma += "}, ";
  std::string constraints;
  SmallVector<Value> ins;
  size_t op = 2 * n;
  if (aDesc) {
    mma += "$" + std::to_string(op++);
    constraints += ",l";
    ins.push_back(aDesc);
  } else {
    mma += "{";
    for (size_t i = 0; i < aRegs.size(); ++i) {
      mma += (i ? ", $" : "$") + std::to_string(op++);
      constraints += ",r";
      ins.push_back(aRegs[i]);
    }
    mma += "}";
  }
  mma += ", $" + std::to_string(op++) + ", p, 1, 1";
  constraints += ",l";
  ins.push_back(bDesc);
  if (aDesc)
    mma += ", 0";
  mma += std::string(", ") + (transB ? "1" : "0") + ";";
  std::string code = std::string("{ .reg .pred p; setp.ne.b32 p, ") +
                     (scaleD ? "1" : "0") + ", 0; " + mma + " }";
  return tiedAsm(code, acc, ins, constraints);
}

void Consumer::stageForMerge(Value row, Value m, Value l, const OSource &os,
                             Value dvBase, bool first) {
  Type f32Ty = b.getF32Type();
  if (first)
    ir.named(ir.syncPtxOp("bar.sync " + std::to_string(kMergeBarrier) + ", " +
                              std::to_string(128 * s.consumers) + ";",
                          ValueRange{}),
             nm("merge: wait consumers"));
  Value mv = mergeView();
  const int64_t stride = s.mergeRowFloats();
  Value inRange = ir.cmp(arith::CmpIPredicate::ult, row, idx(s.usedRows()));
  Value inv, lse2;
  std::tie(inv, lse2) = partialScaleAndLse(ir, m, l);
  // One thread of the row's four writes its LSE (warpgroup 0's with a Dv
  // split).
  if (dvGroup == 0)
    ir.ifThen(ir.andi(inRange, ir.eq(t, idx(0))), [&] {
      memref::StoreOp::create(
          b, lse2, mv, ValueRange{ir.add(idx(s.usedRows() * stride), row)});
    });
  auto vf = VectorType::get({os.width}, f32Ty);
  os.read([&](Value col, Value v) {
    ir.ifThen(inRange, [&] {
      vector::StoreOp::create(
          b,
          arith::MulFOp::create(b, v, vector::BroadcastOp::create(b, vf, inv)),
          mv,
          ValueRange{ir.add(ir.mul(row, idx(stride)), ir.add(dvBase, col))});
    });
  });
}

void Consumer::mergeInCluster(function_ref<Epilogue::Row(Value)> rowAt,
                              Value rowBatch) {
  Type f32Ty = b.getF32Type();
  auto shared = LLVM::LLVMPointerType::get(b.getContext(), 3);
  auto cluster = LLVM::LLVMPointerType::get(b.getContext(), 7);
  // Every CTA's partial result is in its buffer (release / acquire at
  // cluster scope).
  ir.clusterSync(nm("merge"));
  const int64_t n = s.clusterMerge, stride = s.mergeRowFloats();
  const int64_t rowsUsed = s.usedRows();
  // 128-column chunks, or 64 where they do not divide Dv (64, 192, 320).
  const int64_t chunk = p.headDimV % 128 == 0 ? 128 : 64;
  const int64_t width = chunk / 32, chunks = p.headDimV / chunk;
  const int64_t warps = 4 * s.consumers;
  Value rank = ir.remu(env.partition, idx(n));
  Value warp = ir.divu(env.tid, idx(32));
  Value bufAddr =
      ir.add(memref::ExtractAlignedPointerAsIndexOp::create(b, k.smem),
             k.kOffset(idx(0)));
  // Word `word` of CTA `part`'s buffer, as a shared::cluster pointer.
  auto remote = [&](Value word, Value part) {
    Value local = LLVM::IntToPtrOp::create(
        b, shared, ir.toI32(ir.add(bufAddr, ir.mul(word, idx(4)))));
    return NVVM::MapaOp::create(b, cluster, local, ir.toI32(part)).getResult();
  };
  auto vw = VectorType::get({width}, f32Ty);
  ir.forLoop(
      ir.add(ir.mul(rank, idx(warps)), warp), idx(rowsUsed * chunks),
      idx(n * warps), [&](Value item) {
        Value r = ir.divu(item, idx(chunks));
        Value c = ir.remu(item, idx(chunks));
        Epilogue::Row row = rowAt(r);
        ir.ifThen(row.valid, [&] {
          RowMerge mg;
          mg.lane = lane;
          mg.columns = chunk;
          mg.colBase = ir.mul(c, idx(chunk));
          mg.writesLse = ir.eq(c, idx(0));
          mg.width = width;
          mg.parts = n;
          if (p.hasSink)
            mg.sinkL = arith::MulFOp::create(
                b, memref::LoadOp::create(b, k.sink, ValueRange{row.head}),
                ir.f32(1.4426950408889634));
          mg.lse2 = [&](Value part) -> Value {
            return LLVM::LoadOp::create(
                b, f32Ty, remote(ir.add(idx(rowsUsed * stride), r), part), 4);
          };
          mg.load = [&](Value part, Value col) -> Value {
            return LLVM::LoadOp::create(
                b, vw, remote(ir.add(ir.mul(r, idx(stride)), col), part),
                4 * width);
          };
          mg.storeLse = [&](Value lse) {
            memref::StoreOp::create(b, lse, epi.outLse,
                                    ValueRange{rowBatch, row.head, row.query});
          };
          mg.storeO = [&](Value col, Value o) {
            vector::StoreOp::create(
                b,
                arith::TruncFOp::create(
                    b, VectorType::get({width}, p.outElement), o),
                epi.outO, ValueRange{rowBatch, row.query, row.head, col});
          };
          emitRowMerge(ir, mg);
        });
      });
  // No CTA leaves (its shared memory) while another may still read it.
  ir.clusterSync(nm("merge end"));
}

void Consumer::build() {
  Type f32Ty = b.getF32Type();
  const int64_t tile = s.kvTile;
  const int64_t sRegs = tile / 2;           // S fragment: 64 x tile f32
  const int64_t oRegs = s.dvPerGroup() / 2; // O fragment: 64 x Dv f32
  const bool splitDv = s.dvGroups > 1;
  // P through shared memory relies on the turns' bar.sync to order the
  // warpgroup's stores before the wgmma that reads them.
  assert((!s.pShared() || s.pingPong) && "P in shared memory needs turns");
  Value ninf = ir.negInf(), zero = ir.f32(0.0);

  Value tid = env.tid;
  wg = ir.divu(tid, idx(128));
  Value warpInGroup = ir.remu(ir.divu(tid, idx(32)), idx(4));
  lane = ir.remu(tid, idx(32));
  g = ir.divu(lane, idx(4));
  t = ir.remu(lane, idx(4));
  // Row h (0, 1) of this thread in the CTA's 128: 64 wg + 16 w + g + 8 h
  // (with a Dv split both warpgroups hold rows 0 .. 63).
  Value wgRows = splitDv ? idx(0) : wg;
  // ... of which 16 w + g + 8 h are its rows within the warpgroup's 64.
  Value localRow0 = ir.add(ir.mul(warpInGroup, idx(16)), g);
  Value localRows[2] = {localRow0, ir.add(localRow0, idx(8))};
  Value row0 = ir.add(ir.mul(wgRows, idx(64)), localRow0);
  Value rows[2] = {row0, ir.add(row0, idx(8))};

  // Shared addresses (index) of the operands.
  Value base =
      ir.add(memref::ExtractAlignedPointerAsIndexOp::create(b, k.smem), k.qOff);
  // Q: box i at base + i qBoxStride; the warpgroup's 64 rows from row 64
  // wg (8 rows of 128 bytes per 1024-byte swizzle atom: SBO 1024).
  Value qRows = ir.add(base, ir.mul(wgRows, idx(64 * 128)));

  // A Dv split's hand-over starts empty: warpgroup 0's first wait passes.
  if (splitDv && dvGroup == 1)
    barArrive(kHandEmpty, "start: arrive hand_empty");
  // The ping-pong starts with warpgroup 0's turn.
  if (s.pingPong)
    ir.ifThen(ir.eq(wg, idx(s.consumers - 1)), [&] {
      turnBarrier("bar.arrive", idx(kTurn), "start: pass turn");
    });
  work.forEachPiece(
      ValueRange{idx(0), idx(0)},
      [&](const Piece &piece, ValueRange args) -> SmallVector<Value> {
        const UnitGeom &u = piece.unit;
        Value g0 = args[0], qLoads = args[1];
        // The epilogue's geometry of CTA row r.
        auto rowAt = [&](Value r) {
          return unitRow(env, u, r, ir.divu(r, idx(s.headsPerCta)),
                         ir.remu(r, idx(s.headsPerCta)));
        };
        Epilogue::Row er[2];
        Value rowLo[2], rowHi[2];
        for (int h = 0; h < 2; ++h) {
          er[h] = rowAt(rows[h]);
          // One thread of the row's four writes its scalars (none in
          // warpgroup 1 of a Dv split: warpgroup 0's do).
          er[h].lead = dvGroup == 0 ? ir.eq(t, idx(0)) : ir.i1(false);
          std::tie(rowLo[h], rowHi[h]) = visibleKeys(env, piece, er[h].query);
        }

        // The tiles as a software pipeline (FlashAttention-3's
        // intra-warpgroup overlap, AttentionSchedule::overlapSoftmax): step
        // n issues S(n) and then O += P(n-1) V(n-1), waits for S(n) only,
        // and computes the softmax of tile n while the tensor cores run
        // P(n-1) V(n-1); then it waits for that too, releases tile n-1's
        // stage and rescales O. Tile 0's S and softmax come before the
        // loop, the last P V after it.
        Type i32Ty = b.getI32Type();
        const int64_t pRegs = sRegs / 2;
        auto stageOf = [&](Value n) {
          return ir.remu(ir.add(g0, n), idx(s.stages));
        };
        auto waitFull = [&](Value n) {
          Value gt = ir.add(g0, n);
          ir.wait(k.kvFull, ir.remu(gt, idx(s.stages)),
                  ir.parityOf(ir.divu(gt, idx(s.stages))), nm("wait kv_full"));
        };
        auto kBaseOf = [&](Value stage) {
          return ir.add(base, ir.sub(k.kOffset(stage), k.qOff));
        };
        auto vBaseOf = [&](Value stage) {
          return ir.add(base, ir.sub(k.vOffset(stage), k.qOff));
        };
        Value handBase =
            splitDv ? ir.add(base, ir.sub(k.handOff, k.qOff)) : Value();
        // P through shared memory (AttentionSchedule::pShared): this
        // warpgroup's two P buffers after the stages; P(n) in buffer n mod
        // 2.
        const bool pS = s.pShared();
        const int64_t pBuf = s.pBufferBytes();
        auto pBufferOff = [&](Value n) {
          return ir.add(ir.add(k.handOff, ir.mul(wg, idx(2 * pBuf))),
                        ir.mul(ir.remu(n, idx(2)), idx(pBuf)));
        };
        auto pBufferAddr = [&](Value n) {
          return ir.add(base, ir.sub(pBufferOff(n), k.qOff));
        };
        // S = Q K^T of the tile in `stage`: D / 16 wgmma of K = 16 (4 per
        // 64-column box), issued and committed, not waited for; the caller
        // has issued wgmma.fence.
        auto issueS = [&](Value stage, ArrayRef<Value> zeros) {
          SmallVector<Value> acc(zeros.begin(), zeros.end());
          Value kBase = kBaseOf(stage);
          for (int64_t kk = 0; kk < p.headDim / 16; ++kk) {
            int64_t box = kk / 4, within = (kk % 4) * 32;
            Value qa = ir.add(qRows, idx(box * s.qBoxStride() + within));
            Value ka = ir.add(kBase, idx(box * s.kvBoxBytes() + within));
            acc = wgmma(acc, descriptor(qa, 16, 1024), {},
                        descriptor(ka, 16, 1024), kk > 0, false);
          }
          ir.named(NVVM::WgmmaGroupSyncAlignedOp::create(b),
                   nm("S: wgmma.commit_group"));
          return acc;
        };
        // O += P V of the tile in `stage`: per 16 keys j, A = P's elements
        // 8 j .. 8 j + 7 as four 16-bit pairs (the registers `pr`; without
        // them, P in shared memory at `pAddr`, K-major like Q: one
        // 128-byte-swizzled box of 64 rows per 64 keys), B = V
        // rows 16 j .. + 15 of this warpgroup's Dv columns read MN-major
        // (Dv contiguous; LBO: the next 64-column box, SBO: the next 8
        // keys). Every chunk, loaded or not (the prologue zeroed the
        // stages; an unloaded row has P = 0).
        auto issuePV = [&](ArrayRef<Value> o, ArrayRef<Value> pr, Value stage,
                           Value pAddr) {
          SmallVector<Value> acc(o.begin(), o.end());
          Value vBase =
              ir.add(vBaseOf(stage),
                     idx(dvGroup * (s.dvPerGroup() / 64) * s.kvBoxBytes()));
          for (int64_t j = 0; j < tile / 16; ++j) {
            Value va = ir.add(vBase, idx(j * 16 * 128));
            Value vDesc = descriptor(va, s.kvBoxBytes(), 1024);
            if (pr.empty())
              acc = wgmma(acc,
                          descriptor(ir.add(pAddr, idx((j / 4) * 64 * 128 +
                                                       (j % 4) * 32)),
                                     16, 1024),
                          {}, vDesc, true, true);
            else
              acc = wgmma(acc, Value(), pr.slice(4 * j, 4), vDesc, true, true);
          }
          ir.named(NVVM::WgmmaGroupSyncAlignedOp::create(b),
                   nm("P V: wgmma.commit_group"));
          return acc;
        };
        auto waitGroups = [&](int64_t n, const Twine &role) {
          ir.named(NVVM::WgmmaWaitGroupSyncOp::create(b, n),
                   role + ": wgmma.wait_group " + Twine(n));
        };
        // The softmax of tile t (local) on S: the new maxima, alpha, this
        // thread's part of the row sums and P as bf16 pairs.
        struct Soft {
          Value m[2], alpha[2], sum[2];
          SmallVector<Value> pr;
        };
        auto softmax = [&](ArrayRef<Value> acc, Value t0, Value m0, Value m1,
                           Value stage) {
          Soft r;
          Value m[2] = {m0, m1};
          // Sparse: the stage's key mask (a key whose index is -1 or past
          // the top-k length is cleared), one word per 32 keys.
          SmallVector<Value> words;
          if (p.sparse()) {
            Value view = memref::ViewOp::create(
                b, ir.smemMemref({tile / 32}, i32Ty), k.smem,
                k.maskOffset(stage), ValueRange{});
            for (int64_t w = 0; w < tile / 32; ++w)
              words.push_back(
                  memref::LoadOp::create(b, view, ValueRange{idx(w)}));
          }
          // The logits are S scaled, masked; the scale is positive (the
          // op's verifier), so the scaled max is the max scaled, and P =
          // 2^(S scale - m) takes one fma a logit. With a sparse key mask
          // the logits are scaled first (ptxas spilled the fused form in
          // sparse_mqa_d128_mtp).
          const bool prescale = p.sparse();
          auto scaled = [&](Value v) -> Value {
            return arith::MulFOp::create(b, v, k.scaleLog2);
          };
          Value key0 = ir.toI32(ir.mul(t0, idx(tile)));
          Value keyT = ir.add(key0, ir.mul(ir.toI32(t), i32(2)));
          // The masks only where the tile cuts a row's visible keys: when
          // every row of the warp sees all of [key0, key0 + tile) (the
          // tiles inside a causal prefill's triangle, every tile of a
          // decode but the last), no mask is applied. The vote keeps
          // the branch uniform across the warp.
          // With neither the overlap nor the ping-pong (one consumer with
          // Dv > 128, a Dv split) ptxas spilled the branch (mqa_d256_kv_same,
          // h_v4_h64_balanced): every tile is masked there.
          Value allWhole = ir.i1(false);
          if ((s.overlapSoftmax || s.pingPong) && !p.sparse()) {
            Value whole = ir.i1(true);
            Value keyEnd = ir.add(key0, i32(tile));
            for (int h = 0; h < 2; ++h)
              whole = ir.andi(
                  whole,
                  ir.andi(ir.cmp(arith::CmpIPredicate::sge, key0, rowLo[h]),
                          ir.cmp(arith::CmpIPredicate::sle, keyEnd, rowHi[h])));
            allWhole = NVVM::VoteSyncOp::create(b, b.getI1Type(), i32(-1),
                                                whole, NVVM::VoteSyncKind::all);
          }
          SmallVector<Type> xTypes(sRegs, f32Ty);
          auto masked = scf::IfOp::create(b, xTypes, allWhole,
                                          /*withElse=*/true);
          {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(masked.thenBlock());
            scf::YieldOp::create(b, acc);
            b.setInsertionPointToStart(masked.elseBlock());
            SmallVector<Value> cut;
            for (int64_t i = 0; i < sRegs; ++i) {
              int h = (i >> 1) & 1;
              Value key = ir.add(keyT, i32(8 * (i >> 2) + (i & 1)));
              Value ok =
                  ir.andi(ir.cmp(arith::CmpIPredicate::sge, key, rowLo[h]),
                          ir.cmp(arith::CmpIPredicate::slt, key, rowHi[h]));
              if (p.sparse()) {
                // Key 8 (i / 4) + 2 t + (i mod 2) of the tile: a word's 32
                // keys hold whole groups of 8.
                int64_t first = 8 * (i >> 2);
                Value shift = ir.add(ir.mul(ir.toI32(t), i32(2)),
                                     i32(first % 32 + (i & 1)));
                Value bit =
                    ir.andi(arith::ShRUIOp::create(b, words[first / 32], shift),
                            i32(1));
                ok = ir.andi(ok, ir.cmp(arith::CmpIPredicate::ne, bit, i32(0)));
              }
              cut.push_back(
                  ir.select(ok, prescale ? scaled(acc[i]) : acc[i], ninf));
            }
            scf::YieldOp::create(b, cut);
          }
          SmallVector<Value> x(masked.getResults());
          Value mx[2] = {ninf, ninf};
          for (int64_t i = 0; i < sRegs; ++i) {
            int h = (i >> 1) & 1;
            mx[h] = arith::MaximumFOp::create(b, mx[h], x[i]);
          }
          Value mUse[2];
          for (int h = 0; h < 2; ++h) {
            for (int64_t d : {1, 2})
              mx[h] = arith::MaximumFOp::create(b, mx[h], shuffleXor(mx[h], d));
            r.m[h] = arith::MaximumFOp::create(
                b, m[h], prescale ? mx[h] : scaled(mx[h]));
            // A row without a visible key yet keeps m = -inf and takes
            // exponents against 0 (no -inf - -inf).
            Value isInf = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ,
                                                r.m[h], ninf);
            mUse[h] = ir.select(isInf, zero, r.m[h]);
            r.alpha[h] = ir.ex2(arith::SubFOp::create(b, m[h], mUse[h]));
            r.sum[h] = zero;
          }
          // P: ex2.approx.ftz (math.exp2 becomes ex2.approx.f32, whose
          // subnormal handling costs three more instructions a logit; a
          // masked logit, -inf, gives 0 either way).
          Value negM[2] = {arith::NegFOp::create(b, mUse[0]),
                           arith::NegFOp::create(b, mUse[1])};
          // Pair q: elements 2 q and 2 q + 1 (one row), packed as bf16.
          auto pair = VectorType::get({2}, p.element);
          auto pairF = VectorType::get({2}, f32Ty);
          for (int64_t q = 0; q < pRegs; ++q) {
            int h = q & 1;
            Value e[2];
            for (int j = 0; j < 2; ++j) {
              Value xi = x[2 * q + j];
              Value arg =
                  prescale
                      ? Value(arith::AddFOp::create(b, xi, negM[h]))
                      : Value(math::FmaOp::create(b, xi, k.scaleLog2, negM[h]));
              // polyExp2 of every 8 on the FMA pipe (the first of each 8).
              e[j] =
                  (2 * q + j) % 8 < s.polyExp2 ? ir.ex2Poly(arg) : ir.ex2(arg);
              r.sum[h] = arith::AddFOp::create(b, r.sum[h], e[j]);
            }
            Value two = vector::FromElementsOp::create(b, pairF,
                                                       ValueRange{e[0], e[1]});
            Value h16 = arith::TruncFOp::create(b, pair, two);
            Value w =
                vector::BitCastOp::create(b, VectorType::get({1}, i32Ty), h16);
            r.pr.push_back(
                vector::ExtractOp::create(b, w, ArrayRef<int64_t>{0}));
          }
          return r;
        };
        SmallVector<Value> zeros(sRegs, zero);

        // The tile's P into the i32 words `pw` in the layout P V's SS
        // wgmma reads (K-major like Q): one 128-byte-swizzled box of the
        // warpgroup's 64 rows per 64 keys. Pair q: row h = q mod 2, keys
        // 8 c + 2 t (c = q / 2) in box c / 8, 16-byte chunk c mod 8
        // swizzled by the row's low bits (g).
        auto writeP = [&](Value pw, const Soft &r) {
          for (int64_t q = 0; q < pRegs; ++q) {
            int64_t c = q >> 1;
            Value chunk = arith::XOrIOp::create(b, idx(c % 8), g);
            Value word = ir.add(ir.add(ir.mul(localRows[q & 1], idx(32)),
                                       ir.mul(chunk, idx(4))),
                                ir.add(t, idx((c / 8) * 64 * 32)));
            memref::StoreOp::create(b, r.pr[q], pw, ValueRange{word});
          }
        };
        // Warpgroup 0 of a Dv split sends the tile's P and alpha.
        auto sendP = [&](const Soft &r) {
          send(
              [&] {
                Value fw = handF();
                writeP(handP(), r);
                ir.ifThen(er[0].lead, [&] {
                  for (int h = 0; h < 2; ++h)
                    memref::StoreOp::create(b, r.alpha[h], fw,
                                            ValueRange{rows[h]});
                });
              },
              "P", /*forWgmma=*/true);
        };

        // P through shared memory: tile n's P into buffer n mod 2, made
        // visible to the async proxy; the next turn's bar.sync (every
        // thread of this warpgroup) orders the stores before the wgmma
        // that reads them.
        auto storeP = [&](const Soft &r, Value n) {
          writeP(memref::ViewOp::create(b, ir.smemMemref({pBuf / 4}, i32Ty),
                                        k.smem, pBufferOff(n), ValueRange{}),
                 r);
          ir.fenceProxyAsync(nm("P: fence.proxy.async"));
        };

        SmallVector<Value> res;
        if (splitDv && dvGroup == 1) {
          // Warpgroup 1 of a Dv split: per tile, P and alpha from warpgroup
          // 0, O *= alpha, O += P V over its half of Dv.
          SmallVector<Value> init(oRegs, zero);
          SmallVector<Value> o = ir.forLoop(
              idx(0), piece.tiles, idx(1), init,
              [&](Value n, ValueRange c) -> SmallVector<Value> {
                SmallVector<Value> o(c.begin(), c.end());
                Value stage = stageOf(n);
                barSync(kHandFull, "P: wait hand_full");
                Value fw = handF();
                Value alpha[2];
                for (int h = 0; h < 2; ++h)
                  alpha[h] = memref::LoadOp::create(b, fw, ValueRange{rows[h]});
                for (int64_t i = 0; i < oRegs; ++i)
                  o[i] = arith::MulFOp::create(b, o[i], alpha[(i >> 1) & 1]);
                waitFull(n);
                o = fenceOperands(o);
                fence(nm("P V"));
                o = issuePV(o, {}, stage, handBase);
                waitGroups(0, nm("P V"));
                o = fenceOperands(o);
                // P is read: warpgroup 0 may write the next.
                barArrive(kHandEmpty, "P: arrive hand_empty");
                ir.ifThen(ir.eq(n, ir.sub(piece.tiles, idx(1))), [&] {
                  warpArrive(k.qEmpty, idx(0), nm("arrive q_empty"));
                });
                warpArrive(k.kvEmpty, stage, nm("arrive kv_empty"));
                return o;
              });
          res = {ninf, ninf, zero, zero};
          llvm::append_range(res, o);
        } else if (!s.overlapSoftmax) {
          // Without the overlap (O of 64 x Dv > 128 f32 leaves too few
          // registers for S and P in flight beside it): per tile S, its
          // softmax, O *= alpha, O += P V, each waited for.
          ir.ifThen(piece.any, [&] {
            ir.wait(k.qFull, idx(0), ir.parityOf(qLoads), nm("wait q_full"));
          });
          SmallVector<Value> init = {ninf, ninf, zero, zero};
          init.append(oRegs, zero);
          res = ir.forLoop(
              idx(0), piece.tiles, idx(1), init,
              [&](Value n, ValueRange c) -> SmallVector<Value> {
                SmallVector<Value> o(c.begin() + 4, c.end());
                Value stage = stageOf(n);
                waitFull(n);
                SmallVector<Value> z = fenceOperands(zeros);
                SmallVector<Value> acc;
                onTurn(
                    [&] {
                      fence(nm("S"));
                      acc = issueS(stage, z);
                    },
                    "S");
                waitGroups(0, nm("S"));
                acc = fenceOperands(acc);
                // After the piece's last S, Q may be replaced.
                ir.ifThen(ir.eq(n, ir.sub(piece.tiles, idx(1))), [&] {
                  warpArrive(k.qEmpty, idx(0), nm("arrive q_empty"));
                });
                Soft r = softmax(acc, ir.add(piece.tLo, n), c[0], c[1], stage);
                if (splitDv)
                  sendP(r);
                for (int64_t i = 0; i < oRegs; ++i)
                  o[i] = arith::MulFOp::create(b, o[i], r.alpha[(i >> 1) & 1]);
                o = fenceOperands(o);
                onTurn(
                    [&] {
                      fence(nm("P V"));
                      o = issuePV(o, r.pr, stage, Value());
                    },
                    "P V");
                waitGroups(0, nm("P V"));
                o = fenceOperands(o);
                // The stage's K and V are read: the loader may refill it.
                warpArrive(k.kvEmpty, stage, nm("arrive kv_empty"));
                SmallVector<Value> next = {r.m[0], r.m[1]};
                for (int h = 0; h < 2; ++h)
                  next.push_back(arith::AddFOp::create(
                      b, arith::MulFOp::create(b, c[2 + h], r.alpha[h]),
                      r.sum[h]));
                llvm::append_range(next, o);
                return next;
              });
        } else {
          // Carried: m (2), l (2), O (oRegs), P of the previous tile (pRegs).
          auto pack = [&](Value m0, Value m1, Value l0, Value l1,
                          ArrayRef<Value> o, ArrayRef<Value> pr) {
            SmallVector<Value> v = {m0, m1, l0, l1};
            llvm::append_range(v, o);
            llvm::append_range(v, pr);
            return v;
          };
          // P is carried in registers unless it goes through shared memory.
          const int64_t carriedP = pS ? 0 : pRegs;
          SmallVector<Value> noO(oRegs, zero), noP(carriedP, i32(0));
          SmallVector<Type> carriedTypes(4 + oRegs, f32Ty);
          carriedTypes.append(carriedP, i32Ty);
          // Tile 0: Q, S(0), its softmax.
          auto first = scf::IfOp::create(b, carriedTypes, piece.any,
                                         /*withElse=*/true);
          {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(first.thenBlock());
            ir.wait(k.qFull, idx(0), ir.parityOf(qLoads), nm("wait q_full"));
            waitFull(idx(0));
            SmallVector<Value> z = fenceOperands(zeros);
            SmallVector<Value> acc;
            onTurn(
                [&] {
                  fence(nm("S"));
                  acc = issueS(stageOf(idx(0)), z);
                },
                "S");
            waitGroups(0, nm("S"));
            acc = fenceOperands(acc);
            Soft r = softmax(acc, piece.tLo, ninf, ninf, stageOf(idx(0)));
            if (pS)
              storeP(r, idx(0));
            scf::YieldOp::create(
                b, pack(r.m[0], r.m[1], r.sum[0], r.sum[1], noO,
                        pS ? ArrayRef<Value>() : ArrayRef<Value>(r.pr)));
            b.setInsertionPointToStart(first.elseBlock());
            scf::YieldOp::create(b, pack(ninf, ninf, zero, zero, noO, noP));
          }
          SmallVector<Value> carried0(first.getResults());
          SmallVector<Value> mid = ir.forLoop(
              idx(1), piece.tiles, idx(1), carried0,
              [&](Value n, ValueRange c) -> SmallVector<Value> {
                SmallVector<Value> o(c.begin() + 4, c.begin() + 4 + oRegs);
                SmallVector<Value> pr(c.begin() + 4 + oRegs, c.end());
                Value prev = stageOf(ir.sub(n, idx(1)));
                waitFull(n);
                SmallVector<Value> z = fenceOperands(zeros);
                o = fenceOperands(o);
                SmallVector<Value> acc;
                onTurn(
                    [&] {
                      fence(nm("S + P V"));
                      acc = issueS(stageOf(n), z);
                      o = issuePV(o, pr, prev,
                                  pS ? pBufferAddr(ir.sub(n, idx(1)))
                                     : Value());
                    },
                    "S + P V");
                // S(n) is complete; P(n-1) V(n-1) may still run.
                waitGroups(1, nm("S"));
                acc = fenceOperands(acc);
                Soft r =
                    softmax(acc, ir.add(piece.tLo, n), c[0], c[1], stageOf(n));
                // P(n) into the buffer P(n-2) V(n-2) read (retired).
                if (pS)
                  storeP(r, n);
                waitGroups(0, nm("P V"));
                if (!pS)
                  keepAlive(pr);
                o = fenceOperands(o);
                // Tile n-1's K and V are read: the loader may refill them.
                warpArrive(k.kvEmpty, prev, nm("arrive kv_empty"));
                // O *= alpha (row h: elements 4 c + 2 h + {0, 1}).
                for (int64_t i = 0; i < oRegs; ++i)
                  o[i] = arith::MulFOp::create(b, o[i], r.alpha[(i >> 1) & 1]);
                Value l0 = arith::AddFOp::create(
                    b, arith::MulFOp::create(b, c[2], r.alpha[0]), r.sum[0]);
                Value l1 = arith::AddFOp::create(
                    b, arith::MulFOp::create(b, c[3], r.alpha[1]), r.sum[1]);
                return pack(r.m[0], r.m[1], l0, l1, o,
                            pS ? ArrayRef<Value>() : ArrayRef<Value>(r.pr));
              });
          // The last tile's P V; then the last stage and Q are free.
          SmallVector<Type> oTypes(oRegs, f32Ty);
          auto last =
              scf::IfOp::create(b, oTypes, piece.any, /*withElse=*/true);
          {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(last.thenBlock());
            SmallVector<Value> o(mid.begin() + 4, mid.begin() + 4 + oRegs);
            SmallVector<Value> pr(mid.begin() + 4 + oRegs, mid.end());
            Value stage = stageOf(ir.sub(piece.tiles, idx(1)));
            o = fenceOperands(o);
            onTurn(
                [&] {
                  fence(nm("P V"));
                  o = issuePV(o, pr, stage,
                              pS ? pBufferAddr(ir.sub(piece.tiles, idx(1)))
                                 : Value());
                },
                "P V");
            waitGroups(0, nm("P V"));
            o = fenceOperands(o);
            warpArrive(k.kvEmpty, stage, nm("arrive kv_empty"));
            warpArrive(k.qEmpty, idx(0), nm("arrive q_empty"));
            scf::YieldOp::create(b, o);
            b.setInsertionPointToStart(last.elseBlock());
            scf::YieldOp::create(b, noO);
          }
          res = {mid[0], mid[1], mid[2], mid[3]};
          llvm::append_range(res, last.getResults());
        }

        // The rows' epilogue geometry again, from opaque row numbers: LLVM
        // hoists what depends only on the thread out of the piece loop, and
        // held across the tiles it made ptxas spill, with three consumers
        // (160 registers) and in one-consumer MTP decodes at 240
        // (docs/Hopper.md, "Spills of the larger sweep").
        for (int h = 0; h < 2; ++h) {
          Value lead = er[h].lead;
          er[h] = rowAt(ir.opaque(rows[h]));
          er[h].lead = lead;
        }
        // The row sums over the four threads of each row.
        Value m[2] = {res[0], res[1]}, l[2] = {res[2], res[3]};
        if (dvGroup == 0)
          for (int h = 0; h < 2; ++h)
            for (int64_t d : {1, 2})
              l[h] = arith::AddFOp::create(b, l[h], shuffleXor(l[h], d));
        // A Dv split: warpgroup 1 takes the rows' m and l from warpgroup 0.
        if (splitDv && dvGroup == 0) {
          send(
              [&] {
                Value fw = handF();
                ir.ifThen(er[0].lead, [&] {
                  for (int h = 0; h < 2; ++h) {
                    memref::StoreOp::create(
                        b, m[h], fw, ValueRange{ir.add(rows[h], idx(64))});
                    memref::StoreOp::create(
                        b, l[h], fw, ValueRange{ir.add(rows[h], idx(128))});
                  }
                });
              },
              "m l", /*forWgmma=*/false);
        } else if (splitDv) {
          barSync(kHandFull, "m l: wait hand_full");
          Value fw = handF();
          for (int h = 0; h < 2; ++h) {
            m[h] = memref::LoadOp::create(b, fw,
                                          ValueRange{ir.add(rows[h], idx(64))});
            l[h] = memref::LoadOp::create(
                b, fw, ValueRange{ir.add(rows[h], idx(128))});
          }
          barArrive(kHandEmpty, "m l: arrive hand_empty");
        }
        Value sinkL[2] = {ninf, ninf};
        for (int h = 0; h < 2; ++h) {
          if (p.hasSink) {
            // A padding row's head may be past Hq: read head 0 instead.
            Value head = ir.select(er[h].valid, er[h].head, idx(0));
            sinkL[h] = arith::MulFOp::create(
                b, memref::LoadOp::create(b, k.sink, ValueRange{head}),
                ir.f32(1.4426950408889634));
          }
          // O's fragment: row h holds elements 4 c + 2 h + {0, 1}, columns
          // 8 c + 2 t + {0, 1}.
          OSource os;
          os.width = 2;
          SmallVector<Value> oFinal(res.begin() + 4, res.end());
          os.read = [&, h, oFinal](function_ref<void(Value, Value)> use) {
            auto pairF = VectorType::get({2}, f32Ty);
            for (int64_t c = 0; c < oRegs / 4; ++c) {
              Value v = vector::FromElementsOp::create(
                  b, pairF,
                  ValueRange{oFinal[4 * c + 2 * h], oFinal[4 * c + 2 * h + 1]});
              use(ir.add(idx(8 * c), ir.mul(t, idx(2))), v);
            }
          };
          os.columns = [&](function_ref<void(Value)> f) {
            for (int64_t c = 0; c < oRegs / 4; ++c)
              f(ir.add(idx(8 * c), ir.mul(t, idx(2))));
          };
          if (s.clusterMerge)
            stageForMerge(rows[h], m[h], l[h], os,
                          idx(dvGroup * s.dvPerGroup()), h == 0);
          else
            epi.write(piece, er[h], m[h], l[h], sinkL[h], os,
                      idx(dvGroup * s.dvPerGroup()));
        }
        if (s.clusterMerge)
          mergeInCluster(rowAt, u.batch);
        return {ir.add(g0, piece.tiles),
                ir.add(qLoads, ir.select(piece.any, idx(1), idx(0)))};
      });
  // ... and ends taken: no arrival is left on the named barrier.
  if (splitDv && dvGroup == 0)
    barSync(kHandEmpty, "end: wait hand_empty");
  // The last warpgroup's last turn is passed to warpgroup 0: taken here, no
  // arrival is left on the named barrier.
  if (s.pingPong)
    ir.ifThen(ir.eq(wg, idx(0)),
              [&] { turnBarrier("bar.sync", idx(kTurn), "end: wait turn"); });
}

} // namespace

void nvfp4::attn::buildHopperConsumers(KernelEnv &env, WorkPlan &work,
                                       Epilogue &epi, const HopperKernel &k,
                                       int64_t dvGroup) {
  Consumer(env, work, epi, k, dvGroup).build();
}
