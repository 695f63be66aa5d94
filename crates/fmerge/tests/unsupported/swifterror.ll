; swifterror arguments (reported as a parameter a tail call cannot forward).
; runnable
; skip: se_a cannot be forwarded
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@fmt = private unnamed_addr constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define internal void @show(i32 %v) {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %v)
  ret void
}

define internal swiftcc i32 @se_a(i32 %x, ptr swifterror %err) noinline {
  store ptr null, ptr %err
  %m = mul i32 %x, 5
  %r = add i32 %m, 3
  ret i32 %r
}
define internal swiftcc i32 @se_b(i32 %x, ptr swifterror %err) noinline {
  store ptr null, ptr %err
  %m = mul i32 %x, 5
  %r = add i32 %m, 4
  ret i32 %r
}
define i32 @main() {
  %e = alloca swifterror ptr
  store ptr null, ptr %e
  %a = call swiftcc i32 @se_a(i32 5, ptr swifterror %e)
  call void @show(i32 %a)
  %b = call swiftcc i32 @se_b(i32 5, ptr swifterror %e)
  call void @show(i32 %b)
  ret i32 0
}
