; LLVM 22's AArch64 machine outliner saves LR around an outlined call where LR is dead (llvm-reduce
; of Lua's whole-program module, -Os): -verify-machineinstrs rejects it. See tests/outline.rs.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

define void @luaK_exp2nextreg(ptr %0, ptr %1) {
  call fastcc void @exp2reg(ptr null, ptr null)
  ret void
}

declare fastcc void @exp2reg(ptr, ptr)

declare fastcc void @discharge2reg(ptr, ptr)

define i32 @luaK_exp2anyreg() {
  tail call void @luaK_exp2nextreg(ptr null, ptr null)
  ret i32 0
}

define i32 @luaK_goiftrue() {
  %1 = call fastcc i32 @jumponcond(ptr null, ptr null)
  ret i32 %1
}

declare fastcc i32 @jumponcond(ptr, ptr)

define fastcc void @discharge2anyreg() {
  call fastcc void @discharge2reg(ptr null, ptr null)
  ret void
}

define i32 @luaK_goiffalse() {
  store volatile i32 0, ptr null, align 4
  %1 = call fastcc i32 @jumponcond(ptr null, ptr null)
  ret i32 %1
}

declare fastcc ptr @varinfo(ptr, ptr)

; Function Attrs: noreturn
define ptr @luaG_callerror() #0 {
  %1 = tail call fastcc ptr @varinfo(ptr null, ptr null)
  ret ptr null
}

attributes #0 = { noreturn }
