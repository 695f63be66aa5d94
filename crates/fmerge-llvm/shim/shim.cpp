// fmerge's C++ shim: the few LLVM 22 facilities the C API does not expose.
//
// Every function here is `extern "C"`, takes and returns C API handles, and is declared once in
// `src/ffi.rs`. Keep it small: anything the C API can do belongs on the Rust side.

#include "llvm-c/Core.h"
#include "llvm-c/TargetMachine.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/IteratedDominanceFrontier.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/GlobalValue.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ProfileSummary.h"
#include "llvm/IR/ProfDataUtils.h"
#include "llvm/ProfileData/ProfileCommon.h"
#include "llvm/IR/StructuralHash.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Transforms/Utils/FunctionComparator.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <cstring>
#include <string>
#include <unordered_set>

using namespace llvm;

static TargetMachine *unwrapTM(LLVMTargetMachineRef TM) {
  return reinterpret_cast<TargetMachine *>(TM);
}

extern "C" {

// TTI code-size cost of every instruction of F, in layout order, written to `out` (capacity n).
// Returns the sum, or -1 if some cost is invalid (the caller then treats F as unmeasurable).
// One TTI object per call: building it is the expensive part.
int64_t fm_function_codesize_costs(LLVMValueRef Fn, LLVMTargetMachineRef TM, int64_t *out,
                                   size_t n) {
  Function *F = unwrap<Function>(Fn);
  TargetTransformInfo TTI = unwrapTM(TM)->getTargetTransformInfo(*F);
  int64_t total = 0;
  size_t k = 0;
  bool invalid = false;
  for (Instruction &I : instructions(*F)) {
    InstructionCost C = TTI.getInstructionCost(&I, TargetTransformInfo::TCK_CodeSize);
    int64_t v = 0;
    if (C.isValid())
      v = C.getValue();
    else
      invalid = true;
    if (k < n && out)
      out[k] = v;
    ++k;
    total += v;
  }
  return invalid ? -1 : total;
}

int fm_is_dso_local(LLVMValueRef GV) { return unwrap<GlobalValue>(GV)->isDSOLocal(); }

void fm_set_dso_local(LLVMValueRef GV, int Local) {
  unwrap<GlobalValue>(GV)->setDSOLocal(Local != 0);
}

// Whether a definition may be replaced at link or load time by another one (weak, linkonce,
// extern_weak, common, or external without dso_local in a shared-library build).
int fm_is_interposable(LLVMValueRef GV) { return unwrap<GlobalValue>(GV)->isInterposable(); }

// Copies everything that describes a function but its body and name: attributes, calling
// convention, GC, section, alignment, personality, prefix/prologue data, visibility ...
void fm_copy_function_attrs(LLVMValueRef Dst, LLVMValueRef Src) {
  unwrap<Function>(Dst)->copyAttributesFrom(unwrap<Function>(Src));
}

// Gives call site `Call` the attribute list of call site `From`.
void fm_copy_call_attrs(LLVMValueRef Call, LLVMValueRef From) {
  unwrap<CallBase>(Call)->setAttributes(unwrap<CallBase>(From)->getAttributes());
}

// Whether argument `ArgNo` of call site `Call` (or of its callee) carries `immarg`.
int fm_call_arg_is_immarg(LLVMValueRef Call, unsigned ArgNo) {
  CallBase *CB = unwrap<CallBase>(Call);
  if (CB->paramHasAttr(ArgNo, Attribute::ImmArg))
    return 1;
  if (Function *F = CB->getCalledFunction())
    return F->getAttributes().hasParamAttr(ArgNo, Attribute::ImmArg);
  return 0;
}

// All poison-generating and fast-math flags of an instruction, as LLVM stores them.
unsigned fm_raw_optional_flags(LLVMValueRef I) {
  return unwrap<Instruction>(I)->getRawSubclassOptionalData();
}

// Keeps only the flags both instructions have (nsw, nuw, exact, inbounds, fast-math ...).
void fm_and_ir_flags(LLVMValueRef Dst, LLVMValueRef Src) {
  unwrap<Instruction>(Dst)->andIRFlags(unwrap(Src));
}

void fm_phi_set_incoming_block(LLVMValueRef Phi, unsigned Idx, LLVMBasicBlockRef BB) {
  unwrap<PHINode>(Phi)->setIncomingBlock(Idx, unwrap(BB));
}

// True if the address of F is used other than as the callee of a direct call.
int fm_has_address_taken(LLVMValueRef Fn) {
  return unwrap<Function>(Fn)->hasAddressTaken(nullptr, /*IgnoreCallbackUses=*/false,
                                                /*IgnoreAssumeLikeCalls=*/true,
                                                /*IngoreLLVMUsed=*/false);
}

// Erases the declarations, global variables and aliases of `M` that nothing uses. Unused
// constants can hold the last uses of others, so it repeats until nothing changes.
static void fmDropUnreferenced(Module &M) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Function &F : llvm::make_early_inc_range(M))
      if (F.isDeclaration() && F.use_empty()) {
        F.eraseFromParent();
        Changed = true;
      }
    for (GlobalVariable &G : llvm::make_early_inc_range(M.globals())) {
      G.removeDeadConstantUsers();
      if (G.use_empty()) {
        G.eraseFromParent();
        Changed = true;
      }
    }
    for (GlobalAlias &A : llvm::make_early_inc_range(M.aliases()))
      if (A.use_empty()) {
        A.eraseFromParent();
        Changed = true;
      }
  }
}

