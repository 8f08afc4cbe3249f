//===- AttentionIR.h - IR-building shorthands for the attention kernels ---===//
//
// The kernels of nvfp4-lower-attention are built op by op with an
// ImplicitLocOpBuilder; these shorthands keep the builders readable
// (constants, index arithmetic, structured control flow, inline PTX).
// Internal to lib/Dialect/NVFP4/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_NVFP4_TRANSFORMS_ATTENTIONIR_H
#define LIB_DIALECT_NVFP4_TRANSFORMS_ATTENTIONIR_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "nvfp4/Support/Ex2Poly.h"

#include <limits>

namespace nvfp4::attn {

using mlir::Value;

/// mbarrier.try_wait suspend-time hint (ns), as in the examples.
constexpr int64_t kWaitTicks = 10000000;

/// Shorthands over one builder.
class IR {
public:
  explicit IR(mlir::ImplicitLocOpBuilder &b) : b(b), ctx(b.getContext()) {}

  // Constants.
  Value idx(int64_t v) { return mlir::arith::ConstantIndexOp::create(b, v); }
  Value i32(int64_t v) {
    return mlir::arith::ConstantIntOp::create(b, v, 32).getResult();
  }
  Value i1(bool v) { return mlir::arith::ConstantIntOp::create(b, v, 1); }
  Value f32(double v) {
    return mlir::arith::ConstantFloatOp::create(b, b.getF32Type(),
                                                llvm::APFloat(float(v)))
        .getResult();
  }
  Value negInf() { return f32(-std::numeric_limits<double>::infinity()); }

