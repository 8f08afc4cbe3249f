//===- Program.h - Decoded, executable form of a kernel ---------*- C++ -*-===//
//
// The decoder (Decoder.cpp) lowers the parsed instructions of a kernel and
// every function it calls into one flat array of XInst, with:
//  - registers as rows of the warp register file (32 lanes x 64 bits each,
//    values kept zero-extended to the register's declared width);
//  - immediates and symbol addresses as rows of a per-kernel constant pool,
//    so every source operand is "a row of 32 values";
//  - special registers (%tid.x, %laneid, ...) as rows filled when a warp is
//    created;
//  - predicates as 32-bit lane masks in a separate file;
//  - labels as instruction indices, call targets as start indices;
//  - variables laid out (shared, local frames, const, param offsets).
//
// Nothing here refers to strings except the diagnostics table; executing an
// XInst never parses or looks anything up by name.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EMULATOR_PROGRAM_H
#define NVFP4_LIB_EMULATOR_PROGRAM_H

#include "nvfp4/Emulator/Machine.h"
#include "nvfp4/Emulator/PTX.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nvfp4::emu {

/// Operand encoding: a register row, a constant-pool row (kConstBit), or
/// kNone. Predicate operands are indices into the predicate file instead.
inline constexpr uint32_t kNone = 0xffffffffu;
inline constexpr uint32_t kConstBit = 0x80000000u;
/// Local memory per thread the emulator accepts (the hardware's limit).
inline constexpr uint64_t kMaxLocalBytes = 512 * 1024;

/// Memory spaces as the executor sees them.
enum class XSpace : uint8_t {
  Generic,
  Global,
  Shared,        ///< shared::cta address
  SharedCluster, ///< shared::cluster address
  Local,         ///< per-thread local memory (also .func params, call args)
  ParamKernel,   ///< the kernel parameter buffer (read-only)
  Const,         ///< the module's constant bank (read-only)
};

