//===- PTX.h - In-memory form of a parsed PTX module ------------*- C++ -*-===//
//
// The parser (Parser.h) turns PTX text into these structures once; the
// emulator decodes them into its executable form and never looks at strings
// again while running. Every instruction keeps its opcode and all of its
// modifiers as enumerators (types, rounding, state space, comparison, the
// tcgen05 / mbarrier / bulk-copy qualifiers, ...), and its operands with
// registers, symbols and labels already resolved to indices.
//
// An opcode or a modifier the tables below do not know is kept
// (Opcode::Unknown / ModId::Unknown with its spelling) so that a module still
// parses; the executor reports it by name and line if it is ever executed.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_EMULATOR_PTX_H
#define NVFP4_EMULATOR_PTX_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nvfp4::emu::ptx {

/// A 1-based line and column in the PTX text.
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
};

//===----------------------------------------------------------------------===//
// Scalar and packed types
//===----------------------------------------------------------------------===//

/// How a type's bits are interpreted.
enum class TypeClass : uint8_t { None, Pred, Bits, Unsigned, Signed, Float };

// X(enumerator, spelling without the dot, width in bits, class)
#define NVFP4_PTX_TYPES(X)                                                     \
  X(Pred, "pred", 1, Pred)                                                     \
  X(B1, "b1", 1, Bits)                                                         \
  X(B8, "b8", 8, Bits)                                                         \
  X(B16, "b16", 16, Bits)                                                      \
  X(B32, "b32", 32, Bits)                                                      \
  X(B64, "b64", 64, Bits)                                                      \
  X(B128, "b128", 128, Bits)                                                   \
  X(U4, "u4", 4, Unsigned)                                                     \
  X(U8, "u8", 8, Unsigned)                                                     \
  X(U16, "u16", 16, Unsigned)                                                  \
  X(U32, "u32", 32, Unsigned)                                                  \
  X(U64, "u64", 64, Unsigned)                                                  \
  X(S4, "s4", 4, Signed)                                                       \
  X(S8, "s8", 8, Signed)                                                       \
  X(S16, "s16", 16, Signed)                                                    \
  X(S32, "s32", 32, Signed)                                                    \
  X(S64, "s64", 64, Signed)                                                    \
  X(U16x2, "u16x2", 32, Unsigned)                                              \
  X(S16x2, "s16x2", 32, Signed)                                                \
  X(F16, "f16", 16, Float)                                                     \
  X(F16x2, "f16x2", 32, Float)                                                 \
  X(BF16, "bf16", 16, Float)                                                   \
  X(BF16x2, "bf16x2", 32, Float)                                               \
  X(TF32, "tf32", 32, Float)                                                   \
  X(F32, "f32", 32, Float)                                                     \
  X(F32x2, "f32x2", 64, Float)                                                 \
  X(F64, "f64", 64, Float)                                                     \
  X(E4M3, "e4m3", 8, Float)                                                    \
  X(E5M2, "e5m2", 8, Float)                                                    \
  X(E2M3, "e2m3", 8, Float)                                                    \
  X(E3M2, "e3m2", 8, Float)                                                    \
  X(E2M1, "e2m1", 4, Float)                                                    \
  X(UE8M0, "ue8m0", 8, Float)                                                  \
  X(UE4M3, "ue4m3", 8, Float)                                                  \
  X(S2F6, "s2f6", 8, Float)                                                    \
  X(E4M3x2, "e4m3x2", 16, Float)                                               \
  X(E5M2x2, "e5m2x2", 16, Float)                                               \
  X(E2M3x2, "e2m3x2", 16, Float)                                               \
  X(E3M2x2, "e3m2x2", 16, Float)                                               \
  X(E2M1x2, "e2m1x2", 8, Float)                                                \
  X(UE8M0x2, "ue8m0x2", 16, Float)                                             \
  X(S2F6x2, "s2f6x2", 16, Float)                                               \
  X(E4M3x4, "e4m3x4", 32, Float)                                               \
  X(E5M2x4, "e5m2x4", 32, Float)                                               \
  X(E2M3x4, "e2m3x4", 32, Float)                                               \
  X(E3M2x4, "e3m2x4", 32, Float)                                               \
  X(E2M1x4, "e2m1x4", 16, Float)

/// A PTX fundamental, packed or alternate-format type.
enum class Type : uint8_t {
  None,
#define NVFP4_X(E, S, W, C) E,
  NVFP4_PTX_TYPES(NVFP4_X)
#undef NVFP4_X
};

