//===- AttentionKvSource.cpp - where an attention kernel's K/V rows are ---===//
//
// The KV source of docs/AttentionLowering.md: the tensor maps the loader
// reads K and V through and the row of each key. A contiguous cache is
// viewed as [B * Skv, Hkv, D] (row = b * Skv + key); a paged one as
// [NumPages * PageSize, Hkv, D] with row = block_table[b, key / PageSize] *
// PageSize + key mod PageSize. Boxes never cross a page: whole tiles load
// one box per page (boxKeys = min(kvTile, PageSize) keys) and partly
// visible tiles 16-key chunks, and 16 divides every page size.
//
// A sparse source (indices) gathers: the cache is viewed as a 2-D map of
// [NumPages * PageSize * Hkv] rows of D (Dv) columns, and each group of
// four keys is one cp.async.bulk.tensor .tile::gather4 per 64 columns,
// rows slot * Hkv + kvHead, or -1 (out of the map: zero-filled, not read)
// for an index of -1 or a position past the top-k length.
//
// A quantized cache (kv_cache) is viewed as rows of the layout's rowBytes
// (a page is a whole number of rows): slot s is row (s / P) * rowsPerPage
// + s mod P. Two byte maps gather a token's values: 64 bytes of e4m3 per
// box into the stage's raw region (no swizzle), dequantized by warps 6-7;
// 128 bytes of bf16 per box straight into the K tile (128-byte swizzle,
// as a bf16 box would land). The scales are read from the cache buffer.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