// A new module holding definitions of only the listed functions; every other global becomes a
// declaration (global variables keep their initializers). Used to measure candidate functions by
// generating code for just them; kept private functions become internal so they have symbols.
LLVMModuleRef fm_clone_module_subset(LLVMModuleRef M, LLVMValueRef *Fns, size_t N) {
  std::unordered_set<const GlobalValue *> Keep;
  for (size_t i = 0; i < N; ++i)
    Keep.insert(unwrap<GlobalValue>(Fns[i]));
  // A global whose initializer takes the address of a block in a function that becomes a
  // declaration cannot be copied (there is no block to point at): it becomes a declaration too.
  std::function<bool(const Constant *)> foreignBlockAddress = [&](const Constant *C) {
    if (auto *BA = dyn_cast<BlockAddress>(C))
      return Keep.count(BA->getFunction()) == 0;
    if (isa<GlobalValue>(C))
      return false;
    for (const Use &U : C->operands())
      if (auto *Op = dyn_cast<Constant>(U.get()))
        if (foreignBlockAddress(Op))
          return true;
    return false;
  };
  ValueToValueMapTy VMap;
  std::unique_ptr<Module> New = CloneModule(*unwrap(M), VMap, [&](const GlobalValue *GV) {
    if (Keep.count(GV))
      return true;
    // Only constants' contents can shape a function's code (a memcpy from a constant string
    // becomes immediate stores); other globals need not be copied.
    auto *Var = dyn_cast<GlobalVariable>(GV);
    return Var && Var->isConstant() &&
           !(Var->hasInitializer() && foreignBlockAddress(Var->getInitializer()));
  });
  // Drop what no kept function reaches: every other function of a large module became a
  // declaration, and reading those back in the measuring threads cost more than generating the
  // code.
  fmDropUnreferenced(*New);
  // Private functions get no symbol table entry, so their size could not be read back.
  for (Function &F : *New)
    if (!F.isDeclaration() && F.hasPrivateLinkage())
      F.setLinkage(GlobalValue::InternalLinkage);
  return wrap(New.release());
}

// Verifies one function; on failure writes the message (NUL-terminated, truncated) to `msg`.
int fm_verify_function(LLVMValueRef Fn, char *msg, size_t cap) {
  std::string S;
  raw_string_ostream OS(S);
  bool Broken = verifyFunction(*unwrap<Function>(Fn), &OS);
  OS.flush();
  if (cap) {
    size_t n = S.size() < cap - 1 ? S.size() : cap - 1;
    std::memcpy(msg, S.data(), n);
    msg[n] = 0;
  }
  return Broken ? 1 : 0;
}

// Removes a function's debug-info attachment and every debug location and record in it, so a
// body built from two functions never claims to be either one in a debugger.
void fm_strip_function_debug_info(LLVMValueRef Fn) {
  Function *F = unwrap<Function>(Fn);
  F->setSubprogram(nullptr);
  for (Instruction &I : instructions(*F)) {
    I.setDebugLoc(DebugLoc());
    I.dropDbgRecords();
  }
}

} // extern "C"

extern "C" {

// Moves the body of `Src` into `Dst` (which must have no body): blocks, uses of `Src`'s
// parameters (redirected to `Dst`'s first parameters) and the debug-info subprogram the moved
// locations refer to. `Src` is left a declaration. Returns 0 (and moves nothing) if `Dst` has a
// body or its leading parameter types differ from `Src`'s.
int fm_move_body(LLVMValueRef Dst, LLVMValueRef Src) {
  Function *D = unwrap<Function>(Dst);
  Function *S = unwrap<Function>(Src);
  if (!D->empty() || D->arg_size() < S->arg_size())
    return 0;
  for (unsigned i = 0; i < S->arg_size(); ++i)
    if (S->getArg(i)->getType() != D->getArg(i)->getType())
      return 0;
  D->splice(D->end(), S);
  for (unsigned i = 0; i < S->arg_size(); ++i)
    S->getArg(i)->replaceAllUsesWith(D->getArg(i));
  D->setSubprogram(S->getSubprogram());
  S->setSubprogram(nullptr);
  return 1;
}

// Copies the body of `Src` into `Dst` (which must have no body and `Src`'s parameter types as
// its leading parameters), mapping parameters in order. Debug info is cloned with the body.
// Returns 0 (and clones nothing) on a signature mismatch.
int fm_clone_body_into(LLVMValueRef Dst, LLVMValueRef Src) {
  Function *D = unwrap<Function>(Dst);
  Function *S = unwrap<Function>(Src);
  if (!D->empty() || D->arg_size() < S->arg_size() ||
      D->getReturnType() != S->getReturnType())
    return 0;
  ValueToValueMapTy VMap;
  for (unsigned i = 0; i < S->arg_size(); ++i) {
    if (S->getArg(i)->getType() != D->getArg(i)->getType())
      return 0;
    VMap[S->getArg(i)] = D->getArg(i);
  }
  // CloneFunctionInto also copies Src's function attributes and maps parameter attributes
  // through VMap, so Dst's extra parameters get none.
  SmallVector<ReturnInst *, 8> Returns;
  CloneFunctionInto(D, S, VMap,
                    S->getSubprogram() ? CloneFunctionChangeType::LocalChangesOnly
                                       : CloneFunctionChangeType::GlobalChanges,
                    Returns);
  return 1;
}


} // extern "C"

// ---- attribute lists --------------------------------------------------------------------
//
// Two functions (or call sites) whose attribute lists differ only in attributes LLVM can
// intersect (inferred facts such as `range`, `nonnull`, `memory(...)`, `nounwind`) may share one
// body that carries the intersection. Attributes that change meaning or ABI (`byval`, `sret`,
// string attributes such as "target-features") must match exactly.

static AttributeList attrsOf(Value *V) {
  if (auto *F = dyn_cast<Function>(V))
    return F->getAttributes();
  return cast<CallBase>(V)->getAttributes();
}

static void setAttrs(Value *V, AttributeList L) {
  if (auto *F = dyn_cast<Function>(V))
    F->setAttributes(L);
  else
    cast<CallBase>(V)->setAttributes(L);
}

static AttributeSet mustMatchPart(LLVMContext &C, AttributeSet S) {
  AttrBuilder B(C);
  for (Attribute A : S) {
    if (A.isStringAttribute() || Attribute::intersectMustPreserve(A.getKindAsEnum()))
      B.addAttribute(A);
  }
  return AttributeSet::get(C, B);
}