/// Width of `t` in bits (1 for .pred, 0 for None).
unsigned typeBits(Type t);
/// Class of `t`.
TypeClass typeClass(Type t);
/// The spelling without the dot ("b32"); "" for None.
const char *typeName(Type t);
/// True for the signed integer types.
inline bool isSigned(Type t) { return typeClass(t) == TypeClass::Signed; }
/// True for floating-point types (including packed and alternate formats).
inline bool isFloat(Type t) { return typeClass(t) == TypeClass::Float; }
/// True for bit-size, signed and unsigned integer types.
inline bool isIntegral(Type t) {
  TypeClass c = typeClass(t);
  return c == TypeClass::Bits || c == TypeClass::Signed ||
         c == TypeClass::Unsigned;
}

//===----------------------------------------------------------------------===//
// State spaces and special registers
//===----------------------------------------------------------------------===//

/// Where a variable lives, or which space an instruction addresses.
enum class Space : uint8_t {
  None,   ///< generic addressing (no space given)
  Reg,    ///< .reg
  Const,  ///< .const
  Global, ///< .global
  Local,  ///< .local
  Param,  ///< .param (kernel params: read-only; function params: per thread)
  Shared, ///< .shared and .shared::cta
  SharedCluster, ///< .shared::cluster
  Tex,           ///< .tex (not supported by the emulator)
};
/// The spelling without the dot ("shared::cluster"); "generic" for None.
const char *spaceName(Space s);

// X(enumerator, name after '%', has .x/.y/.z components)
#define NVFP4_PTX_SPECIAL_REGS(X)                                              \
  X(Tid, "tid", true)                                                          \
  X(Ntid, "ntid", true)                                                        \
  X(Laneid, "laneid", false)                                                   \
  X(Warpid, "warpid", false)                                                   \
  X(Nwarpid, "nwarpid", false)                                                 \
  X(Ctaid, "ctaid", true)                                                      \
  X(Nctaid, "nctaid", true)                                                    \
  X(Smid, "smid", false)                                                       \
  X(Nsmid, "nsmid", false)                                                     \
  X(Gridid, "gridid", false)                                                   \
  X(IsExplicitCluster, "is_explicit_cluster", false)                           \
  X(Clusterid, "clusterid", true)                                              \
  X(Nclusterid, "nclusterid", true)                                            \
  X(ClusterCtaid, "cluster_ctaid", true)                                       \
  X(ClusterNctaid, "cluster_nctaid", true)                                     \
  X(ClusterCtarank, "cluster_ctarank", false)                                  \
  X(ClusterNctarank, "cluster_nctarank", false)                                \
  X(LanemaskEq, "lanemask_eq", false)                                          \
  X(LanemaskLe, "lanemask_le", false)                                          \
  X(LanemaskLt, "lanemask_lt", false)                                          \
  X(LanemaskGe, "lanemask_ge", false)                                          \
  X(LanemaskGt, "lanemask_gt", false)                                          \
  X(Clock, "clock", false)                                                     \
  X(ClockHi, "clock_hi", false)                                                \
  X(Clock64, "clock64", false)                                                 \
  X(Globaltimer, "globaltimer", false)                                         \
  X(GlobaltimerLo, "globaltimer_lo", false)                                    \
  X(GlobaltimerHi, "globaltimer_hi", false)                                    \
  X(DynamicSmemSize, "dynamic_smem_size", false)                               \
  X(TotalSmemSize, "total_smem_size", false)                                   \
  X(AggrSmemSize, "aggr_smem_size", false)

/// A special (read-only, predefined) register such as %tid.
enum class SpecialReg : uint8_t {
#define NVFP4_X(E, S, C) E,
  NVFP4_PTX_SPECIAL_REGS(NVFP4_X)
#undef NVFP4_X
};
/// The name without '%' ("tid").
const char *specialRegName(SpecialReg r);
/// True when the register has .x/.y/.z components.
bool specialRegHasComponents(SpecialReg r);

//===----------------------------------------------------------------------===//
// Opcodes
//===----------------------------------------------------------------------===//

