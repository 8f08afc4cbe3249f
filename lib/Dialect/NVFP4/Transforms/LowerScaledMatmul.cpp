//===- LowerScaledMatmul.cpp - nvfp4.scaled_matmul to an SM100 kernel -----===//
//
// Builds, for every nvfp4.scaled_matmul, a warp-specialized block-scaled
// GEMM (docs/NVFP4.md, "Block-scaled matmul"): one CTA per 128 x BN tile of
// D, K in steps of 256 values (128 bytes: one 128-byte swizzle row) through
// a ring of shared-memory stages.
//
//   load (warp 4)   TMA: A [128 x 128 B] and B [BN x 128 B] (SW128), and
//                   the four 512-byte scale-factor atoms of each 128 rows
//                   (the swizzled 128x4 layout, no swizzle), one mbarrier
//                   per stage counting the bytes.
//   mma (warp 5)    per K step: tcgen05.cp.32x128b.warpx4 of every atom into
//                   one of two TMEM scale-factor buffers (once the MMAs of
//                   two steps back, which read it, have committed), then
//                   four tcgen05.mma.kind::mxf4nvf4.block_scale.block16
//                   (K = 64 each); commit frees the stage, the last commit
//                   signals the epilogue.
//   epilogue (0-3)  TMEM -> registers 32 columns at a time, times
//                   1 / (gs_A gs_B), rounded to bf16 or f32, stored; rows
//                   and columns past M and N are not stored (TMA filled
//                   them with zeros).
//
// CTA pairs (dense, by shape or cta-group=2): a cluster of two CTAs per
// 256 x 256 tile. CTA r loads A's and B's rows 128r.. of the tile, its A
// scale-factor tile and both of B's (each CTA's tensor memory needs the B
// scale factors of all 256 columns), all completing on the leader's full
// barrier; the leader's MMA thread issues tcgen05.cp and M = 256 MMAs with
// cta_group::2 and commits to both CTAs' barriers; the peer's epilogue
// frees the accumulator by arriving on the leader's acc_empty through the
// cluster (docs/NVFP4.md, "CTA pairs").
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "AttentionKernel.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"
#include "nvfp4/Support/Nvfp4Format.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4LOWERSCALEDMATMUL
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

