//===- SM100Ops.cpp - sm100 operation verifiers ----------------------------===//
//
// Each rule checked here is numbered in the op's description in
// SM100Ops.td and broken by one case in test/Dialect/SM100/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::sm100;

#define GET_OP_CLASSES
#include "nvfp4/Dialect/SM100/IR/SM100Ops.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

/// True if `op` runs on one elected thread: inside `sm100.elect_one`, or
/// inside the `scf.if` on `nvvm.elect.sync` that sm100-lower-warp-roles
/// turns it into.
static bool isInsideElectedThread(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<ElectOneOp>(parent))
      return true;
    if (auto ifOp = dyn_cast<scf::IfOp>(parent))
      if (ifOp.getCondition().getDefiningOp<NVVM::ElectSyncOp>() &&
          ifOp.getThenRegion().isAncestor(op->getParentRegion()))
        return true;
  }
  return false;
}

/// Warp-collective (`.sync.aligned`) instructions hang when only one thread
/// of the warp reaches them.
static LogicalResult verifyWarpCollective(Operation *op) {
  if (isInsideElectedThread(op))
    return op->emitOpError(
        "is warp-collective and must not be inside 'sm100.elect_one'");
  return success();
}

/// tcgen05.mma and tcgen05.commit are issued by a single thread.
static LogicalResult verifySingleThreadIssue(Operation *op) {
  if (!isInsideElectedThread(op))
    return op->emitOpError("expected to be inside 'sm100.elect_one' (it is "
                           "issued by a single thread)");
  return success();
}

/// Single-issuer operations inside a role: a role of several warps would
/// issue them once per warp.
static LogicalResult verifyOneWarpRole(Operation *op) {
  if (auto role = op->getParentOfType<RoleOp>())
    if (role.getNumWarps() != 1)
      return op->emitOpError("expected to be issued from a one-warp role, but "
                             "role '")
             << role.getRoleName() << "' has " << role.getNumWarps()
             << " warps";
  return success();
}

static LogicalResult verifyCtaGroup(Operation *op, int64_t ctaGroup) {
  if (ctaGroup != 1 && ctaGroup != 2)
    return op->emitOpError("expected cta_group 1 or 2, got ") << ctaGroup;
  return success();
}