// X(enumerator, dotted spelling). The parser matches the longest dotted
// prefix of a mnemonic against these spellings; for a piece written
// "name::qualifier" (tcgen05.wait::ld) it matches "name" and also records the
// whole piece as a modifier.
#define NVFP4_PTX_OPCODES(X)                                                   \
  X(Abs, "abs")                                                                \
  X(Activemask, "activemask")                                                  \
  X(Add, "add")                                                                \
  X(AddC, "addc")                                                              \
  X(Alloca, "alloca")                                                          \
  X(And, "and")                                                                \
  X(Applypriority, "applypriority")                                            \
  X(Atom, "atom")                                                              \
  X(Bar, "bar")                                                                \
  X(BarWarpSync, "bar.warp.sync")                                              \
  X(Barrier, "barrier")                                                        \
  X(BarrierCluster, "barrier.cluster")                                         \
  X(Bfe, "bfe")                                                                \
  X(Bfi, "bfi")                                                                \
  X(Bfind, "bfind")                                                            \
  X(Bmsk, "bmsk")                                                              \
  X(Bra, "bra")                                                                \
  X(Brev, "brev")                                                              \
  X(Brkpt, "brkpt")                                                            \
  X(Brx, "brx")                                                                \
  X(Call, "call")                                                              \
  X(Clusterlaunchcontrol, "clusterlaunchcontrol")                              \
  X(Clz, "clz")                                                                \
  X(Cnot, "cnot")                                                              \
  X(Copysign, "copysign")                                                      \
  X(Cos, "cos")                                                                \
  X(CpAsync, "cp.async")                                                       \
  X(CpAsyncCommitGroup, "cp.async.commit_group")                               \
  X(CpAsyncWaitGroup, "cp.async.wait_group")                                   \
  X(CpAsyncWaitAll, "cp.async.wait_all")                                       \
  X(CpAsyncMbarrierArrive, "cp.async.mbarrier.arrive")                         \
  X(CpAsyncBulk, "cp.async.bulk")                                              \
  X(CpAsyncBulkTensor, "cp.async.bulk.tensor")                                 \
  X(CpAsyncBulkCommitGroup, "cp.async.bulk.commit_group")                      \
  X(CpAsyncBulkWaitGroup, "cp.async.bulk.wait_group")                          \
  X(CpAsyncBulkPrefetch, "cp.async.bulk.prefetch")                             \
  X(CpAsyncBulkPrefetchTensor, "cp.async.bulk.prefetch.tensor")                \
  X(CpReduceAsyncBulk, "cp.reduce.async.bulk")                                 \
  X(CpReduceAsyncBulkTensor, "cp.reduce.async.bulk.tensor")                    \
  X(Createpolicy, "createpolicy")                                              \
  X(Cvt, "cvt")                                                                \
  X(CvtPack, "cvt.pack")                                                       \
  X(Cvta, "cvta")                                                              \
  X(Discard, "discard")                                                        \
  X(Div, "div")                                                                \
  X(Dp2a, "dp2a")                                                              \
  X(Dp4a, "dp4a")                                                              \
  X(Elect, "elect")                                                            \
  X(Ex2, "ex2")                                                                \
  X(Exit, "exit")                                                              \
  X(Fence, "fence")                                                            \
  X(Fma, "fma")                                                                \
  X(Fns, "fns")                                                                \
  X(Getctarank, "getctarank")                                                  \
  X(Griddepcontrol, "griddepcontrol")                                          \
  X(Isspacep, "isspacep")                                                      \
  X(Ld, "ld")                                                                  \
  X(Ldmatrix, "ldmatrix")                                                      \
  X(Ldu, "ldu")                                                                \
  X(Lg2, "lg2")                                                                \
  X(Lop3, "lop3")                                                              \
  X(Mad, "mad")                                                                \
  X(Mad24, "mad24")                                                            \
  X(MadC, "madc")                                                              \
  X(Mapa, "mapa")                                                              \
  X(Match, "match")                                                            \
  X(Max, "max")                                                                \
  X(MbarrierInit, "mbarrier.init")                                             \
  X(MbarrierArrive, "mbarrier.arrive")                                         \
  X(MbarrierArriveDrop, "mbarrier.arrive_drop")                                \
  X(MbarrierExpectTx, "mbarrier.expect_tx")                                    \
  X(MbarrierCompleteTx, "mbarrier.complete_tx")                                \
  X(MbarrierTestWait, "mbarrier.test_wait")                                    \
  X(MbarrierTryWait, "mbarrier.try_wait")                                      \
  X(MbarrierPendingCount, "mbarrier.pending_count")                            \
  X(MbarrierInval, "mbarrier.inval")                                           \
  X(Membar, "membar")                                                          \
  X(Min, "min")                                                                \
  X(Mma, "mma")                                                                \
  X(Mov, "mov")                                                                \
  X(Movmatrix, "movmatrix")                                                    \
  X(Mul, "mul")                                                                \
  X(Mul24, "mul24")                                                            \
  X(Multimem, "multimem")                                                      \
  X(Nanosleep, "nanosleep")                                                    \
  X(Neg, "neg")                                                                \
  X(Not, "not")                                                                \
  X(Or, "or")                                                                  \
  X(Pmevent, "pmevent")                                                        \
  X(Popc, "popc")                                                              \
  X(Prefetch, "prefetch")                                                      \
  X(Prefetchu, "prefetchu")                                                    \
  X(Prmt, "prmt")                                                              \
  X(Rcp, "rcp")                                                                \
  X(Red, "red")                                                                \
  X(RedAsync, "red.async")                                                     \
  X(Redux, "redux")                                                            \
  X(Rem, "rem")                                                                \
  X(Ret, "ret")                                                                \
  X(Rsqrt, "rsqrt")                                                            \
  X(Sad, "sad")                                                                \
  X(Selp, "selp")                                                              \
  X(Set, "set")                                                                \
  X(Setmaxnreg, "setmaxnreg")                                                  \
  X(Setp, "setp")                                                              \
  X(Shf, "shf")                                                                \
  X(Shfl, "shfl")                                                              \
  X(Shl, "shl")                                                                \
  X(Shr, "shr")                                                                \
  X(Sin, "sin")                                                                \
  X(Slct, "slct")                                                              \
  X(Sqrt, "sqrt")                                                              \
  X(St, "st")                                                                  \
  X(StAsync, "st.async")                                                       \
  X(StBulk, "st.bulk")                                                         \
  X(Stackrestore, "stackrestore")                                              \
  X(Stacksave, "stacksave")                                                    \
  X(Stmatrix, "stmatrix")                                                      \
  X(Sub, "sub")                                                                \
  X(SubC, "subc")                                                              \
  X(Szext, "szext")                                                            \
  X(Tanh, "tanh")                                                              \
  X(Tcgen05Alloc, "tcgen05.alloc")                                             \
  X(Tcgen05Dealloc, "tcgen05.dealloc")                                         \
  X(Tcgen05RelinquishAllocPermit, "tcgen05.relinquish_alloc_permit")           \
  X(Tcgen05Mma, "tcgen05.mma")                                                 \
  X(Tcgen05Ld, "tcgen05.ld")                                                   \
  X(Tcgen05St, "tcgen05.st")                                                   \
  X(Tcgen05Wait, "tcgen05.wait")                                               \
  X(Tcgen05Fence, "tcgen05.fence")                                             \
  X(Tcgen05Commit, "tcgen05.commit")                                           \
  X(Tcgen05Cp, "tcgen05.cp")                                                   \
  X(Tcgen05Shift, "tcgen05.shift")                                             \
  X(TensormapReplace, "tensormap.replace")                                     \
  X(TensormapCpFenceproxy, "tensormap.cp_fenceproxy")                          \
  X(Testp, "testp")                                                            \
  X(Trap, "trap")                                                              \
  X(Vote, "vote")                                                              \
  X(WgmmaMmaAsync, "wgmma.mma_async")                                          \
  X(WgmmaFence, "wgmma.fence")                                                 \
  X(WgmmaCommitGroup, "wgmma.commit_group")                                    \
  X(WgmmaWaitGroup, "wgmma.wait_group")                                        \
  X(Xor, "xor")