extern "C" {

// Gives a call site that fmerge creates (a thunk's call, a rewritten call site, a probe) the
// calling convention of function `Fn` and the attributes of `Fn` that change how arguments and
// results are passed, and nothing else. The rule: **a call site fmerge creates never states a
// fact.** Facts at a call site (`range`, `nonnull`, `noundef`, `align`, `dereferenceable`,
// `noalias` ... on arguments, `range` on the result) are promises of the caller; a thunk that
// copied the callee's facts would promise the callee's preconditions for values that only met
// the thunk's own (weaker) ones: an identical survivor's `range(i32 0, 4)` on a thunk whose
// callers pass 50 makes the argument poison. ABI attributes (`byval`, `sret`, `inreg`,
// `zeroext` ...: what `fm_attr_key` calls the must-match part) have to agree between call
// site and callee, and so does the alignment of a parameter passed in memory (byval, byref,
// inalloca, preallocated).
// Takes an instruction without uses out of its block and drops its operands, leaving a
// parentless husk that refers to nothing (so the verifier and module copies never see it);
// the caller deletes it later with LLVMDeleteInstruction.
void fm_detach_instruction(LLVMValueRef I) {
  Instruction *In = unwrap<Instruction>(I);
  In->removeFromParent();
  In->dropAllReferences();
}

void fm_call_like_function(LLVMValueRef Call, LLVMValueRef Fn) {
  CallBase *CB = unwrap<CallBase>(Call);
  Function *F = unwrap<Function>(Fn);
  LLVMContext &C = F->getContext();
  AttributeList L = F->getAttributes();
  SmallVector<AttributeSet, 8> Params;
  for (unsigned i = 0; i < F->arg_size(); ++i) {
    AttributeSet P = L.getParamAttrs(i);
    AttrBuilder B(C, mustMatchPart(C, P));
    bool InMemory = P.hasAttribute(Attribute::ByVal) || P.hasAttribute(Attribute::ByRef) ||
                    P.hasAttribute(Attribute::InAlloca) ||
                    P.hasAttribute(Attribute::Preallocated);
    if (InMemory && P.getAlignment())
      B.addAlignmentAttr(P.getAlignment());
    Params.push_back(AttributeSet::get(C, B));
  }
  CB->setCallingConv(F->getCallingConv());
  CB->setAttributes(AttributeList::get(C, AttributeSet(), mustMatchPart(C, L.getRetAttrs()), Params));
}

// Identity of the part of a function's or call site's attribute list that must match exactly
// for two of them to share one body (uniqued: equal pointers mean equal parts).
const void *fm_attr_key(LLVMValueRef V) {
  Value *Val = unwrap(V);
  LLVMContext &C = Val->getContext();
  AttributeList L = attrsOf(Val);
  SmallVector<AttributeSet, 8> Params;
  for (unsigned i = 0; i < L.getNumAttrSets(); ++i)
    Params.push_back(mustMatchPart(C, L.getParamAttrs(i)));
  AttributeList K = AttributeList::get(C, mustMatchPart(C, L.getFnAttrs()),
                                       mustMatchPart(C, L.getRetAttrs()), Params);
  return K.getRawPointer();
}

// Stable content hash of the must-match part of an attribute list (`fm_attr_key`): equal on
// every run and in every module, for summaries shared between builds.
uint64_t fm_attr_key_hash(LLVMValueRef V) {
  Value *Val = unwrap(V);
  LLVMContext &C = Val->getContext();
  AttributeList L = attrsOf(Val);
  std::string S;
  S += mustMatchPart(C, L.getFnAttrs()).getAsString();
  S += "|";
  S += mustMatchPart(C, L.getRetAttrs()).getAsString();
  for (unsigned i = 0; i < L.getNumAttrSets(); ++i) {
    S += "|";
    S += mustMatchPart(C, L.getParamAttrs(i)).getAsString();
  }
  return xxh3_64bits(S);
}

// Whether the attribute lists of `A` and `B` (two functions or two call sites) intersect.
int fm_attrs_intersectable(LLVMValueRef A, LLVMValueRef B) {
  Value *VA = unwrap(A);
  return attrsOf(VA).intersectWith(VA->getContext(), attrsOf(unwrap(B))).has_value() ? 1 : 0;
}

// Gives `Keep` the intersection of its attribute list and `Other`'s. Returns 0 (and changes
// nothing) if they do not intersect.
int fm_intersect_attrs(LLVMValueRef Keep, LLVMValueRef Other) {
  Value *VK = unwrap(Keep);
  auto R = attrsOf(VK).intersectWith(VK->getContext(), attrsOf(unwrap(Other)));
  if (!R)
    return 0;
  setAttrs(VK, *R);
  return 1;
}

} // extern "C"

namespace {
// A diagnostic handler that keeps error messages (first few) and lets LLVM print the rest.
struct ErrorCollector : DiagnosticHandler {
  std::string Message;
  unsigned Count = 0;
  // Measuring and copying print nothing of their own: no optimization remarks, whatever the
  // process asked for (inside a linker that loaded the plugin, AsmPrinter's instruction-count
  // remarks were printed for every measured function). The real code generation reports them.
  bool isAnalysisRemarkEnabled(StringRef) const override { return false; }
  bool isMissedOptRemarkEnabled(StringRef) const override { return false; }
  bool isPassedOptRemarkEnabled(StringRef) const override { return false; }
  bool isAnyRemarkEnabled() const override { return false; }
  // The handler this one stands in for: warnings and notes go to it, as they would have.
  DiagnosticHandler *Previous = nullptr;
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Remark)
      return true;
    if (DI.getSeverity() != DS_Error)
      return Previous && Previous->handleDiagnostics(DI);
    if (++Count <= 3) {
      std::string Text;
      raw_string_ostream OS(Text);
      if (auto *SM = dyn_cast<DiagnosticInfoSrcMgr>(&DI)) {
        // Assembler errors: their own print shows nothing useful without a source manager.
        const SMDiagnostic &D = SM->getSMDiag();
        OS << D.getFilename() << ":" << D.getLineNo() << ":" << (D.getColumnNo() + 1) << ": "
           << D.getMessage();
      } else {
        DiagnosticPrinterRawOStream DP(OS);
        DI.print(DP);
      }
      if (!Message.empty())
        Message += "; ";
      Message += Text;
    }
    return true;
  }
};

