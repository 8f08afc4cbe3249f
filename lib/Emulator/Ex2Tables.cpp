//===- Ex2Tables.cpp - the H200's ex2.approx tables, embedded -------------===//
//
// ex2_pos.bin and ex2_neg.bin (2 MiB each; scripts/pack-ex2-tables.py), which
// CMake unpacks from lib/Emulator/data/ex2_h200.tar.xz into NVFP4_EX2_DIR,
// become two read-only arrays of the library (Sfu.cpp reads them); so do
// lg2_lo.bin and lg2_hi.bin (scripts/pack-lg2-table.py, from
// lib/Emulator/data/lg2_sm90.tar.xz).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_EX2_DIR
#error "NVFP4_EX2_DIR (the unpacked tables) must be defined by the build"
#endif

#define NVFP4_EX2_TABLE(sym, file)                                             \
  ".section .rodata\n"                                                         \
  ".balign 64\n"                                                               \
  ".globl " #sym "\n"                                                          \
  ".hidden " #sym "\n"                                                         \
  ".type " #sym ", @object\n" #sym ":\n"                                      \
  ".incbin \"" NVFP4_EX2_DIR "/" file "\"\n"                                   \
  ".size " #sym ", . - " #sym "\n"                                             \
  ".previous\n"

__asm__(NVFP4_EX2_TABLE(nvfp4_emu_ex2_pos, "ex2_pos.bin")
            NVFP4_EX2_TABLE(nvfp4_emu_ex2_neg, "ex2_neg.bin")
                NVFP4_EX2_TABLE(nvfp4_emu_lg2_lo, "lg2_lo.bin")
                    NVFP4_EX2_TABLE(nvfp4_emu_lg2_hi, "lg2_hi.bin"));