/// An instruction's operation (the mnemonic without its modifiers).
enum class Opcode : uint16_t {
  Unknown,
#define NVFP4_X(E, S) E,
  NVFP4_PTX_OPCODES(NVFP4_X)
#undef NVFP4_X
};
/// The dotted spelling ("tcgen05.mma"); "<unknown>" for Unknown.
const char *opcodeName(Opcode op);

//===----------------------------------------------------------------------===//
// Modifiers
//===----------------------------------------------------------------------===//

// X(enumerator, spelling without the leading dot). Modifiers whose meaning
// depends on the opcode (.lo is mul's low half and setp's unsigned less-than)
// get one enumerator; the executor interprets it per opcode. Parameterized
// modifiers (.v4, .x32, .2d, .cta_group::2, .m16n8k16,
// .collector::b1::fill) are ModId::Vec, Count, Dim, CtaGroup, MmaShape and
// CollectorB with the number in Modifier::value; a type is ModId::Type with
// the Type in value.
#define NVFP4_PTX_MODIFIERS(X)                                                 \
  /* rounding */                                                               \
  X(Rn, "rn")                                                                  \
  X(Rna, "rna")                                                                \
  X(Rz, "rz")                                                                  \
  X(Rm, "rm")                                                                  \
  X(Rp, "rp")                                                                  \
  X(Rs, "rs")                                                                  \
  X(Rni, "rni")                                                                \
  X(Rzi, "rzi")                                                                \
  X(Rmi, "rmi")                                                                \
  X(Rpi, "rpi")                                                                \
  /* arithmetic flags */                                                       \
  X(Ftz, "ftz")                                                                \
  X(Noftz, "noftz")                                                            \
  X(Sat, "sat")                                                                \
  X(Satfinite, "satfinite")                                                    \
  X(Relu, "relu")                                                              \
  X(Approx, "approx")                                                          \
  X(Full, "full")                                                              \
  X(NaN, "NaN")                                                                \
  X(Xorsign, "xorsign")                                                        \
  X(Abs, "abs")                                                                \
  X(Oob, "oob")                                                                \
  X(Cc, "cc")                                                                  \
  X(Lo, "lo")                                                                  \
  X(Hi, "hi")                                                                  \
  X(Wide, "wide")                                                              \
  X(Shiftamt, "shiftamt")                                                      \
  /* comparisons (setp/set); lo and hi are above */                            \
  X(Eq, "eq")                                                                  \
  X(Ne, "ne")                                                                  \
  X(Lt, "lt")                                                                  \
  X(Le, "le")                                                                  \
  X(Gt, "gt")                                                                  \
  X(Ge, "ge")                                                                  \
  X(Ls, "ls")                                                                  \
  X(Hs, "hs")                                                                  \
  X(Equ, "equ")                                                                \
  X(Neu, "neu")                                                                \
  X(Ltu, "ltu")                                                                \
  X(Leu, "leu")                                                                \
  X(Gtu, "gtu")                                                                \
  X(Geu, "geu")                                                                \
  X(Num, "num")                                                                \
  X(Nan, "nan")                                                                \
  /* boolean / reduction / atomic operations */                                \
  X(And, "and")                                                                \
  X(Or, "or")                                                                  \
  X(Xor, "xor")                                                                \
  X(Popc, "popc")                                                              \
  X(Add, "add")                                                                \
  X(Inc, "inc")                                                                \
  X(Dec, "dec")                                                                \
  X(Min, "min")                                                                \
  X(Max, "max")                                                                \
  X(Exch, "exch")                                                              \
  X(Cas, "cas")                                                                \
  /* state spaces */                                                           \
  X(Global, "global")                                                          \
  X(Shared, "shared")                                                          \
  X(SharedCta, "shared::cta")                                                  \
  X(SharedCluster, "shared::cluster")                                          \
  X(Local, "local")                                                            \
  X(Param, "param")                                                            \
  X(ParamEntry, "param::entry")                                                \
  X(ParamFunc, "param::func")                                                  \
  X(Const, "const")                                                            \
  X(To, "to")                                                                  \
  /* memory ordering */                                                        \
  X(Weak, "weak")                                                              \
  X(Volatile, "volatile")                                                      \
  X(Relaxed, "relaxed")                                                        \
  X(Acquire, "acquire")                                                        \
  X(Release, "release")                                                        \
  X(AcqRel, "acq_rel")                                                         \
  X(Sc, "sc")                                                                  \
  X(Mmio, "mmio")                                                              \
  X(Cta, "cta")                                                                \
  X(Cluster, "cluster")                                                        \
  X(Gpu, "gpu")                                                                \
  X(Sys, "sys")                                                                \
  X(Gl, "gl")                                                                  \
  X(Proxy, "proxy")                                                            \
  X(Async, "async")                                                            \
  X(AsyncGlobal, "async::global")                                              \
  X(AsyncSharedCta, "async::shared::cta")                                      \
  X(AsyncSharedCluster, "async::shared::cluster")                              \
  X(Alias, "alias")                                                            \
  X(Tensormap, "tensormap")                                                    \
  X(TensormapGeneric, "tensormap::generic")                                    \
  X(MbarrierInit, "mbarrier_init")                                             \
  X(OpRestrict, "op_restrict")                                                 \
  /* cache operators and hints */                                              \
  X(Ca, "ca")                                                                  \
  X(Cg, "cg")                                                                  \
  X(Cs, "cs")                                                                  \
  X(Lu, "lu")                                                                  \
  X(Cv, "cv")                                                                  \
  X(Wb, "wb")                                                                  \
  X(Wt, "wt")                                                                  \
  X(Nc, "nc")                                                                  \
  X(Unified, "unified")                                                        \
  X(L1EvictNormal, "L1::evict_normal")                                         \
  X(L1EvictUnchanged, "L1::evict_unchanged")                                   \
  X(L1EvictFirst, "L1::evict_first")                                           \
  X(L1EvictLast, "L1::evict_last")                                             \
  X(L1NoAllocate, "L1::no_allocate")                                           \
  X(L2EvictNormal, "L2::evict_normal")                                         \
  X(L2EvictFirst, "L2::evict_first")                                           \
  X(L2EvictLast, "L2::evict_last")                                             \
  X(L2EvictUnchanged, "L2::evict_unchanged")                                   \
  X(L2B64, "L2::64B")                                                          \
  X(L2B128, "L2::128B")                                                        \
  X(L2B256, "L2::256B")                                                        \
  X(L2CacheHint, "L2::cache_hint")                                             \
  X(L2, "L2")                                                                  \
  X(L1, "L1")                                                                  \
  X(Fractional, "fractional")                                                  \
  X(Range, "range")                                                            \
  /* control flow and synchronization */                                       \
  X(Uni, "uni")                                                                \
  X(Sync, "sync")                                                              \
  X(Aligned, "aligned")                                                        \
  X(Arrive, "arrive")                                                          \
  X(Red, "red")                                                                \
  X(Wait, "wait")                                                              \
  X(LaunchDependents, "launch_dependents")                                     \
  X(Up, "up")                                                                  \
  X(Down, "down")                                                              \
  X(Bfly, "bfly")                                                              \
  X(Idx, "idx")                                                                \
  X(All, "all")                                                                \
  X(Any, "any")                                                                \
  X(Ballot, "ballot")                                                          \
  X(F4e, "f4e")                                                                \
  X(B4e, "b4e")                                                                \
  X(Rc8, "rc8")                                                                \
  X(Ecl, "ecl")                                                                \
  X(Ecr, "ecr")                                                                \
  X(Rc16, "rc16")                                                              \
  X(L, "l")                                                                    \
  X(R, "r")                                                                    \
  X(Wrap, "wrap")                                                              \
  X(Clamp, "clamp")                                                            \
  X(Finite, "finite")                                                          \
  X(Infinite, "infinite")                                                      \
  X(Number, "number")                                                          \
  X(Notanumber, "notanumber")                                                  \
  X(Normal, "normal")                                                          \
  X(Subnormal, "subnormal")                                                    \
  /* mbarrier */                                                               \
  X(ExpectTx, "expect_tx")                                                     \
  X(CompleteTx, "complete_tx")                                                 \
  X(Parity, "parity")                                                          \
  X(NoComplete, "noComplete")                                                  \
  /* bulk and tensor copies */                                                 \
  X(Tile, "tile")                                                              \
  X(Im2col, "im2col")                                                          \
  X(Im2colW, "im2col::w")                                                      \
  X(Im2colW128, "im2col::w::128")                                              \
  X(Im2colNoOffs, "im2col_no_offs")                                            \
  X(TileGather4, "tile::gather4")                                              \
  X(TileScatter4, "tile::scatter4")                                            \
  X(MbarrierCompleteTxBytes, "mbarrier::complete_tx::bytes")                   \
  X(BulkGroup, "bulk_group")                                                   \
  X(MulticastCluster, "multicast::cluster")                                    \
  X(Read, "read")                                                              \
  X(CpMask, "cp_mask")                                                         \
  /* tcgen05 */                                                                \
  X(KindF16, "kind::f16")                                                      \
  X(KindTf32, "kind::tf32")                                                    \
  X(KindF8f6f4, "kind::f8f6f4")                                                \
  X(KindI8, "kind::i8")                                                        \
  X(KindMxf8f6f4, "kind::mxf8f6f4")                                            \
  X(KindMxf4, "kind::mxf4")                                                    \
  X(KindMxf4nvf4, "kind::mxf4nvf4")                                            \
  X(BlockScale, "block_scale")                                                 \
  X(ScaleVec1X, "scale_vec::1X")                                               \
  X(ScaleVec2X, "scale_vec::2X")                                               \
  X(ScaleVec4X, "scale_vec::4X")                                               \
  X(Block16, "block16")                                                        \
  X(Block32, "block32")                                                        \
  X(CollectorADiscard, "collector::a::discard")                                \
  X(CollectorALastuse, "collector::a::lastuse")                                \
  X(CollectorAFill, "collector::a::fill")                                      \
  X(CollectorAUse, "collector::a::use")                                        \
  X(Ws, "ws")                                                                  \
  X(Sp, "sp")                                                                  \
  X(Ashift, "ashift")                                                          \
  X(Shape32x32b, "32x32b")                                                     \
  X(Shape16x64b, "16x64b")                                                     \
  X(Shape16x128b, "16x128b")                                                   \
  X(Shape16x256b, "16x256b")                                                   \
  X(Shape16x32bx2, "16x32bx2")                                                 \
  X(Shape128x256b, "128x256b")                                                 \
  X(Shape4x256b, "4x256b")                                                     \
  X(Shape128x128b, "128x128b")                                                 \
  X(Shape64x128b, "64x128b")                                                   \
  X(Shape32x128b, "32x128b")                                                   \
  X(Pack16b, "pack::16b")                                                      \
  X(Unpack16b, "unpack::16b")                                                  \
  X(Warpx2_02_13, "warpx2::02_13")                                             \
  X(Warpx2_01_23, "warpx2::01_23")                                             \
  X(Warpx4, "warpx4")                                                          \
  X(B8x16, "b8x16")                                                            \
  X(B6x16P32, "b6x16_p32")                                                     \
  X(B4x16P64, "b4x16_p64")                                                     \
  X(MbarrierArriveOne, "mbarrier::arrive::one")                                \
  X(FenceBeforeThreadSync, "fence::before_thread_sync")                        \
  X(FenceAfterThreadSync, "fence::after_thread_sync")                          \
  X(WaitLd, "wait::ld")                                                        \
  X(WaitSt, "wait::st")                                                        \
  /* mma / wgmma / ldmatrix */                                                 \
  X(Row, "row")                                                                \
  X(Col, "col")                                                                \
  X(Trans, "trans")                                                            \
  X(M8n8, "m8n8")                                                              \
  /* cluster launch control, multimem */                                       \
  X(TryCancel, "try_cancel")                                                   \
  X(QueryCancel, "query_cancel")                                               \
  X(LdReduce, "ld_reduce")                                                     \
  X(Bytes, "bytes")