/// Executable operations. Operand conventions are in Executor.cpp.
enum class XOp : uint16_t {
  // Control and diagnostics
  Nop,
  GridDepWait, ///< griddepcontrol.wait
  Fence,
  Exit,
  Ret,
  Bra,
  Call,
  Vprintf, ///< call of the extern vprintf (CUDA's device printf)
  Trap,
  NotImplemented,
  Invalid,
  // Moves
  Mov,
  MovPred,
  MovPack,
  MovUnpack,
  ReadClock,
  // Integer
  IAdd,
  ISub,
  IAddCC,
  ISubCC,
  IAddC,
  ISubC,
  IMul,
  IMad,
  IMadCC,
  IMadC,
  IMul24,
  IMad24,
  ISad,
  IDiv,
  IRem,
  IAbs,
  INeg,
  IMin,
  IMax,
  IPopc,
  IClz,
  IBrev,
  IBfind,
  IBfe,
  IBfi,
  IPrmt,
  ILop3,
  IShf,
  IShl,
  IShr,
  IAnd,
  IOr,
  IXor,
  INot,
  ICnot,
  ISzext,
  IBmsk,
  IDp4a,
  IDp2a,
  // Predicates
  PAnd,
  POr,
  PXor,
  PNot,
  // Compare and select
  Setp,
  Set,
  Selp,
  Slct,
  // Floating point (type f32 / f64 / f16 / f16x2 / bf16 / bf16x2)
  FAdd,
  FSub,
  FMul,
  FFma,
  FDiv,
  FRcp,
  FSqrt,
  FRsqrt,
  FMin,
  FMax,
  FAbs,
  FNeg,
  FEx2,
  FLg2,
  FSin,
  FCos,
  FTanh,
  FCopysign,
  FTestp,
  Cvt,
  // Memory
  Ld,
  St,
  Atom,
  Cvta,
  Mapa, ///< mapa: the address of the same location in CTA rank b
  Isspacep,
  // Warp
  Shfl,
  Vote,
  Elect,
  Activemask,
  BarWarpSync,
  Match,
  Redux,
  // Synchronization
  BarSync,
  BarArrive,
  BarRed,
  ClusterArrive,
  ClusterWait,
  Setmaxnreg,
  // mbarrier (operand conventions in Executor.cpp, "mbarrier objects")
  MbarInit,
  MbarArrive,
  MbarExpectTx,
  MbarCompleteTx,
  MbarTestWait,
  MbarTryWait,
  MbarInval,
  MbarPendingCount,
  // TMA (Executor.cpp, "TMA")
  TmemAlloc,      ///< tcgen05.alloc: src[0] shared addr, src[1] ncols
  TmemDealloc,    ///< tcgen05.dealloc: src[0] taddr, src[1] ncols
  TmemRelinquish, ///< tcgen05.relinquish_alloc_permit
  TmemLd,    ///< tcgen05.ld: sub shape, sub2 pack, target num, list regs+split
  TmemSt,    ///< tcgen05.st: as TmemLd (sub2 unpack)
  TmemWait,  ///< tcgen05.wait::ld / ::st (sub 0 ld, 1 st)
  TmemFence, ///< tcgen05.fence::*
  /// tcgen05.mma (Mma.cpp): src[0] D address, src[1] A descriptor or A
  /// address (sub2 & XM_ATmem), src[2] B descriptor, src[3] idesc; target the
  /// enable-input-d predicate (negated when sub2 & XM_NegEnable); sub the
  /// umma::MmaKind; vec the elements per scale factor (block-scaled kinds);
  /// imm the D address offset; lists[listBegin..+7): A offset, SFA address
  /// and offset, SFB address and offset, scale-input-d, zero-column mask
  /// descriptor (constant rows or registers; .ws only, with XM_ZeroColMask),
  /// then listCount disable-output-lane registers. sub2 & XM_Ws: .ws.
  TmemMma,
  /// tcgen05.commit (Mma.cpp): src[0] mbarrier (shared::cluster, or
  /// generic when space is Generic), src[1] CTA mask; sub XT_* flags.
  TmemCommit,
  /// tcgen05.cp (Mma.cpp): src[0] TMEM address, src[1] source descriptor;
  /// sub the XCpShape, sub2 XT_CtaGroup2 | XCpSub; imm the address offset.
  TmemCp,
  /// tcgen05.shift.down (Mma.cpp): src[0] TMEM address; sub2 XT_CtaGroup2.
  TmemShift,
  TmaLoad,     ///< cp.async.bulk.tensor global -> shared::cluster
  TmaPrefetch, ///< prefetch.tensormap / cp.async.bulk.prefetch.tensor
  Prefetch,    ///< prefetch{.global}.L1/.L2 [a]: the address is checked
  /// cp.async.bulk.tensor shared::cta -> global (.bulk_group, Tma.cpp):
  /// src[0] the shared::cta source, src[1] the tensor-map address; imm the
  /// source offset; lists: the coordinates, then the tensor map's address
  /// offset as a constant. Completes like a BulkCopy to global memory.
  TmaStore,
  /// cp.async.bulk (Tma.cpp): sub XBulkDir, sub2 XT_Multicast; src[0] dst,
  /// src[1] src, src[2] size, src[3] mbarrier; imm the dst offset; lists:
  /// constant rows of the src and mbarrier offsets, then the CTA mask.
  BulkCopy,
  /// st.async.shared::cluster.mbarrier::complete_tx::bytes (Tma.cpp):
  /// src[0] the destination, src[1] the value (vec 1), src[2] the
  /// mbarrier; imm the destination offset; lists: the value's registers
  /// (vec > 1), then a constant row of the mbarrier offset.
  StAsync,
  BulkCommit, ///< cp.async.bulk.commit_group
  BulkWait,   ///< cp.async.bulk.wait_group{.read} N (imm N)
  /// cp.async.{ca,cg}.shared{::cta}.global [dst], [src], size (Tma.cpp):
  /// src[0] dst (imm its offset), src[1] src, list[0] the source offset,
  /// sub the size (4, 8 or 16 bytes).
  AsyncCopy,
  AsyncCommit, ///< cp.async.commit_group
  /// cp.async.wait_group N (imm N) / cp.async.wait_all (sub 1: commits
  /// first, imm 0).
  AsyncWait,
  /// wgmma.mma_async (Wgmma.cpp): type the D type (F32 / F16), type2 the A
  /// type, sub the B type (a ptx::Type), sub2 XW_* flags, imm N; src[1] the
  /// A descriptor (unless XW_ARegs), src[2] the B descriptor; target the
  /// scale-d predicate; lists[listBegin ..+listCount] the D registers, then
  /// (XW_ARegs) the 4 A-fragment registers.
  WgmmaMma,
  WgmmaFence,  ///< wgmma.fence.sync.aligned
  WgmmaCommit, ///< wgmma.commit_group.sync.aligned
  WgmmaWait,   ///< wgmma.wait_group.sync.aligned N (imm N)
};

/// XInst::sub2 bits of WgmmaMma.
enum XWgmmaSub : uint8_t {
  XW_ARegs = 1 << 0,     ///< A from the register fragment
  XW_NegScaleD = 1 << 1, ///< scale-d is !%p
  XW_NegA = 1 << 2,      ///< imm-scale-a = -1
  XW_NegB = 1 << 3,      ///< imm-scale-b = -1
  XW_TransA = 1 << 4,    ///< imm-trans-a = 1 (A is M-major)
  XW_TransB = 1 << 5,    ///< imm-trans-b = 1 (B is N-major)
};

