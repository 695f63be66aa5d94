// Edge profiling, step 4: the runtime that writes the counters, generated into the module.
//
// What. `fm_profile_runtime` adds a constructor, a destructor and (with --write-on-signal) a
// signal handler that append the module's data block (record.h) to $FMERGE_PROFILE_FILE.
//
// Why. An instrumented module must write its own counters, without a library to link.
//
// How. IRBuilder, function by function; the comment on fm_profile_runtime says what they do.

#include "../shim.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstdint>

using namespace llvm;

namespace {

// The signals the runtime writes a record on (with OnSignals): those whose default action
// ends the process and that a program may get in normal use (HUP INT QUIT ILL TRAP ABRT FPE PIPE
// ALRM TERM XCPU XFSZ), with Linux's numbers on the architectures below. Not SIGSEGV and
// SIGBUS: language runtimes install their own handlers for those only over the default
// disposition (Rust's report of a stack overflow), which ours would hide from them.
constexpr int WrittenOnSignal[] = {1, 2, 3, 4, 5, 6, 8, 13, 14, 15, 24, 25};

// Whether T's C library lays out `struct sigaction` as {handler, sigset_t (128 bytes), int
// flags, restorer} and numbers signals and SA_* flags as Linux's generic ABI does: glibc and musl
// on these architectures (not Android's bionic, not MIPS, SPARC, PowerPC or s390).
bool genericLinuxSignals(const Triple &T) {
  if (!T.isOSLinux() || T.isAndroid())
    return false;
  switch (T.getArch()) {
  case Triple::x86:
  case Triple::x86_64:
  case Triple::arm:
  case Triple::armeb:
  case Triple::thumb:
  case Triple::thumbeb:
  case Triple::aarch64:
  case Triple::aarch64_be:
  case Triple::riscv32:
  case Triple::riscv64:
  case Triple::loongarch64:
    return true;
  default:
    return false;
  }
}

} // namespace