namespace {

constexpr int64_t kBlockM = 128;
/// K values per stage: 128 bytes of e2m1, one 128-byte swizzle row.
constexpr int64_t kBlockK = 256;
constexpr int64_t kKBytes = kBlockK / 2;
/// K values per tcgen05.mma of kind mxf4nvf4.
constexpr int64_t kMmaK = 64;
constexpr int64_t kMmasPerStage = kBlockK / kMmaK;
/// Bytes of the scale factors of 128 rows for one stage: four 512-byte
/// atoms (each 128 rows x 4 blocks).
constexpr int64_t kSfTileBytes = kMmasPerStage * 512;
constexpr int64_t kMaxStages = 6;
/// Dynamic shared memory a CTA may use on SM100, less the 1 KiB slack for
/// aligning the base to 1024 bytes.
constexpr int64_t kSmemBudget = 227 * 1024 - 1024;

struct MatmulPlan {
  /// Rows of A: M (dense, contiguous) or max_m (masked).
  int64_t m, n, k;
  Type out;
  /// nvfp4.grouped_scaled_matmul: E groups, their layout.
  bool grouped = false;
  bool masked = false;
  int64_t groups = 1;
  /// CTAs of the persistent grid: min(an upper bound of the tiles, SMs).
  int64_t ctas = 1;
  /// Masked groups or a dense A of at most 64 rows (decode): the MMA's A
  /// is the weights (128 of B's N rows per tile) and its B the tokens (N of
  /// the MMA = M rounded up to 16), so a tile is not mostly padding; the
  /// epilogue stores D transposed. A group then has wTiles tiles.
  bool swap = false;
  int64_t wTiles = 0; ///< B's 128-row tiles (swapped)
  /// A CTA pair per 256 x 256 tile (dense only): cta_group::2 MMAs of M =
  /// 256; CTA r of the pair loads A's rows 128r.. and B's rows 128r.. of
  /// the tile, and all of the tile's B scale factors (both CTAs' tensor
  /// memory needs them). `ctas` then counts pairs.
  bool pair = false;
  /// Rows of D per tile: 128, or 256 for a pair.
  int64_t rowTile() const { return pair ? 2 * kBlockM : kBlockM; }
  /// B rows one CTA loads per stage: the N tile, or half of it for a pair.
  int64_t bRows() const { return pair ? blockN / 2 : blockN; }
  /// CTAs of the grid.
  int64_t gridCtas() const { return pair ? 2 * ctas : ctas; }
  int64_t blockN;      ///< 256, 128 or 64
  int64_t stages;
  int64_t sfbTiles;    ///< 128-row scale-factor tiles of B per stage
  int64_t mTiles, nTiles, kSteps;
  int64_t aBytes() const { return kBlockM * kKBytes; }
  int64_t bBytes() const { return bRows() * kKBytes; }
  int64_t stageBytes() const {
    return aBytes() + bBytes() + kSfTileBytes + sfbTiles * kSfTileBytes;
  }
  /// TMEM columns: the accumulator, then per scale-factor buffer A's
  /// scale factors (4 columns per MMA: one 128-row atom) and B's (4 per
  /// 128-row atom of the N tile per MMA; a 64-wide tile uses half of its
  /// atom).
  int64_t sfbColumns() const { return 4 * sfbTiles; }
  int64_t sfColumnsPerStage() const {
    return kMmasPerStage * (4 + sfbColumns());
  }
  /// Two scale-factor buffers (K steps alternate).
  static constexpr int64_t kSfBuffers = 2;
  int64_t tmemColumns() const {
    int64_t used = blockN + kSfBuffers * sfColumnsPerStage();
    int64_t alloc = 32;
    while (alloc < used)
      alloc *= 2;
    return alloc;
  }
};

/// Groups a grouped matmul may have (its schedule lives in shared memory).
constexpr int64_t kMaxGroups = 1024;

FailureOr<MatmulPlan> planOf(Operation *op, int64_t numSms, int64_t ctaGroup) {
  for (Value v : op->getOperands())
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return op->emitOpError("cannot be lowered yet: expected static shapes, "
                             "got ")
             << v.getType();
  MatmulPlan p;
  RankedTensorType a, b, d;
  if (auto dense = dyn_cast<ScaledMatmulOp>(op)) {
    a = cast<RankedTensorType>(dense.getA().getType());
    b = cast<RankedTensorType>(dense.getB().getType());
    d = cast<RankedTensorType>(dense.getD().getType());
    p.m = a.getDimSize(0);
    p.k = a.getDimSize(1);
    p.n = b.getDimSize(0);
  } else {
    auto grouped = cast<GroupedScaledMatmulOp>(op);
    a = cast<RankedTensorType>(grouped.getA().getType());
    b = cast<RankedTensorType>(grouped.getB().getType());
    d = cast<RankedTensorType>(grouped.getD().getType());
    p.grouped = true;
    p.masked = grouped.getLayout() == GroupLayout::masked;
    p.groups = b.getDimSize(0);
    p.m = a.getDimSize(a.getRank() - 2);
    p.k = a.getDimSize(a.getRank() - 1);
    p.n = b.getDimSize(1);
    if (p.groups < 1 || p.groups > kMaxGroups)
      return op->emitOpError("cannot be lowered: expected 1 to ")
             << kMaxGroups << " groups, got " << p.groups;
  }
  if (!d.hasStaticShape())
    return op->emitOpError("cannot be lowered yet: expected static shapes, "
                           "got ")
           << d;
  p.out = d.getElementType();
  if (p.m == 0 || p.n == 0 || p.k == 0)
    return op->emitOpError("cannot be lowered: expected non-empty operands, "
                           "got M = ")
           << p.m << ", N = " << p.n << ", K = " << p.k;
  if (p.k % 32 != 0)
    return op->emitOpError("cannot be lowered: expected K to be a multiple "
                           "of 32 (TMA needs rows of a multiple of 16 bytes "
                           "of packed e2m1), got ")
           << p.k;
  p.mTiles = (p.m + kBlockM - 1) / kBlockM;
  p.kSteps = (p.k + kBlockK - 1) / kBlockK;
  // The kernel views A's scale factors as [groups?, mTiles, 4 Kt, 128] bytes
  // and B's as [groups?, ceil(N / 128), 4 Kt, 128]: what the op's types
  // hold (the verifier checked them against the swizzled shape).
  {
    const int64_t kt = (p.k / fp4::kBlock + 3) / 4;
    Value aScales = op->getOperand(1), bScales = op->getOperand(4);
    int64_t aWant = (p.masked ? p.groups : 1) * p.mTiles * kt * 512;
    int64_t bWant = p.groups * ((p.n + 127) / 128) * kt * 512;
    if (cast<RankedTensorType>(aScales.getType()).getNumElements() != aWant ||
        cast<RankedTensorType>(bScales.getType()).getNumElements() != bWant)
      return op->emitOpError("internal error: the kernel's scale-factor "
                             "views do not match the operands' types");
  }
  if (ctaGroup == 2 && p.grouped)
    return op->emitOpError("cannot be lowered with cta-group=2: CTA pairs "
                           "are built for nvfp4.scaled_matmul only");
  // Decode-sized A (at most 64 rows: a masked group, or a dense GEMM unless
  // CTA pairs are forced): swap the operands.
  if (p.m <= 64 && (p.masked || (!p.grouped && ctaGroup != 2))) {
    p.swap = true;
    p.wTiles = (p.n + kBlockM - 1) / kBlockM;
    p.blockN = std::max<int64_t>(16, (p.m + 15) / 16 * 16);
    p.nTiles = 1;
    p.sfbTiles = 1;
    p.stages = std::min(kMaxStages, kSmemBudget / p.stageBytes());
    p.ctas = std::min(p.groups * p.wTiles, numSms);
    return p;
  }
  // A dense GEMM of at least two row tiles may run on CTA pairs
  // (cta_group::2, 256 x 256 tiles), which halves the B bytes each CTA
  // loads per output. By shape: pairs when the busiest SM's MMA work (in
  // 128 x 256 x 64 units per K step) is no larger than with single CTAs
  // (fewer bytes for the same time); `cta-group` forces either.
  const int64_t pairTiles =
      ((p.m + 2 * kBlockM - 1) / (2 * kBlockM)) * ((p.n + 255) / 256);
  const int64_t pairs = std::max<int64_t>(1, numSms / 2);
  bool pair = ctaGroup == 2;
  if (ctaGroup == 0 && !p.grouped && p.mTiles >= 2 && numSms >= 2) {
    int64_t bn = 256;
    while (bn > 64 && p.mTiles * ((p.n + bn - 1) / bn) < numSms)
      bn /= 2;
    int64_t single = (p.mTiles * ((p.n + bn - 1) / bn) + numSms - 1) / numSms;
    // single * bn / 256 units against one unit per pair tile round.
    pair = ((pairTiles + pairs - 1) / pairs) * 256 <= single * bn;
  }
  if (pair) {
    p.pair = true;
    p.blockN = 256;
    p.nTiles = (p.n + p.blockN - 1) / p.blockN;
    p.sfbTiles = 2;
    p.stages = std::min(kMaxStages, kSmemBudget / p.stageBytes());
    p.ctas = std::min(pairTiles, pairs);
    if (pairTiles > INT32_MAX / 2)
      return op->emitOpError("cannot be lowered: expected at most 2^30 "
                             "tiles of 256 x 256, got ")
             << pairTiles;
    return p;
  }
  // Row tiles at most: all groups full (masked), or M's (contiguous: the
  // groups' 128-aligned rows fit in M).
  const int64_t rowTiles = p.masked ? p.groups * p.mTiles : p.mTiles;
  // The widest N tile that still gives every SM a CTA; 64 at least.
  p.blockN = 256;
  while (p.blockN > 64 &&
         rowTiles * ((p.n + p.blockN - 1) / p.blockN) < numSms)
    p.blockN /= 2;
  p.nTiles = (p.n + p.blockN - 1) / p.blockN;
  p.sfbTiles = (p.blockN + 127) / 128;
  p.stages = std::min(kMaxStages, kSmemBudget / p.stageBytes());
  p.ctas = std::min(rowTiles * p.nTiles, numSms);
  if (rowTiles * p.nTiles > INT32_MAX)
    return op->emitOpError("cannot be lowered: expected at most 2^31 tiles "
                           "of 128 x ")
           << p.blockN << ", got " << rowTiles * p.nTiles;
  return p;
}

/// One tile of a CTA's share: its index i among the CTA's tiles, the
/// group, the row tile within the group and the N tile.
struct Tile {
  Value i, group, mt, nt;
};

class MatmulBuilder {
public:
  MatmulBuilder(ImplicitLocOpBuilder &b, const MatmulPlan &p)
      : b(b), ir(b), ctx(b.getContext()), p(p) {}

  DictionaryAttr build(gpu::GPUModuleOp module, StringRef name);

private:
  Value idx(int64_t v) { return ir.idx(v); }
  Type groupType(unsigned n) {
    return nvgpu::MBarrierGroupType::get(ctx, ir.workgroup(), n);
  }
  nvgpu::TensorMapDescriptorType tmapType(MemRefType box,
                                          nvgpu::TensorMapSwizzleKind sw) {
    return nvgpu::TensorMapDescriptorType::get(
        ctx, box, sw, nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  }
  sm100::TmemType tmem(int64_t cols, Type elem, sm100::TmemLayout layout) {
    return sm100::TmemType::get(ctx, 128, cols, elem, layout);
  }
  Value view(Value offset, MemRefType type) {
    return memref::ViewOp::create(b, type, smem, offset, ValueRange{});
  }
  void wait(Value group, Value index, Value parity, StringRef role) {
    ir.wait(group, index, parity, role);
  }
  void fence(sm100::FenceKind kind, StringRef role) {
    ir.named(sm100::FenceOp::create(b, kind), role);
  }
  template <typename F> void elected(F f) {
    auto elect = sm100::ElectOneOp::create(b);
    elect.getBody().push_back(new Block());
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&elect.getBody().front());
    f();
  }
  /// Byte offset (from the aligned base) of stage `s`'s parts.
  Value stageOff(Value s) { return ir.add(base, ir.mul(s, idx(p.stageBytes()))); }
  Value sched(Value i) {
    return ir.toIndex(memref::LoadOp::create(b, schedule, ValueRange{i}));
  }
  /// The first tile of group g (schedule[g]); schedule[E] is the total.
  Value tileStart(Value g) { return sched(g); }
  /// The first row of group g in A and D (contiguous layout).
  Value rowStart(Value g) { return sched(ir.add(idx(p.groups + 1), g)); }
  /// Group g's rows.
  Value rowsOf(Value g) {
    return sched(ir.add(idx(2 * p.groups + 1), g));
  }