// Runs `Body` with errors reported to the context collected instead of handled by the
// context's handler (LLVM's default one prints them and calls exit(1): inline assembly the
// target's assembler rejects does that, in code generation and in the bitcode writer's symbol
// table alike). Returns the collected messages (empty: no error) and restores the handler.
template <typename F> std::string collectErrors(LLVMContext &Ctx, F Body) {
  std::unique_ptr<DiagnosticHandler> Previous = Ctx.getDiagnosticHandler();
  auto Collector = std::make_unique<ErrorCollector>();
  ErrorCollector *Errors = Collector.get();
  Errors->Previous = Previous.get();
  Ctx.setDiagnosticHandler(std::move(Collector));
  Body();
  std::string Message = std::move(Errors->Message);
  // LLVM offers no way to read whether the context filtered diagnostics through the handler's
  // own `is*RemarkEnabled` before calling it (lld's LTO context does; restoring without it made
  // lld print every remark codegen produced). Restore with filtering on: a handler is then
  // only handed what it says it wants, which is all any handler acts on.
  Ctx.setDiagnosticHandler(std::move(Previous), /*RespectFilters=*/true);
  return Message;
}
} // namespace

extern "C" {

// Generates an object file for `M` the way `llc -filetype=obj` does, including its
// TargetLibraryInfo for the module's triple (the C API's emitter omits it, which changes code
// generation around library calls). On success returns 1 and a malloc'ed buffer in *Out/*Len;
// on failure returns 0 and a malloc'ed message in *Err. Mutates `M`: callers pass a copy.
int fm_emit_object(LLVMTargetMachineRef TMRef, LLVMModuleRef MRef, char **Out, size_t *Len,
                   char **Err) {
  TargetMachine *TM = unwrapTM(TMRef);
  Module *M = unwrap(MRef);
  *Out = nullptr;
  *Len = 0;
  *Err = nullptr;
  M->setDataLayout(TM->createDataLayout());
  SmallString<0> Buf;
  raw_svector_ostream OS(Buf);
  legacy::PassManager PM;
  TargetLibraryInfoImpl TLII(M->getTargetTriple());
  PM.add(new TargetLibraryInfoWrapperPass(TLII));
  if (TM->addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::ObjectFile)) {
    *Err = strdup("this target cannot emit object files");
    return 0;
  }
  // Errors found while generating code (e.g. inline assembly the target's assembler rejects)
  // would end the process (see `collectErrors`); report them as a failure instead.
  std::string Message = collectErrors(M->getContext(), [&] { PM.run(*M); });
  if (!Message.empty()) {
    *Err = strdup(Message.c_str());
    return 0;
  }
  *Out = static_cast<char *>(malloc(Buf.size() ? Buf.size() : 1));
  memcpy(*Out, Buf.data(), Buf.size());
  *Len = Buf.size();
  return 1;
}

} // extern "C"

extern "C" {

// Serialises `M` to bitcode *with* its use-list order. Use-list order steers some code
// generation heuristics, so keeping it makes `llc` on the written file produce exactly the code
// fmerge measured. On success returns 1 and a malloc'ed buffer in *Out/*Len; returns 0 and a
// malloc'ed message in *Err when the writer reports an error (its symbol table parses
// module-level inline assembly, which may not assemble).
int fm_write_bitcode(LLVMModuleRef MRef, char **Out, size_t *Len, char **Err) {
  *Out = nullptr;
  *Len = 0;
  *Err = nullptr;
  SmallString<0> Buf;
  raw_svector_ostream OS(Buf);
  Module *M = unwrap(MRef);
  std::string Message = collectErrors(M->getContext(), [&] {
    WriteBitcodeToFile(*M, OS, /*ShouldPreserveUseListOrder=*/true);
  });
  if (!Message.empty()) {
    *Err = strdup(Message.c_str());
    return 0;
  }
  *Out = static_cast<char *>(malloc(Buf.size() ? Buf.size() : 1));
  memcpy(*Out, Buf.data(), Buf.size());
  *Len = Buf.size();
  return 1;
}

// Whether LLVM's reader accepts `Data` (bitcode LLVM's writer produced), reading the module
// lazily: types, attribute groups, globals and metadata, not function bodies. A corrupt input
// can hold values the reader accepted but whose written form it then rejects (an attribute
// group, found by tests/hostile.rs); fmerge must not write such a file. Returns 1 if it reads,
// else 0 and a malloc'ed message in *Err.
int fm_check_bitcode(const char *Data, size_t Len, char **Err) {
  *Err = nullptr;
  LLVMContext Ctx;
  auto M = getLazyBitcodeModule(MemoryBufferRef(StringRef(Data, Len), "output"), Ctx);
  if (!M) {
    *Err = strdup(toString(M.takeError()).c_str());
    return 0;
  }
  if (Error E = (*M)->materializeMetadata()) {
    *Err = strdup(toString(std::move(E)).c_str());
    return 0;
  }
  return 1;
}

// An exact copy of `M` in the same context, use-list order included (CloneModule loses it, and
// with it the code `llc` would generate). Returns null and a malloc'ed message on failure.
LLVMModuleRef fm_clone_module_exact(LLVMModuleRef MRef, char **Err) {
  *Err = nullptr;
  Module *M = unwrap(MRef);
  SmallString<0> Buf;
  raw_svector_ostream OS(Buf);
  std::string Message = collectErrors(M->getContext(), [&] {
    WriteBitcodeToFile(*M, OS, /*ShouldPreserveUseListOrder=*/true);
  });
  if (!Message.empty()) {
    *Err = strdup(Message.c_str());
    return nullptr;
  }
  auto Parsed = parseBitcodeFile(MemoryBufferRef(StringRef(Buf.data(), Buf.size()), "copy"),
                                 M->getContext());
  if (!Parsed) {
    *Err = strdup(toString(Parsed.takeError()).c_str());
    return nullptr;
  }
  return wrap(Parsed->release());
}

} // extern "C"