namespace {

nvgpu::TensorMapDescriptorType tmapType(MLIRContext *ctx, MemRefType box) {
  return nvgpu::TensorMapDescriptorType::get(
      ctx, box, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

} // namespace

void KvSource::appendArgTypes(SmallVector<Type> &types) const {
  Type ptr = LLVM::LLVMPointerType::get(env.ir.ctx);
  const AttentionProblemShape &p = env.p;
  if (p.cache) {
    // Per cache (the main one, then extra's): its two byte maps (e4m3, 64
    // bytes per box; bf16, 128 per box, swizzled), its indices, and its
    // bytes as pages of rows (the harness's [np, rpp, rb] view).
    auto cacheArgs = [&](int64_t topk, int64_t pages, int64_t pageBytes) {
      types.push_back(ptr);
      types.push_back(ptr);
      types.push_back(
          MemRefType::get({p.batch, p.seqQ, topk}, env.b.getI32Type()));
      types.push_back(MemRefType::get(
          {pages, pageBytes / p.cache->rowBytes, p.cache->rowBytes},
          env.b.getI8Type()));
    };
    cacheArgs(p.topk, p.slots / p.slotPageSize, p.cachePageBytes);
    if (p.extra()) {
      cacheArgs(p.extraTopk, p.extraSlots / p.extraPageSize,
                p.extraPageBytes);
      if (p.hasExtraLens)
        types.push_back(MemRefType::get({p.batch}, env.b.getI32Type()));
    }
    return;
  }
  if (p.sparse()) {
    types.push_back(ptr); // k, gather map
    if (!p.kvSame)
      types.push_back(ptr); // v, gather map
    types.push_back(MemRefType::get({p.batch, p.seqQ, p.topk},
                                    env.b.getI32Type()));
    return;
  }
  types.push_back(ptr); // k
  if (!p.kvSame)
    types.push_back(ptr); // v
  types.push_back(ptr);   // k, 16-key chunks
  if (!p.kvSame)
    types.push_back(ptr); // v, 16-key chunks
  if (p.paged())
    types.push_back(MemRefType::get({p.batch, p.maxPages}, env.b.getI32Type()));
}

void KvSource::bindArgs(gpu::GPUFuncOp func, unsigned &a) {
  const AttentionProblemShape &p = env.p;
  ImplicitLocOpBuilder &b = env.b;
  if (p.cache) {
    gk = func.getArgument(a++);
    gRope = func.getArgument(a++);
    gv = gk;
    indices = func.getArgument(a++);
    cacheBytes = func.getArgument(a++);
    if (p.extra()) {
      xk = func.getArgument(a++);
      xRope = func.getArgument(a++);
      xIndices = func.getArgument(a++);
      xCacheBytes = func.getArgument(a++);
      if (p.hasExtraLens)
        env.extraLens = func.getArgument(a++);
    }
    return;
  }
  if (p.sparse()) {
    gk = func.getArgument(a++);
    gv = p.kvSame ? gk : func.getArgument(a++);
    indices = func.getArgument(a++);
    return;
  }
  Value rawK = func.getArgument(a++);
  Value rawV = p.kvSame ? rawK : func.getArgument(a++);
  Value rawKc = func.getArgument(a++);
  Value rawVc = p.kvSame ? rawKc : func.getArgument(a++);
  if (p.paged())
    blockTable = func.getArgument(a++);
  auto cast = [&](Value raw, int64_t keys) {
    auto box = env.ir.smemMemref({keys, 1, 64}, p.element);
    return UnrealizedConversionCastOp::create(b, tmapType(env.ir.ctx, box), raw)
        .getResult(0);
  };
  const int64_t ck = AttentionSchedule::kChunkKeys;
  k = cast(rawK, env.s.boxKeys);
  v = p.kvSame ? k : cast(rawV, env.s.boxKeys);
  kc = cast(rawKc, ck);
  vc = p.kvSame ? kc : cast(rawVc, ck);
}

void KvSource::appendHarnessArgs(Builder &b,
                                 SmallVector<Attribute> &args) const {
  const AttentionProblemShape &p = env.p;
  if (p.cache) {
    args.push_back(
        harnessTensorMap(b, "kv", {"np*rpp", "rb"}, {64, 1}, "none"));
    args.push_back(harnessTensorMap(b, "kv", {"np*rpp", "rb"}, {128, 1}));
    args.push_back(harnessBuffer(b, "indices"));
    args.push_back(harnessBuffer(b, "kv"));
    if (p.extra()) {
      args.push_back(
          harnessTensorMap(b, "kv2", {"np2*rpp2", "rb"}, {64, 1}, "none"));
      args.push_back(harnessTensorMap(b, "kv2", {"np2*rpp2", "rb"}, {128, 1}));
      args.push_back(harnessBuffer(b, "indices2"));
      args.push_back(harnessBuffer(b, "kv2"));
      if (p.hasExtraLens)
        args.push_back(harnessBuffer(b, "kv_lens2"));
    }
    return;
  }
  if (p.sparse()) {
    args.push_back(harnessTensorMap(b, "k", {"np*ps*hkv", "d"}, {64, 1}));
    if (!p.kvSame)
      args.push_back(harnessTensorMap(b, "v", {"np*ps*hkv", "dv"}, {64, 1}));
    args.push_back(harnessBuffer(b, "indices"));
    return;
  }
  StringRef rows = p.paged() ? "np*ps" : "b*skv";
  const int64_t ck = AttentionSchedule::kChunkKeys;
  for (int64_t keys : {env.s.boxKeys, ck}) {
    args.push_back(harnessTensorMap(b, "k", {rows, "hkv", "d"}, {64, 1, keys}));
    if (!p.kvSame)
      args.push_back(
          harnessTensorMap(b, "v", {rows, "hkv", "dv"}, {64, 1, keys}));
  }
  if (p.paged())
    args.push_back(harnessBuffer(b, "block_table"));
}

Value KvSource::row(Value batch, Value key) {
  IR &ir = env.ir;
  const AttentionProblemShape &p = env.p;
  if (!p.paged())
    return ir.add(ir.mul(batch, ir.idx(p.seqKv)), key);
  Value ps = ir.idx(p.pageSize);
  Value page = ir.divu(key, ps);
  // A key past the table (kv_lens[b] > MaxPages x PageSize) would read the
  // next sequence's row of the table, and an entry outside [0, NumPages)
  // would make TMA read zeros (out of the map) or another sequence's page:
  // the kernel says which and stops (docs/AttentionLowering.md, "Bad block
  // tables").
  // On sm_90a the kernel stops (trap) without the message: a call
  // (vprintf) anywhere in a kernel makes ptxas serialize all of its wgmma
  // (C7510; docs/Hopper.md).
  auto stop = [&](StringRef format, ValueRange values) {
    if (!env.s.hopper())
      gpu::PrintfOp::create(env.b, env.b.getStringAttr(format), values);
    ir.inlinePtx("trap;", TypeRange{}, ValueRange{});
  };
  Value pastTable = ir.cmp(arith::CmpIPredicate::uge, page, ir.idx(p.maxPages));
  ir.ifThen(pastTable, [&] {
    stop("nvfp4.attention: sequence %d: key %d needs block_table[%d, %d], "
         "past the table's %d pages per sequence\n",
         {ir.toI32(batch), ir.toI32(key), ir.toI32(batch), ir.toI32(page),
          ir.i32(p.maxPages)});
  });
  Value entry = memref::LoadOp::create(
      env.b, blockTable,
      ValueRange{batch, ir.mins(page, ir.idx(p.maxPages - 1))});
  Value bad = ir.cmp(arith::CmpIPredicate::uge, entry, ir.i32(p.numPages));
  ir.ifThen(bad, [&] {
    stop("nvfp4.attention: sequence %d: block_table[%d, %d] = %d is outside "
         "[0, %d) (the cache's pages)\n",
         {ir.toI32(batch), ir.toI32(batch), ir.toI32(page), entry,
          ir.i32(p.numPages)});
  });
  return ir.add(ir.mul(ir.toIndex(entry), ps), ir.remu(key, ps));
}

Value KvSource::inExtra(Value pos) {
  if (!env.p.extra())
    return Value();
  return env.ir.cmp(arith::CmpIPredicate::uge, pos,
                    env.ir.idx(env.p.extraOffset));
}

Value KvSource::slotAt(const UnitGeom &u, Value pos) {
  IR &ir = env.ir;
  const AttentionProblemShape &p = env.p;
  // Positions past a key set's length are not read (the row may be shorter
  // than the tile): a clamped load, then -1.
  auto entry = [&](Value table, int64_t topk, Value at, Value len) {
    Value e = memref::LoadOp::create(
        env.b, table,
        ValueRange{u.batch, u.firstQuery, ir.mins(at, ir.idx(topk - 1))});
    return ir.select(ir.cmp(arith::CmpIPredicate::ult, at, len), e,
                     ir.i32(-1));
  };
  Value main = entry(indices, p.topk, pos, u.mainLen);
  if (!p.extra())
    return main;
  Value x = inExtra(pos);
  Value at2 = ir.select(x, ir.sub(pos, ir.idx(p.extraOffset)), ir.idx(0));
  Value second = entry(xIndices, p.extraTopk, at2,
                       ir.sub(u.len, ir.idx(p.extraOffset)));
  return ir.select(x, second, main);
}

Value KvSource::badSlot(Value pos, Value slot) {
  IR &ir = env.ir;
  const AttentionProblemShape &p = env.p;
  Value slots = ir.i32(p.slots);
  if (p.extra())
    slots = ir.select(inExtra(pos), ir.i32(p.extraSlots), slots);
  return notSlot(slot, slots);
}

Value KvSource::notSlot(Value slot, Value slots) {
  IR &ir = env.ir;
  // Unsigned: -1 + 1 = 0 passes, anything below -1 wraps past the bound.
  return ir.cmp(arith::CmpIPredicate::ugt, ir.add(slot, ir.i32(1)), slots);
}

Value KvSource::rowOrNone(Value slot, Value row) {
  IR &ir = env.ir;
  return ir.select(ir.cmp(arith::CmpIPredicate::slt, slot, ir.i32(0)),
                   ir.i32(-1), row);
}

void KvSource::checkSlot(const UnitGeom &u, Value pos, Value slot) {
  IR &ir = env.ir;
  const AttentionProblemShape &p = env.p;
  // Neither -1 nor a slot: TMA would read zeros or another sequence's row;
  // the kernel says which and stops (docs/AttentionLowering.md, "Bad
  // indices").
  auto check = [&](int64_t slots, Value at, StringRef name) {
    ir.ifThen(notSlot(slot, ir.i32(slots)), [&] {
      // On sm_90a without the message, as the paged guard (C7510).
      if (!env.s.hopper())
        gpu::PrintfOp::create(
            env.b,
            env.b.getStringAttr(
                "nvfp4.attention: sequence %d, query %d: " + name.str() +
                "[%d, %d, %d] = %d is neither -1 nor a slot "
                "in [0, %d)\n"),
            ValueRange{ir.toI32(u.batch), ir.toI32(u.firstQuery),
                       ir.toI32(u.batch), ir.toI32(u.firstQuery), ir.toI32(at),
                       slot, ir.i32(slots)});
      ir.inlinePtx("trap;", TypeRange{}, ValueRange{});
    });
  };
  if (!p.extra())
    return check(p.slots, pos, "indices");
  ir.ifThenElse(
      inExtra(pos),
      [&] {
        check(p.extraSlots, ir.sub(pos, ir.idx(p.extraOffset)),
              "extra indices");
      },
      [&] { check(p.slots, pos, "indices"); });
}

Value KvSource::gatherRow(Value slot, Value kvHead) {
  IR &ir = env.ir;
  return rowOrNone(
      slot, ir.add(ir.mul(slot, ir.i32(env.p.headsKv)), ir.toI32(kvHead)));
}

void KvSource::gather4(Value map, Value dst, Value col, ArrayRef<Value> rows,
                       Value mbar, Value mask, const Twine &role) {
  IR &ir = env.ir;
  SmallVector<Value> coords = {ir.toI32(col)};
  coords.append(rows.begin(), rows.end());
  ir.tmaLoad(map, dst, coords, mbar, NVVM::TMALoadMode::TILE_GATHER4, mask,
             NVVM::CTAGroupKindAttr(), role);
}

Value KvSource::cacheRow(Value slot, Value extra) {
  IR &ir = env.ir;
  const AttentionProblemShape &p = env.p;
  Value ps = ir.i32(p.slotPageSize);
  Value rpp = ir.i32(p.cache->rowsPerPage(p.slotPageSize));
  if (extra) {
    ps = ir.select(extra, ir.i32(p.extraPageSize), ps);
    rpp = ir.select(extra, ir.i32(p.cache->rowsPerPage(p.extraPageSize)), rpp);
  }
  return rowOrNone(
      slot, ir.add(ir.mul(arith::DivUIOp::create(env.b, slot, ps), rpp),
                   arith::RemUIOp::create(env.b, slot, ps)));
}

Value KvSource::quantBytes(Value slot, Value extra, Value col) {
  IR &ir = env.ir;
  ImplicitLocOpBuilder &b = env.b;
  auto v8 = VectorType::get({8}, b.getI8Type());
  auto load = [&](Value bytesOf, int64_t pageSize) {
    Value s = ir.toIndex(slot);
    Value ps = ir.idx(pageSize);
    return vector::LoadOp::create(
        b, v8, bytesOf, ValueRange{ir.divu(s, ps), ir.remu(s, ps), col},
        /*nontemporal=*/false, llvm::MaybeAlign(8));
  };
  if (!extra)
    return load(cacheBytes, env.p.slotPageSize);
  auto op = scf::IfOp::create(b, TypeRange{v8}, extra,
                              /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(op.thenBlock());
    scf::YieldOp::create(b, load(xCacheBytes, env.p.extraPageSize).getResult());
    b.setInsertionPointToStart(op.elseBlock());
    scf::YieldOp::create(b, load(cacheBytes, env.p.slotPageSize).getResult());
  }
  return op.getResult(0);
}

Value KvSource::scale(Value slot, Value group, Value extra) {
  if (!extra)
    return scaleIn(cacheBytes, env.p.slotPageSize, slot, group);
  auto op = scf::IfOp::create(env.b, TypeRange{env.b.getF32Type()}, extra,
                              /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(env.b);
    env.b.setInsertionPointToStart(op.thenBlock());
    scf::YieldOp::create(env.b, scaleIn(xCacheBytes, env.p.extraPageSize,
                                        slot, group));
    env.b.setInsertionPointToStart(op.elseBlock());
    scf::YieldOp::create(env.b, scaleIn(cacheBytes, env.p.slotPageSize, slot,
                                        group));
  }
  return op.getResult(0);
}

Value KvSource::scaleOffset(int64_t pageSize, Value tok, Value group) {
  IR &ir = env.ir;
  const KvCacheFormat &f = *env.p.cache;
  // scalesOffset(P, tok) + group * scaleBytes
  Value inRecord = ir.mul(group, ir.idx(f.scaleBytes()));
  return f.scalesInRow
             ? ir.add(ir.mul(tok, ir.idx(f.rowBytes)),
                      ir.add(ir.idx(f.scaleOffset), inRecord))
             : ir.add(ir.mul(tok, ir.idx(f.scaleStride)),
                      ir.add(ir.idx(pageSize * f.rowBytes + f.scaleOffset),
                             inRecord));
}

SmallVector<Value, 3> KvSource::scaleIndices(int64_t pageSize, Value s,
                                             Value group) {
  IR &ir = env.ir;
  Value ps = ir.idx(pageSize);
  Value at = scaleOffset(pageSize, ir.remu(s, ps), group);
  Value rb = ir.idx(env.p.cache->rowBytes);
  return {ir.divu(s, ps), ir.divu(at, rb), ir.remu(at, rb)};
}

Value KvSource::ue8m0(Value e) {
  IR &ir = env.ir;
  Value bits =
      ir.select(ir.eq(e, ir.i32(0)), ir.i32(0x00400000),
                ir.select(ir.eq(e, ir.i32(255)), ir.i32(0x7fc00000),
                          arith::ShLIOp::create(env.b, e, ir.i32(23))));
  return arith::BitcastOp::create(env.b, env.b.getF32Type(), bits);
}

bool KvSource::scaleRecordWhole() const {
  const KvCacheFormat &f = *env.p.cache;
  return f.scale == KvCacheFormat::Scale::UE8M0 && !f.scalesInRow &&
         f.scaleStride == 8 && f.scaleOffset % 8 == 0 && f.rowBytes % 8 == 0 &&
         f.quantDims / f.scaleGroup <= 8;
}

Value KvSource::scaleRecord(Value slot) {
  IR &ir = env.ir;
  ImplicitLocOpBuilder &b = env.b;
  const AttentionProblemShape &p = env.p;
  Value bytes = vector::LoadOp::create(
      b, VectorType::get({8}, b.getI8Type()), cacheBytes,
      scaleIndices(p.slotPageSize, ir.toIndex(slot), ir.idx(0)),
      /*nontemporal=*/false, llvm::MaybeAlign(8));
  Value word =
      vector::BitCastOp::create(b, VectorType::get({1}, b.getI64Type()), bytes);
  return vector::ExtractOp::create(b, word, ArrayRef<int64_t>{0});
}

Value KvSource::scaleFromRecord(Value record, Value group) {
  IR &ir = env.ir;
  ImplicitLocOpBuilder &b = env.b;
  Value shift =
      arith::IndexCastOp::create(b, b.getI64Type(), ir.mul(group, ir.idx(8)));
  Value byte = arith::TruncIOp::create(
      b, b.getI32Type(), arith::ShRUIOp::create(b, record, shift));
  return ue8m0(arith::AndIOp::create(b, byte, ir.i32(0xff)));
}

Value KvSource::scaleRecordAddress(Value slot) {
  IR &ir = env.ir;
  const AttentionProblemShape &p = env.p;
  auto type = cast<MemRefType>(cacheBytes.getType());
  // The bytes as (pages, rows a page, rowBytes): a page's stride.
  assert(!type.isDynamicDim(1) && !type.isDynamicDim(2) &&
         "a cache's pages have a static size");
  int64_t pageBytes = type.getDimSize(1) * type.getDimSize(2);
  Value s = ir.toIndex(slot);
  Value ps = ir.idx(p.slotPageSize);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(env.b, cacheBytes);
  return ir.add(ir.add(base, ir.mul(ir.divu(s, ps), ir.idx(pageBytes))),
                scaleOffset(p.slotPageSize, ir.remu(s, ps), ir.idx(0)));
}

Value KvSource::scaleIn(Value bytesOf, int64_t pageSize, Value slot,
                        Value group) {
  IR &ir = env.ir;
  ImplicitLocOpBuilder &b = env.b;
  const AttentionProblemShape &p = env.p;
  const KvCacheFormat &f = *p.cache;
  // A missing key (slot -1): scale 0 (its raw bytes are zeros anyway).
  Value valid = ir.cmp(arith::CmpIPredicate::sge, slot, ir.i32(0));
  SmallVector<Value, 3> w = scaleIndices(
      pageSize, ir.toIndex(ir.select(valid, slot, ir.i32(0))), group);
  Type f32 = b.getF32Type();
  Value value;
  if (f.scale == KvCacheFormat::Scale::UE8M0) {
    Value e8 = memref::LoadOp::create(b, bytesOf, w);
    value = ue8m0(arith::ExtUIOp::create(b, b.getI32Type(), e8));
  } else {
    auto v4 = VectorType::get({4}, b.getI8Type());
    Value bytes = vector::LoadOp::create(b, v4, bytesOf, w);
    Value word = vector::BitCastOp::create(b, VectorType::get({1}, f32), bytes);
    value = vector::ExtractOp::create(b, word, ArrayRef<int64_t>{0});
  }
  return ir.select(valid, value, ir.f32(0.0));
}
