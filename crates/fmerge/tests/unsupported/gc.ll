; A garbage-collection strategy.
; runnable
; skip: gc_a garbage-collection strategy
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@fmt = private unnamed_addr constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define internal void @show(i32 %v) {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %v)
  ret void
}

define internal i32 @gc_a(i32 %x) noinline gc "shadow-stack" {
  %m = mul i32 %x, 9
  %r = add i32 %m, 1
  %s = xor i32 %r, 77
  ret i32 %s
}
define internal i32 @gc_b(i32 %x) noinline gc "shadow-stack" {
  %m = mul i32 %x, 9
  %r = add i32 %m, 2
  %s = xor i32 %r, 77
  ret i32 %s
}
define i32 @main() {
  %a = call i32 @gc_a(i32 5)
  call void @show(i32 %a)
  %b = call i32 @gc_b(i32 5)
  call void @show(i32 %b)
  ret i32 0
}