  void prologueSchedule(Value sizes);
  /// Runs `body` for each tile of this CTA, in order.
  void forEachTile(function_ref<void(const Tile &)> body);
  void loadRole();
  void mmaRole();
  void epilogueRole();

  ImplicitLocOpBuilder &b;
  IR ir;
  MLIRContext *ctx;
  const MatmulPlan &p;

  Value tmapA, tmapB, tmapSfa, tmapSfb, gsA, gsB, out;
  /// The tensor maps as raw pointers (a pair's loads are nvvm ops).
  Value rawA, rawB, rawSfa, rawSfb;
  Value smem, ptrIdx, base, full, empty, accFull, accEmpty, all, schedule;
  /// tid, warp; cta: the CTA's (or, for a pair, the pair's) index in the
  /// persistent grid; rank: its rank in the pair (i32) and leader: rank 0.
  Value tid, warp, cta, rank, leader;
  /// A pair: a TMA load of box `coords` (innermost first) through `map` to
  /// shared offset `off`, completing on the leader's barrier at shared
  /// address `mbar` (cta_group::2).
  void pairLoad(Value map, Value off, ArrayRef<Value> coords, Value mbar);
  /// The leader's copy of the barrier at shared address `addr` (i32).
  Value leaderAddress(Value addr) {
    return ir.inlinePtx("mapa.shared::cluster.u32 $0, $1, $2;",
                        b.getI32Type(), ValueRange{addr, ir.i32(0)})[0];
  }
  /// cta_group of the tensor-memory instructions.
  uint32_t ctaGroup() const { return p.pair ? 2 : 1; }
  MemRefType aBox, bBox, sfaBox, sfbBox;
};

void MatmulBuilder::prologueSchedule(Value sizes) {
  // Thread 0 writes, for each group g: the first tile, the first row
  // (contiguous layout) and the rows; a bad size is printed and traps.
  const int64_t e = p.groups;
  auto store = [&](Value v, Value at) {
    memref::StoreOp::create(b, ir.toI32(v), schedule, ValueRange{at});
  };
  SmallVector<Value> res = ir.forLoop(
      idx(0), idx(e), idx(1), ValueRange{idx(0), idx(0)},
      [&](Value g, ValueRange acc) {
        Value tiles = acc[0], row = acc[1];
        Value mSigned = sizes ? Value(memref::LoadOp::create(
                                    b, sizes, ValueRange{g}))
                              : ir.i32(p.m);
        Value m = ir.toIndex(mSigned);
        // Valid: 0 <= m_g, and m_g <= max_m (masked) or the group's
        // 128-aligned rows inside M (contiguous).
        Value end = ir.add(row, ir.mul(ir.ceilDivu(m, idx(kBlockM)),
                                       idx(kBlockM)));
        Value neg = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                          mSigned, ir.i32(0));
        Value over = p.masked
                         ? ir.cmp(arith::CmpIPredicate::ugt, m, idx(p.m))
                         : ir.cmp(arith::CmpIPredicate::ugt,
                                  ir.add(row, m), idx(p.m));
        ir.ifThen(ir.ori(neg, over), [&] {
          gpu::PrintfOp::create(
              b,
              b.getStringAttr(
                  p.masked
                      ? "nvfp4.grouped_scaled_matmul: group %d has %d rows, "
                        "outside [0, max_m = " +
                            std::to_string(p.m) + "]\n"
                      : "nvfp4.grouped_scaled_matmul: group %d (%d rows) "
                        "overruns M = " +
                            std::to_string(p.m) +
                            " (groups start on 128-row boundaries)\n"),
              ValueRange{ir.toI32(g), mSigned});
          ir.inlinePtx("trap;", TypeRange{}, ValueRange{});
        });
        Value rowsClamped = ir.select(neg, idx(0), m);
        store(tiles, g);
        store(row, ir.add(idx(e + 1), g));
        store(rowsClamped, ir.add(idx(2 * e + 1), g));
        // A group's tiles: its row tiles x N tiles, or (swapped) all of
        // B's row tiles when it has a row.
        Value t = p.swap
                      ? ir.select(ir.eq(rowsClamped, idx(0)), idx(0),
                                  idx(p.wTiles))
                      : ir.mul(ir.ceilDivu(rowsClamped, idx(p.rowTile())),
                               idx(p.nTiles));
        return SmallVector<Value>{ir.add(tiles, t),
                                  p.masked ? row : end};
      });
  store(res[0], idx(e));
}

void MatmulBuilder::forEachTile(function_ref<void(const Tile &)> body) {
  Value total = tileStart(idx(p.groups));
  Value stride = idx(p.ctas);
  // This CTA's tiles: cta, cta + ctas, ... below the total.
  Value mine = ir.select(ir.cmp(arith::CmpIPredicate::ult, cta, total),
                         ir.ceilDivu(ir.sub(total, cta), stride), idx(0));
  ir.forLoop(idx(0), mine, idx(1), ValueRange{idx(0)},
             [&](Value i, ValueRange acc) {
               Value t = ir.add(cta, ir.mul(i, stride));
               // The group: advance while the next group starts at or
               // before t (tiles increase, so the cursor only moves on).
               auto loop = scf::WhileOp::create(b, TypeRange{b.getIndexType()},
                                                ValueRange{acc[0]});
               {
                 OpBuilder::InsertionGuard g(b);
                 Block *before = b.createBlock(&loop.getBefore(), {},
                                               {b.getIndexType()},
                                               {b.getLoc()});
                 Value gc = before->getArgument(0);
                 Value next = ir.add(gc, idx(1));
                 Value more = ir.andi(
                     ir.cmp(arith::CmpIPredicate::ult, next, idx(p.groups)),
                     ir.cmp(arith::CmpIPredicate::ule, tileStart(next), t));
                 scf::ConditionOp::create(b, more, ValueRange{gc});
                 Block *after = b.createBlock(&loop.getAfter(), {},
                                              {b.getIndexType()},
                                              {b.getLoc()});
                 scf::YieldOp::create(
                     b, ValueRange{ir.add(after->getArgument(0), idx(1))});
               }
               Value group = loop.getResult(0);
               Value local = ir.sub(t, tileStart(group));
               Tile tile{i, group, ir.divu(local, idx(p.nTiles)),
                         ir.remu(local, idx(p.nTiles))};
               body(tile);
               return SmallVector<Value>{group};
             });
}