/// A modifier after the opcode.
enum class ModId : uint16_t {
  Unknown,  ///< not in the tables; value indexes Instruction::unknownMods
  Type,     ///< a type; value is the Type
  Vec,      ///< .v2 / .v4 / .v8; value is the count
  Count,    ///< .x1 ... .x128 (repetition / matrix count); value is the count
  Dim,      ///< .1d ... .5d; value is the dimension count
  CtaGroup, ///< .cta_group::N; value is N
  MmaShape, ///< .mMnNkK; value is (M << 20) | (N << 10) | K (K may be 0)
  /// .collector::bN::op (tcgen05.mma.ws); value is N * 4 + CollectorOp.
  CollectorB,
#define NVFP4_X(E, S) E,
  NVFP4_PTX_MODIFIERS(NVFP4_X)
#undef NVFP4_X
};
/// The operation of a `.collector::bN::op` modifier (ModId::CollectorB).
enum CollectorOp : int32_t {
  CollectorFill = 0,
  CollectorUse = 1,
  CollectorLastuse = 2,
  CollectorDiscard = 3,
};

/// The spelling of a non-parameterized modifier without the dot.
const char *modName(ModId id);

/// One modifier of an instruction.
struct Modifier {
  ModId id = ModId::Unknown;
  int32_t value = 0;
};

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// What a symbol operand refers to.
enum class SymbolKind : uint8_t {
  None,
  ModuleVar, ///< Module::globals[index]
  LocalVar,  ///< Function::locals[index] (of the enclosing function)
  Param,     ///< Function::params[index] (of the enclosing function)
  Return,    ///< Function::returns[index] (of the enclosing function)
  Function,  ///< Module::functions[index]
};

