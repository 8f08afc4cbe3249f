//===- AttentionKernel.h - the parts of an attention kernel -----*- C++ -*-===//
//
// nvfp4-lower-attention builds one kernel shape (LowerAttention.cpp: the
// barriers, the TMA / MMA / softmax roles) from parts that vary
// independently (shared/DESIGN.md, "One attention schedule, swappable
// parts"):
//
//   KvSource   where the K/V rows of a tile are: a contiguous [B, Skv] cache
//              or pages through a block table (AttentionKvSource.cpp);
//   WorkPlan   which (unit, tiles) pieces a CTA processes: whole units, a
//              uniform split or a balanced plan over the SMs
//              (AttentionWork.cpp);
//   Epilogue   what a piece writes: O and the LSE, or a partial result for
//              the combine kernel (AttentionEpilogue.cpp);
//
// and the combine kernel that merges partial results
// (AttentionCombine.cpp). docs/AttentionLowering.md describes each.
// Internal to lib/Dialect/NVFP4/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_NVFP4_TRANSFORMS_ATTENTIONKERNEL_H
#define LIB_DIALECT_NVFP4_TRANSFORMS_ATTENTIONKERNEL_H

#include "AttentionIR.h"

#include "nvfp4/Dialect/NVFP4/Transforms/AttentionSchedule.h"

#include "mlir/IR/Builders.h"

#include <functional>

namespace nvfp4::attn {

using mlir::SmallVector;
using mlir::Type;

/// What every part reads: the schedule, the builder and the per-CTA values
/// the prologue sets up.
struct KernelEnv {
  KernelEnv(const AttentionSchedule &s, IR &ir)
      : s(s), p(s.problem), ir(ir), b(ir.b) {}
  const AttentionSchedule &s;
  const AttentionProblemShape &p;
  IR &ir;
  mlir::ImplicitLocOpBuilder &b;

  Value tid, warp;
  /// The CTA's partition (blockIdx.x / dvSplit) and its part of a Dv split
  /// (blockIdx.x mod dvSplit).
  Value partition, split;
  /// The kv_lens buffer (null without kv_lens) and extra_lens (null
  /// without).
  Value lens, extraLens;
};

/// One unit (sequence, KV head, row block) and the KV tiles its rows see
/// (docs/AttentionLowering.md, "Masks"; plan::unitTiles is the same in
/// C++).
struct UnitGeom {
  Value u, batch, kvHead, rowBlock;
  /// The row block's first query and first query head
  /// (AttentionSchedule::rowBlocks; rowBlockStart).
  Value firstQuery, firstHead;
  Value len;          ///< L_b (with extra: extraOffset + L2_b)
  Value mainLen;      ///< the main key set's length (L_b without extra)
  Value keyLo, keyHi; ///< keys some row of the unit sees
  Value blockLo;      ///< its first block (AttentionSchedule::planKeys)
  Value blockCount;   ///< its blocks
};

/// The sequence, KV head and row block of unit `u` (index), in the order
/// plan::unitOrder gives them.
struct UnitIndex {
  Value batch, kvHead, rowBlock;
};
UnitIndex unitIndex(IR &ir, const AttentionSchedule &s,
                    const AttentionProblemShape &p, Value u);

/// The first query and the first query head (index) of row block
/// `rowBlock` of KV head `kvHead` (AttentionSchedule::rowBlocks).
std::pair<Value, Value> rowBlockStart(IR &ir, const AttentionSchedule &s,
                                      Value rowBlock, Value kvHead);

/// A constant i32 table `name` of `shape` holding `data` (row-major),
/// declared at the start of `module` (a `memref.global`, 16-byte aligned),
/// and its memref at the builder's insertion point: the static plan's rows,
/// the combine's split units. Asked for again by the same name, the table
/// already declared is returned (`data` is then not read).
Value constantTable(mlir::ImplicitLocOpBuilder &b,
                    mlir::gpu::GPUModuleOp module, llvm::StringRef name,
                    llvm::ArrayRef<int64_t> shape,
                    llvm::ArrayRef<int32_t> data);

/// The geometry of unit `u` (index), its blocks of `granule` keys.
UnitGeom unitGeometry(KernelEnv &env, Value u, Value granule);

/// The blocks [b0, b1) (local to the unit: block blockLo + n) of a unit
/// that one CTA processes, and what follows from them: the keys [kLo, kHi)
/// and the KV tiles [tLo, tLo + tiles) that hold them.
struct Piece {
  UnitGeom unit;
  Value b0, b1;
  Value kLo, kHi;
  Value tLo, tiles;
  /// tiles > 0 (the piece loads and multiplies something).
  Value any;
  /// Every block of the unit (no partial result: O and the LSE directly).
  Value whole;
  /// The unit's first piece (t0 == 0): it records how the unit was split.
  Value first;
};

/// Where K/V rows come from (docs/AttentionLowering.md, "KV source").
class KvSource {
public:
  explicit KvSource(KernelEnv &env) : env(env) {}
  /// Appends its kernel arguments: the K (and V) maps with whole-tile
  /// boxes, the same with 16-key chunk boxes, and the block table.
  void appendArgTypes(SmallVector<Type> &types) const;
  /// Takes its arguments from `func` starting at argument `a`.
  void bindArgs(mlir::gpu::GPUFuncOp func, unsigned &a);
  /// The harness entries of its arguments, in order.
  void appendHarnessArgs(mlir::Builder &b,
                         SmallVector<mlir::Attribute> &args) const;
  /// The tensor-map row (the outermost coordinate) of key `key` of sequence
  /// `batch`; `key` .. the end of its box lie in one page.
  Value row(Value batch, Value key);

