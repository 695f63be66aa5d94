; Inline assembly: the asm string is not a constant that can become a parameter, so asm_a and
; asm_b must stay apart; asm_c is an exact copy of asm_a.
; runnable
; merge: asm_a asm_c
; apart: asm_a asm_b
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@fmt = private unnamed_addr constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define internal void @show(i32 %v) {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %v)
  ret void
}

define internal i32 @asm_a(i32 %x) noinline {
  %y = call i32 asm "leal 1($1), $0", "=r,r"(i32 %x)
  %z = mul i32 %y, 3
  %w = xor i32 %z, 85
  %v = add i32 %w, %x
  ret i32 %v
}
define internal i32 @asm_b(i32 %x) noinline {
  %y = call i32 asm "leal 2($1), $0", "=r,r"(i32 %x)
  %z = mul i32 %y, 3
  %w = xor i32 %z, 85
  %v = add i32 %w, %x
  ret i32 %v
}
define internal i32 @asm_c(i32 %x) noinline {
  %y = call i32 asm "leal 1($1), $0", "=r,r"(i32 %x)
  %z = mul i32 %y, 3
  %w = xor i32 %z, 85
  %v = add i32 %w, %x
  ret i32 %v
}
define i32 @main() {
  %a = call i32 @asm_a(i32 5)
  call void @show(i32 %a)
  %b = call i32 @asm_b(i32 5)
  call void @show(i32 %b)
  %c = call i32 @asm_c(i32 7)
  call void @show(i32 %c)
  ret i32 0
}