/// A reference to a named variable or function.
struct SymbolRef {
  SymbolKind kind = SymbolKind::None;
  int32_t index = -1;
};

/// One instruction operand.
struct Operand {
  enum class Kind : uint8_t {
    Register, ///< reg (index into Function::regs); `pairReg` for `d|p`
    Special,  ///< special register `sreg` with component `comp` (0..3)
    Imm,      ///< integer constant `imm`
    FloatImm, ///< 0f (f32 bits in fbits, isDouble = false) or 0d / decimal
    Symbol,   ///< address of `sym` plus `imm`; `generic` for generic(sym)
    Label,    ///< branch target: index into Function::body (`label`)
    Address,  ///< [base + imm]; base is elems[0] (Register / Symbol) or
              ///< none (absolute); elems[1..] are extra elements of a
              ///< tensor-style address [tmap, {c0, c1}]
    Vector,   ///< {e0, e1, ...} in elems
    List,     ///< ( e0, e1, ... ) in elems (call arguments / returns)
    Sink,     ///< `_`
  };
  Kind kind = Kind::Imm;
  bool negated = false;  ///< `!` prefix on a predicate source
  bool isDouble = false; ///< FloatImm: fbits are f64 bits
  bool generic = false;  ///< Symbol: written as generic(sym)
  uint8_t comp = 0;      ///< Special: 0 = x / none, 1 = y, 2 = z, 3 = w
  SpecialReg sreg = SpecialReg::Tid;
  int32_t reg = -1;     ///< Register
  int32_t pairReg = -1; ///< Register: second destination of `d|p`
  int64_t imm = 0;      ///< Imm value; Symbol and Address offset
  uint64_t fbits = 0;   ///< FloatImm bits
  SymbolRef sym;        ///< Symbol
  int32_t label = -1;   ///< Label
  std::vector<Operand> elems;
  SourceLoc loc;

