// Profiles in a module: reading and writing `!prof` metadata and the profile summary.
//
// What. Writing: a function's entry count and branch weights from fmerge's own profile
// (`fm_set_function_profile`) and the module's profile summary (`fm_set_profile_summary`), as
// `fmerge opt --profile` applies a profile. Reading, for the merge stages' hot/cold decisions:
// a function's entry count, the largest count in it, each block's count as
// BlockFrequencyInfo derives it (`fm_block_profile_counts`), and the hot threshold of the
// module's summary.
//
// Why. A module with these is "built with a profile" exactly like one from clang PGO, whoever
// wrote the counts; the C API reads none of it and cannot build a summary.
//
// How. MDBuilder's branch weights (clamped to 32 bits, scaled together as LLVM's PGO does),
// InstrProfSummaryBuilder with LLVM's default cutoffs, ProfileSummary and BlockFrequencyInfo
// for reading.

#include "../shim.h"

#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ProfDataUtils.h"
#include "llvm/IR/ProfileSummary.h"
#include "llvm/ProfileData/InstrProf.h"
#include "llvm/ProfileData/ProfileCommon.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

using namespace llvm;

extern "C" {

// The function's profile entry count (`!prof !{"function_entry_count", N}`, written by
// `clang -fprofile-use` and LLVM's PGO passes; synthetic counts are not profiles), or -1.
int64_t fm_function_entry_count(LLVMValueRef Fn) {
  auto C = unwrap<Function>(Fn)->getEntryCount(/*AllowSynthetic=*/false);
  if (!C)
    return -1;
  return static_cast<int64_t>(C->getCount());
}

// The largest count the profile gives anything in the function: its entry count or the
// weight of any branch (IR PGO's branch weights are edge counts), so a function entered
// rarely around a hot loop counts as hot. -1 without an entry count.
int64_t fm_function_max_profile_count(LLVMValueRef Fn) {
  Function *F = unwrap<Function>(Fn);
  auto C = F->getEntryCount(/*AllowSynthetic=*/false);
  if (!C)
    return -1;
  uint64_t Max = C->getCount();
  SmallVector<uint32_t, 8> Weights;
  for (BasicBlock &BB : *F) {
    Instruction *T = BB.getTerminator();
    Weights.clear();
    if (T && extractBranchWeights(*T, Weights))
      for (uint32_t W : Weights)
        Max = std::max<uint64_t>(Max, W);
  }
  return static_cast<int64_t>(Max);
}

// Each block's profile count, in layout order, into Out (N: the function's number of blocks):
// the entry count times the block's frequency relative to the entry, as LLVM's
// BlockFrequencyInfo computes it from the branch weights (what `BFI.getBlockProfileCount` gives
// every PGO-guided pass). Returns 0, or -1 if the function has no (non-synthetic) entry count
// or N is not its number of blocks.
int64_t fm_block_profile_counts(LLVMValueRef Fn, uint64_t *Out, size_t N) {
  Function *F = unwrap<Function>(Fn);
  if (F->isDeclaration() || F->size() != N || !F->getEntryCount(/*AllowSynthetic=*/false))
    return -1;
  DominatorTree DT(*F);
  LoopInfo LI(DT);
  BranchProbabilityInfo BPI(*F, LI);
  BlockFrequencyInfo BFI(*F, BPI, LI);
  size_t K = 0;
  for (BasicBlock &BB : *F) {
    std::optional<uint64_t> C = BFI.getBlockProfileCount(&BB);
    Out[K++] = C ? *C : 0;
  }
  return 0;
}

// The smallest count among the hottest counts that together make up `Percentile` millionths of
// the profile's total (LLVM's own definition of hot: 990000, 99%, is -profile-summary-cutoff-hot),
// from the module's instrumentation profile summary; -1 if the module has none.
int64_t fm_profile_hot_threshold(LLVMModuleRef MRef, uint64_t Percentile) {
  Metadata *MD = unwrap(MRef)->getProfileSummary(/*IsCS=*/false);
  if (!MD)
    return -1;
  std::unique_ptr<ProfileSummary> PS(ProfileSummary::getFromMD(MD));
  if (!PS || PS->getDetailedSummary().empty())
    return -1;
  const ProfileSummaryEntry &E =
      ProfileSummaryBuilder::getEntryForPercentile(PS->getDetailedSummary(), Percentile);
  return static_cast<int64_t>(E.MinCount);
}

// Attaches a profile to Fn: its entry count and, on every terminator with two or more
// successors, branch weights (one per successor slot, blocks in order, `EdgeCounts` has one
// count per slot of every block). Weights are clamped to 32 bits as LLVM's PGO does, scaled
// together so their ratios survive.
void fm_set_function_profile(LLVMValueRef Fn, uint64_t Entry, const uint64_t *EdgeCounts,
                             size_t NEdges) {
  Function *F = unwrap<Function>(Fn);
  F->setEntryCount(Function::ProfileCount(Entry, Function::PCT_Real));
  MDBuilder MDB(F->getContext());
  size_t K = 0;
  for (BasicBlock &BB : *F) {
    Instruction *T = BB.getTerminator();
    unsigned N = T->getNumSuccessors();
    if (K + N > NEdges)
      return;
    if (N >= 2 && !isa<CallBrInst>(T)) {
      uint64_t Max = 0;
      for (unsigned S = 0; S < N; ++S)
        Max = std::max(Max, EdgeCounts[K + S]);
      uint64_t Scale = Max > UINT32_MAX ? Max / UINT32_MAX + 1 : 1;
      SmallVector<uint32_t, 4> W;
      for (unsigned S = 0; S < N; ++S)
        W.push_back(static_cast<uint32_t>(EdgeCounts[K + S] / Scale));
      if (Max > 0)
        T->setMetadata(LLVMContext::MD_prof, MDB.createBranchWeights(W));
    }
    K += N;
  }
}

// Sets the module's profile summary from all counts a profile gave (entry counts and block
// counts), as LLVM's instrumentation PGO computes it, so that LLVM (and fmerge's hot cut) can
// tell hot from cold.
void fm_set_profile_summary(LLVMModuleRef MRef, const uint64_t *Entries, size_t NEntries,
                            const uint64_t *Counts, size_t NCounts) {
  Module *M = unwrap(MRef);
  InstrProfSummaryBuilder Builder(ProfileSummaryBuilder::DefaultCutoffs);
  for (size_t I = 0; I < NEntries; ++I)
    Builder.addEntryCount(Entries[I]);
  for (size_t I = 0; I < NCounts; ++I)
    Builder.addInternalCount(Counts[I]);
  std::unique_ptr<ProfileSummary> PS = Builder.getSummary();
  M->setProfileSummary(PS->getMD(M->getContext()), ProfileSummary::PSK_Instr);
}

} // extern "C"
