// Counter promotion's register budget: how many values a loop may keep live (pressure.cpp).
//
// Register pressure. A counter kept in a register through a loop that already needs every
// register pushes the program's own values to the stack, which costs more than the load and
// store the promotion saves (bzip2's BZ2_decompress: short loops in a function that keeps some
// 50 values live everywhere). So a loop gets only as many counters as it has room for: the
// registers of the target (registerBudget), minus the values live in the loop
// (RegisterPressure), minus the values of the callers the function will be inlined into
// (inliningPressure). Used by promotion.cpp only.

#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <map>

namespace fmshim {

using namespace llvm;

// The most values a loop of F may keep live, counters included: ValuesPerRegister times the
// integer registers of F's target and subtarget, as LLVM's cost model counts them.
unsigned registerBudget(Function &F, TargetMachine *TM);

// Register pressure of a function before promotion, from SSA liveness: the integer and
// pointer values (arguments and instructions; not constants, globals or static allocas, whose
// addresses code generation rematerialises) live at once. A value is live into every block on
// a path from a use back to its definition (a phi's use is at the end of the incoming block);
// unreachable blocks are left out. Kept: the most values live at one point of each block, and
// the values live across each call (besides its operands and result).
class RegisterPressure {
public:
  explicit RegisterPressure(Function &F);

  // The most values live at one point of BB (0 for a block made after the analysis).
  unsigned in(const BasicBlock *BB) const { return Peak.lookup(BB); }
  // The values live across call CB.
  unsigned across(const CallBase *CB) const { return Across.lookup(CB); }

private:
  static bool inRegister(const Value &V);

  DenseMap<const BasicBlock *, unsigned> Peak;
  DenseMap<const CallBase *, unsigned> Across;
};

// For each function of M, the most values of a caller live across a call of it that LLVM's
// inliner would inline at -Os (what the corpus is built with; with the cost model of the
// callee's target when TM is given): once inlined, the function's loops run with those
// values live. Whole-program modules inline across what were translation units (bzip2's
// small BZ2_indexIntoF, from bzlib.c, into BZ2_decompress).
DenseMap<const Function *, unsigned>
inliningPressure(Module &M, TargetMachine *TM,
                 const std::map<const Function *, RegisterPressure> &Pressure);

} // namespace fmshim