/// XInst::sub of TmemCp: rows x bits and how rows map to lanes.
enum XCpShape : uint8_t {
  XC_128x256b,       ///< row r -> lane r, 8 columns
  XC_128x128b,       ///< row r -> lane r, 4 columns
  XC_64x128b_02_13,  ///< rows 0-31 -> subpartitions 0, 2; 32-63 -> 1, 3
  XC_64x128b_01_23,  ///< rows 0-31 -> subpartitions 0, 1; 32-63 -> 2, 3
  XC_32x128b_warpx4, ///< rows 0-31 -> every subpartition
  XC_4x256b,         ///< row r -> lane 32r + lane(taddr), 8 columns
};

/// XInst::sub2 bits of TmemCp besides XT_CtaGroup2: decompression.
enum XCpSub : uint8_t {
  XCP_B6x16P32 = 1 << 2, ///< .b8x16.b6x16_p32
  XCP_B4x16P64 = 1 << 3, ///< .b8x16.b4x16_p64
};

/// XInst::sub of BulkCopy.
enum XBulkDir : uint8_t {
  XB_GlobalToShared = 0,  ///< .shared::cta/.shared::cluster.global
  XB_SharedToCluster = 1, ///< .shared::cluster.shared::cta
  XB_SharedToGlobal = 2,  ///< .global.shared::cta.bulk_group
};

/// XInst::sub bits of TmaLoad.
enum XTmaSub : uint8_t {
  XT_Multicast = 1 << 0,   ///< .multicast::cluster: src[3] is the CTA mask
  XT_CtaGroup2 = 1 << 1,   ///< .cta_group::2
  XM_NegEnable = 1 << 2,   ///< tcgen05.mma: enable-input-d is !%p
  XM_ATmem = 1 << 3,       ///< tcgen05.mma: A is in tensor memory
  XM_Ws = 1 << 4,          ///< tcgen05.mma.ws
  XM_ZeroColMask = 1 << 5, ///< tcgen05.mma.ws with a zero-column mask
  /// TmaLoad .tile::gather4: vec is 2, listCount 5 coordinates {column,
  /// row0 .. row3}.
  XT_Gather4 = 1 << 6,
};

/// XInst::sub bits of MbarArrive; XInst::sub of the waits (parity form).
enum XMbarSub : uint8_t {
  XM_ExpectTx = 1 << 0,   ///< arrive.expect_tx: src[1] is the tx-count
  XM_Drop = 1 << 1,       ///< arrive_drop
  XM_NoComplete = 1 << 2, ///< .noComplete
  XM_Parity = 1 << 3,     ///< test_wait / try_wait .parity
};

/// Flags in XInst::flags.
enum XFlag : uint16_t {
  XF_Ftz = 1 << 0,
  XF_Sat = 1 << 1,
  XF_SatFinite = 1 << 2,
  XF_Relu = 1 << 3,
  XF_Aligned = 1 << 4, ///< .sync.aligned / bar.sync: warp must be converged
  XF_NaN = 1 << 5,     ///< min/max .NaN
  XF_XorSign = 1 << 6, ///< min/max .xorsign.abs
  XF_Abs = 1 << 7,     ///< min/max .abs
  XF_Approx = 1 << 8,
  XF_Signed = 1 << 9,   ///< source interpretation is signed
  XF_HasPair = 1 << 10, ///< second destination (predicate) present
  XF_Noftz = 1 << 11,
  XF_Collective = 1 << 12, ///< waits for the lanes of a member mask
};

/// Sub-operations of XInst::sub.
enum XSub : uint8_t {
  // mul / mad
  XS_Lo = 0,
  XS_Hi = 1,
  XS_Wide = 2,
  // comparisons (setp / set)
  XS_Eq = 0,
  XS_Ne,
  XS_Lt,
  XS_Le,
  XS_Gt,
  XS_Ge,
  XS_Equ,
  XS_Neu,
  XS_Ltu,
  XS_Leu,
  XS_Gtu,
  XS_Geu,
  XS_Num,
  XS_Nan,
  // boolean combination (setp sub2, bar.red, lop3 predicate)
  XB_None = 0,
  XB_And,
  XB_Or,
  XB_Xor,
  XB_Popc,
};

/// Atomic operations (XInst::sub for Atom / Redux).
enum XAtomOp : uint8_t {
  XA_Add,
  XA_Min,
  XA_Max,
  XA_Inc,
  XA_Dec,
  XA_And,
  XA_Or,
  XA_Xor,
  XA_Exch,
  XA_Cas,
};

/// Rounding of an XInst (XInst::rnd).
enum XRound : uint8_t {
  XR_None,
  XR_Rn,
  XR_Rna,
  XR_Rz,
  XR_Rm,
  XR_Rp,
  XR_Rni,
  XR_Rzi,
  XR_Rmi,
  XR_Rpi,
};