  /// Typed maps: whole-tile boxes (boxKeys rows) and 16-key chunk boxes;
  /// v == k and vc == kc when K and V are one value.
  Value k, v, kc, vc;

  /// Sparse: the index (i32) at key position `pos` of unit `u`'s query
  /// (its row of `indices`, or of extra's indices from extraOffset on); -1
  /// (not read) past the key set's length.
  Value slotAt(const UnitGeom &u, Value pos);
  /// Sparse: prints and traps when `slot` (of position `pos`) is neither -1
  /// nor a slot of its cache.
  void checkSlot(const UnitGeom &u, Value pos, Value slot);
  /// With extra: whether key position `pos` is in the extra set (i1; null
  /// without extra).
  Value inExtra(Value pos);
  /// Sparse: whether `slot` (of position `pos`) is neither -1 nor a slot of
  /// its cache (i1).
  Value badSlot(Value pos, Value slot);
  /// Sparse: the gather-map row (i32) of `slot` and KV head `kvHead`, -1
  /// (out of the map) for a negative slot.
  Value gatherRow(Value slot, Value kvHead);
  /// Sparse: one .tile::gather4 of `rows` (four i32) at column `col`
  /// through `map` into the shared address `dst` (i32), completing on the
  /// mbarrier at shared address `mbar` (i32); `mask` (i16) multicasts
  /// (SM100 only: sm_90a's gather role loads a row at a time).
  void gather4(Value map, Value dst, Value col, llvm::ArrayRef<Value> rows,
               Value mbar, Value mask, const llvm::Twine &role);
  /// Sparse: the gather maps (raw pointers; gv == gk when K and V are one
  /// value) and the indices.
  Value gk, gv, indices;
  /// A quantized cache: gk gathers e4m3 bytes (64 per box), gRope bf16
  /// bytes (128 per box, swizzled); cacheBytes is the cache for the scales.
  Value gRope, cacheBytes;
  /// A quantized cache: the row (i32) of the byte maps of `slot` (of the
  /// extra cache when `extra`, an i1, is set), -1 for a negative slot.
  Value cacheRow(Value slot, Value extra);
  /// A quantized cache: 8 bytes (vector<8xi8>) of `slot`'s token row (a
  /// slot >= 0) from byte column `col` (index, 8-aligned), from the extra
  /// cache when `extra` is set (sm_90a's gather reads the e4m3 values so).
  Value quantBytes(Value slot, Value extra, Value col);
  /// A quantized cache: scale `group` of `slot`'s token as f32 (0 for a
  /// negative slot), from the extra cache when `extra` is set.
  Value scale(Value slot, Value group, Value extra);
  /// A quantized cache whose scales are not in the token's row (DeepSeek-
  /// V4's: after the page's rows): the global address (index) of the scale
  /// record of `slot` (>= 0) in the first key set's cache.
  Value scaleRecordAddress(Value slot);
  /// Whether a token's UE8M0 scales are one 8-byte record after the page's
  /// rows (DeepSeek-V4), read whole by scaleRecord.
  bool scaleRecordWhole() const;
  /// The 8 bytes (i64) of `slot`'s (>= 0) scale record, first key set.
  Value scaleRecord(Value slot);
  /// Scale `group` of a record from scaleRecord, as f32.
  Value scaleFromRecord(Value record, Value group);
  /// With extra: the extra cache's maps, indices and bytes.
  Value xk, xRope, xIndices, xCacheBytes;

private:
  /// Whether `slot` is neither -1 nor in [0, slots) (i1).
  Value notSlot(Value slot, Value slots);
  /// `row` (i32), or -1 (out of the map) for a negative `slot`.
  Value rowOrNone(Value slot, Value row);
  /// Scale `group` of `slot` in the cache `bytesOf` of `pageSize` pages.
  Value scaleIn(Value bytesOf, int64_t pageSize, Value slot, Value group);
  /// 2^(e - 127) for a UE8M0 byte `e` (i32): the f32 whose exponent field
  /// is e (e = 0: the subnormal 2^-127; e = 255: NaN, as UE8M0 defines it).
  Value ue8m0(Value e);
  /// Bytes from the start of its page (of `pageSize` tokens) to scale
  /// `group` of the page's token `tok`: the offset scaleIn reads and
  /// scaleRecordAddress prefetches.
  Value scaleOffset(int64_t pageSize, Value tok, Value group);
  /// The (page, row, byte) indices into a cache of `pageSize`-token pages
  /// of scale `group` of slot `s` (index, >= 0): scaleIn's and
  /// scaleRecord's loads.
  SmallVector<Value, 3> scaleIndices(int64_t pageSize, Value s, Value group);

public:

private:
  KernelEnv &env;
  Value blockTable;
};

/// Which pieces a CTA processes (docs/AttentionLowering.md, "Work split").
class WorkPlan {
public:
  explicit WorkPlan(KernelEnv &env) : env(env) {}
  /// All threads, before the prologue's CTA barrier: thread 0 initialises
  /// the shared words of a plan computed on the device.
  void initShared();
  /// All threads, after that barrier: the CTA's partition (a device plan
  /// adds CTA barriers of its own).
  void computePartition();
  /// Runs `body` for every piece of the CTA in order, with loop-carried
  /// values (`init`, then what body returns); returns the final values.
  /// `lean`: with a plan made at compile time, the partition's bounds are
  /// read again from its table for each piece rather than held from the
  /// prologue, for a role with few registers (the sm_90a gather).
  SmallVector<Value> forEachPiece(
      mlir::ValueRange init,
      llvm::function_ref<SmallVector<Value>(const Piece &, mlir::ValueRange)>
          body,
      bool lean = false);
  /// The workspace slot of a piece's partial result.
  Value slot(const Piece &piece);
  /// On a unit's first piece: what the combine needs to find its pieces:
  /// the first piece's slot, the number of pieces, the first partition.
  std::tuple<Value, Value, Value> unitRecord(const Piece &piece);

private:
  KernelEnv &env;
  /// The CTA's partition: units uFirst..uLast, the first from block
  /// b0First, the last up to b1Last; S = blocks per partition (Balanced).
  Value uFirst, uLast, b0First, b1Last, perPartition;
  /// Keys per block of the plan: the tile, or AttentionSchedule::planKeys
  /// when the (static or device) plan chose the finer granule.
  Value granule;
  Value planWords;   ///< device plan: shared words
  Value staticTable; ///< static plan: the constant table
  /// Word `tableWord` of the partition's row of the static table, loaded
  /// at an index LLVM cannot fold (so that the load is not merged with the
  /// prologue's).
  Value reread(int64_t tableWord);
};

/// Where the epilogue reads a piece's unnormalised O for one row: chunks
/// of `width` consecutive columns (vector<width x f32>), each at column
/// `col` (index, relative to the CTA's first column of Dv). The SM100
/// kernel reads 32-column chunks from TMEM once the last P V completed; the
/// sm_90a kernel holds O in registers (the wgmma fragment: 2-column chunks,
/// docs/Hopper.md).
struct OSource {
  int64_t width = 32;
  /// Runs `use(col, acc)` for every chunk of the row this thread writes
  /// (only for a piece with tiles).
  std::function<void(llvm::function_ref<void(Value col, Value acc)> use)> read;
  /// Runs `f(col)` for the same chunks without reading O (a piece without
  /// tiles writes zeros).
  std::function<void(llvm::function_ref<void(Value col)> f)> columns;
};

/// What the softmax warps write for each piece (docs/AttentionLowering.md,
/// "Epilogue").
class Epilogue {
public:
  Epilogue(KernelEnv &env, WorkPlan &plan) : env(env), plan(plan) {}
  void appendArgTypes(SmallVector<Type> &types) const;
  void bindArgs(mlir::gpu::GPUFuncOp func, unsigned &a);
  void appendHarnessArgs(mlir::Builder &b,
                         SmallVector<mlir::Attribute> &args) const;