extern "C" {

// Identity of the must-match part of a function's *function-level* attributes only (target
// CPU and features, optsize/minsize, sanitizers, frame pointers ...): what two functions must
// share to be merged into one body, whatever their parameters.
const void *fm_fn_attr_key(LLVMValueRef Fn) {
  Function *F = unwrap<Function>(Fn);
  LLVMContext &C = F->getContext();
  AttributeList K = AttributeList::get(C, mustMatchPart(C, F->getAttributes().getFnAttrs()),
                                       AttributeSet(), ArrayRef<AttributeSet>());
  return K.getRawPointer();
}

static const Attribute::AttrKind AbiKinds[] = {
    Attribute::ByVal,      Attribute::StructRet,  Attribute::InAlloca,   Attribute::Preallocated,
    Attribute::ByRef,      Attribute::SwiftSelf,  Attribute::SwiftError, Attribute::SwiftAsync,
    Attribute::Nest,       Attribute::InReg,      Attribute::ElementType,
    Attribute::StackAlignment};

static bool hasAbiAttrs(AttributeSet S) {
  for (Attribute::AttrKind K : AbiKinds)
    if (S.hasAttribute(K))
      return true;
  return false;
}

// Whether two attribute sets carry the same ABI attributes (kinds, types and values).
static bool sameAbiAttrs(AttributeSet A, AttributeSet B) {
  for (Attribute::AttrKind K : AbiKinds)
    if (A.getAttribute(K) != B.getAttribute(K))
      return false;
  return true;
}

// Gives the merged function `M` of `F1` and `F2` its attribute list. `Map1[k]` / `Map2[k]` is
// the parameter of F1 / F2 that M's parameter k carries (-1: none). Function and return
// attributes are the intersection of both; a parameter both use gets the intersection of both
// parameters' attributes; a parameter only one uses gets none (the other passes poison there).
// Return and parameter attributes that do not intersect are dropped (they are promises the
// body can do without). A parameter with an ABI attribute (byval, sret, inreg ...) changes how
// arguments are passed, so it must be shared by both functions at the same position with the
// very same ABI attributes, and keeps them (thunks and rewritten calls copy the merged
// function's attributes). Returns 1 on success; otherwise changes nothing and returns -1 if a
// parameter with ABI attributes is not shared that way, -2 if the function attributes do not
// intersect, -3 if N is not M's parameter count.
int fm_set_merged_attrs(LLVMValueRef MRef, LLVMValueRef F1Ref, LLVMValueRef F2Ref,
                        const int *Map1, const int *Map2, unsigned N) {
  Function *M = unwrap<Function>(MRef);
  Function *F1 = unwrap<Function>(F1Ref);
  Function *F2 = unwrap<Function>(F2Ref);
  LLVMContext &C = M->getContext();
  AttributeList A1 = F1->getAttributes(), A2 = F2->getAttributes();
  auto Fn = A1.getFnAttrs().intersectWith(C, A2.getFnAttrs());
  if (!Fn)
    return -2;
  auto Ret = A1.getRetAttrs().intersectWith(C, A2.getRetAttrs());
  if (N != M->arg_size())
    return -3;
  SmallVector<AttributeSet, 8> Params;
  for (unsigned k = 0; k < N; ++k) {
    AttributeSet P1 = Map1[k] >= 0 ? A1.getParamAttrs(Map1[k]) : AttributeSet();
    AttributeSet P2 = Map2[k] >= 0 ? A2.getParamAttrs(Map2[k]) : AttributeSet();
    bool Abi = hasAbiAttrs(P1) || hasAbiAttrs(P2);
    if (Abi && (Map1[k] != (int)k || Map2[k] != (int)k || !sameAbiAttrs(P1, P2)))
      return -1;
    if (Map1[k] >= 0 && Map2[k] >= 0) {
      // Attributes that must match but do not (say, two different `initializes` ranges) are
      // all promises the body may do without: the shared parameter simply carries none.
      auto P = P1.intersectWith(C, P2);
      if (Abi && (!P || !sameAbiAttrs(*P, P1)))
        return -1;
      Params.push_back(P ? *P : AttributeSet());
    } else {
      Params.push_back(AttributeSet());
    }
  }
  M->setAttributes(AttributeList::get(C, *Fn, Ret ? *Ret : AttributeSet(), Params));
  return 1;
}

} // extern "C"

// How many phis promoting `I` would place once it is demoted to a stack slot: the blocks of the
// iterated dominance frontier of its definition where it is live on entry (what
// `PromoteMemToReg` computes for the slot, which is stored in `I`'s block only).
static size_t predictedPhis(DominatorTree &DT, Instruction *I) {
  BasicBlock *DefBB = I->getParent();
  SmallPtrSet<BasicBlock *, 32> LiveIn;
  SmallVector<BasicBlock *, 32> Work;
  for (Use &U : I->uses()) {
    auto *User = cast<Instruction>(U.getUser());
    BasicBlock *B = User->getParent();
    if (auto *Phi = dyn_cast<PHINode>(User))
      B = Phi->getIncomingBlock(U);
    else if (B == DefBB && I->comesBefore(User))
      continue; // reads the value stored just before it in the same block
    if (B == DefBB && isa<PHINode>(User))
      continue; // the incoming value leaves the block after the store
    Work.push_back(B);
  }
  while (!Work.empty()) {
    BasicBlock *B = Work.pop_back_val();
    if (!LiveIn.insert(B).second)
      continue;
    for (BasicBlock *P : predecessors(B))
      if (P != DefBB && !LiveIn.count(P))
        Work.push_back(P);
  }
  SmallPtrSet<BasicBlock *, 1> Defs;
  Defs.insert(DefBB);
  ForwardIDFCalculator IDF(DT);
  IDF.setDefiningBlocks(Defs);
  IDF.setLiveInBlocks(LiveIn);
  SmallVector<BasicBlock *, 32> PhiBlocks;
  IDF.calculate(PhiBlocks);
  return PhiBlocks.size();
}