/// One decoded instruction.
struct XInst {
  XOp op = XOp::Invalid;
  ptx::Type type = ptx::Type::None;  ///< operation type (cvt: destination)
  ptx::Type type2 = ptx::Type::None; ///< cvt source type, setp/set source
  uint8_t sub = 0;
  uint8_t sub2 = 0;
  uint8_t rnd = XR_None;
  XSpace space = XSpace::Generic;
  uint8_t vec = 1;
  uint8_t srcNeg = 0;      ///< bit i: predicate source i is negated
  uint8_t maskSlot = 0xff; ///< collectives: src slot of the member mask
  uint16_t flags = 0;
  int32_t guard = -1; ///< predicate index, or -1
  bool guardNeg = false;
  // Destination write: result truncated to dstBits, then sign-extended to
  // the register width when dstSextShift != 0, else zero-extended.
  uint8_t dstSextShift = 0;
  uint64_t dstTypeMask = ~uint64_t(0);
  uint64_t dstRegMask = ~uint64_t(0);
  uint32_t dst = kNone;  ///< register row, or predicate index
  uint32_t dst2 = kNone; ///< second destination (predicate index)
  uint32_t src[4] = {kNone, kNone, kNone, kNone};
  int64_t imm = 0;     ///< address offset, LUT, shift amount, ...
  uint32_t target = 0; ///< branch / call target pc
  uint32_t listBegin = 0, listCount = 0; ///< into Program::lists
  uint32_t line = 0;                     ///< PTX line
  uint32_t msg = 0; ///< NotImplemented / Invalid: Program::messages
  const ptx::Instruction *inst = nullptr;
};

/// How a call site copies its arguments and results (Program::calls).
struct CallSite {
  uint32_t callee = 0;          ///< index into Program::functions
  std::vector<uint32_t> argSrc; ///< local-memory offsets in the caller
  std::vector<uint32_t> argDst; ///< formal parameter offsets (callee)
  std::vector<uint32_t> argBytes;
  std::vector<uint32_t> retSrc; ///< callee return slots
  std::vector<uint32_t> retDst; ///< caller variables
  std::vector<uint32_t> retBytes;
};

/// A function laid out in the program.
struct XFunction {
  const ptx::Function *fn = nullptr;
  uint32_t start = 0;       ///< first pc
  uint32_t end = 0;         ///< one past the last pc
  uint32_t frameOffset = 0; ///< static local-memory frame
  uint32_t frameBytes = 0;
  uint32_t retPcRow = kNone; ///< row holding each lane's return pc
};

/// A special register row to fill at warp creation.
struct SpecialRow {
  uint32_t row;
  ptx::SpecialReg reg;
  uint8_t comp;
};

/// The executable form of one kernel and its callees.
class Program {
public:
  std::shared_ptr<const ptx::Module> module;
  std::vector<XInst> code;
  std::vector<uint32_t> lists; ///< encoded operands of vector operands
  std::vector<std::string> messages;
  std::vector<uint64_t> constPool; ///< 32 copies of each constant
  /// Constant rows holding the address of a .shared variable: the executor
  /// adds the executing CTA's rank << kClusterRankShift to them (a shared
  /// address names its CTA, as on hardware).
  std::vector<uint32_t> sharedSymbolRows;
  std::vector<CallSite> calls;
  std::vector<XFunction> functions; ///< [0] is the kernel
  std::vector<SpecialRow> specials;
  uint32_t numRows = 0;
  uint32_t numPreds = 0;
  uint32_t predFalse = 0, predTrue = 0; ///< constant predicate slots
  uint32_t ccRow = kNone;               ///< carry flag (add.cc / addc)
  uint32_t staticShared = 0;
  uint32_t externSharedOffset = 0; ///< where extern .shared arrays start
  uint32_t localBytes = 0;
  const LoadedModule *loaded = nullptr;
  /// Set when the kernel cannot be launched (too much shared or local
  /// memory); launch() reports it.
  std::string layoutError;
  const std::vector<uint8_t> *constData = nullptr;

  /// Row pointer of an encoded operand in a warp's register file.
  const uint64_t *constRow(uint32_t enc) const {
    return constPool.data() + size_t(enc & ~kConstBit) * 32;
  }
};

/// Decodes every kernel of `module` into `out` (one Kernel per .entry).
/// Allocates global variables in `mem`.
Error decodeModule(std::shared_ptr<const ptx::Module> module,
                   Machine::GlobalMemory &mem, LoadedModule &out,
                   std::vector<std::unique_ptr<Kernel>> &kernels);

} // namespace nvfp4::emu

#endif // NVFP4_LIB_EMULATOR_PROGRAM_H