  // Integer (index or i32) arithmetic; division is unsigned.
  Value add(Value x, Value y) { return mlir::arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return mlir::arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return mlir::arith::MulIOp::create(b, x, y); }
  Value divu(Value x, Value y) { return mlir::arith::DivUIOp::create(b, x, y); }
  Value remu(Value x, Value y) { return mlir::arith::RemUIOp::create(b, x, y); }
  Value ceilDivu(Value x, Value y) {
    return mlir::arith::CeilDivUIOp::create(b, x, y);
  }
  Value mins(Value x, Value y) { return mlir::arith::MinSIOp::create(b, x, y); }
  Value maxs(Value x, Value y) { return mlir::arith::MaxSIOp::create(b, x, y); }
  Value andi(Value x, Value y) { return mlir::arith::AndIOp::create(b, x, y); }
  Value ori(Value x, Value y) { return mlir::arith::OrIOp::create(b, x, y); }
  Value xori(Value x, Value y) { return mlir::arith::XOrIOp::create(b, x, y); }
  Value cmp(mlir::arith::CmpIPredicate p, Value x, Value y) {
    return mlir::arith::CmpIOp::create(b, p, x, y);
  }
  Value eq(Value x, Value y) {
    return cmp(mlir::arith::CmpIPredicate::eq, x, y);
  }
  Value ne(Value x, Value y) {
    return cmp(mlir::arith::CmpIPredicate::ne, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return mlir::arith::SelectOp::create(b, c, x, y);
  }
  /// min(max(v, lo), hi), signed.
  Value clamp(Value v, Value lo, Value hi) { return mins(maxs(v, lo), hi); }
  /// The negation of an i1.
  Value xori1(Value v) { return mlir::arith::XOrIOp::create(b, v, i1(true)); }
  Value toIndex(Value v) {
    return mlir::arith::IndexCastOp::create(b, b.getIndexType(), v);
  }
  Value toI32(Value v) {
    return mlir::arith::IndexCastOp::create(b, b.getI32Type(), v);
  }
  /// (v & 1) as i1: the parity of a phase counter (index or i32).
  Value parityOf(Value v) {
    if (v.getType().isIndex())
      v = toI32(v);
    Value a = mlir::arith::AndIOp::create(b, v, i32(1));
    return mlir::arith::TruncIOp::create(b, b.getI1Type(), a);
  }

  /// `v` (f32) reduced over the 32 lanes of a warp by `op`: a tree of xor
  /// shuffles. Lanes i and i ^ off combine the same two values at each
  /// step, so with a commutative `op` every lane ends with the same bits.
  Value warpReduce(Value v, llvm::function_ref<Value(Value, Value)> op) {
    for (int32_t off = 16; off >= 1; off /= 2)
      v = op(v, mlir::gpu::ShuffleOp::create(b, v, off, int32_t(32),
                                             mlir::gpu::ShuffleMode::XOR)
                    .getShuffleResult());
    return v;
  }

  /// `v` (f32) reduced over a CTA of `threads` by `op`: a tree of xor
  /// shuffles in each warp, then lane 0 of warp w stores to smem[at + w]
  /// and, after a barrier, every thread combines the words in warp order
  /// (a fixed order: the result does not depend on timing). The caller
  /// must not write smem[at, at + threads / 32) again before every thread
  /// has passed a later barrier.
  Value ctaReduce(Value v, Value smem, int64_t at, int64_t threads,
                  llvm::function_ref<Value(Value, Value)> op) {
    v = warpReduce(v, op);
    Value tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    Value lane = remu(tid, idx(32)), warp = divu(tid, idx(32));
    ifThen(eq(lane, idx(0)), [&] {
      mlir::memref::StoreOp::create(
          b, v, smem, mlir::ValueRange{at ? add(warp, idx(at)) : warp});
    });
    mlir::gpu::BarrierOp::create(b);
    Value r = mlir::memref::LoadOp::create(b, smem, mlir::ValueRange{idx(at)});
    for (int64_t w = 1; w < threads / 32; ++w)
      r = op(r, mlir::memref::LoadOp::create(b, smem,
                                             mlir::ValueRange{idx(at + w)}));
    return r;
  }

  /// Inline PTX with read-only operands `ins` ($0.. are the results, then
  /// the operands); it has side effects, so LLVM neither hoists nor drops
  /// it.
  mlir::ResultRange inlinePtx(llvm::StringRef code, mlir::TypeRange results,
                              mlir::ValueRange ins) {
    return inlinePtxOp(code, results, ins).getResults();
  }
  mlir::NVVM::InlinePtxOp inlinePtxOp(llvm::StringRef code,
                                      mlir::TypeRange results,
                                      mlir::ValueRange ins) {
    return mlir::NVVM::InlinePtxOp::create(b, results, ins, mlir::ValueRange{},
                                           b.getStringAttr(code), Value());
  }
  /// Inline PTX that synchronizes (a named barrier, a cp.async wait, a
  /// cluster-scope arrive or wait) with at most one i32 result ($0) and
  /// read-only operands `ins` (i32: "r", i64: "l"): like inlinePtxOp, and
  /// with a "~{memory}" clobber.
  /// Without it LLVM takes inline asm for an instruction that touches no
  /// memory and moves plain loads and stores across it: it sank a
  /// shared-memory load of warpgroup 1's hand-over past the `bar.arrive`
  /// that hands the buffer back, a race the emulator's sanitizer reported
  /// (docs/Hopper.md, "Inline PTX and LLVM's code motion").
  mlir::LLVM::InlineAsmOp syncPtxOp(llvm::StringRef code, mlir::ValueRange ins,
                                    mlir::Type result = {}) {
    std::string constraints = result ? "=r," : "";
    for (Value v : ins) {
      assert((v.getType().isInteger(32) || v.getType().isInteger(64)) &&
             "syncPtxOp takes i32 and i64 operands");
      constraints += v.getType().isInteger(64) ? "l," : "r,";
    }
    constraints += "~{memory}";
    return mlir::LLVM::InlineAsmOp::create(
        b, result ? mlir::TypeRange{result} : mlir::TypeRange{}, ins, code,
        constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        mlir::LLVM::TailCallKind::None,
        mlir::LLVM::AsmDialectAttr::get(ctx, mlir::LLVM::AsmDialect::AD_ATT),
        mlir::ArrayAttr());
  }
  Value ptxF32(llvm::StringRef code, Value x) {
    return inlinePtx(code, b.getF32Type(), x)[0];
  }
  Value ex2(Value x) { return ptxF32("ex2.approx.ftz.f32 $0, $1;", x); }
  /// 2^x for x <= 0 on the FMA and integer pipes instead of the SFU
  /// (nvfp4/Support/Ex2Poly.h; docs/Hopper.md, "Exponentials on the FMA
  /// pipe"): within 8.6e-5 relative, +0 for x <= -127 and -inf.
  Value ex2Poly(Value x) { return ptxF32(nvfp4::kEx2PolyPtx, x); }
  /// `v` (an index) through an opaque move: LLVM cannot hoist what is
  /// computed from it out of the loop it is in. The kernels' shared-memory
  /// descriptors (D / 16 per operand) would otherwise all be hoisted and
  /// held in registers across the KV loop, spilling at large head dims.
  Value opaque(Value v) {
    return toIndex(inlinePtx("mov.b32 $0, $1;", b.getI32Type(), toI32(v))[0]);
  }
  Value lg2(Value x) { return ptxF32("lg2.approx.ftz.f32 $0, $1;", x); }

  /// scf.if without results, body built by `f`.
  template <typename F> void ifThen(Value cond, F f) {
    auto op = mlir::scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    mlir::OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(op.thenBlock());
    f();
  }
  /// scf.if with an else region and no results.
  template <typename F, typename G> void ifThenElse(Value cond, F f, G g) {
    auto op = mlir::scf::IfOp::create(b, cond, /*withElseRegion=*/true);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(op.thenBlock());
    f();
    b.setInsertionPointToStart(op.elseBlock());
    g();
  }
  /// scf.for without results, body built by `f(iv)`.
  template <typename F> void forLoop(Value lb, Value ub, Value step, F f) {
    auto op = mlir::scf::ForOp::create(b, lb, ub, step);
    mlir::OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(op.getBody());
    f(op.getInductionVar());
  }
  /// scf.for with loop-carried values: `f(iv, args)` returns the values to
  /// yield; the loop's results are returned.
  template <typename F>
  mlir::SmallVector<Value> forLoop(Value lb, Value ub, Value step,
                                   mlir::ValueRange init, F f) {
    auto op = mlir::scf::ForOp::create(b, lb, ub, step, init);
    {
      mlir::OpBuilder::InsertionGuard g(b);
      // Without carried values the loop has its (empty) yield already.
      if (init.empty())
        b.setInsertionPoint(op.getBody()->getTerminator());
      else
        b.setInsertionPointToStart(op.getBody());
      mlir::SmallVector<Value> next =
          f(op.getInductionVar(), op.getRegionIterArgs());
      assert(next.size() == init.size() && "one yielded value per init");
      if (!init.empty())
        mlir::scf::YieldOp::create(b, next);
    }
    return mlir::SmallVector<Value>(op.getResults());
  }

  /// An sm100.role of warps [begin, end) with `regs` registers and an empty
  /// body, at the insertion point (inside an sm100.warp_roles).
  template <typename RoleT>
  RoleT role(llvm::StringRef name, uint32_t begin, uint32_t end,
             int64_t regs) {
    auto r = RoleT::create(b, name, begin, end,
                           b.getI32IntegerAttr(int32_t(regs)));
    r.getBody().push_back(new mlir::Block());
    return r;
  }

  // Types.
  mlir::Attribute workgroup() {
    return mlir::gpu::AddressSpaceAttr::get(ctx,
                                            mlir::gpu::AddressSpace::Workgroup);
  }
  mlir::MemRefType smemMemref(llvm::ArrayRef<int64_t> shape, mlir::Type elem) {
    return mlir::MemRefType::get(shape, elem, mlir::MemRefLayoutAttrInterface(),
                                 workgroup());
  }

  /// Names `op` by its role: its location becomes NameLoc(`role`, its
  /// location). Every synchronization op of the attention kernels is named
  /// ("mma: wait kv_full"), so that scripts/sync_mutations.py keys a site by
  /// its role across lowerings of different shapes and plans
  /// (docs/SyncMutations.md), and `--mlir-print-debuginfo` shows it.
  template <typename OpT> OpT named(OpT op, const llvm::Twine &role) {
    op->setLoc(mlir::NameLoc::get(b.getStringAttr(role), op->getLoc()));
    return op;
  }

  /// fence.proxy.async.shared::cta, named `role`: this thread's shared
  /// memory writes through the generic proxy are ordered with the async
  /// proxy's accesses (TMA, wgmma) that follow.
  void fenceProxyAsync(const llvm::Twine &role) {
    named(mlir::NVVM::FenceProxyOp::create(
              b, mlir::NVVM::ProxyKind::async_shared,
              mlir::NVVM::SharedSpaceAttr::get(
                  ctx, mlir::NVVM::SharedSpace::shared_cta)),
          role);
  }

  /// mbarrier.expect_tx (no arrive) of `bytes` on the mbarrier at shared
  /// address `mbar` (i32), named `role`.
  void expectTx(Value mbar, int64_t bytes, const llvm::Twine &role) {
    named(inlinePtxOp("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$0], " +
                          std::to_string(bytes) + ";",
                      mlir::TypeRange{}, mlir::ValueRange{mbar}),
          role);
  }

  /// try_wait.parity on barrier `index` of `group`, named `role`, then a
  /// compiler fence: upstream lowers the wait to inline PTX without a
  /// memory clobber, across which LLVM may move a plain load of what the
  /// barrier guards (IR::syncPtxOp).
  void wait(Value group, Value index, Value parity, const llvm::Twine &role) {
    named(mlir::nvgpu::MBarrierTryWaitParityOp::create(b, group, parity,
                                                       idx(kWaitTicks), index),
          role);
    syncPtxOp("", mlir::ValueRange{});
  }

  /// A TMA load (cp.async.bulk.tensor to shared::cluster) through `map` of
  /// the box at `coords` (i32, innermost first) into shared address `dst`
  /// (i32), completing on the mbarrier at shared address `mbar` (i32),
  /// named `role`; `mask` (i16 or null) multicasts, `group` (or null) is
  /// the .cta_group.
  void tmaLoad(Value map, Value dst, mlir::ValueRange coords, Value mbar,
               mlir::NVVM::TMALoadMode mode, Value mask,
               mlir::NVVM::CTAGroupKindAttr group, const llvm::Twine &role) {
    auto shared = mlir::LLVM::LLVMPointerType::get(ctx, 3);
    auto cluster = mlir::LLVM::LLVMPointerType::get(ctx, 7);
    Value d = mlir::LLVM::AddrSpaceCastOp::create(
        b, cluster, mlir::LLVM::IntToPtrOp::create(b, shared, dst));
    Value m = mlir::LLVM::IntToPtrOp::create(b, shared, mbar);
    named(mlir::NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
              b, d, map, coords, m, mlir::ValueRange{}, mask, Value(), mode,
              /*isCTAOnly=*/false, group, Value()),
          role);
  }
  /// Every CTA of the cluster reaches this point before any
  /// goes on (barrier.cluster.arrive / wait), named "`when`: cluster
  /// arrive" and "`when`: cluster wait".
  void clusterSync(const llvm::Twine &when) {
    named(mlir::NVVM::ClusterArriveOp::create(b, b.getUnitAttr()),
          when + ": cluster arrive");
    named(mlir::NVVM::ClusterWaitOp::create(b, b.getUnitAttr()),
          when + ": cluster wait");
  }
  /// Arrive (release at cluster scope) on the copy in cluster CTA `rank`
  /// (i32) of the barrier at shared address `addr` (i32), named `role`.
  void remoteArrive(Value addr, Value rank, const llvm::Twine &role) {
    named(syncPtxOp("{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $0, $1; "
                    "mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
                    "[ra]; }",
                    mlir::ValueRange{addr, rank}),
          role);
  }
  /// Wait (acquire at cluster scope) for phase `parity` (i1) of the barrier
  /// at shared address `addr` (i32), named `role`: the wait of a barrier
  /// that other CTAs of the cluster arrive on.
  void clusterWait(Value addr, Value parity, const llvm::Twine &role) {
    Value par = mlir::arith::ExtUIOp::create(b, b.getI32Type(), parity);
    auto loop = mlir::scf::WhileOp::create(b, mlir::TypeRange{},
                                           mlir::ValueRange{});
    mlir::OpBuilder::InsertionGuard g(b);
    mlir::Block *before = b.createBlock(&loop.getBefore());
    b.setInsertionPointToStart(before);
    Value done =
        named(syncPtxOp(
                  "{ .reg .pred P; "
                  "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
                  "P, [$1], $2; selp.u32 $0, 1, 0, P; }",
                  mlir::ValueRange{addr, par}, b.getI32Type()),
              role)
            .getResult(0);
    mlir::scf::ConditionOp::create(b, eq(done, i32(0)), mlir::ValueRange{});
    mlir::Block *after = b.createBlock(&loop.getAfter());
    b.setInsertionPointToStart(after);
    mlir::scf::YieldOp::create(b, mlir::ValueRange{});
  }

  mlir::ImplicitLocOpBuilder &b;
  mlir::MLIRContext *ctx;
};

} // namespace nvfp4::attn

#endif // LIB_DIALECT_NVFP4_TRANSFORMS_ATTENTIONIR_H
