; musttail: the caller's signature must not change, so no merged body with extra parameters.
; runnable
; skip: mt_a musttail
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@fmt = private unnamed_addr constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define internal void @show(i32 %v) {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %v)
  ret void
}

define internal i32 @target(i32 %x) noinline {
  %r = mul i32 %x, 7
  ret i32 %r
}
define internal i32 @mt_a(i32 %x) noinline {
  %y = add i32 %x, 1
  %z = xor i32 %y, 12345
  %r = musttail call i32 @target(i32 %z)
  ret i32 %r
}
define internal i32 @mt_b(i32 %x) noinline {
  %y = add i32 %x, 2
  %z = xor i32 %y, 12345
  %r = musttail call i32 @target(i32 %z)
  ret i32 %r
}
define i32 @main() {
  %a = call i32 @mt_a(i32 5)
  call void @show(i32 %a)
  %b = call i32 @mt_b(i32 5)
  call void @show(i32 %b)
  ret i32 0
}