extern "C" {

// The runtime, generated into the module (Linux: the open() flags below are Linux's on every
// architecture LLVM targets there).
//
// A constructor (priority 0, before the program's own) notes the start time and the file
// named by $FMERGE_PROFILE_FILE (default `fmerge.profraw`). A destructor (run by exit() and by
// returning from main, after atexit handlers) appends the whole data block, header and
// counters, to that file with one write(2) on an O_APPEND descriptor, so that the records of
// processes running at the same time do not interleave. A forked child writes its own record,
// which includes what ran before the fork: each record is the whole history of one process,
// so its counts are consistent on their own. A process that calls _exit() writes nothing.
//
// With OnSignals, a process ended by one of the WrittenOnSignal signals writes its record too,
// marked with the signal: the constructor installs a handler for each signal whose disposition
// is still the default (one ignored or handled when the program starts stays so). The handler
// is shared by every instrumented module of the process (`__fmerge_prof_on_signal`, linkonce:
// one copy after linking; each module's constructor registers its writer in a shared table);
// it writes each module's record, then raises the signal again, which the handler's one-shot
// disposition (SA_RESETHAND) turns into the default action: the process ends as it would
// have, with the same status. A record is written once per process (a flag, exchanged
// atomically). The record of a run ended by a signal stops mid-run: the functions on the stack
// did not finish, and counters kept in registers through a loop (counter promotion) miss the
// loop's last pass; `fmerge profile merge` says which functions it had to count without such
// runs. The handlers are visible to the program (a program that asks whether SIGINT is at its
// default, as CPython does before installing its KeyboardInterrupt handler, gets "no"): that
// is why they are an option. Returns 0, or -1 if OnSignals is asked for a target whose signal
// ABI is not one genericLinuxSignals knows (nothing is added then; *Err is always null).
int fm_profile_runtime(LLVMModuleRef MRef, LLVMValueRef DataRef, uint64_t EndWord,
                       int OnSignals, char **Err) {
  *Err = nullptr;
  Module *M = unwrap(MRef);
  if (OnSignals && !genericLinuxSignals(Triple(M->getTargetTriple())))
    return -1;
  auto *Data = cast<GlobalVariable>(unwrap(DataRef));
  LLVMContext &C = M->getContext();
  Type *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
  PointerType *Ptr = PointerType::getUnqual(C);
  Type *Void = Type::getVoidTy(C);
  const DataLayout &DL = M->getDataLayout();
  uint64_t Size = DL.getTypeAllocSize(Data->getValueType());
  StructType *TimespecTy = StructType::get(C, {I64, I64});
  auto Word = [&](IRBuilder<> &B, uint64_t K) {
    return B.CreateConstInBoundsGEP2_64(Data->getValueType(), Data, 0, K);
  };

  auto *Start = new GlobalVariable(*M, I64, false, GlobalValue::InternalLinkage,
                                   ConstantInt::get(I64, 0), "__fmerge_prof_start");
  auto *Path = new GlobalVariable(*M, Ptr, false, GlobalValue::InternalLinkage,
                                  ConstantPointerNull::get(Ptr), "__fmerge_prof_path");
  auto *Written = new GlobalVariable(*M, I32, false, GlobalValue::InternalLinkage,
                                     ConstantInt::get(I32, 0), "__fmerge_prof_written");
  FunctionCallee ClockGettime =
      M->getOrInsertFunction("clock_gettime", FunctionType::get(I32, {I32, Ptr}, false));
  auto Clock = [&](IRBuilder<> &B, int Id) {
    Value *TS = B.CreateAlloca(TimespecTy);
    B.CreateCall(ClockGettime, {ConstantInt::get(I32, Id), TS});
    Value *Sec = B.CreateLoad(I64, B.CreateStructGEP(TimespecTy, TS, 0));
    Value *Nsec = B.CreateLoad(I64, B.CreateStructGEP(TimespecTy, TS, 1));
    return B.CreateAdd(B.CreateMul(Sec, ConstantInt::get(I64, 1000000000)), Nsec);
  };
  auto Now = [&](IRBuilder<> &B) { return Clock(B, 1 /* CLOCK_MONOTONIC */); };
  auto NewFn = [&](const char *Name, FunctionType *Ty,
                   GlobalValue::LinkageTypes Linkage = GlobalValue::InternalLinkage) {
    Function *Fn = Function::Create(Ty, Linkage, Name, M);
    Fn->addFnAttr(Attribute::NoUnwind);
    Fn->addFnAttr(Attribute::NoInline);
    return Fn;
  };
  FunctionType *VoidFnTy = FunctionType::get(Void, false);

  // __fmerge_prof_write_end(End): the record, written once per process.
  Function *WriteEnd = NewFn("__fmerge_prof_write_end", FunctionType::get(Void, {I64}, false));
  {
    BasicBlock *Entry = BasicBlock::Create(C, "entry", WriteEnd);
    BasicBlock *First = BasicBlock::Create(C, "first", WriteEnd);
    BasicBlock *Write = BasicBlock::Create(C, "write", WriteEnd);
    BasicBlock *Done = BasicBlock::Create(C, "done", WriteEnd);
    IRBuilder<> B(Entry);
    Value *Was = B.CreateAtomicRMW(AtomicRMWInst::Xchg, Written, ConstantInt::get(I32, 1),
                                   Align(4), AtomicOrdering::SequentiallyConsistent);
    B.CreateCondBr(B.CreateIsNull(Was), First, Done);
    B.SetInsertPoint(First);
    B.CreateStore(B.CreateSub(Now(B), B.CreateLoad(I64, Start)), Word(B, 3));
    B.CreateStore(Clock(B, 2 /* CLOCK_PROCESS_CPUTIME_ID */), Word(B, 5));
    B.CreateStore(WriteEnd->getArg(0), Word(B, EndWord));
    FunctionCallee OpenFn =
        M->getOrInsertFunction("open", FunctionType::get(I32, {Ptr, I32}, true));
    // O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode 0644
    Value *Fd = B.CreateCall(OpenFn, {B.CreateLoad(Ptr, Path),
                                      ConstantInt::get(I32, 0x1 | 0x40 | 0x400 | 0x80000),
                                      ConstantInt::get(I32, 0644)});
    B.CreateCondBr(B.CreateICmpSLT(Fd, ConstantInt::get(I32, 0)), Done, Write);
    B.SetInsertPoint(Write);
    FunctionCallee WriteFn =
        M->getOrInsertFunction("write", FunctionType::get(I64, {I32, Ptr, I64}, false));
    B.CreateCall(WriteFn, {Fd, Data, ConstantInt::get(I64, Size)});
    FunctionCallee CloseFn =
        M->getOrInsertFunction("close", FunctionType::get(I32, {I32}, false));
    B.CreateCall(CloseFn, {Fd});
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
    B.CreateRetVoid();
  }

  Function *Ctor = NewFn("__fmerge_prof_init", VoidFnTy);
  {
    BasicBlock *Entry = BasicBlock::Create(C, "entry", Ctor);
    BasicBlock *Default = BasicBlock::Create(C, "default", Ctor);
    BasicBlock *Named = BasicBlock::Create(C, "named", Ctor);
    IRBuilder<> B(Entry);
    B.CreateStore(Now(B), Start);
    FunctionCallee Getenv =
        M->getOrInsertFunction("getenv", FunctionType::get(Ptr, {Ptr}, false));
    Value *Env = B.CreateCall(Getenv, {B.CreateGlobalString("FMERGE_PROFILE_FILE")});
    B.CreateCondBr(B.CreateIsNull(Env), Default, Named);
    B.SetInsertPoint(Default);
    Value *Fallback = B.CreateGlobalString("fmerge.profraw");
    B.CreateBr(Named);
    B.SetInsertPoint(Named);
    PHINode *P = B.CreatePHI(Ptr, 2);
    P->addIncoming(Env, Entry);
    P->addIncoming(Fallback, Default);
    B.CreateStore(P, Path);
    if (OnSignals) {
      // The table every module's writer joins, and the handler that calls them.
      constexpr uint64_t MaxWriters = 64;
      ArrayType *TableTy = ArrayType::get(Ptr, MaxWriters);
      auto Shared = [&](const char *Name, Type *Ty) {
        auto *G = cast<GlobalVariable>(M->getOrInsertGlobal(Name, Ty));
        G->setLinkage(GlobalValue::LinkOnceAnyLinkage);
        G->setInitializer(Constant::getNullValue(Ty));
        return G;
      };
      GlobalVariable *Table = Shared("__fmerge_prof_writers", TableTy);
      GlobalVariable *Count = Shared("__fmerge_prof_nwriters", I32);
      Function *Handler = M->getFunction("__fmerge_prof_on_signal");
      if (!Handler) {
        Handler = NewFn("__fmerge_prof_on_signal", FunctionType::get(Void, {I32}, false),
                        GlobalValue::LinkOnceAnyLinkage);
        BasicBlock *HEntry = BasicBlock::Create(C, "entry", Handler);
        BasicBlock *Loop = BasicBlock::Create(C, "loop", Handler);
        BasicBlock *Call = BasicBlock::Create(C, "call", Handler);
        BasicBlock *Next = BasicBlock::Create(C, "next", Handler);
        BasicBlock *Raise = BasicBlock::Create(C, "raise", Handler);
        IRBuilder<> H(HEntry);
        LoadInst *N = H.CreateAlignedLoad(I32, Count, Align(4));
        N->setAtomic(AtomicOrdering::SequentiallyConsistent);
        Value *Limit = H.CreateZExt(
            H.CreateSelect(H.CreateICmpULT(N, ConstantInt::get(I32, MaxWriters)), N,
                           ConstantInt::get(I32, MaxWriters)),
            I64);
        Value *End = H.CreateZExt(Handler->getArg(0), I64);
        H.CreateBr(Loop);
        H.SetInsertPoint(Loop);
        PHINode *I = H.CreatePHI(I64, 2);
        I->addIncoming(ConstantInt::get(I64, 0), HEntry);
        H.CreateCondBr(H.CreateICmpULT(I, Limit), Call, Raise);
        H.SetInsertPoint(Call);
        Value *Fn = H.CreateLoad(Ptr, H.CreateInBoundsGEP(TableTy, Table,
                                                          {ConstantInt::get(I64, 0), I}));
        BasicBlock *Invoke = BasicBlock::Create(C, "invoke", Handler, Next);
        H.CreateCondBr(H.CreateIsNull(Fn), Next, Invoke);
        H.SetInsertPoint(Invoke);
        H.CreateCall(FunctionType::get(Void, {I64}, false), Fn, {End});
        H.CreateBr(Next);
        H.SetInsertPoint(Next);
        I->addIncoming(H.CreateAdd(I, ConstantInt::get(I64, 1)), Next);
        H.CreateBr(Loop);
        H.SetInsertPoint(Raise);
        FunctionCallee RaiseFn =
            M->getOrInsertFunction("raise", FunctionType::get(I32, {I32}, false));
        H.CreateCall(RaiseFn, {Handler->getArg(0)});
        H.CreateRetVoid();
      }
      // Joins the table.
      Value *Slot = B.CreateAtomicRMW(AtomicRMWInst::Add, Count, ConstantInt::get(I32, 1),
                                      Align(4), AtomicOrdering::SequentiallyConsistent);
      BasicBlock *Join = BasicBlock::Create(C, "join", Ctor);
      BasicBlock *Install = BasicBlock::Create(C, "install", Ctor);
      B.CreateCondBr(B.CreateICmpULT(Slot, ConstantInt::get(I32, MaxWriters)), Join, Install);
      B.SetInsertPoint(Join);
      B.CreateStore(WriteEnd, B.CreateInBoundsGEP(TableTy, Table,
                                                  {ConstantInt::get(I64, 0),
                                                   B.CreateZExt(Slot, I64)}));
      B.CreateBr(Install);
      // struct sigaction {handler, sigset_t mask (empty), int flags, restorer}, one-shot and
      // not blocking the signal, so that raising it again in the handler takes the default
      // action at once.
      B.SetInsertPoint(Install);
      StructType *ActTy = StructType::get(C, {Ptr, ArrayType::get(I32, 32), I32, Ptr});
      constexpr uint32_t SaNodefer = 0x40000000u, SaResethand = 0x80000000u;
      auto *Act = new GlobalVariable(
          *M, ActTy, true, GlobalValue::PrivateLinkage,
          ConstantStruct::get(ActTy, {Handler, Constant::getNullValue(ActTy->getElementType(1)),
                                      ConstantInt::get(I32, SaNodefer | SaResethand),
                                      ConstantPointerNull::get(Ptr)}),
          "__fmerge_prof_sigaction");
      FunctionCallee Sigaction = M->getOrInsertFunction(
          "sigaction", FunctionType::get(I32, {I32, Ptr, Ptr}, false));
      Value *Old = B.CreateAlloca(ArrayType::get(I64, 64)); // larger than any sigaction
      for (int Sig : WrittenOnSignal) {
        BasicBlock *Set = BasicBlock::Create(C, "set", Ctor);
        BasicBlock *After = BasicBlock::Create(C, "after", Ctor);
        B.CreateCall(Sigaction, {ConstantInt::get(I32, Sig), ConstantPointerNull::get(Ptr), Old});
        B.CreateCondBr(B.CreateIsNull(B.CreateLoad(Ptr, Old)), Set, After); // SIG_DFL
        B.SetInsertPoint(Set);
        B.CreateCall(Sigaction, {ConstantInt::get(I32, Sig), Act, ConstantPointerNull::get(Ptr)});
        B.CreateBr(After);
        B.SetInsertPoint(After);
      }
    }
    B.CreateRetVoid();
  }
  Function *Dtor = NewFn("__fmerge_prof_write", VoidFnTy);
  {
    IRBuilder<> B(BasicBlock::Create(C, "entry", Dtor));
    B.CreateCall(WriteEnd, {ConstantInt::get(I64, 0)});
    B.CreateRetVoid();
  }
  appendToGlobalCtors(*M, Ctor, 0);
  appendToGlobalDtors(*M, Dtor, 0);
  return 0;
}

} // extern "C"
