; The same body with different personality functions: never one merged body (pers_c, an
; exact copy of pers_a with the same personality, merges with it).
; runnable
; apart: pers_a pers_b
; apart: pers_b pers_c
; merge: pers_a pers_c
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@fmt = private unnamed_addr constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define internal void @show(i32 %v) {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %v)
  ret void
}

declare i32 @__gxx_personality_v0(...)
define i32 @other_personality(...) {
  ret i32 0
}
define internal i32 @work(i32 %x) noinline {
  %r = mul i32 %x, 13
  ret i32 %r
}
define internal i32 @pers_a(i32 %x) noinline personality ptr @__gxx_personality_v0 {
entry:
  %y = add i32 %x, 3
  %r = invoke i32 @work(i32 %y) to label %ok unwind label %lp
ok:
  %s = xor i32 %r, 99
  ret i32 %s
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}
define internal i32 @pers_b(i32 %x) noinline personality ptr @other_personality {
entry:
  %y = add i32 %x, 3
  %r = invoke i32 @work(i32 %y) to label %ok unwind label %lp
ok:
  %s = xor i32 %r, 99
  ret i32 %s
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}
define internal i32 @pers_c(i32 %x) noinline personality ptr @__gxx_personality_v0 {
entry:
  %y = add i32 %x, 3
  %r = invoke i32 @work(i32 %y) to label %ok unwind label %lp
ok:
  %s = xor i32 %r, 99
  ret i32 %s
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}
define i32 @main() {
  %a = call i32 @pers_a(i32 5)
  call void @show(i32 %a)
  %b = call i32 @pers_b(i32 5)
  call void @show(i32 %b)
  %c = call i32 @pers_c(i32 5)
  call void @show(i32 %c)
  ret i32 0
}
