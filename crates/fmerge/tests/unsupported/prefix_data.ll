; Prefix data in front of the function.
; runnable
; skip: pd_a prefix/prologue data
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@fmt = private unnamed_addr constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define internal void @show(i32 %v) {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %v)
  ret void
}

define internal i32 @pd_a(i32 %x) noinline prefix i32 123 {
  %m = mul i32 %x, 9
  %r = add i32 %m, 1
  ret i32 %r
}
define internal i32 @pd_b(i32 %x) noinline prefix i32 123 {
  %m = mul i32 %x, 9
  %r = add i32 %m, 2
  ret i32 %r
}
define i32 @main() {
  %a = call i32 @pd_a(i32 5)
  call void @show(i32 %a)
  %b = call i32 @pd_b(i32 5)
  call void @show(i32 %b)
  ret i32 0
}
