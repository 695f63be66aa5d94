// Attribute lists and linkage facts of functions and call sites.
//
// What. The answers merging needs about attributes: which part of a function's or call site's
// attribute list must match for two of them to share one body (`fm_attr_key`, its stable hash,
// the function-level `fm_fn_attr_key`), whether two lists intersect and their intersection,
// the attribute list of a merged function built from two (`fm_set_merged_attrs`), what a call
// site fmerge creates may carry (`fm_call_like_function`), plus copies of attributes and the
// dso_local / interposable facts of a global.
//
// Why. The C API reads and writes single attributes but cannot intersect lists, tell which
// attributes LLVM allows to be intersected away, or give a uniqued identity for a list.
//
// How. Two functions (or call sites) whose attribute lists differ only in attributes LLVM can
// intersect (inferred facts such as `range`, `nonnull`, `memory(...)`, `nounwind`) may share
// one body that carries the intersection. Attributes that change meaning or ABI (`byval`,
// `sret`, string attributes such as "target-features") must match exactly: `mustMatchPart`
// keeps those, and uniqued AttributeLists built from them serve as identities.

#include "shim.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalValue.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/xxhash.h"

#include <cstdint>
#include <string>

using namespace llvm;
using fmshim::mustMatchPart;

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

// `L`, over `NumParams` parameters, with only what changes how parameters and the result are
// passed: each one's must-match part, and the alignment of a parameter passed in memory (byval,
// byref, inalloca, preallocated), which caller and callee must agree on. `Fn` is the
// function-level part kept.
static AttributeList abiOnly(LLVMContext &C, AttributeList L, unsigned NumParams,
                             AttributeSet Fn) {
  SmallVector<AttributeSet, 8> Params;
  for (unsigned i = 0; i < NumParams; ++i) {
    AttributeSet P = L.getParamAttrs(i);
    AttrBuilder B(C, mustMatchPart(C, P));
    bool InMemory = P.hasAttribute(Attribute::ByVal) || P.hasAttribute(Attribute::ByRef) ||
                    P.hasAttribute(Attribute::InAlloca) ||
                    P.hasAttribute(Attribute::Preallocated);
    if (InMemory && P.getAlignment())
      B.addAlignmentAttr(P.getAlignment());
    Params.push_back(AttributeSet::get(C, B));
  }
  return AttributeList::get(C, Fn, mustMatchPart(C, L.getRetAttrs()), Params);
}

AttributeSet fmshim::mustMatchPart(LLVMContext &C, AttributeSet S) {
  AttrBuilder B(C);
  for (Attribute A : S) {
    if (A.isStringAttribute() || Attribute::intersectMustPreserve(A.getKindAsEnum()))
      B.addAttribute(A);
  }
  return AttributeSet::get(C, B);
}

// The must-match part of a function's or call site's whole attribute list: each set's
// must-match part, at the same places (what `fm_attr_key` and `fm_attr_key_hash` identify).
static AttributeList mustMatchList(Value *V) {
  LLVMContext &C = V->getContext();
  AttributeList L = attrsOf(V);
  SmallVector<AttributeSet, 8> Params;
  for (unsigned i = 0; i < L.getNumAttrSets(); ++i)
    Params.push_back(mustMatchPart(C, L.getParamAttrs(i)));
  return AttributeList::get(C, mustMatchPart(C, L.getFnAttrs()),
                            mustMatchPart(C, L.getRetAttrs()), Params);
}

extern "C" {

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
void fm_call_like_function(LLVMValueRef Call, LLVMValueRef Fn) {
  CallBase *CB = unwrap<CallBase>(Call);
  Function *F = unwrap<Function>(Fn);
  CB->setCallingConv(F->getCallingConv());
  CB->setAttributes(abiOnly(F->getContext(), F->getAttributes(), F->arg_size(), AttributeSet()));
}

// Leaves function or call site `V` only the attributes of its parameters (arguments) and
// result that change how they are passed (`fm_call_like_function`'s rule): the facts
// (`dereferenceable`, `nonnull`, `align`, `noundef` ...) go, function-level attributes stay.
// Dropping facts never changes what code means. For a copy shared by functions of several
// modules, each with its own facts (a template's `dereferenceable(N)` for `char[N]`, on its
// parameter and on the calls that pass it on), that only one of them could state.
void fm_keep_abi_param_attrs(LLVMValueRef V) {
  Value *Val = unwrap(V);
  AttributeList L = attrsOf(Val);
  unsigned N = isa<Function>(Val) ? cast<Function>(Val)->arg_size() : cast<CallBase>(Val)->arg_size();
  setAttrs(Val, abiOnly(Val->getContext(), L, N, L.getFnAttrs()));
}

// Identity of a function's or call site's whole attribute list (uniqued and kept by the
// context until it is destroyed: equal pointers mean equal lists, and `fm_attr_key` of equal
// lists is the same, so callers may remember keys by list).
const void *fm_attr_list(LLVMValueRef V) { return attrsOf(unwrap(V)).getRawPointer(); }

// Identity of the part of a function's or call site's attribute list that must match exactly
// for two of them to share one body (uniqued: equal pointers mean equal parts).
const void *fm_attr_key(LLVMValueRef V) { return mustMatchList(unwrap(V)).getRawPointer(); }

// Stable content hash of the must-match part of an attribute list (`fm_attr_key`): equal on
// every run and in every module, for summaries shared between builds. It hashes the key list
// itself (trailing empty sets dropped), so lists with the same key hash the same: a lowering
// remembers the hash of the first list it meets with a key, and the hash of a function must not
// depend on which other function of its module came first.
uint64_t fm_attr_key_hash(LLVMValueRef V) {
  AttributeList K = mustMatchList(unwrap(V));
  std::string S;
  S += K.getFnAttrs().getAsString();
  S += "|";
  S += K.getRetAttrs().getAsString();
  for (unsigned i = 0; i + 2 < K.getNumAttrSets(); ++i) {
    S += "|";
    S += K.getParamAttrs(i).getAsString();
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

// `fm_fn_attr_key` without `noinline` and `alwaysinline`, which merging sets and clears on the
// bodies it makes: equal for a function and every merged body made from it.
const void *fm_fn_attr_key_but_inlining(LLVMValueRef Fn) {
  Function *F = unwrap<Function>(Fn);
  LLVMContext &C = F->getContext();
  AttributeSet S = mustMatchPart(C, F->getAttributes().getFnAttrs())
                       .removeAttribute(C, Attribute::NoInline)
                       .removeAttribute(C, Attribute::AlwaysInline);
  AttributeList K = AttributeList::get(C, S, AttributeSet(), ArrayRef<AttributeSet>());
  return K.getRawPointer();
}

} // extern "C"

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

extern "C" {

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
  // Inlining attributes must match to intersect, but the merged function gets its own (the
  // caller marks it noinline): a merged body, already noinline, may merge again with a
  // function that is not.
  auto Inlining = [&](AttributeSet S) {
    return S.removeAttribute(C, Attribute::NoInline).removeAttribute(C, Attribute::AlwaysInline);
  };
  auto Fn = Inlining(A1.getFnAttrs()).intersectWith(C, Inlining(A2.getFnAttrs()));
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
