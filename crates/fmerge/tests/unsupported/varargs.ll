; Variable arguments: a thunk cannot forward them.
; runnable
; skip: va_a variable arguments
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@fmt = private unnamed_addr constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define internal void @show(i32 %v) {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %v)
  ret void
}

declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)
define internal i32 @va_a(i32 %n, ...) noinline {
  %ap = alloca [24 x i8], align 16
  call void @llvm.va_start.p0(ptr %ap)
  %v = va_arg ptr %ap, i32
  call void @llvm.va_end.p0(ptr %ap)
  %m = mul i32 %v, 3
  %r = add i32 %m, %n
  %s = xor i32 %r, 1001
  ret i32 %s
}
define internal i32 @va_b(i32 %n, ...) noinline {
  %ap = alloca [24 x i8], align 16
  call void @llvm.va_start.p0(ptr %ap)
  %v = va_arg ptr %ap, i32
  call void @llvm.va_end.p0(ptr %ap)
  %m = mul i32 %v, 3
  %r = add i32 %m, %n
  %s = xor i32 %r, 1002
  ret i32 %s
}
define i32 @main() {
  %a = call i32 (i32, ...) @va_a(i32 5, i32 9)
  call void @show(i32 %a)
  %b = call i32 (i32, ...) @va_b(i32 5, i32 11)
  call void @show(i32 %b)
  ret i32 0
}
