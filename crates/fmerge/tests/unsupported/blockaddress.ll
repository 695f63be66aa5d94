; Block addresses (computed goto): the blocks' addresses are taken by a table.
; runnable
; skip: ba_a blockaddress
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@fmt = private unnamed_addr constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define internal void @show(i32 %v) {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %v)
  ret void
}

@tab_a = internal constant [2 x ptr] [ptr blockaddress(@ba_a, %l0), ptr blockaddress(@ba_a, %l1)]
@tab_b = internal constant [2 x ptr] [ptr blockaddress(@ba_b, %l0), ptr blockaddress(@ba_b, %l1)]
define internal i32 @ba_a(i32 %x) noinline {
entry:
  %i = and i32 %x, 1
  %idx = zext i32 %i to i64
  %p = getelementptr [2 x ptr], ptr @tab_a, i64 0, i64 %idx
  %t = load ptr, ptr %p
  indirectbr ptr %t, [label %l0, label %l1]
l0:
  ret i32 10
l1:
  ret i32 20
}
define internal i32 @ba_b(i32 %x) noinline {
entry:
  %i = and i32 %x, 1
  %idx = zext i32 %i to i64
  %p = getelementptr [2 x ptr], ptr @tab_b, i64 0, i64 %idx
  %t = load ptr, ptr %p
  indirectbr ptr %t, [label %l0, label %l1]
l0:
  ret i32 11
l1:
  ret i32 21
}
define i32 @main() {
  %a = call i32 @ba_a(i32 4)
  call void @show(i32 %a)
  %b = call i32 @ba_b(i32 5)
  call void @show(i32 %b)
  ret i32 0
}
