//===- LowerWarpRoles.cpp - lower warp roles and elect_one -----------------===//
//
// sm100.warp_roles / sm100.role -> scf.if on the warp index + setmaxnreg;
// sm100.elect_one -> scf.if on nvvm.elect.sync.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"
#include "nvfp4/Dialect/SM100/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace nvfp4::sm100 {
#define GEN_PASS_DEF_SM100LOWERWARPROLES
#include "nvfp4/Dialect/SM100/Transforms/Passes.h.inc"
} // namespace nvfp4::sm100

using namespace mlir;
using namespace nvfp4::sm100;

namespace {

/// Moves every op of `from` (a block without terminator) to the start of the
/// then-block of a new scf.if on `cond` built at `builder`'s insertion point.
void moveIntoIf(OpBuilder &builder, Location loc, Value cond, Block &from) {
  auto ifOp = scf::IfOp::create(builder, loc, cond, /*withElseRegion=*/false);
  Block *then = ifOp.thenBlock();
  then->getOperations().splice(then->begin(), from.getOperations());
}

void lowerElectOne(ElectOneOp op) {
  OpBuilder builder(op);
  Value elected =
      NVVM::ElectSyncOp::create(builder, op.getLoc(), builder.getI1Type(),
                                /*membermask=*/Value());
  moveIntoIf(builder, op.getLoc(), elected, op.getBody().front());
  op.erase();
}

Value inRange(OpBuilder &builder, Location loc, Value index, int64_t begin,
              int64_t end) {
  Type i32 = builder.getI32Type();
  Value lo = arith::ConstantIntOp::create(builder, loc, i32, begin);
  Value hi = arith::ConstantIntOp::create(builder, loc, i32, end);
  return arith::AndIOp::create(
      builder, loc,
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::uge, index, lo),
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, index,
                            hi));
}

void lowerWarpRoles(WarpRolesOp op, std::optional<int64_t> maxnreg) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  Type i32 = builder.getI32Type();
  Value tid = NVVM::ThreadIdXOp::create(builder, loc, i32);
  Value warp = arith::ShRUIOp::create(
      builder, loc, tid, arith::ConstantIntOp::create(builder, loc, i32, 5));

  for (Operation &nested :
       llvm::make_early_inc_range(op.getBody().front().getOperations())) {
    auto role = cast<RoleOp>(nested);
    Block &body = role.getBody().front();
    // The budget is set at the top of the role's own branch. PTX asks every
    // warp of a warpgroup to execute "the same" setmaxnreg; the verifier
    // makes all roles of a warpgroup agree on the value, and, as in
    // CUTLASS's SM100 kernels, each role sets it in its branch: ptxas
    // rejects a setmaxnreg hoisted before the dispatch whose paths rejoin
    // (error C7600), see docs/Rationale.md.
    if (std::optional<uint32_t> regs = role.getRegs();
        regs && maxnreg && *regs != *maxnreg) {
      OpBuilder entry = OpBuilder::atBlockBegin(&body);
      NVVM::SetMaxRegisterOp::create(
          entry, role.getLoc(), *regs,
          *regs > *maxnreg ? NVVM::SetMaxRegisterAction::increase
                           : NVVM::SetMaxRegisterAction::decrease);
    }
    Value cond =
        inRange(builder, role.getLoc(), warp, role.getBegin(), role.getEnd());
    moveIntoIf(builder, role.getLoc(), cond, body);
  }
  op.erase();
}

} // namespace

namespace {
struct SM100LowerWarpRolesPass
    : nvfp4::sm100::impl::SM100LowerWarpRolesBase<SM100LowerWarpRolesPass> {
  void runOnOperation() override {
    // Innermost first: elect_one regions may sit inside roles.
    SmallVector<ElectOneOp> elects;
    getOperation()->walk([&](ElectOneOp op) { elects.push_back(op); });
    for (ElectOneOp op : llvm::reverse(elects))
      lowerElectOne(op);

    SmallVector<WarpRolesOp> roles;
    getOperation()->walk([&](WarpRolesOp op) { roles.push_back(op); });
    for (WarpRolesOp op : roles) {
      std::optional<int64_t> maxnreg;
      if (auto func = op->getParentOfType<FunctionOpInterface>())
        if (auto attr = func->getAttrOfType<IntegerAttr>("nvvm.maxnreg"))
          maxnreg = attr.getInt();
      lowerWarpRoles(op, maxnreg);
    }
  }
};

} // namespace