extern "C" {

// Makes every use in `Fn` dominated by its definition again, after a merged body was stitched
// together: a value defined on one function's path and used after the paths join is demoted
// to a stack slot (stored where it is defined, loaded where it is used) and the slots are
// promoted back to SSA form, which inserts the phis the join needs. On the other function's
// path such a value is undefined, but only ever reaches a `select` on the function identifier
// that picks the other operand. Returns the number of values repaired, or -1 when a value
// cannot be repaired this way (an `invoke` result, whose uses in its own normal destination's
// phis would read the slot before the store), -2 when the repair would be too costly (more than
// MaxRepairs + size/16 values, more phis predicted than the body has instructions plus 64, or
// a body more than twice as large). Erases only instructions
// it created itself; on -2 the body may be left half repaired (callers discard it).
int fm_repair_dominance(LLVMValueRef FnRef, unsigned MaxRepairs) {
  Function *F = unwrap<Function>(FnRef);
  DominatorTree DT(*F);
  SmallVector<Instruction *, 16> Bad;
  for (BasicBlock &BB : *F) {
    if (!DT.isReachableFromEntry(&BB))
      continue;
    for (Instruction &I : BB) {
      for (Use &U : I.uses()) {
        auto *User = dyn_cast<Instruction>(U.getUser());
        if (!User)
          continue;
        BasicBlock *UseBB = User->getParent();
        if (auto *Phi = dyn_cast<PHINode>(User))
          UseBB = Phi->getIncomingBlock(U);
        if (!DT.isReachableFromEntry(UseBB))
          continue;
        if (!DT.dominates(&I, U)) {
          Bad.push_back(&I);
          break;
        }
      }
    }
  }
  for (Instruction *I : Bad)
    if (isa<InvokeInst>(I) || isa<CallBrInst>(I) || I->isEHPad() || I->getType()->isTokenTy())
      return -1;
  // Every repaired value becomes a web of phis across the joins between its definition and its
  // uses. Past a point that costs more code (and far more compile time) than merging saves:
  // give up early when many values need it, or when the phis more than double the body.
  size_t Before = F->getInstructionCount();
  if (Bad.size() > MaxRepairs + Before / 16)
    return -2;
  // Predict the phis before changing anything: demoting and promoting is the expensive part
  // (tokei: 47 bodies grew 2-20 times, 0.6 s of promotion thrown away), and the prediction
  // matched the real count on every body measured (560 of them on tokei).
  size_t Phis = 0;
  for (Instruction *I : Bad)
    Phis += predictedPhis(DT, I);
  if (Phis > Before + 64)
    return -2;
  SmallVector<AllocaInst *, 16> Slots;
  BasicBlock::iterator Where = F->getEntryBlock().getFirstInsertionPt();
  for (Instruction *I : Bad)
    Slots.push_back(DemoteRegToStack(*I, false, Where));
  SmallVector<AllocaInst *, 16> Promotable;
  for (AllocaInst *A : Slots)
    if (A && isAllocaPromotable(A))
      Promotable.push_back(A);
  if (Promotable.size() != Slots.size())
    return -1;
  if (!Promotable.empty()) {
    DominatorTree DT2(*F);
    PromoteMemToReg(Promotable, DT2);
  }
  if (F->getInstructionCount() > 2 * Before + 64)
    return -2;
  return (int)Bad.size();
}

} // extern "C"

extern "C" {

// Whether some `blockaddress` constant points into `Fn` (its blocks must keep their identity).
int fm_blocks_address_taken(LLVMValueRef Fn) {
  for (BasicBlock &BB : *unwrap<Function>(Fn))
    if (BB.hasAddressTaken())
      return 1;
  return 0;
}

} // extern "C"

extern "C" {

// LLVM's coarse structural hash of a function (opcodes, types and CFG shape in walk order; not
// constants, flags or metadata): functions fmerge may find equal, exactly or up to constants,
// always share it, so it picks out the few functions worth lowering for those comparisons.
uint64_t fm_structural_hash(LLVMValueRef Fn) {
  return StructuralHash(*unwrap<Function>(Fn), /*DetailedHash=*/false);
}

} // extern "C"

extern "C" {

// Puts every function in a section of its own (`-ffunction-sections`), which the linker's
// identical code folding needs to fold functions.
void fm_set_function_sections(LLVMTargetMachineRef TM, int On) {
  unwrapTM(TM)->Options.FunctionSections = On != 0;
}

} // extern "C"

extern "C" {

// Finds the first function of `M` whose "target-cpu" or "tune-cpu" attribute names a processor
// `TM`'s target does not know. Code generation for such a function can end in a fatal error
// (e.g. an x86-64 module with an unknown CPU loses its 64-bit feature). Returns 0 when all are
// known; else 1 with malloc'ed copies of the function name and the CPU in *Fn / *Cpu.
int fm_find_unknown_cpu(LLVMTargetMachineRef TMRef, LLVMModuleRef MRef, char **Fn, char **Cpu) {
  TargetMachine *TM = unwrapTM(TMRef);
  const MCSubtargetInfo *STI = TM->getMCSubtargetInfo();
  *Fn = nullptr;
  *Cpu = nullptr;
  if (!STI)
    return 0;
  for (Function &F : *unwrap(MRef)) {
    for (const char *Kind : {"target-cpu", "tune-cpu"}) {
      Attribute A = F.getFnAttribute(Kind);
      if (!A.isValid() || !A.isStringAttribute())
        continue;
      StringRef Name = A.getValueAsString();
      if (Name.empty() || STI->isCPUStringValid(Name))
        continue;
      *Fn = strdup(F.getName().str().c_str());
      *Cpu = strdup(Name.str().c_str());
      return 1;
    }
  }
  return 0;
}

} // extern "C"

// ---- Similar functions across modules (global merging) -------------------------------------