DictionaryAttr MatmulBuilder::build(gpu::GPUModuleOp module, StringRef name) {
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type f32 = b.getF32Type(), i8 = b.getI8Type(), i32 = b.getI32Type();
  auto gsType = MemRefType::get({p.groups}, f32);
  auto outType = p.masked ? MemRefType::get({p.groups, p.m, p.n}, p.out)
                          : MemRefType::get({p.m, p.n}, p.out);
  SmallVector<Type> args = {ptr, ptr, gsType, ptr, ptr, gsType, outType};
  if (p.grouped)
    args.push_back(MemRefType::get({p.groups}, i32));

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  memref::GlobalOp::create(b, "tmem_slot", b.getStringAttr("private"),
                           ir.smemMemref({1}, i32), Attribute(),
                           /*constant=*/false, IntegerAttr());
  // The tile schedule: first tile per group (and the total), first row per
  // group, rows per group.
  // 16-byte aligned: LLVM vectorizes stores to it and would otherwise
  // issue st.shared.v2 at 4-byte-aligned addresses.
  memref::GlobalOp::create(b, "schedule", b.getStringAttr("private"),
                           ir.smemMemref({3 * p.groups + 1}, i32), Attribute(),
                           /*constant=*/false, b.getI64IntegerAttr(16));
  auto func = gpu::GPUFuncOp::create(b, name, b.getFunctionType(args, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({256, 1, 1}));
  func->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(128));
  b.setInsertionPointToStart(&func.getBody().front());

  // Tensor maps (by pointer), box shapes outermost first.
  // (Swapped: tmapA's box holds the tokens, the MMA's B.)
  const int64_t aRows = p.swap ? p.blockN : kBlockM;
  const int64_t bRows = p.swap ? kBlockM : p.bRows();
  aBox = p.masked ? ir.smemMemref({1, aRows, kKBytes}, i8)
                  : ir.smemMemref({aRows, kKBytes}, i8);
  bBox = p.grouped ? ir.smemMemref({1, bRows, kKBytes}, i8)
                   : ir.smemMemref({bRows, kKBytes}, i8);
  sfaBox = p.masked ? ir.smemMemref({1, 1, 4 * kMmasPerStage, 128}, i8)
                    : ir.smemMemref({1, 4 * kMmasPerStage, 128}, i8);
  sfbBox = p.grouped
               ? ir.smemMemref({1, p.sfbTiles, 4 * kMmasPerStage, 128}, i8)
               : ir.smemMemref({p.sfbTiles, 4 * kMmasPerStage, 128}, i8);
  auto cast = [&](Value v, MemRefType box, nvgpu::TensorMapSwizzleKind sw) {
    return UnrealizedConversionCastOp::create(b, tmapType(box, sw), v)
        .getResult(0);
  };
  tmapA = cast(func.getArgument(0), aBox,
               nvgpu::TensorMapSwizzleKind::SWIZZLE_128B);
  tmapSfa = cast(func.getArgument(1), sfaBox,
                 nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE);
  gsA = func.getArgument(2);
  tmapB = cast(func.getArgument(3), bBox,
               nvgpu::TensorMapSwizzleKind::SWIZZLE_128B);
  tmapSfb = cast(func.getArgument(4), sfbBox,
                 nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE);
  gsB = func.getArgument(5);
  out = func.getArgument(6);
  Value sizes = p.grouped ? func.getArgument(7) : Value();

  rawA = func.getArgument(0);
  rawSfa = func.getArgument(1);
  rawB = func.getArgument(3);
  rawSfb = func.getArgument(4);
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  warp = ir.divu(tid, idx(32));
  cta = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  if (p.pair) {
    cta = ir.divu(cta, idx(2));
    rank = NVVM::ClusterId::create(b, i32);
    leader = ir.eq(rank, ir.i32(0));
    func->setAttr("nvvm.cluster_dim", b.getDenseI32ArrayAttr({2, 1, 1}));
  }

  auto smemTy = MemRefType::get({ShapedType::kDynamic}, i8,
                                MemRefLayoutAttrInterface(), ir.workgroup());
  smem = gpu::DynamicSharedMemoryOp::create(b, smemTy);
  ptrIdx = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
  base = ir.sub(ir.andi(ir.add(ptrIdx, idx(1023)), idx(-1024)), ptrIdx);

  full = nvgpu::MBarrierCreateOp::create(b, groupType(unsigned(p.stages)));
  empty = nvgpu::MBarrierCreateOp::create(b, groupType(unsigned(p.stages)));
  accFull = nvgpu::MBarrierCreateOp::create(b, groupType(1));
  accEmpty = nvgpu::MBarrierCreateOp::create(b, groupType(1));
  Value slot = memref::GetGlobalOp::create(b, ir.smemMemref({1}, i32),
                                           "tmem_slot");
  schedule = memref::GetGlobalOp::create(
      b, ir.smemMemref({3 * p.groups + 1}, i32), "schedule");
  ir.ifThen(ir.eq(tid, idx(0)), [&] {
    for (int64_t s = 0; s < p.stages; ++s) {
      ir.named(nvgpu::MBarrierInitOp::create(b, full, idx(1), idx(s), Value()),
               "init full[" + Twine(s) + "]");
      ir.named(nvgpu::MBarrierInitOp::create(b, empty, idx(1), idx(s), Value()),
               "init empty[" + Twine(s) + "]");
    }
    ir.named(
        nvgpu::MBarrierInitOp::create(b, accFull, idx(1), idx(0), Value()),
        "init acc_full");
    // A pair's epilogue threads of both CTAs free the leader's accumulator.
    ir.named(nvgpu::MBarrierInitOp::create(b, accEmpty,
                                           idx(p.pair ? 256 : 128), idx(0),
                                           Value()),
             "init acc_empty");
    for (Value t : {tmapA, tmapSfa, tmapB, tmapSfb})
      nvgpu::TmaPrefetchOp::create(b, t, Value());
    prologueSchedule(sizes);
  });
  ir.ifThen(ir.eq(warp, idx(0)), [&] {
    sm100::TmemAllocOp::create(b, slot, uint32_t(p.tmemColumns()),
                               ctaGroup());
  });
  fencedBarrier(ir, "alloc");
  if (p.pair) {
    // The peer's loads and the leader's commits target our barriers: their
    // initialisation must be visible to the cluster first.
    ir.named(NVVM::FenceMbarrierInitOp::create(b),
             "start: fence.mbarrier_init");
    ir.clusterSync("start");
  }
  all = sm100::TmemBaseOp::create(
      b, tmem(p.tmemColumns(), f32, sm100::TmemLayout::acc), slot);

  auto roles = sm100::WarpRolesOp::create(b, 8u);
  roles.getBody().push_back(new Block());
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&roles.getBody().front());
    auto makeRole = [&](StringRef roleName, uint32_t begin, uint32_t end,
                        int64_t regs) {
      return ir.role<sm100::RoleOp>(roleName, begin, end, regs);
    };
    auto epi = makeRole("epilogue", 0, 4, 152);
    auto load = makeRole("load", 4, 5, 96);
    auto mma = makeRole("mma", 5, 6, 96);
    makeRole("spare", 6, 8, 96);
    b.setInsertionPointToStart(&epi.getBody().front());
    epilogueRole();
    b.setInsertionPointToStart(&load.getBody().front());
    loadRole();
    b.setInsertionPointToStart(&mma.getBody().front());
    mmaRole();
  }
  fencedBarrier(ir, "dealloc");
  if (p.pair) {
    // Neither CTA frees its tensor memory or exits while the leader's MMAs
    // or commits may still reach it.
    ir.clusterSync("end");
    fence(sm100::FenceKind::after_thread_sync, "end: fence after cluster");
  }
  ir.ifThen(ir.eq(warp, idx(0)), [&] {
    sm100::TmemDeallocOp::create(b, all, uint32_t(p.tmemColumns()),
                                 ctaGroup());
  });
  gpu::ReturnOp::create(b);

  // The harness.
  auto str = [&](StringRef v) { return b.getStringAttr(v); };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  auto named = [&](StringRef n, Attribute v) { return b.getNamedAttr(n, v); };
  int64_t kt = (p.k / fp4::kBlock + 3) / 4;
  SmallVector<NamedAttribute> sizesAttr = {
      named("m", i64(p.m)),          named("n", i64(p.n)),
      named("k", i64(p.k)),          named("kh", i64(p.k / 2)),
      named("mt", i64(p.mTiles)),    named("nt", i64((p.n + 127) / 128)),
      named("kq", i64(4 * kt)),      named("c128", i64(128)),
      named("one", i64(1))};
  if (p.grouped)
    sizesAttr.push_back(named("e", i64(p.groups)));
  SmallVector<Attribute> hargs;
  if (p.masked)
    hargs = {harnessTensorMap(b, "a", {"e", "m", "kh"},
                              {kKBytes, p.swap ? p.blockN : kBlockM, 1}),
             harnessTensorMap(b, "sfa", {"e", "mt", "kq", "c128"},
                              {128, 4 * kMmasPerStage, 1, 1}, "none")};
  else
    hargs = {harnessTensorMap(b, "a", {"m", "kh"},
                              {kKBytes, p.swap ? p.blockN : kBlockM}),
             harnessTensorMap(b, "sfa", {"mt", "kq", "c128"},
                              {128, 4 * kMmasPerStage, 1}, "none")};
  hargs.push_back(harnessBuffer(b, "gsa"));
  if (p.grouped) {
    hargs.push_back(harnessTensorMap(b, "b", {"e", "n", "kh"},
                                     {kKBytes, p.swap ? kBlockM : p.blockN, 1}));
    hargs.push_back(harnessTensorMap(b, "sfb", {"e", "nt", "kq", "c128"},
                                     {128, 4 * kMmasPerStage, p.sfbTiles, 1},
                                     "none"));
  } else {
    hargs.push_back(harnessTensorMap(b, "b", {"n", "kh"},
                                     {kKBytes, p.swap ? kBlockM : p.bRows()}));
    hargs.push_back(harnessTensorMap(b, "sfb", {"nt", "kq", "c128"},
                                     {128, 4 * kMmasPerStage, p.sfbTiles},
                                     "none"));
  }
  hargs.push_back(harnessBuffer(b, "gsb"));
  hargs.push_back(harnessBuffer(b, "d"));
  if (p.grouped)
    hargs.push_back(harnessBuffer(b, "sizes"));
  SmallVector<NamedAttribute> typeAttrs = {
      named("a", str("u8")),   named("sfa", str("u8")),
      named("gsa", str("f32")), named("b", str("u8")),
      named("sfb", str("u8")), named("gsb", str("f32")),
      named("d", str(harnessTypeName(p.out)))};
  SmallVector<NamedAttribute> options = {
      named("round_to", i64(p.out.isF32() ? 0 : 1))};
  if (p.grouped) {
    typeAttrs.push_back(named("sizes", str("i32")));
    options.push_back(named("layout", i64(p.masked ? 1 : 0)));
  }
  SmallVector<NamedAttribute> harness = {
      named("reference", str(p.grouped ? (p.masked ? "nvfp4_grouped_matmul_masked"
                                                   : "nvfp4_grouped_matmul_contiguous")
                                       : "nvfp4_scaled_matmul")),
      named("types", b.getDictionaryAttr(typeAttrs)),
      named("sizes", b.getDictionaryAttr(sizesAttr)),
      named("options", b.getDictionaryAttr(options)),
      named("grid", b.getDenseI32ArrayAttr({int32_t(p.gridCtas()), 1, 1})),
      named("block", b.getDenseI32ArrayAttr({256, 1, 1})),
      named("dynamic_smem", i64(p.stages * p.stageBytes() + 1024)),
      named("args", b.getArrayAttr(hargs))};
  if (p.pair)
    harness.push_back(named("cluster", b.getDenseI32ArrayAttr({2, 1, 1})));
  // The op's operands and results as tensors (docs/Host.md); `outs`, the
  // init, is the result's buffer (the grouped op's D is written only in
  // the groups' rows: the harness's inout).
  SmallVector<Attribute> operandNames = {str("a"), str("sfa"), str("gsa"),
                                         str("b"), str("sfb"), str("gsb")};
  if (p.grouped)
    operandNames.push_back(str("sizes"));
  harness.push_back(named("operands", b.getArrayAttr(operandNames)));
  harness.push_back(named("results", b.getArrayAttr({str("d")})));
  // A bf16 result is the f32 one rounded: where the f32 sum and the exact
  // one straddle a bf16 rounding boundary the two differ by one bf16 ulp
  // (docs/NVFP4.md, "Block-scaled matmul").
  if (!p.out.isF32())
    harness.push_back(named(
        "tolerances",
        b.getDictionaryAttr({named(
            "d", b.getDictionaryAttr({named("rel_l2", b.getF64FloatAttr(2e-4)),
                                      named("cos", b.getF64FloatAttr(0.99999))}))})));
  return b.getDictionaryAttr(harness);
}

