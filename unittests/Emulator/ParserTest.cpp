//===- ParserTest.cpp - Tests for the PTX parser --------------------------===//
//
// Good inputs must produce the expected structure; bad inputs must produce
// the exact diagnostic (line, column, what was expected, what was found).
// The PTX that LLVM and nvcc emit (test/Emulator/Inputs) must parse
// completely.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nvfp4/Emulator/Parser.h"

#include "gtest/gtest.h"

using namespace nvfp4::emu;
using namespace nvfp4::emu::ptx;

namespace {

std::unique_ptr<Module> parseOk(const std::string &text) {
  auto m = parseModule(text, "t.ptx");
  EXPECT_TRUE(static_cast<bool>(m)) << m.message();
  if (!m)
    return nullptr;
  return std::move(*m);
}

std::string parseErr(const std::string &text) {
  auto m = parseModule(text, "t.ptx");
  EXPECT_FALSE(static_cast<bool>(m));
  return m ? std::string() : m.message();
}

const char *kHeader = ".version 8.8\n.target sm_100a\n.address_size 64\n";

std::string inKernel(const std::string &body) {
  return std::string(kHeader) +
         ".visible .entry k(.param .u64 p)\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n" +
         body + "\n}\n";
}

//===----------------------------------------------------------------------===//
// Module structure
//===----------------------------------------------------------------------===//

TEST(PTXParserTest, ModuleDirectivesAndVariables) {
  auto m = parseOk(std::string(
      "// comment\n.version 8.6\n.target sm_90a, debug\n.address_size 64\n"
      "/* block\n comment */\n"
      ".global .align 8 .u32 counts[4] = {1, 2, 0x10, -1};\n"
      ".global .f32 scale = 0f3F800000;\n"
      ".const .align 16 .b8 table[3] = {7, 8, 9};\n"
      ".global .u64 ptr = generic(counts);\n"
      ".extern .shared .align 16 .b8 dyn[];\n"
      ".shared .align 4 .v2 .f32 pair;\n"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->versionMajor, 8u);
  EXPECT_EQ(m->versionMinor, 6u);
  ASSERT_EQ(m->targets.size(), 2u);
  EXPECT_EQ(m->targets[0], "sm_90a");
  EXPECT_EQ(m->targets[1], "debug");
  EXPECT_EQ(m->addressSize, 64u);
  ASSERT_EQ(m->globals.size(), 6u);

  const Variable &counts = m->globals[0];
  EXPECT_EQ(counts.name, "counts");
  EXPECT_EQ(counts.space, Space::Global);
  EXPECT_EQ(counts.type, Type::U32);
  EXPECT_EQ(counts.align, 8u);
  ASSERT_EQ(counts.dims.size(), 1u);
  EXPECT_EQ(counts.dims[0], 4u);
  ASSERT_EQ(counts.init.size(), 4u);
  EXPECT_EQ(counts.init[2].bits, 0x10u);
  EXPECT_EQ(counts.init[3].bits, 0xffffffffu);

  EXPECT_EQ(m->globals[1].init[0].bits, 0x3f800000u);
  EXPECT_EQ(m->globals[2].space, Space::Const);
  EXPECT_EQ(m->globals[2].sizeBytes(), 3u);
  EXPECT_TRUE(m->globals[3].init[0].generic);
  EXPECT_EQ(m->globals[3].init[0].sym.kind, SymbolKind::ModuleVar);
  EXPECT_EQ(m->globals[3].init[0].sym.index, 0);

  const Variable &dyn = m->globals[4];
  EXPECT_TRUE(dyn.isExtern);
  EXPECT_EQ(dyn.space, Space::Shared);
  ASSERT_EQ(dyn.dims.size(), 1u);
  EXPECT_EQ(dyn.dims[0], 0u);
  EXPECT_EQ(m->globals[5].vecWidth, 2u);
  EXPECT_EQ(m->globals[5].sizeBytes(), 8u);
}

TEST(PTXParserTest, EntryParamsDirectivesAndRegisters) {
  auto m = parseOk(std::string(kHeader) +
                   ".visible .entry gemm(\n"
                   "  .param .u64 .ptr .global .align 16 gemm_param_0,\n"
                   "  .param .align 64 .b8 gemm_param_1[128],\n"
                   "  .param .u32 gemm_param_2\n)\n"
                   ".maxntid 256, 1, 1\n.maxnreg 128\n"
                   ".reqnctapercluster 2, 1, 1\n.explicitcluster\n"
                   "{\n  .reg .pred %p<19>;\n  .reg .b32 %r<289>, %extra;\n"
                   "  .reg .f32 %f1, %f2;\n  ret;\n}\n");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->functions.size(), 1u);
  const Function &f = m->functions[0];
  EXPECT_TRUE(f.isEntry);
  EXPECT_TRUE(f.isVisible);
  ASSERT_EQ(f.params.size(), 3u);
  EXPECT_TRUE(f.params[0].isPtr);
  EXPECT_EQ(f.params[0].ptrSpace, Space::Global);
  EXPECT_EQ(f.params[0].ptrAlign, 16u);
  EXPECT_EQ(f.params[0].type, Type::U64);
  EXPECT_EQ(f.params[1].align, 64u);
  EXPECT_EQ(f.params[1].sizeBytes(), 128u);
  EXPECT_EQ(f.directives.maxntid[0], 256u);
  EXPECT_EQ(f.directives.maxnreg, 128u);
  EXPECT_EQ(f.directives.reqnctapercluster[0], 2u);
  EXPECT_TRUE(f.directives.explicitCluster);
  // 19 predicates + 289 + 1 + 2 registers.
  ASSERT_EQ(f.regs.size(), 19u + 290u + 2u);
  EXPECT_EQ(f.regs[0].name, "%p0");
  EXPECT_EQ(f.regs[19 + 288].name, "%r288");
  EXPECT_EQ(f.regs[19 + 289].name, "%extra");
  EXPECT_EQ(f.regs[19 + 289].type, Type::B32);
}

//===----------------------------------------------------------------------===//
// Instructions and operands
//===----------------------------------------------------------------------===//

TEST(PTXParserTest, InstructionModifiersAreStructured) {
  auto m = parseOk(inKernel(
      "  cvt.rn.satfinite.e2m1x2.f32 %r1, %r2, %r3;\n"
      "  setp.ltu.and.ftz.f32 %p1|%p2, %r1, 0f3F800000, !%p3;\n"
      "  ld.global.nc.v4.u32 {%r1, %r2, %r3, _}, [%rd1+-16];\n"
      "  tcgen05.mma.cta_group::2.kind::f16.collector::a::discard [%r1], "
      "%rd1, %rd2, %r3, %p1;\n"
      "  tcgen05.ld.sync.aligned.16x256b.x8.pack::16b.b32 {%r1, %r2}, [%r4];\n"
      "  tcgen05.wait::st.sync.aligned;\n"
      "  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::"
      "complete_tx::bytes.multicast::cluster [%rd1], [%rd2, {%r1, %r2, %r3}], "
      "[%rd3], %r4;\n"
      "  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r1}, {%r2}, "
      "{%r3}, {%r4};\n"
      "  frobnicate.x.weird %r1;\n"
      "  add.s32.funky %r1, %r2, %r3;\n"));
  ASSERT_TRUE(m);
  const auto &body = m->functions[0].body;
  ASSERT_EQ(body.size(), 10u);

  const Instruction &cvt = body[0];
  EXPECT_EQ(cvt.opcode, Opcode::Cvt);
  EXPECT_TRUE(cvt.has(ModId::Rn));
  EXPECT_TRUE(cvt.has(ModId::Satfinite));
  EXPECT_EQ(cvt.type(0), Type::E2M1x2);
  EXPECT_EQ(cvt.type(1), Type::F32);
  EXPECT_EQ(cvt.operands.size(), 3u);

  const Instruction &setp = body[1];
  EXPECT_EQ(setp.opcode, Opcode::Setp);
  EXPECT_TRUE(setp.has(ModId::Ltu));
  EXPECT_TRUE(setp.has(ModId::And));
  EXPECT_TRUE(setp.has(ModId::Ftz));
  EXPECT_GE(setp.operands[0].pairReg, 0);
  EXPECT_EQ(setp.operands[2].kind, Operand::Kind::FloatImm);
  EXPECT_EQ(setp.operands[2].fbits, 0x3f800000u);
  EXPECT_TRUE(setp.operands[3].negated);

  const Instruction &ld = body[2];
  EXPECT_EQ(ld.space(), Space::Global);
  EXPECT_TRUE(ld.has(ModId::Nc));
  EXPECT_EQ(ld.value(ModId::Vec), 4);
  ASSERT_EQ(ld.operands[0].kind, Operand::Kind::Vector);
  EXPECT_EQ(ld.operands[0].elems[3].kind, Operand::Kind::Sink);
  EXPECT_EQ(ld.operands[1].kind, Operand::Kind::Address);
  EXPECT_EQ(ld.operands[1].imm, -16);

  const Instruction &mma = body[3];
  EXPECT_EQ(mma.opcode, Opcode::Tcgen05Mma);
  EXPECT_EQ(mma.value(ModId::CtaGroup), 2);
  EXPECT_TRUE(mma.has(ModId::KindF16));
  EXPECT_TRUE(mma.has(ModId::CollectorADiscard));
  EXPECT_EQ(mma.operands.size(), 5u);

  const Instruction &tld = body[4];
  EXPECT_EQ(tld.opcode, Opcode::Tcgen05Ld);
  EXPECT_TRUE(tld.has(ModId::Shape16x256b));
  EXPECT_EQ(tld.value(ModId::Count), 8);
  EXPECT_TRUE(tld.has(ModId::Pack16b));
  EXPECT_TRUE(tld.has(ModId::Aligned));

  EXPECT_EQ(body[5].opcode, Opcode::Tcgen05Wait);
  EXPECT_TRUE(body[5].has(ModId::WaitSt));

  const Instruction &tma = body[6];
  EXPECT_EQ(tma.opcode, Opcode::CpAsyncBulkTensor);
  EXPECT_EQ(tma.value(ModId::Dim), 3);
  EXPECT_TRUE(tma.has(ModId::MbarrierCompleteTxBytes));
  EXPECT_TRUE(tma.has(ModId::MulticastCluster));
  EXPECT_EQ(tma.space(), Space::SharedCluster);
  ASSERT_EQ(tma.operands[1].kind, Operand::Kind::Address);
  ASSERT_EQ(tma.operands[1].elems.size(), 2u);
  EXPECT_EQ(tma.operands[1].elems[1].kind, Operand::Kind::Vector);
  EXPECT_EQ(tma.operands[1].elems[1].elems.size(), 3u);

  EXPECT_EQ(body[7].opcode, Opcode::Mma);
  EXPECT_EQ(body[7].value(ModId::MmaShape), (16 << 20) | (8 << 10) | 16);

  // Unknown opcodes and modifiers are kept, with their spelling.
  EXPECT_EQ(body[8].opcode, Opcode::Unknown);
  EXPECT_EQ(body[8].mnemonic, "frobnicate.x.weird");
  EXPECT_EQ(body[9].opcode, Opcode::Add);
  ASSERT_EQ(body[9].unknownMods.size(), 1u);
  EXPECT_EQ(body[9].unknownMods[0], "funky");
}

TEST(PTXParserTest, OperandForms) {
  auto m = parseOk(std::string(kHeader) +
                   ".shared .align 8 .b8 bar[32];\n"
                   ".visible .entry k()\n{\n"
                   "  .reg .pred %p<2>;\n  .reg .b32 %r<4>;\n"
                   "  .reg .b64 %rd<4>;\n  .reg .f64 %fd<2>;\n"
                   "  mov.u32 %r1, %ctaid.y;\n"
                   "  mov.u32 %r2, %cluster_ctarank;\n"
                   "  mov.b64 %rd1, bar;\n"
                   "  ld.shared.b64 %rd2, [bar+8];\n"
                   "  add.s32 %r3, %r1, (4 * 8 + 1);\n"
                   "  mov.f64 %fd1, 0d3FF0000000000000;\n"
                   "  mov.f64 %fd1, -1.5;\n"
                   "  elect.sync %r1|%p1, -1;\n"
                   "  @!%p1 bra DONE;\n"
                   "  mov.b64 %rd3, {%r1, %r2};\n"
                   "DONE:\n  ret;\n}\n");
  ASSERT_TRUE(m);
  const Function &f = m->functions[0];
  const auto &b = f.body;
  ASSERT_EQ(b.size(), 11u);
  EXPECT_EQ(b[0].operands[1].kind, Operand::Kind::Special);
  EXPECT_EQ(b[0].operands[1].sreg, SpecialReg::Ctaid);
  EXPECT_EQ(b[0].operands[1].comp, 1);
  EXPECT_EQ(b[1].operands[1].sreg, SpecialReg::ClusterCtarank);
  EXPECT_EQ(b[2].operands[1].kind, Operand::Kind::Symbol);
  EXPECT_EQ(b[2].operands[1].sym.kind, SymbolKind::ModuleVar);
  EXPECT_EQ(b[3].operands[1].elems[0].kind, Operand::Kind::Symbol);
  EXPECT_EQ(b[3].operands[1].imm, 8);
  EXPECT_EQ(b[4].operands[2].imm, 33);
  EXPECT_TRUE(b[5].operands[1].isDouble);
  EXPECT_EQ(b[5].operands[1].fbits, 0x3ff0000000000000ull);
  EXPECT_EQ(b[6].operands[1].fbits, 0xbff8000000000000ull);
  EXPECT_EQ(b[7].operands[1].imm, -1);
  EXPECT_GE(b[7].operands[0].pairReg, 0);
  EXPECT_TRUE(b[8].guardNegated);
  EXPECT_EQ(b[8].operands[0].kind, Operand::Kind::Label);
  EXPECT_EQ(b[8].operands[0].label, 10); // index of `ret`
  EXPECT_EQ(b[9].operands[1].kind, Operand::Kind::Vector);
  ASSERT_EQ(f.labels.size(), 1u);
  EXPECT_EQ(f.labels[0].name, "DONE");
}

TEST(PTXParserTest, NestedBlocksScopeRegistersAndLabels) {
  // The same label and register names in two inline-asm blocks, as LLVM
  // emits them for the mbarrier wait loops.
  std::string loop = "  {\n  .reg .pred P1;\n  LAB_WAIT:\n"
                     "  mbarrier.try_wait.parity.shared.b64 P1, [%r1], %r2, "
                     "%r3;\n  @P1 bra.uni DONE;\n  bra.uni LAB_WAIT;\n"
                     "  DONE:\n  }\n";
  auto m = parseOk(inKernel(loop + loop + "  ret;"));
  ASSERT_TRUE(m);
  const Function &f = m->functions[0];
  ASSERT_EQ(f.body.size(), 7u);
  EXPECT_EQ(f.body[1].operands[0].label, 3);
  EXPECT_EQ(f.body[2].operands[0].label, 0);
  EXPECT_EQ(f.body[4].operands[0].label, 6);
  EXPECT_EQ(f.body[5].operands[0].label, 3);
  // Two distinct P1 registers.
  EXPECT_NE(f.body[1].guardReg, f.body[4].guardReg);
}

TEST(PTXParserTest, FunctionsAndCalls) {
  auto m = parseOk(std::string(kHeader) +
                   ".func (.param .b32 ret) twice(.param .b32 x)\n{\n"
                   "  .reg .b32 %r<2>;\n  ld.param.b32 %r0, [x];\n"
                   "  add.s32 %r1, %r0, %r0;\n  st.param.b32 [ret], %r1;\n"
                   "  ret;\n}\n"
                   ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n"
                   "  { // callseq 0\n  .param .b32 param0;\n"
                   "  st.param.b32 [param0], %r0;\n  .param .b32 retval0;\n"
                   "  call.uni (retval0), twice, (param0);\n"
                   "  ld.param.b32 %r1, [retval0];\n  }\n  ret;\n}\n");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->functions.size(), 2u);
  const Function &k = m->functions[1];
  ASSERT_EQ(k.locals.size(), 2u);
  const Instruction &call = k.body[1];
  EXPECT_EQ(call.opcode, Opcode::Call);
  ASSERT_EQ(call.operands.size(), 3u);
  EXPECT_EQ(call.operands[0].kind, Operand::Kind::List);
  EXPECT_EQ(call.operands[1].sym.kind, SymbolKind::Function);
  EXPECT_EQ(call.operands[1].sym.index, 0);
  EXPECT_EQ(call.operands[2].elems[0].sym.kind, SymbolKind::LocalVar);
}