  bool isReg() const { return kind == Kind::Register; }
};

//===----------------------------------------------------------------------===//
// Instructions, variables, functions, modules
//===----------------------------------------------------------------------===//

/// One instruction statement.
struct Instruction {
  Opcode opcode = Opcode::Unknown;
  std::string mnemonic; ///< as written, e.g. "cvt.rn.bf16x2.f32"
  SourceLoc loc;
  int32_t guardReg = -1; ///< predicate register index, or -1
  bool guardNegated = false;
  std::vector<Modifier> mods;
  std::vector<std::string> unknownMods; ///< spellings of ModId::Unknown
  std::vector<Operand> operands;

  /// True if the modifier `id` is present.
  bool has(ModId id) const;
  /// The value of the first modifier `id`, or `dflt`.
  int32_t value(ModId id, int32_t dflt = 0) const;
  /// The `i`th type modifier (Type::None if there are fewer).
  Type type(unsigned i = 0) const;
  /// Number of type modifiers.
  unsigned numTypes() const;
  /// The state-space modifier (Space::None when there is none).
  Space space() const;
};

/// One initializer element of a variable (after flattening braces).
struct InitElem {
  uint64_t bits = 0;    ///< the constant, already in the element type
  SymbolRef sym;        ///< when set, the value is the address of sym + bits
  bool generic = false; ///< generic(sym) rather than sym
};