void MatmulBuilder::pairLoad(Value map, Value off, ArrayRef<Value> coords,
                             Value mbar) {
  SmallVector<Value> c;
  for (Value v : coords)
    c.push_back(ir.toI32(v));
  ir.tmaLoad(map, ir.toI32(ir.add(ptrIdx, off)), c, mbar,
             NVVM::TMALoadMode::TILE, Value(),
             NVVM::CTAGroupKindAttr::get(ctx, NVVM::CTAGroupKind::CTA_2),
             "load: tma");
}

void MatmulBuilder::loadRole() {
  elected([&] {
    forEachTile([&](const Tile &t) {
      if (p.pair) {
        // CTA r of the pair: A's rows 128r.. and B's rows 128r.. of the
        // 256 x 256 tile, its A scale-factor tile and both of B's; every
        // transfer completes on the leader's full[s], which expects both
        // CTAs' bytes.
        Value r = ir.toIndex(rank);
        Value aRow = ir.add(ir.mul(t.mt, idx(2 * kBlockM)),
                            ir.mul(r, idx(kBlockM)));
        Value bRow = ir.add(ir.mul(t.nt, idx(p.blockN)),
                            ir.mul(r, idx(p.bRows())));
        Value aTile = ir.divu(aRow, idx(kBlockM));
        Value n128 = ir.mul(t.nt, idx(p.blockN / 128));
        ir.forLoop(idx(0), idx(p.kSteps), idx(1), [&](Value kt) {
          Value step = ir.add(ir.mul(t.i, idx(p.kSteps)), kt);
          Value s = ir.remu(step, idx(p.stages));
          Value round = ir.divu(step, idx(p.stages));
          wait(empty, s, ir.xori1(ir.parityOf(round)), "load: wait empty");
          ir.ifThen(leader, [&] {
            ir.named(nvgpu::MBarrierArriveExpectTxOp::create(
                         b, full, idx(2 * p.stageBytes()), s, Value()),
                     "load: expect_tx full");
          });
          Value mbar = leaderAddress(
              nvgpu::MBarrierGetOp::create(b, b.getI32Type(), full, s));
          Value off = stageOff(s);
          Value kByte = ir.mul(kt, idx(kKBytes));
          Value kq = ir.mul(kt, idx(4 * kMmasPerStage));
          Value bOff = ir.add(off, idx(p.aBytes()));
          Value sfaOff = ir.add(bOff, idx(p.bBytes()));
          Value sfbOff = ir.add(sfaOff, idx(kSfTileBytes));
          pairLoad(rawA, off, {kByte, aRow}, mbar);
          pairLoad(rawB, bOff, {kByte, bRow}, mbar);
          pairLoad(rawSfa, sfaOff, {idx(0), kq, aTile}, mbar);
          pairLoad(rawSfb, sfbOff, {idx(0), kq, n128}, mbar);
        });
        return;
      }
      Value row0 = ir.mul(t.mt, idx(kBlockM));
      Value n0 = ir.mul(t.nt, idx(p.blockN));
      Value n128 = ir.divu(n0, idx(128));
      // Contiguous: the group's rows start at its (128-aligned) first row.
      Value aRow = p.masked ? row0 : ir.add(rowStart(t.group), row0);
      Value aTile = ir.divu(aRow, idx(kBlockM));
      ir.forLoop(idx(0), idx(p.kSteps), idx(1), [&](Value kt) {
        Value step = ir.add(ir.mul(t.i, idx(p.kSteps)), kt);
        Value s = ir.remu(step, idx(p.stages));
        Value round = ir.divu(step, idx(p.stages));
        // The first pass over the ring does not wait (a fresh barrier
        // completes phase -1).
        wait(empty, s, ir.xori1(ir.parityOf(round)), "load: wait empty");
        ir.named(nvgpu::MBarrierArriveExpectTxOp::create(
                     b, full, idx(p.stageBytes()), s, Value()),
                 "load: expect_tx full");
        Value off = stageOff(s);
        Value kByte = ir.mul(kt, idx(kKBytes));
        Value kq = ir.mul(kt, idx(4 * kMmasPerStage));
        auto coords = [&](std::initializer_list<Value> c, bool withGroup) {
          SmallVector<Value> v(c);
          if (withGroup)
            v.push_back(t.group);
          return v;
        };
        Value bOff = ir.add(off, idx(p.aBytes()));
        Value sfaOff = ir.add(bOff, idx(p.bBytes()));
        Value sfbOff = ir.add(sfaOff, idx(kSfTileBytes));
        if (p.swap) {
          // The MMA's A: 128 weight rows (of group g); its B: the
          // (group's) tokens; and their scale factors likewise.
          nvgpu::TmaAsyncLoadOp::create(b, view(off, bBox), full, tmapB,
                                        coords({kByte, row0}, p.grouped), s,
                                        Value(), Value());
          nvgpu::TmaAsyncLoadOp::create(b, view(bOff, aBox), full, tmapA,
                                        coords({kByte, idx(0)}, p.masked), s,
                                        Value(), Value());
          nvgpu::TmaAsyncLoadOp::create(
              b, view(sfaOff, sfbBox), full, tmapSfb,
              coords({idx(0), kq, t.mt}, p.grouped), s, Value(), Value());
          nvgpu::TmaAsyncLoadOp::create(
              b, view(sfbOff, sfaBox), full, tmapSfa,
              coords({idx(0), kq, idx(0)}, p.masked), s, Value(), Value());
          return;
        }
        nvgpu::TmaAsyncLoadOp::create(b, view(off, aBox), full, tmapA,
                                      coords({kByte, aRow}, p.masked), s,
                                      Value(), Value());
        nvgpu::TmaAsyncLoadOp::create(b, view(bOff, bBox), full, tmapB,
                                      coords({kByte, n0}, p.grouped), s,
                                      Value(), Value());
        nvgpu::TmaAsyncLoadOp::create(b, view(sfaOff, sfaBox), full, tmapSfa,
                                      coords({idx(0), kq, aTile}, p.masked), s,
                                      Value(), Value());
        nvgpu::TmaAsyncLoadOp::create(b, view(sfbOff, sfbBox), full, tmapSfb,
                                      coords({idx(0), kq, n128}, p.grouped), s,
                                      Value(), Value());
      });
    });
  });
}