  /// The row a softmax thread owns in the piece's unit.
  struct Row {
    Value r;     ///< M row (TMEM lane on SM100)
    Value query; ///< i
    Value head;  ///< query head
    Value valid; ///< a real (query, head) row
    /// This thread writes the row's LSE and LSE-like scalars (i1; null:
    /// every thread owns a whole row).
    Value lead;
  };
  /// Thread `row` writes its row after the piece's tiles: the running max m
  /// and sum l (base 2), O from `o`, `sinkL` (the sink in base 2, or -inf).
  void write(const Piece &piece, const Row &row, Value m, Value l, Value sinkL,
             const OSource &o, Value dvBase);
  /// The SM100 O source: O's 32-column chunks from the TMEM accumulator
  /// `oAcc`, complete once o_done phase `lastPhase` has.
  OSource tmemO(Value oAcc, Value oDone, Value lastPhase);

  /// Outputs of the final result and the workspace of partial ones; with
  /// an NVFP4 O, its scale factors and the encode scale.
  Value outO, outLse, partialO, partialLse, unitRecords;
  Value outSf, outScale;

private:
  /// The final O of row `row` as NVFP4 (AttentionProblemShape::nvfp4Out),
  /// normalised by `inv` (32-column chunks only).
  void writeNvfp4(const Piece &piece, const Row &row, const UnitGeom &u,
                  Value inv, const OSource &o, Value dvBase);
  void readO(const Piece &piece, const OSource &o,
             llvm::function_ref<void(Value oc, Value acc)> use,
             llvm::function_ref<void(Value oc)> none);
  KernelEnv &env;
  WorkPlan &plan;
};

/// The epilogue row of M row `r` in the unit of `u`: query u.firstQuery +
/// iLocal, head u.firstHead + hh (iLocal = r / headsPerCta, hh = r mod
/// headsPerCta, computed once by the caller), valid below the used rows
/// and Sq.
Epilogue::Row unitRow(KernelEnv &env, const UnitGeom &u, Value r,
                      Value iLocal, Value hh);
/// The keys [lo, hi) (i32) that query `query` of the piece's unit sees
/// (docs/AttentionLowering.md, "Masks": its causal / window / length
/// bounds), cut to the piece's keys [kLo, kHi) (a tile shared with another
/// piece holds keys that are not this piece's).
std::pair<Value, Value> visibleKeys(KernelEnv &env, const Piece &piece,
                                    Value query);

/// The kernel arguments of the final outputs, shared by the attention and
/// combine kernels: O, the LSE and, with an NVFP4 O, its scale factors
/// (flat, swizzled) and the encode scale (one f32); and their harness
/// entries ("o", "lse", "o_sf", "o_scale").
void appendOutputTypes(const AttentionProblemShape &p, mlir::Builder &b,
                       SmallVector<Type> &types);
void appendOutputHarnessArgs(const AttentionProblemShape &p, mlir::Builder &b,
                             SmallVector<mlir::Attribute> &args);
/// With an NVFP4 O: the byte offset (index) in the flat o_scales of the
/// scale factor of column `col` (of Dv) of row (batch, query, head): row
/// token = batch * Sq + query, block (head * Dv + col) / 16, swizzled.
Value oScaleOffset(IR &ir, const AttentionProblemShape &p, Value batch,
                   Value query, Value head, Value col);

/// The merge of one softmax row from parts (o_k, lse_k) by one warp
/// (docs/Attention.md, "Merging partial results"): with s the sink,
/// m = max(max_k lse_k, s), Z = sum_k 2^(lse_k - m) + 2^(s - m),
/// O = sum_k 2^(lse_k - m) / Z o_k, LSE = (m + log2 Z) ln 2 (natural log);
/// every part empty (lse = -inf) and no sink gives O = 0, LSE = -inf. The
/// parts are summed in order k = 0, 1, ...
struct RowMerge {
  Value lane;          ///< the thread's lane (index)
  int64_t columns = 0; ///< columns merged: a multiple of 32 * width
  Value colBase;       ///< the first of them (index; null: 0)
  Value writesLse;     ///< i1: this warp stores the LSE (null: true)
  int64_t width = 1;   ///< columns per load: lane owns width * lane + ...
  int64_t parts = 0;   ///< the number of parts (fixed: the passes unroll)
  Value sinkL;         ///< the sink in base 2, or null
  /// Part k's LSE in base 2 (f32).
  std::function<Value(Value k)> lse2;
  /// Part k's O at columns [col, col + width) as vector<width x f32>.
  std::function<Value(Value k, Value col)> load;
  /// Stores the natural-log LSE (lane 0 only) and O's columns.
  std::function<void(Value lse)> storeLse;
  std::function<void(Value col, Value o)> storeO;
};
void emitRowMerge(IR &ir, const RowMerge &merge);

/// A piece's partial result of a row with running max `m` and sum `l`
/// (base 2), as the combine and the cluster merge read it: the scale of
/// its O, 1 / l (0 without a visible key), and its base-2 LSE without the
/// sink, m + log2 l (-inf without one).
std::pair<Value, Value> partialScaleAndLse(IR &ir, Value m, Value l);

/// Builds the kernel `name` in `module` that merges the partial results of
/// split units into O and the LSE (docs/AttentionLowering.md, "Combine");
/// returns its harness launch entry.
mlir::DictionaryAttr buildCombineKernel(const AttentionSchedule &s,
                                        mlir::ImplicitLocOpBuilder &b,
                                        mlir::gpu::GPUModuleOp module,
                                        llvm::StringRef name);

/// What the sm_90a consumer warpgroups use of the kernel around them
/// (LowerAttention.cpp builds it; docs/Hopper.md).
struct HopperKernel {
  /// Dynamic shared memory and the byte offset of its 1024-aligned base
  /// (Q's first box).
  Value smem, qOff;
  /// Byte offsets (from smem) of stage `stage`'s K and V tiles.
  std::function<Value(Value stage)> kOffset, vOffset;
  /// Barriers: q_full / kv_full (TMA), q_empty / kv_empty (4 arrivals per
  /// consumer warpgroup).
  Value qFull, qEmpty, kvFull, kvEmpty;
  /// The kernel's softmax_scale * log2 e and sink (null without).
  Value scaleLog2, sink;
  /// With a Dv split (AttentionSchedule::dvGroups): the byte offset of
  /// the hand-over buffer (handBytes, 1024-aligned).
  Value handOff;
  /// Sparse: the byte offset of stage `stage`'s key mask (bit j of word w
  /// for key 32 w + j of the tile), written before kv_full is armed.
  std::function<Value(Value stage)> maskOffset;
};

/// Builds the body of a consumer role of the sm_90a kernel: S = Q K^T and
/// O += P V by wgmma, the online softmax in registers, and the epilogue,
/// for every piece of the CTA. Without a Dv split one role (warps 0 .. 4
/// consumers - 1, `dvGroup` 0) does all of it; with one, warpgroup 0
/// (`dvGroup` 0) computes S, the softmax and O's first Dv / 2 columns and
/// warpgroup 1 (`dvGroup` 1) O's others from the P it hands over.
void buildHopperConsumers(KernelEnv &env, WorkPlan &work, Epilogue &epi,
                          const HopperKernel &k, int64_t dvGroup);

/// The kernel a lowered op records as `nvfp4.kernel = @module::@kernel`;
/// the lowerings skip ops that already carry it.
inline constexpr llvm::StringLiteral kKernelAttrName = "nvfp4.kernel";

/// The ops of types OpTs in `module` that no lowering has built a kernel
/// for yet (they carry no kKernelAttrName), so that running a lowering
/// twice builds each kernel once.
template <typename... OpTs>
llvm::SmallVector<mlir::Operation *> opsToLower(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::Operation *> ops;
  module.walk([&](mlir::Operation *op) {
    if (mlir::isa<OpTs...>(op) && !op->hasAttr(kKernelAttrName))
      ops.push_back(op);
  });
  return ops;
}

/// A pass's `num-sms` option: at least 1, else "PASS: num-sms must be at
/// least 1, got N" at `module` (a grid of 0 CTAs cannot run).
mlir::LogicalResult checkNumSms(mlir::ModuleOp module, llvm::StringRef pass,
                                int64_t numSms);

/// Fences the tensor-memory operations on either side of a CTA barrier
/// (tcgen05.fence::before_thread_sync, bar.sync, ::after_thread_sync),
/// named "`when`: fence before barrier", "`when`: barrier", "`when`:
/// fence after barrier" (docs/SyncMutations.md keys sites by these names).
void fencedBarrier(IR &ir, const llvm::Twine &when);

/// A new gpu.module at the end of `module` for `op`'s kernels, named
/// kernelBaseName(op, suffix) (renamed by `symbols` on a clash), `module`
/// marked as holding gpu.modules; `b` is left at the end of `module`.
mlir::gpu::GPUModuleOp createKernelModule(mlir::ImplicitLocOpBuilder &b,
                                          mlir::ModuleOp module,
                                          mlir::SymbolTable &symbols,
                                          mlir::Operation *op,
                                          llvm::StringRef suffix);
/// Records `kernel` of `gpuModule` on `op` (kKernelAttrName).
void recordKernel(mlir::Operation *op, mlir::gpu::GPUModuleOp gpuModule,
                  llvm::StringRef kernel);

/// The name of the gpu.module (and kernel) built for `op`: its function's
/// name + `suffix`, with every character a PTX identifier cannot hold
/// replaced by '_' (a function may be named anything, e.g. "q}").
std::string kernelBaseName(mlir::Operation *op, llvm::StringRef suffix);

/// Harness helpers shared by the kernels' attributes.
std::string harnessTypeName(Type t);
mlir::DictionaryAttr harnessBuffer(mlir::Builder &b, llvm::StringRef tensor);
mlir::DictionaryAttr harnessTensorMap(mlir::Builder &b, llvm::StringRef tensor,
                                      llvm::ArrayRef<llvm::StringRef> view,
                                      llvm::ArrayRef<int64_t> box,
                                      llvm::StringRef swizzle = "128B");

} // namespace nvfp4::attn

#endif // LIB_DIALECT_NVFP4_TRANSFORMS_ATTENTIONKERNEL_H
