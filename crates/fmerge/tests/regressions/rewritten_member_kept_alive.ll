; A member whose call sites a merge rewrote, called by a body built before that merge was
; committed: the constants stage builds every class's body first, then commits. f1 and f2
; differ only in the table they read, and are merged with their call sites rewritten; g1 and
; g2 differ only in which of them they call, so their merged body calls through a parameter
; and g1's call sites pass @f1's address, a use of f1 made after f1 was queued for erasure.
; f1 used to stay alive with its whole body (a second copy of the merged code); now it is a
; thunk.
@t1 = internal global [16 x i32] [i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16]
@t2 = internal global [16 x i32] [i32 16, i32 15, i32 14, i32 13, i32 12, i32 11, i32 10, i32 9, i32 8, i32 7, i32 6, i32 5, i32 4, i32 3, i32 2, i32 1]
@fmt = private constant [4 x i8] c"%d\0A\00"

declare i32 @printf(ptr, ...)

define internal i32 @f1(i32 %n) noinline {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %k = and i32 %i, 15
  %p = getelementptr inbounds [16 x i32], ptr @t1, i32 0, i32 %k
  %v = load i32, ptr %p
  %m = mul i32 %v, -1640531535
  %x = xor i32 %acc, %m
  %r = shl i32 %x, 5
  %s = lshr i32 %x, 27
  %o = or i32 %r, %s
  %a2 = add i32 %o, %i
  %q = urem i32 %a2, 1000003
  %acc.next = add i32 %q, %v
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i32 %acc.next
}

define internal i32 @f2(i32 %n) noinline {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %k = and i32 %i, 15
  %p = getelementptr inbounds [16 x i32], ptr @t2, i32 0, i32 %k
  %v = load i32, ptr %p
  %m = mul i32 %v, -1640531535
  %x = xor i32 %acc, %m
  %r = shl i32 %x, 5
  %s = lshr i32 %x, 27
  %o = or i32 %r, %s
  %a2 = add i32 %o, %i
  %q = urem i32 %a2, 1000003
  %acc.next = add i32 %q, %v
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i32 %acc.next
}

define internal i32 @g1(i32 %n) noinline {
entry:
  %a = call i32 @f1(i32 %n)
  %b = mul i32 %a, 31
  %c = add i32 %b, %n
  %d = call i32 @f1(i32 %c)
  %e = xor i32 %d, %a
  %f = urem i32 %e, 65521
  %g = shl i32 %f, 3
  %h = sub i32 %g, %b
  ret i32 %h
}

define internal i32 @g2(i32 %n) noinline {
entry:
  %a = call i32 @f2(i32 %n)
  %b = mul i32 %a, 31
  %c = add i32 %b, %n
  %d = call i32 @f2(i32 %c)
  %e = xor i32 %d, %a
  %f = urem i32 %e, 65521
  %g = shl i32 %f, 3
  %h = sub i32 %g, %b
  ret i32 %h
}

define i32 @main() {
  %a = call i32 @g1(i32 40)
  %b = call i32 @g2(i32 50)
  %c = call i32 @f1(i32 7)
  %d = call i32 @f2(i32 9)
  %s1 = add i32 %a, %b
  %s2 = add i32 %c, %d
  %s = add i32 %s1, %s2
  %u = and i32 %s, 255
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %s)
  ret i32 0
}