void MatmulBuilder::mmaRole() {
  Type f32 = b.getF32Type(), i8 = b.getI8Type();
  Type e4m3 = Float8E4M3FNType::get(ctx);
  Type e2m1 = Float4E2M1FNType::get(ctx);
  Type i64 = b.getI64Type();
  auto acc = sm100::TmemSliceOp::create(
      b, tmem(p.blockN, f32, sm100::TmemLayout::acc), all, 0u);
  auto idesc = sm100::IDescAttr::get(
      ctx, sm100::MmaKind::mxf4nvf4, e2m1, e2m1, f32, p.rowTile(), p.blockN,
      sm100::Major::k, sm100::Major::k, false, false, ctaGroup(),
      sm100::ScaleType::ue4m3);
  // A pair's commits arrive on the barrier of both CTAs.
  Value mask = p.pair ? arith::ConstantIntOp::create(b, 3, 16).getResult()
                      : Value();
  auto dataLayout = [&](int64_t rows) {
    return sm100::SmemLayoutAttr::get(ctx, sm100::Major::k,
                                      sm100::Swizzle::sw128, e2m1, rows,
                                      kBlockK, /*k_first=*/false);
  };
  // One 512-byte scale-factor atom: 32 rows of 16 bytes, K-major, no
  // swizzle (SBO = 128 B between 8-row groups; the layout's K of 32 only
  // sets the unused LBO).
  auto sfLayout = sm100::SmemLayoutAttr::get(
      ctx, sm100::Major::k, sm100::Swizzle::none, e4m3, 32, 32,
      /*k_first=*/false);
  auto atomType = tmem(16, e4m3, sm100::TmemLayout::scales);
  auto sfbType =
      tmem(4 * ((p.blockN + 31) / 32), e4m3, sm100::TmemLayout::scales);
  auto slice = [&](int64_t col, sm100::TmemType t) -> Value {
    // Static columns: the TMEM address is a constant offset of the base.
    return sm100::TmemSliceOp::create(b, t, all, uint32_t(col));
  };
  auto atomDesc = [&](Value byteOff) -> Value {
    return sm100::UmmaDescOp::create(b, i64, smem, ValueRange{byteOff},
                                     sfLayout, 0u);
  };
  // K step kt of tile t (ring step `step`): stage s = step % stages,
  // scale-factor buffer step % 2 of TMEM (static: TMEM columns are
  // attributes).
  auto kStep = [&](const Tile &t, Value kt, Value step) {
    Value s = ir.remu(step, idx(p.stages));
    wait(full, s, ir.parityOf(ir.divu(step, idx(p.stages))),
         "mma: wait full");
    // The scale-factor buffer of this step was read by the MMAs of two
    // steps back: wait for their commit to empty (mma -> cp is not a
    // tcgen05 pipeline, so issue order alone does not protect it). Step
    // step - 2 + stages >= step is not issued yet, so the parity names
    // one phase.
    ir.ifThen(ir.cmp(arith::CmpIPredicate::uge, step, idx(2)), [&] {
      Value prev = ir.sub(step, idx(2));
      wait(empty, ir.remu(prev, idx(p.stages)),
           ir.parityOf(ir.divu(prev, idx(p.stages))),
           "mma: wait empty of step - 2");
    });
    fence(sm100::FenceKind::after_thread_sync, "mma: fence after full");
    Value off = stageOff(s);
    Value bOff = ir.add(off, idx(p.aBytes()));
    Value sfaOff = ir.add(bOff, idx(p.bBytes()));
    Value sfbOff = ir.add(sfaOff, idx(kSfTileBytes));
    Value aTile = view(off, ir.smemMemref({kBlockM, kKBytes}, i8));
    Value bTile = view(bOff, ir.smemMemref({p.bRows(), kKBytes}, i8));
    SmallVector<Value> sfaDesc, sfbDesc, aDesc, bDesc;
    for (int64_t j = 0; j < kMmasPerStage; ++j) {
      sfaDesc.push_back(atomDesc(ir.add(sfaOff, idx(512 * j))));
      for (int64_t r = 0; r < p.sfbTiles; ++r)
        sfbDesc.push_back(
            atomDesc(ir.add(sfbOff, idx(r * kSfTileBytes + 512 * j))));
      aDesc.push_back(sm100::UmmaDescOp::create(
          b, i64, aTile, ValueRange{idx(0), idx(0)}, dataLayout(kBlockM),
          uint32_t(j)));
      bDesc.push_back(sm100::UmmaDescOp::create(
          b, i64, bTile, ValueRange{idx(0), idx(0)}, dataLayout(p.bRows()),
          uint32_t(j)));
    }
    Value notFirst = ir.ne(kt, idx(0));
    auto issue = [&](int64_t buf) {
      const int64_t sfCol = p.blockN + buf * p.sfColumnsPerStage();
      auto sfaCol = [&](int64_t j) { return sfCol + 4 * j; };
      auto sfbCol = [&](int64_t j) {
        return sfCol + 4 * kMmasPerStage + j * p.sfbColumns();
      };
      // Scale factors into TMEM: A's atom j (K blocks 4j..4j+3 of the 128
      // rows) to column sfaCol(j) (row m's word lands in column m / 32);
      // atom j of B's 128-row tile r to sfbCol(j) + 4r.
      for (int64_t j = 0; j < kMmasPerStage; ++j) {
        sm100::TmemCopyOp::create(b, slice(sfaCol(j), atomType), sfaDesc[j],
                                  sm100::CpShape::shape_32x128b_warpx4,
                                  ctaGroup());
        for (int64_t r = 0; r < p.sfbTiles; ++r)
          sm100::TmemCopyOp::create(b, slice(sfbCol(j) + 4 * r, atomType),
                                    sfbDesc[j * p.sfbTiles + r],
                                    sm100::CpShape::shape_32x128b_warpx4,
                                    ctaGroup());
      }
      for (int64_t j = 0; j < kMmasPerStage; ++j) {
        Value accumulate = j == 0 ? notFirst : ir.i1(true);
        auto mma = [&](int64_t sfbShift) {
          sm100::MmaBlockScaleOp::create(
              b, acc, aDesc[j], bDesc[j], accumulate,
              slice(sfaCol(j), atomType),
              slice(sfbCol(j) + sfbShift, sfbType), idesc);
        };
        // A 64-wide N tile is half of a 128-row scale-factor atom: the odd
        // tiles' columns start 64 / 32 = 2 TMEM columns in.
        if (p.blockN < 128)
          ir.ifThenElse(ir.eq(ir.remu(t.nt, idx(128 / p.blockN)), idx(0)),
                        [&] { mma(0); }, [&] { mma(p.blockN / 32); });
        else
          mma(0);
      }
    };
    ir.ifThenElse(ir.eq(ir.remu(step, idx(2)), idx(0)), [&] { issue(0); },
                  [&] { issue(1); });
    ir.named(sm100::CommitOp::create(b, empty, s, mask, ctaGroup()),
             "mma: commit empty");
  };
  auto issueAll = [&] {
    elected([&] {
      forEachTile([&](const Tile &t) {
        // The accumulator is free once the epilogue has read the previous
        // tile out of it (phase i - 1 of acc_empty; a pair's peer arrives
        // on the leader's from the cluster).
        ir.ifThen(ir.cmp(arith::CmpIPredicate::uge, t.i, idx(1)), [&] {
          Value parity = ir.parityOf(ir.sub(t.i, idx(1)));
          if (p.pair)
            ir.clusterWait(nvgpu::MBarrierGetOp::create(b, b.getI32Type(),
                                                        accEmpty, idx(0)),
                           parity, "mma: wait acc_empty");
          else
            wait(accEmpty, idx(0), parity, "mma: wait acc_empty");
          fence(sm100::FenceKind::after_thread_sync,
                "mma: fence after acc_empty");
        });
        ir.forLoop(idx(0), idx(p.kSteps), idx(1), [&](Value kt) {
          kStep(t, kt, ir.add(ir.mul(t.i, idx(p.kSteps)), kt));
        });
        ir.named(
            sm100::CommitOp::create(b, accFull, idx(0), mask, ctaGroup()),
            "mma: commit acc_full");
      });
    });
  };
  // A pair's leader issues the MMAs of both CTAs.
  if (p.pair)
    ir.ifThen(leader, issueAll);
  else
    issueAll();
}

