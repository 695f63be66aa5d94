; Similar merging left out one side's lifetime.start: @f's slot %b has two lifetime regions, and in
; the first @g uses a slot of another shape where @f uses %b. The old merged body put the
; matched pair of markers on `poison` and kept the second region's markers, so %b was dead in the
; first region and code generation laid it over %a: main printed "9354 5376" instead of
; "7638 5376" (lli-22 and llc-22 -O2 alike). Minimized from regex-automata's create_cache.
declare void @llvm.lifetime.start.p0(ptr captures(none))
declare void @llvm.lifetime.end.p0(ptr captures(none))
declare i32 @printf(ptr, ...)

@fmt = private constant [7 x i8] c"%d %d\0A\00"

define internal void @fill(ptr %p, i32 %n, i32 %k) noinline {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %v = mul i32 %i, %k
  %w = add i32 %v, %n
  %q = getelementptr inbounds i32, ptr %p, i32 %i
  store i32 %w, ptr %q
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, 12
  br i1 %c, label %loop, label %done
done:
  ret void
}

define internal i32 @sum(ptr %p, i32 %len) noinline {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %q = getelementptr inbounds i32, ptr %p, i32 %i
  %x = load i32, ptr %q
  %s1 = add i32 %s, %x
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %len
  br i1 %c, label %loop, label %done
done:
  ret i32 %s1
}

define internal i32 @f(i32 %n) noinline {
entry:
  %a = alloca [64 x i8], align 16
  %b = alloca [64 x i8], align 16
  call void @llvm.lifetime.start.p0(ptr %a)
  call void @fill(ptr %a, i32 %n, i32 3)
  call void @llvm.lifetime.start.p0(ptr %b)
  call void @fill(ptr %b, i32 %n, i32 5)
  %s1 = call i32 @sum(ptr %a, i32 12)
  %s2 = call i32 @sum(ptr %b, i32 12)
  call void @llvm.lifetime.end.p0(ptr %b)
  call void @llvm.lifetime.end.p0(ptr %a)
  %t = add i32 %s1, %s2
  call void @llvm.lifetime.start.p0(ptr %b)
  call void @fill(ptr %b, i32 %t, i32 7)
  %s3 = call i32 @sum(ptr %b, i32 12)
  call void @llvm.lifetime.end.p0(ptr %b)
  %r = add i32 %t, %s3
  ret i32 %r
}

define internal i32 @g(i32 %n) noinline {
entry:
  %a = alloca [64 x i8], align 16
  %c = alloca [48 x i8], align 16
  %b = alloca [64 x i8], align 16
  call void @llvm.lifetime.start.p0(ptr %a)
  call void @fill(ptr %a, i32 %n, i32 3)
  call void @llvm.lifetime.start.p0(ptr %c)
  call void @fill(ptr %c, i32 %n, i32 2)
  %s1 = call i32 @sum(ptr %a, i32 12)
  %s2 = call i32 @sum(ptr %c, i32 12)
  call void @llvm.lifetime.end.p0(ptr %c)
  call void @llvm.lifetime.end.p0(ptr %a)
  %t = add i32 %s1, %s2
  call void @llvm.lifetime.start.p0(ptr %b)
  call void @fill(ptr %b, i32 %t, i32 7)
  %s3 = call i32 @sum(ptr %b, i32 12)
  call void @llvm.lifetime.end.p0(ptr %b)
  %r = add i32 %t, %s3
  ret i32 %r
}

define i32 @main() {
entry:
  %x = call i32 @f(i32 1)
  %y = call i32 @g(i32 2)
  %p = call i32 (ptr, ...) @printf(ptr @fmt, i32 %x, i32 %y)
  ret i32 0
}