static LogicalResult verifyAllocColumns(Operation *op, int64_t columns) {
  if (std::optional<std::string> error = tmem::verifyAllocColumns(columns))
    return op->emitOpError(*error);
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

/// The slot holds one 32-bit TMEM address.
static LogicalResult verifySlot(Operation *op, MemRefType slot) {
  if (slot.hasStaticShape() && slot.getNumElements() < 1)
    return op->emitOpError("expected a slot with room for one i32, got ")
           << slot;
  return success();
}

LogicalResult TmemBaseOp::verify() { return verifySlot(*this, getSlot().getType()); }

LogicalResult TmemAllocOp::verify() {
  if (failed(verifySlot(*this, getSlot().getType())))
    return failure();
  if (failed(verifyAllocColumns(*this, getColumns())) ||
      failed(verifyCtaGroup(*this, getCtaGroup())) ||
      failed(verifyWarpCollective(*this)))
    return failure();
  return verifyOneWarpRole(*this);
}

LogicalResult TmemDeallocOp::verify() {
  if (failed(verifyAllocColumns(*this, getColumns())) ||
      failed(verifyCtaGroup(*this, getCtaGroup())))
    return failure();
  int64_t needed = getTmem().getType().getNumColumns();
  if (getColumns() < needed)
    return emitOpError("expected columns to cover the ")
           << needed << " columns of " << getTmem().getType() << ", got "
           << getColumns();
  if (failed(verifyWarpCollective(*this)))
    return failure();
  return verifyOneWarpRole(*this);
}

LogicalResult TmemRelinquishOp::verify() {
  return verifyCtaGroup(*this, getCtaGroup());
}

LogicalResult TmemSliceOp::verify() {
  TmemType source = getSource().getType();
  TmemType result = getResult().getType();
  // A graph region can make a slice (transitively) its own source.
  llvm::SmallPtrSet<Operation *, 8> seen;
  Value v = getSource();
  while (auto slice = v.getDefiningOp<TmemSliceOp>()) {
    if (slice == *this || !seen.insert(slice).second)
      return emitOpError("is its own source (a cycle of sm100.tmem_slice)");
    v = slice.getSource();
  }
  int64_t column = static_cast<int32_t>(getColumn());
  if (column < 0 || column + result.getNumColumns() > source.getNumColumns())
    return emitOpError("expected the slice [")
           << column << ", " << column + result.getNumColumns()
           << ") to lie within the " << source.getNumColumns()
           << " columns of the source";
  if (result.getRows() > source.getRows())
    return emitOpError("expected at most ")
           << source.getRows() << " rows, got " << result.getRows();
  return success();
}

/// Rules 1-4 of tcgen05.ld / tcgen05.st.
static LogicalResult verifyLdSt(Operation *op, TmemType tmemType,
                                VectorType regs, Value column,
                                LdStShape shape, int64_t num, bool packed,
                                std::optional<uint32_t> laneBase,
                                std::optional<uint32_t> halfSplitOffsetAttr) {
  if (regs.isScalable())
    return op->emitOpError("expected a fixed-length vector of registers, got ")
           << regs;
  num = static_cast<int32_t>(num);
  std::optional<int64_t> halfSplitOffset;
  if (halfSplitOffsetAttr) {
    halfSplitOffset = static_cast<int32_t>(*halfSplitOffsetAttr);
    if (*halfSplitOffset < 0 || *halfSplitOffset >= tmem::kColumns)
      return op->emitOpError("expected half_split_offset in [0, ")
             << tmem::kColumns << "), got " << *halfSplitOffset;
  }
  // Rule 5.
  bool isSplit = shape == LdStShape::shape_16x32bx2;
  if (isSplit != halfSplitOffset.has_value())
    return op->emitOpError(isSplit ? "expected half_split_offset for "
                                     "shape_16x32bx2"
                                   : "expected no half_split_offset for ")
           << (isSplit ? "" : stringifyLdStShape(shape));
  // Rule 1: legal repetition and register count.
  std::optional<unsigned> expected =
      num > 0 && num <= 128
          ? tmem::registersPerThread(toTMEM(shape), static_cast<unsigned>(num))
          : std::nullopt;
  if (!expected)
    return op->emitOpError("expected a legal repetition for ")
           << stringifyLdStShape(shape)
           << " (a power of two in [1, 128], at most 64 for shape_16x128b "
              "and 32 for shape_16x256b), got x"
           << num;
  if (regs.getNumElements() != *expected)
    return op->emitOpError("expected ")
           << *expected << " registers per thread for "
           << stringifyLdStShape(shape) << " x" << num << ", got " << regs;

  // Rule 2: static column range.
  int64_t covered =
      tmem::shapeColumns(toTMEM(shape), static_cast<unsigned>(num)) *
      (packed ? 2 : 1);
  // The second half of a 16x32bx2 access starts half_split_offset columns on.
  if (isSplit)
    covered = std::max<int64_t>(covered, *halfSplitOffset + covered);
  APInt columnValue;
  int64_t first = 0;
  bool isStatic = !column || matchPattern(column, m_ConstantInt(&columnValue));
  if (column && isStatic) {
    if (columnValue.getSignificantBits() > 32)
      return op->emitOpError("expected a column in [0, ")
             << tmemType.getNumColumns() << "), got "
             << llvm::toString(columnValue, 10, /*Signed=*/true);
    first = columnValue.getSExtValue();
  }
  if (isStatic && (first < 0 || first + covered > tmemType.getNumColumns()))
    return op->emitOpError("expected the accessed columns [")
           << first << ", " << first + covered << ") to lie within the "
           << tmemType.getNumColumns() << " columns of " << tmemType;

  // Rule 3: lane quadrant.
  if (laneBase) {
    int64_t lanes = tmem::shapeLanes(toTMEM(shape));
    // The attribute is an i32: read it signed so that negative values fail.
    int64_t lo = static_cast<int32_t>(*laneBase), hi = lo + lanes;
    if (lo < 0 || hi > tmem::kLanes ||
        lo / tmem::kLanesPerWarp != (hi - 1) / tmem::kLanesPerWarp)
      return op->emitOpError("expected lanes [")
             << lo << ", " << hi << ") to lie in one 32-lane quadrant";
    if (auto role = op->getParentOfType<RoleOp>()) {
      for (unsigned w = role.getBegin(); w < role.getEnd(); ++w) {
        int64_t q = tmem::laneQuadrantBase(w);
        if (lo < q || hi > q + tmem::kLanesPerWarp)
          return op->emitOpError("accesses lanes [")
                 << lo << ", " << hi << ") but warp " << w << " of role '"
                 << role.getRoleName() << "' may only access lanes [" << q
                 << ", " << q + tmem::kLanesPerWarp << ")";
      }
    }
  }
  // Rule 4.
  return verifyWarpCollective(op);
}

LogicalResult TmemLoadOp::verify() {
  return verifyLdSt(*this, getTmem().getType(), getResult().getType(),
                    getColumn(), getShape(), getNum(), getPack(),
                    getLaneBase(), getHalfSplitOffset());
}

LogicalResult TmemStoreOp::verify() {
  return verifyLdSt(*this, getTmem().getType(), getValue().getType(),
                    getColumn(), getShape(), getNum(), getUnpack(),
                    getLaneBase(), getHalfSplitOffset());
}

LogicalResult WaitOp::verify() { return verifyWarpCollective(*this); }

//===----------------------------------------------------------------------===//
// UMMA
//===----------------------------------------------------------------------===//

LogicalResult UmmaDescOp::verify() {
  MemRefType type = getBuffer().getType();
  if (!type.getElementType().isIntOrFloat())
    return emitOpError("expected a buffer of integer or float elements, got ")
           << type;
  if (static_cast<int64_t>(getIndices().size()) != type.getRank())
    return emitOpError("expected ")
           << type.getRank() << " indices for " << type << ", got "
           << getIndices().size();
  SmemLayoutAttr layout = getLayout();
  int64_t slices = layout.getNumKSlices();
  int64_t kSlice = static_cast<int32_t>(getKSlice());
  if (kSlice < 0 || kSlice >= slices)
    return emitOpError("expected k_slice in [0, ")
           << slices << ") for a tile of k = " << layout.getK() << " "
           << layout.getElement() << " (" << layout.getKPerMma()
           << " elements per MMA), got " << kSlice;
  if (type.getRank() == 2 && type.hasStaticShape() &&
      type.getElementType() == layout.getElement()) {
    SmallVector<int64_t, 2> expected =
        layout.getMajor() == Major::k
            ? SmallVector<int64_t, 2>{layout.getMn(), layout.getK()}
            : SmallVector<int64_t, 2>{layout.getK(), layout.getMn()};
    if (type.getShape() != ArrayRef<int64_t>(expected))
      return emitOpError("expected a buffer of shape ")
             << expected[0] << "x" << expected[1] << " for a "
             << stringifyMajor(layout.getMajor()) << "-major layout, got "
             << type;
  }
  return success();
}

LogicalResult MmaOp::verify() {
  IDescAttr idesc = getIdesc();
  // Rule 5.
  if (umma::isBlockScaled(toUMMA(idesc.getKind())))
    return emitOpError("expected a dense kind (f16, tf32, f8f6f4, i8); the "
                       "block-scaled kind ")
           << stringifyMmaKind(idesc.getKind())
           << " needs scale-factor operands, which sm100.mma does not take";
  int64_t ctaGroup = idesc.getCtaGroup();
  // Rule 4.
  if (ctaGroup == 2 && idesc.getM() != 256)
    return emitOpError("supports cta_group 2 only with M = 256, got M = ")
           << idesc.getM();
  // Rule 1.
  int64_t rowsPerCta = idesc.getM() / ctaGroup;
  TmemLayout accLayout = rowsPerCta == 64 ? TmemLayout::acc_m64
                                          : TmemLayout::acc;
  TmemType d = getD().getType();
  if (d.getLayout() != accLayout || d.getRows() != rowsPerCta ||
      d.getCols() != idesc.getN() || d.getElementType() != idesc.getD())
    return emitOpError("expected the accumulator to be ")
           << TmemType::get(getContext(), rowsPerCta, idesc.getN(),
                            idesc.getD(), accLayout)
           << " for " << idesc << ", got " << d;
  // Rule 2.
  if (auto a = dyn_cast<TmemType>(getA().getType())) {
    if (a.getLayout() != TmemLayout::operand_a || a.getRows() != rowsPerCta ||
        a.getElementType() != idesc.getA() || a.getCols() < idesc.getK())
      return emitOpError("expected A in TMEM to be ")
             << TmemType::get(getContext(), rowsPerCta, idesc.getK(),
                              idesc.getA(), TmemLayout::operand_a)
             << " or wider (K >= " << idesc.getK() << "), got " << a;
    if (idesc.getAMajor() != Major::k)
      return emitOpError("expected a K-major A when A is in tensor memory");
  }
  // Rule 3.
  if (failed(verifySingleThreadIssue(*this)))
    return failure();
  return verifyOneWarpRole(*this);
}

LogicalResult MmaBlockScaleOp::verify() {
  IDescAttr idesc = getIdesc();
  MmaKind kind = idesc.getKind();
  // Rule 1.
  if (!umma::isBlockScaled(toUMMA(kind)))
    return emitOpError("expected a block-scaled kind (mxf8f6f4, mxf4, "
                       "mxf4nvf4), got ")
           << stringifyMmaKind(kind) << "; dense kinds use sm100.mma";
  int64_t ctaGroup = idesc.getCtaGroup();
  // Rule 7.
  if (ctaGroup == 2 && idesc.getM() != 256)
    return emitOpError("supports cta_group 2 only with M = 256, got M = ")
           << idesc.getM();
  // Rule 2.
  int64_t rowsPerCta = idesc.getM() / ctaGroup;
  TmemType d = getD().getType();
  auto f32 = Float32Type::get(getContext());
  if (d.getLayout() != TmemLayout::acc || d.getRows() != rowsPerCta ||
      d.getCols() != idesc.getN() || !d.getElementType().isF32())
    return emitOpError("expected the accumulator to be ")
           << TmemType::get(getContext(), rowsPerCta, idesc.getN(), f32,
                            TmemLayout::acc)
           << " for " << idesc << ", got " << d;
  // Rules 3 and 4: the IDescAttr verifier (K-major FP4, scale type per
  // kind).
  bool ue4m3 = idesc.getScaleType() == ScaleType::ue4m3;
  // Rule 5.
  Type scaleElem = ue4m3 ? Type(Float8E4M3FNType::get(getContext()))
                         : Type(Float8E8M0FNUType::get(getContext()));
  auto checkScales = [&](TmemType t, StringRef name,
                         int64_t minColumns) -> LogicalResult {
    if (t.getLayout() != TmemLayout::scales || t.getElementType() != scaleElem ||
        t.getNumColumns() < minColumns)
      return emitOpError("expected ")
             << name << " to be a `scales` matrix of " << scaleElem
             << " at least " << minColumns << " TMEM columns wide ("
             << TmemType::get(getContext(), 128, 4 * minColumns, scaleElem,
                              TmemLayout::scales)
             << " or wider), got " << t;
    return success();
  };
  if (failed(checkScales(getScaleA().getType(), "scale_a", 4)) ||
      failed(checkScales(getScaleB().getType(), "scale_b",
                         (idesc.getN() + 31) / 32)))
    return failure();
  // Rule 6.
  if (failed(verifySingleThreadIssue(*this)))
    return failure();
  return verifyOneWarpRole(*this);
}

LogicalResult TmemCopyOp::verify() {
  // Rule 1.
  int64_t columns = getShape() == CpShape::shape_128x256b ? 8 : 4;
  TmemType dst = getDst().getType();
  if (dst.getRows() != 128 || dst.getNumColumns() < columns)
    return emitOpError("expected a 128-row destination at least ")
           << columns << " TMEM columns wide for " << stringifyCpShape(getShape())
           << ", got " << dst;
  // Rule 3.
  if (failed(verifyCtaGroup(*this, getCtaGroup())))
    return failure();
  // Rule 2.
  if (failed(verifySingleThreadIssue(*this)))
    return failure();
  return verifyOneWarpRole(*this);
}

LogicalResult CommitOp::verify() {
  if (auto group = dyn_cast<nvgpu::MBarrierGroupType>(getBarriers().getType())) {
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(group.getMemorySpace());
    if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
      return emitOpError("expected mbarriers in shared memory "
                         "(#gpu.address_space<workgroup>), got ")
             << group;
    if (group.getNumBarriers() < 1)
      return emitOpError("expected at least one mbarrier, got ") << group;
    APInt index;
    if (matchPattern(getIndex(), m_ConstantInt(&index)) &&
        (index.isNegative() || index.uge(group.getNumBarriers())))
      return emitOpError("expected a barrier index in [0, ")
             << group.getNumBarriers() << "), got "
             << llvm::toString(index, 10, /*Signed=*/true);
  }
  if (failed(verifyCtaGroup(*this, getCtaGroup())) ||
      failed(verifySingleThreadIssue(*this)))
    return failure();
  return verifyOneWarpRole(*this);
}

//===----------------------------------------------------------------------===//
// Warp roles
//===----------------------------------------------------------------------===//

/// setmaxnreg operand range (PTX ISA, Miscellaneous Instructions: setmaxnreg).
static constexpr int64_t kMinRegs = 24;
static constexpr int64_t kMaxRegs = 256;
static constexpr int64_t kWarpsPerWarpgroup = 4;
static constexpr int64_t kThreadsPerWarp = 32;
static constexpr int64_t kMaxWarpsPerCta = 32;
/// 32-bit registers per SM (CUDA C Programming Guide, compute capability 10.0).
static constexpr int64_t kRegisterFile = 65536;

LogicalResult RoleOp::verify() {
  int64_t begin = static_cast<int32_t>(getBegin());
  int64_t end = static_cast<int32_t>(getEnd());
  if (begin < 0 || begin >= end)
    return emitOpError("expected a non-empty warp range [begin, end), got [")
           << begin << ", " << end << ")";
  if (std::optional<uint32_t> regs = getRegs()) {
    if (*regs < kMinRegs || *regs > kMaxRegs || *regs % 8 != 0)
      return emitOpError("expected regs to be a multiple of 8 in [")
             << kMinRegs << ", " << kMaxRegs << "], got " << *regs;
  }
  return success();
}

LogicalResult WarpRolesOp::verify() {
  int64_t numWarps = getNumWarps();
  if (numWarps < 1 || numWarps > kMaxWarpsPerCta)
    return emitOpError("expected num_warps in [1, ")
           << kMaxWarpsPerCta << "], got " << numWarps;
  if (auto func = getOperation()->getParentOfType<gpu::GPUFuncOp>()) {
    if (std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize()) {
      ArrayRef<int32_t> dims = *block;
      int64_t threads = 1;
      for (int32_t d : dims)
        threads *= d;
      if (dims.size() != 3 || dims[1] != 1 || dims[2] != 1 ||
          threads != numWarps * kThreadsPerWarp)
        return emitOpError("expected a one-dimensional block of ")
               << numWarps * kThreadsPerWarp
               << " threads (known_block_size), got [" << dims[0] << ", "
               << (dims.size() > 1 ? dims[1] : 1) << ", "
               << (dims.size() > 2 ? dims[2] : 1) << "]";
    }
  }

  return success();
}

// Runs after the nested roles are verified, so their attributes exist.
LogicalResult WarpRolesOp::verifyRegions() {
  int64_t numWarps = getNumWarps();
  SmallVector<RoleOp> roles;
  for (Operation &op : getBody().front()) {
    auto role = dyn_cast<RoleOp>(op);
    if (!role)
      return op.emitOpError("is not allowed directly in 'sm100.warp_roles' "
                            "(expected only 'sm100.role')");
    roles.push_back(role);
  }
  if (roles.empty())
    return emitOpError("expected at least one 'sm100.role'");

  llvm::StringSet<> names;
  SmallVector<StringRef> owner(numWarps);
  bool anyRegs = false;
  for (RoleOp role : roles) {
    if (!names.insert(role.getRoleName()).second)
      return role.emitOpError("duplicates the role name '")
             << role.getRoleName() << "'";
    if (role.getEnd() > numWarps)
      return role.emitOpError("expected warps within [0, ")
             << numWarps << "), got [" << role.getBegin() << ", "
             << role.getEnd() << ")";
    for (unsigned w = role.getBegin(); w < role.getEnd(); ++w) {
      if (!owner[w].empty())
        return role.emitOpError("overlaps role '")
               << owner[w] << "' at warp " << w;
      owner[w] = role.getRoleName();
    }
    anyRegs |= role.getRegs().has_value();
  }
  if (!anyRegs)
    return success();

  // Rule 3: setmaxnreg is executed by all warps of a warpgroup with one
  // value, so every existing warp of a warpgroup in which any role sets
  // registers belongs to a role that sets the same number.
  SmallVector<RoleOp> roleOfWarp(numWarps);
  for (RoleOp role : roles)
    for (unsigned w = role.getBegin(); w < role.getEnd(); ++w)
      roleOfWarp[w] = role;
  for (RoleOp role : roles) {
    std::optional<uint32_t> regs = role.getRegs();
    if (!regs)
      continue;
    int64_t first = role.getBegin() / kWarpsPerWarpgroup * kWarpsPerWarpgroup;
    int64_t last = std::min<int64_t>(
        numWarps, llvm::divideCeil(role.getEnd(), kWarpsPerWarpgroup) *
                      kWarpsPerWarpgroup);
    for (int64_t w = first; w < last; ++w) {
      RoleOp other = roleOfWarp[w];
      if (!other || other.getRegs() != regs)
        return role.emitOpError("sets regs ")
               << *regs << ", so every warp of its warpgroup must set the same "
               << "(setmaxnreg is warpgroup-wide), but warp " << w << " is in "
               << (other ? "role '" + other.getRoleName().str() + "' with " +
                               (other.getRegs()
                                    ? "regs " + std::to_string(*other.getRegs())
                                    : std::string("no regs"))
                         : std::string("no role"));
    }
  }

  // Rule 5: setmaxnreg needs a launch register cap and a pool to draw from.
  auto maxnregAttr =
      getOperation()->getParentOfType<FunctionOpInterface>()
          ? getOperation()
                ->getParentOfType<FunctionOpInterface>()
                ->getAttrOfType<IntegerAttr>("nvvm.maxnreg")
          : IntegerAttr();
  if (!maxnregAttr)
    return emitOpError("sets role registers, so the enclosing function needs "
                       "'nvvm.maxnreg' (setmaxnreg requires a register cap at "
                       "launch)");
  const APInt &maxnregValue = maxnregAttr.getValue();
  if (maxnregValue.getSignificantBits() > 32 ||
      maxnregValue.getSExtValue() < 1 || maxnregValue.getSExtValue() > 255)
    return emitOpError("expected nvvm.maxnreg in [1, 255], got ")
           << maxnregAttr;
  int64_t maxnreg = maxnregValue.getSExtValue();
  if (maxnreg * kThreadsPerWarp * numWarps > kRegisterFile)
    return emitOpError("expected nvvm.maxnreg x threads to fit the register "
                       "file of ")
           << kRegisterFile << ", got " << maxnreg << " x "
           << numWarps * kThreadsPerWarp;
  int64_t pool = maxnreg * kThreadsPerWarp * numWarps;
  int64_t used = 0;
  for (int64_t w = 0; w < numWarps; ++w)
    used += maxnreg * kThreadsPerWarp;
  for (RoleOp role : roles)
    if (std::optional<uint32_t> regs = role.getRegs())
      used += (static_cast<int64_t>(*regs) - maxnreg) * kThreadsPerWarp *
              role.getNumWarps();
  if (used > pool)
    return emitOpError("role registers exceed the launch pool: roles hold ")
           << used << " registers but maxnreg " << maxnreg << " x "
           << numWarps * kThreadsPerWarp << " threads reserves " << pool;
  return success();
}