void MatmulBuilder::epilogueRole() {
  Type f32 = b.getF32Type();
  auto acc = sm100::TmemSliceOp::create(
      b, tmem(p.blockN, f32, sm100::TmemLayout::acc), all, 0u);
  const int64_t width = p.out.isF32() ? 4 : 8;
  // Vector stores need every row to start on 16 bytes.
  const bool rowsAligned = (p.n * (p.out.isF32() ? 4 : 2)) % 16 == 0;
  forEachTile([&](const Tile &t) {
    Value g = p.grouped ? t.group : idx(0);
    Value ga = memref::LoadOp::create(b, gsA, ValueRange{g});
    Value gb = memref::LoadOp::create(b, gsB, ValueRange{g});
    Value alpha =
        arith::DivFOp::create(b, ir.f32(1.0), arith::MulFOp::create(b, ga, gb));
    wait(accFull, idx(0), ir.parityOf(t.i), "epilogue: wait acc_full");
    fence(sm100::FenceKind::after_thread_sync, "epilogue: fence after acc_full");
    // Columns [c, c + w) of this thread's TMEM lane, times alpha, in the
    // output type.
    auto loadScaled = [&](int64_t c, int64_t w) -> Value {
      auto vw = VectorType::get({w}, f32);
      Value v = sm100::TmemLoadOp::create(b, vw, acc, idx(c),
                                          sm100::LdStShape::shape_32x32b,
                                          uint32_t(w), false, IntegerAttr(),
                                          IntegerAttr())
                    .getResult();
      sm100::WaitOp::create(b, sm100::WaitKind::load);
      Value scaled = arith::MulFOp::create(
          b, v, vector::BroadcastOp::create(b, vw, alpha));
      return p.out.isF32() ? scaled
                           : Value(arith::TruncFOp::create(
                                 b, VectorType::get({w}, p.out), scaled));
    };
    // The accumulator may take the next tile (a pair: the leader's, whose
    // MMAs write both CTAs' accumulators).
    auto releaseAcc = [&] {
      fence(sm100::FenceKind::before_thread_sync,
            "epilogue: fence before acc_empty");
      auto local = [&] {
        ir.named(nvgpu::MBarrierArriveOp::create(
                     b, nvgpu::MBarrierTokenType::get(ctx), accEmpty, idx(0)),
                 "epilogue: arrive acc_empty");
      };
      if (!p.pair)
        return local();
      ir.ifThenElse(leader, local, [&] {
        ir.remoteArrive(
            nvgpu::MBarrierGetOp::create(b, b.getI32Type(), accEmpty, idx(0)),
            ir.i32(0), "epilogue: arrive acc_empty");
      });
    };
    // A pair's CTA r holds rows 128r.. of the 256-row tile.
    Value row0 = ir.mul(t.mt, idx(p.rowTile()));
    if (p.pair)
      row0 = ir.add(row0, ir.mul(ir.toIndex(rank), idx(kBlockM)));
    if (p.swap) {
      // Transposed: this thread's TMEM lane is column wRow of D (a row of
      // B), its TMEM columns the group's tokens.
      Value wRow = ir.add(row0, tid);
      Value valid = ir.cmp(arith::CmpIPredicate::ult, wRow, idx(p.n));
      Value tokens = rowsOf(t.group);
      for (int64_t c = 0; c < p.blockN; c += 32) {
        const int64_t w = std::min<int64_t>(32, p.blockN - c);
        Value outV = loadScaled(c, w);
        for (int64_t i = 0; i < w; ++i) {
          Value token = idx(c + i);
          ir.ifThen(ir.andi(valid, ir.cmp(arith::CmpIPredicate::ult, token,
                                          tokens)),
                    [&] {
                      Value e = vector::ExtractOp::create(
                          b, outV, ArrayRef<int64_t>{i});
                      if (p.masked)
                        memref::StoreOp::create(
                            b, e, out, ValueRange{t.group, token, wRow});
                      else
                        memref::StoreOp::create(b, e, out,
                                                ValueRange{token, wRow});
                    });
        }
      }
      releaseAcc();
      return;
    }
    // This thread's row of the group, and the group's rows.
    Value local = ir.add(row0, tid);
    Value rowValid = ir.cmp(arith::CmpIPredicate::ult, local, rowsOf(t.group));
    Value row = p.masked ? local : ir.add(rowStart(t.group), local);
    Value n0 = ir.mul(t.nt, idx(p.blockN));
    auto at = [&](Value col) -> SmallVector<Value> {
      if (p.masked)
        return {t.group, row, col};
      return {row, col};
    };
    for (int64_t c = 0; c < p.blockN; c += 32) {
      Value outV = loadScaled(c, 32);
      Value col0 = ir.add(n0, idx(c));
      Value whole = ir.andi(
          rowValid, ir.cmp(arith::CmpIPredicate::ule, ir.add(col0, idx(32)),
                           idx(p.n)));
      auto storeAll = [&] {
        for (int64_t i = 0; i < 32; i += width) {
          SmallVector<int64_t> lanes;
          for (int64_t l = 0; l < width; ++l)
            lanes.push_back(i + l);
          Value part = vector::ShuffleOp::create(b, outV, outV, lanes);
          auto st = vector::StoreOp::create(b, part, out,
                                            at(ir.add(col0, idx(i))));
          st.setAlignment(16);
        }
      };
      auto storeEach = [&] {
        for (int64_t i = 0; i < 32; ++i) {
          Value col = ir.add(col0, idx(i));
          ir.ifThen(ir.andi(rowValid, ir.cmp(arith::CmpIPredicate::ult, col,
                                             idx(p.n))),
                    [&] {
                      Value e = vector::ExtractOp::create(
                          b, outV, ArrayRef<int64_t>{i});
                      memref::StoreOp::create(b, e, out, at(col));
                    });
        }
      };
      if (rowsAligned)
        ir.ifThenElse(whole, storeAll, storeEach);
      else
        storeEach();
    }
    releaseAcc();
  });
}