extern "C" {

// Can a reference to `GV` appear in a body shared by every module? Only when the name means the
// same definition in every module: external (or extern_weak) linkage, not thread-local (a
// thread-local address is not a value one could pass around between threads' views). Local,
// linkonce, weak, available_externally and common symbols may be a different definition, or
// none, in another module.
static bool fmSharedSymbol(const GlobalValue *GV) {
  if (GV->isThreadLocal())
    return false;
  return GV->hasExternalLinkage() || GV->hasExternalWeakLinkage();
}

// Collects, in first-use order, the globals `C` mentions that are not shared symbols. Returns
// false if one sits somewhere an instruction cannot replace it (inside an aggregate constant, a
// block address, a thread-local global).
static bool fmCollectLocals(Constant *C, SmallVectorImpl<GlobalValue *> &Out,
                            SmallPtrSetImpl<Constant *> &Seen) {
  if (!Seen.insert(C).second)
    return true;
  if (auto *GV = dyn_cast<GlobalValue>(C)) {
    if (GV->isThreadLocal())
      return false;
    if (!fmSharedSymbol(GV))
      Out.push_back(GV);
    return true;
  }
  if (isa<BlockAddress>(C) || isa<DSOLocalEquivalent>(C) || isa<NoCFIValue>(C))
    return false;
  if (!isa<ConstantExpr>(C)) {
    // An aggregate or other constant that holds a local symbol cannot become an instruction.
    SmallVector<GlobalValue *, 4> Inner;
    for (const Use &U : C->operands())
      if (auto *Op = dyn_cast<Constant>(U.get()))
        if (!fmCollectLocals(Op, Inner, Seen))
          return false;
    return Inner.empty();
  }
  for (const Use &U : C->operands())
    if (auto *Op = dyn_cast<Constant>(U.get()))
      if (!fmCollectLocals(Op, Out, Seen))
        return false;
  return true;
}

// A copy of `Fn` named `Name` (external linkage, no debug info) whose references to symbols that
// are not the same in every module (see fmSharedSymbol) are trailing `ptr` parameters, one per
// symbol in first-use order; `Locals` receives those symbols (at most `Cap`, *N of them). The
// copy mentions only shared symbols, so its bitcode means the same in every module. Returns
// null (and adds nothing) if a local symbol sits where it cannot be replaced, or on more than
// `Cap` of them.
LLVMValueRef fm_parameterize_locals(LLVMValueRef Fn, const char *Name, LLVMValueRef *Locals,
                                    size_t Cap, size_t *N) {
  Function *F = unwrap<Function>(Fn);
  SmallVector<GlobalValue *, 8> Found;
  SmallPtrSet<Constant *, 32> Seen;
  for (Instruction &I : instructions(*F))
    for (const Use &U : I.operands())
      if (auto *C = dyn_cast<Constant>(U.get()))
        if (!fmCollectLocals(C, Found, Seen))
          return nullptr;
  SmallVector<GlobalValue *, 8> Order;
  SmallPtrSet<GlobalValue *, 8> Unique;
  for (GlobalValue *GV : Found)
    if (Unique.insert(GV).second)
      Order.push_back(GV);
  if (Order.size() > Cap)
    return nullptr;
  SmallVector<Type *, 8> Params(F->getFunctionType()->params());
  for (GlobalValue *GV : Order)
    Params.push_back(GV->getType());
  FunctionType *Ty = FunctionType::get(F->getReturnType(), Params, false);
  Function *New = Function::Create(Ty, GlobalValue::ExternalLinkage, F->getAddressSpace(), Name,
                                   F->getParent());
  ValueToValueMapTy VMap;
  for (unsigned i = 0; i < F->arg_size(); ++i)
    VMap[F->getArg(i)] = New->getArg(i);
  SmallVector<ReturnInst *, 8> Returns;
  CloneFunctionInto(New, F, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
  New->setLinkage(GlobalValue::ExternalLinkage);
  New->setVisibility(GlobalValue::DefaultVisibility);
  New->setComdat(nullptr);
  New->setSection("");
  New->clearMetadata();
  fm_strip_function_debug_info(wrap(New));
  if (!Order.empty()) {
    // Constant expressions over a local symbol become instructions, so that the symbol itself
    // is an instruction operand that a parameter can replace.
    SmallVector<Constant *, 8> Consts;
    for (Instruction &I : instructions(*New))
      for (const Use &U : I.operands())
        if (auto *CE = dyn_cast<ConstantExpr>(U.get()))
          Consts.push_back(CE);
    convertUsersOfConstantsToInstructions(Consts, New, /*RemoveDeadConstants=*/false);
    DenseMap<Value *, Value *> Map;
    for (size_t k = 0; k < Order.size(); ++k)
      Map[Order[k]] = New->getArg(F->arg_size() + k);
    for (Instruction &I : instructions(*New))
      for (Use &U : I.operands()) {
        auto It = Map.find(U.get());
        if (It != Map.end())
          U.set(It->second);
      }
    // Whatever still mentions a local symbol (a constant expression the conversion left)
    // would make the copy mean something else elsewhere.
    SmallVector<GlobalValue *, 2> Left;
    SmallPtrSet<Constant *, 32> Seen2;
    for (Instruction &I : instructions(*New))
      for (const Use &U : I.operands())
        if (auto *C = dyn_cast<Constant>(U.get()))
          if (!fmCollectLocals(C, Left, Seen2) || !Left.empty()) {
            New->eraseFromParent();
            return nullptr;
          }
  }
  if (verifyFunction(*New)) {
    New->eraseFromParent();
    return nullptr;
  }
  for (size_t k = 0; k < Order.size(); ++k)
    Locals[k] = wrap(Order[k]);
  *N = Order.size();
  return wrap(New);
}

// A new module with the bodies of the listed functions (external linkage) and declarations of
// what they reference, nothing else. Returns null if they reference a symbol whose meaning is
// not the same in every module (see fmSharedSymbol) other than each other.
LLVMModuleRef fm_extract_functions(LLVMModuleRef M, LLVMValueRef *Fns, size_t N) {
  std::unordered_set<const GlobalValue *> Keep;
  for (size_t i = 0; i < N; ++i)
    Keep.insert(unwrap<GlobalValue>(Fns[i]));
  ValueToValueMapTy VMap;
  std::unique_ptr<Module> New = CloneModule(
      *unwrap(M), VMap, [&](const GlobalValue *GV) { return Keep.count(GV) != 0; });
  fmDropUnreferenced(*New);
  // What is left is used by the kept functions: a special global (llvm.used, ...) or alias
  // among it cannot be carried to another module.
  if (!New->alias_empty() || !New->ifunc_empty())
    return nullptr;
  for (GlobalValue &GV : New->global_values()) {
    if (GV.getName().starts_with("llvm.") && !isa<Function>(GV))
      return nullptr;
    const GlobalValue *Orig = unwrap(M)->getNamedValue(GV.getName());
    if (GV.isDeclaration() && Orig && !Keep.count(Orig) && !fmSharedSymbol(Orig))
      return nullptr;
    if (GV.isDeclaration() && GV.isThreadLocal())
      return nullptr;
  }
  for (Function &F : *New)
    if (!F.isDeclaration()) {
      F.setLinkage(GlobalValue::ExternalLinkage);
      F.setComdat(nullptr);
    }
  New->setModuleInlineAsm("");
  for (NamedMDNode &MD : llvm::make_early_inc_range(New->named_metadata()))
    if (MD.getName() != "llvm.module.flags")
      New->eraseNamedMetadata(&MD);
  return wrap(New.release());
}

// Gives the body-less `Dst` a copy of `Src`'s body, with `Src`'s parameter i replaced by
// Values[i] (N of them: Dst's parameters, constants or globals of Dst's module). Dst keeps its
// own attributes. Returns 0 (and clones nothing) on a count or type mismatch.
int fm_clone_body_mapped(LLVMValueRef Dst, LLVMValueRef Src, LLVMValueRef *Values, size_t N) {
  Function *D = unwrap<Function>(Dst);
  Function *S = unwrap<Function>(Src);
  if (!D->empty() || S->arg_size() != N || D->getReturnType() != S->getReturnType())
    return 0;
  ValueToValueMapTy VMap;
  for (size_t i = 0; i < N; ++i) {
    Value *V = unwrap(Values[i]);
    if (V->getType() != S->getArg(i)->getType())
      return 0;
    VMap[S->getArg(i)] = V;
  }
  AttributeList Attrs = D->getAttributes();
  CallingConv::ID CC = D->getCallingConv();
  bool HasPersonality = D->hasPersonalityFn();
  Constant *Personality = HasPersonality ? D->getPersonalityFn() : nullptr;
  SmallVector<ReturnInst *, 8> Returns;
  CloneFunctionInto(D, S, VMap, CloneFunctionChangeType::GlobalChanges, Returns);
  D->setAttributes(Attrs);
  D->setCallingConv(CC);
  D->setPersonalityFn(Personality);
  return 1;
}

// Whether two functions of one module are equal as LLVM's MergeFunctions decides it (the same
// operations on the same values, types, attributes and flags; names aside).
int fm_functions_equal(LLVMValueRef A, LLVMValueRef B) {
  GlobalNumberState Numbers;
  FunctionComparator Cmp(unwrap<Function>(A), unwrap<Function>(B), &Numbers);
  return Cmp.compare() == 0;
}

} // extern "C"

extern "C" {

// Replaces everything in `Dst` with the contents of `Src` (same context), leaving `Src` empty:
// functions, global variables, aliases and ifuncs are moved (not copied), comdats recreated in
// `Dst`, named metadata (module flags included), inline assembly, triple, data layout and
// source file name taken over. A pass inside someone else's process must keep working on the
// module object the host owns; this is how a result computed in another module object
// (the size guard's re-run, the backup taken before a failed run) gets back into it.
void fm_move_module_contents(LLVMModuleRef DstRef, LLVMModuleRef SrcRef) {
  Module *Dst = unwrap(DstRef);
  Module *Src = unwrap(SrcRef);
  // Empty Dst: first every reference between its globals, then the globals themselves.
  Dst->dropAllReferences();
  while (!Dst->ifunc_empty())
    Dst->ifunc_begin()->eraseFromParent();
  while (!Dst->alias_empty())
    Dst->alias_begin()->eraseFromParent();
  while (!Dst->empty())
    Dst->begin()->eraseFromParent();
  while (!Dst->global_empty())
    Dst->global_begin()->eraseFromParent();
  while (!Dst->named_metadata_empty())
    Dst->eraseNamedMetadata(&*Dst->named_metadata_begin());
  Dst->getComdatSymbolTable().clear();
  // Comdats live in their module's table: give each moved object Dst's comdat of that name.
  auto Recomdat = [&](GlobalObject &GO) {
    if (const Comdat *C = GO.getComdat()) {
      Comdat *D = Dst->getOrInsertComdat(C->getName());
      D->setSelectionKind(C->getSelectionKind());
      GO.setComdat(D);
    }
  };
  for (Function &F : *Src)
    Recomdat(F);
  for (GlobalVariable &G : Src->globals())
    Recomdat(G);
  Dst->getFunctionList().splice(Dst->end(), Src->getFunctionList());
  while (!Src->global_empty()) {
    GlobalVariable *G = &*Src->global_begin();
    Src->removeGlobalVariable(G);
    Dst->insertGlobalVariable(G);
  }
  while (!Src->alias_empty()) {
    GlobalAlias *A = &*Src->alias_begin();
    Src->removeAlias(A);
    Dst->insertAlias(A);
  }
  while (!Src->ifunc_empty()) {
    GlobalIFunc *I = &*Src->ifunc_begin();
    Src->removeIFunc(I);
    Dst->insertIFunc(I);
  }
  for (NamedMDNode &N : Src->named_metadata()) {
    NamedMDNode *D = Dst->getOrInsertNamedMetadata(N.getName());
    for (MDNode *Op : N.operands())
      D->addOperand(Op);
  }
  while (!Src->named_metadata_empty())
    Src->eraseNamedMetadata(&*Src->named_metadata_begin());
  Dst->setModuleInlineAsm(Src->getModuleInlineAsm());
  Dst->setTargetTriple(Src->getTargetTriple());
  Dst->setDataLayout(Src->getDataLayout());
  Dst->setSourceFileName(Src->getSourceFileName());
}

} // extern "C"

extern "C" {

// A copy of `M` made by LLVM's cloner: it shares M's named types (a copy read back from
// bitcode gets renamed ones, `%struct.T.0`) but not its use-list order. What a pass plugin
// keeps to restore the host's module with `fm_move_module_contents` if merging fails.
LLVMModuleRef fm_clone_module_sharing_types(LLVMModuleRef MRef) {
  return wrap(CloneModule(*unwrap(MRef)).release());
}

} // extern "C"

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

} // extern "C"

extern "C" {

// A hash of everything in `Fn` that code generation reads: its printed IR (name, linkage,
// section, body, constants) and its attribute lists and those of its call sites spelled out
// (printed IR only refers to attribute groups by module-dependent numbers). Two functions with
// the same hash compile to the same bytes; the size guard uses it to measure a function once
// however often the stages are re-run.
uint64_t fm_function_codegen_hash(LLVMValueRef Fn) {
  Function *F = unwrap<Function>(Fn);
  std::string S;
  raw_string_ostream OS(S);
  F->print(OS);
  auto AddAttrs = [&](AttributeList L) {
    OS << "|fn:" << L.getFnAttrs().getAsString() << "|ret:" << L.getRetAttrs().getAsString();
    for (unsigned I = 0; I < L.getNumAttrSets(); ++I)
      OS << "|" << L.getParamAttrs(I).getAsString();
  };
  AddAttrs(F->getAttributes());
  for (Instruction &I : instructions(*F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      AddAttrs(CB->getAttributes());
  OS.flush();
  return xxh3_64bits(S);
}

} // extern "C"