TEST(PTXParserTest, CompilerOutputParsesCompletely) {
  // Everything the compiler and nvcc emit must parse into known opcodes and
  // modifiers (no Opcode::Unknown, no ModId::Unknown).
  for (const char *name : {"gemm_m128_n256_sm100a.ptx", "gemm_2cta_sm100a.ptx",
                           "gemm_m64_sm100a.ptx", "vecadd_reduce.ptx"}) {
    SCOPED_TRACE(name);
    std::string text = test::readInput(name);
    ASSERT_FALSE(text.empty());
    auto m = parseModule(text, name);
    ASSERT_TRUE(static_cast<bool>(m)) << m.message();
    size_t instrs = 0;
    for (const Function &f : (*m)->functions)
      for (const Instruction &in : f.body) {
        ++instrs;
        EXPECT_NE(in.opcode, Opcode::Unknown)
            << in.mnemonic << " at line " << in.loc.line;
        EXPECT_TRUE(in.unknownMods.empty())
            << in.mnemonic << " at line " << in.loc.line;
      }
    EXPECT_GT(instrs, 50u);
  }
  auto m = parseModule(test::readInput("gemm_m128_n256_sm100a.ptx"), "g");
  ASSERT_TRUE(static_cast<bool>(m));
  const Function &g = (*m)->functions[0];
  EXPECT_EQ(g.directives.maxntid[0], 256u);
  EXPECT_EQ(g.directives.maxnreg, 128u);
  bool sawCommit = false;
  for (const Instruction &in : g.body)
    if (in.opcode == Opcode::Tcgen05Commit) {
      sawCommit = true;
      EXPECT_EQ(in.value(ModId::CtaGroup), 1);
      EXPECT_TRUE(in.has(ModId::MbarrierArriveOne));
      EXPECT_EQ(in.space(), Space::SharedCluster);
      EXPECT_EQ(in.type(), Type::B64);
    }
  EXPECT_TRUE(sawCommit);
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

TEST(PTXParserTest, ErrorMissingSemicolon) {
  EXPECT_EQ(parseErr(inKernel("  add.s32 %r1, %r2, %r3\n  ret;")),
            "t.ptx:10:3: error: expected ',' or ';' after the operand of "
            "'add.s32', found identifier 'ret'");
}

TEST(PTXParserTest, ErrorUndeclaredRegister) {
  EXPECT_EQ(parseErr(inKernel("  add.s32 %r1, %q9, 1;")),
            "t.ptx:9:16: error: use of undeclared register '%q9'");
}

TEST(PTXParserTest, ErrorUndefinedLabel) {
  EXPECT_EQ(parseErr(inKernel("  bra NOWHERE;\n  ret;")),
            "t.ptx:9:7: error: use of undeclared identifier 'NOWHERE'");
}

TEST(PTXParserTest, ErrorBadHexFloat) {
  EXPECT_EQ(parseErr(inKernel("  mov.b32 %r1, 0f3F80;")),
            "t.ptx:9:16: error: expected exactly 8 hex digits in the 0f "
            "floating-point constant '0f3F80;'");
}

TEST(PTXParserTest, ErrorUnterminatedComment) {
  EXPECT_EQ(parseErr(std::string(kHeader) + "/* never closed\n"),
            "t.ptx:4:1: error: unterminated /* comment");
}

TEST(PTXParserTest, ErrorMissingVersion) {
  EXPECT_EQ(parseErr(".target sm_100a\n"),
            "t.ptx:1:1: error: missing .version directive");
}

TEST(PTXParserTest, ErrorUnexpectedCharacter) {
  EXPECT_EQ(parseErr(inKernel("  add.s32 %r1, %r2, #3;")),
            "t.ptx:9:21: error: unexpected character '#'");
}

TEST(PTXParserTest, ErrorGuardNotPredicate) {
  EXPECT_EQ(parseErr(inKernel("  @%r1 bra L;\nL:\n  ret;")),
            "t.ptx:9:4: error: guard '%r1' is not a .pred register");
}

TEST(PTXParserTest, ErrorModuleLevelGarbage) {
  EXPECT_EQ(parseErr(std::string(kHeader) + "mov.u32 %r1, 0;\n"),
            "t.ptx:4:1: error: expected a directive such as .version, "
            ".target, .entry, .func or a variable declaration, found "
            "identifier 'mov'");
}

TEST(PTXParserTest, ErrorUnclosedBody) {
  EXPECT_EQ(parseErr(std::string(kHeader) + ".entry k()\n{\n  ret;\n"),
            "t.ptx:7:1: error: expected '}' to close the function body, "
            "found end of file");
}

TEST(PTXParserTest, ErrorDuplicateLabel) {
  EXPECT_EQ(parseErr(inKernel("L:\n  ret;\nL:\n  ret;")),
            "t.ptx:11:1: error: redefinition of label 'L'");
}

TEST(PTXParserTest, ErrorRegisterLimit) {
  ParseLimits lim;
  lim.maxRegistersPerFunction = 100;
  auto m = parseModule(std::string(kHeader) +
                           ".entry k()\n{\n  .reg .b32 %r<101>;\n  ret;\n}\n",
                       "t.ptx", lim);
  ASSERT_FALSE(static_cast<bool>(m));
  EXPECT_EQ(m.message(), "t.ptx:6:13: error: too many registers in function "
                         "'k' (limit 100)");
}

} // namespace