/// A variable declaration (module scope, function scope, or a parameter).
struct Variable {
  std::string name;
  Space space = Space::None;
  Type type = Type::None;
  uint32_t align = 0;         ///< .align N; 0 when not given
  uint32_t vecWidth = 1;      ///< .v2 / .v4 / .v8
  std::vector<uint64_t> dims; ///< array dimensions; 0 for an unsized []
  bool isExtern = false;
  bool isVisible = false;
  bool isWeak = false;
  bool isCommon = false;
  /// Kernel parameter attributes: .ptr with optional space and alignment.
  bool isPtr = false;
  Space ptrSpace = Space::None;
  uint32_t ptrAlign = 0;
  std::vector<InitElem> init;
  SourceLoc loc;

  /// Size of one element (type width times vector width), in bytes (at
  /// least 1).
  uint64_t elementBytes() const;
  /// Number of elements (product of dims; 1 for a scalar; 0 when unsized).
  uint64_t elementCount() const;
  /// Total size in bytes (0 for an unsized array).
  uint64_t sizeBytes() const { return elementBytes() * elementCount(); }
  /// The alignment in effect: .align, or the element size.
  uint32_t effectiveAlign() const;
};

/// A declared register (a %r<N> range declares N of them).
struct RegisterDecl {
  std::string name;
  Type type = Type::None;
  SourceLoc loc;
};

/// A named position in a function body.
struct Label {
  std::string name;
  int32_t target = 0; ///< index of the next instruction in Function::body
  SourceLoc loc;
};

/// Performance-tuning and cluster directives of an .entry or .func.
struct FunctionDirectives {
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t reqnctapercluster[3] = {0, 0, 0};
  uint32_t maxnreg = 0;
  uint32_t minnctapersm = 0;
  uint32_t maxnctapersm = 0;
  uint32_t maxclusterrank = 0;
  bool explicitCluster = false;
  bool noreturn = false;
  bool blocksAreClusters = false;
  std::vector<std::string> pragmas;
};

/// An .entry (kernel) or .func.
struct Function {
  std::string name;
  bool isEntry = false;
  bool isVisible = false;
  bool isExtern = false;
  bool isWeak = false;
  bool hasBody = false;
  std::vector<Variable> params;
  std::vector<Variable> returns;
  FunctionDirectives directives;
  std::vector<RegisterDecl> regs;
  std::vector<Variable> locals; ///< .local / .shared / .param in the body
  std::vector<Instruction> body;
  std::vector<Label> labels;
  SourceLoc loc;
};

/// A parsed PTX module. Owns a copy of its text for diagnostics.
struct Module {
  std::string bufferName;
  std::string source;
  uint32_t versionMajor = 0, versionMinor = 0;
  std::vector<std::string> targets; ///< e.g. {"sm_100a"}
  uint32_t addressSize = 64;
  std::vector<Variable> globals; ///< .global / .const / .shared at module scope
  std::vector<Function> functions; ///< in declaration order

  /// The function named `name`, or null.
  const Function *findFunction(std::string_view name) const;
  /// Index of the function named `name`, or -1.
  int32_t findFunctionIndex(std::string_view name) const;
  /// The text of 1-based line `line` without its newline (trimmed).
  std::string lineText(uint32_t line) const;
};

} // namespace nvfp4::emu::ptx

#endif // NVFP4_EMULATOR_PTX_H