struct NVFP4LowerScaledMatmulPass
    : nvfp4::impl::NVFP4LowerScaledMatmulBase<NVFP4LowerScaledMatmulPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops =
        opsToLower<ScaledMatmulOp, GroupedScaledMatmulOp>(module);
    if (ops.empty())
      return;
    if (failed(checkNumSms(module, "nvfp4-lower-scaled-matmul", numSms)))
      return signalPassFailure();
    if (ctaGroup < 0 || ctaGroup > 2) {
      module.emitError("nvfp4-lower-scaled-matmul: cta-group must be 0 (by "
                       "shape), 1 or 2, got ")
          << static_cast<int64_t>(ctaGroup);
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    for (Operation *op : ops) {
      FailureOr<MatmulPlan> p = planOf(op, numSms, ctaGroup);
      if (failed(p))
        return signalPassFailure();
      ImplicitLocOpBuilder b(op->getLoc(), module.getContext());
      auto gpuModule = createKernelModule(
          b, module, symbols, op, p->grouped ? "_grouped_matmul" : "_matmul");
      std::string name = gpuModule.getName().str();
      MatmulBuilder builder(b, *p);
      DictionaryAttr harness = builder.build(gpuModule, name);
      auto func = cast<gpu::GPUFuncOp>(
          SymbolTable::lookupSymbolIn(gpuModule, b.getStringAttr(name)));
      func->setAttr("nvfp4.harness", harness);
      recordKernel(op, gpuModule, name);
      ++numKernels;
    }
  }
};

} // namespace
