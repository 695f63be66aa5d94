; The guard test case where a losing merge's body is called from another merge's body in a way
; no member's call explains. Two functions of Lua 5.4's utf8 library (lutf8lib.c, clang-22 -Os,
; extracted with llvm-extract-22), codepoint and utflen, internal and called directly, and two
; written-for-the-test callers c1 and c2, equal but for the function they call and two
; immediates (so the constants stage leaves them to the similar stage). With --profit estimate
; --no-estimate:
; - the similar stage merges codepoint and utflen at once (its estimate trusted) and rewrites
;   their call sites: c1 calls codepoint.fmerged(%L, i1 false), c2 the same with i1 true, and
;   both callers are stale for the rest of the round;
; - the next round merges c1 and c2: their merged body passes a value chosen by its own
;   function id where each caller passed a constant;
; - generated code shows the codepoint/utflen merge larger than the two functions it replaced.
; Undoing it must undo the c1/c2 merge with it: that call matches neither member.
; (The fixture before this one, reduced from zstd, reached the case only through a function
; merged twice, which no longer happens.)
source_filename = "llvm-link"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str.9.845 = external hidden unnamed_addr constant [14 x i8], align 1
@.str.10.846 = external hidden unnamed_addr constant [22 x i8], align 1
@.str.11.840 = external hidden unnamed_addr constant [19 x i8], align 1
@.str.14.841 = external hidden unnamed_addr constant [31 x i8], align 1
@.str.15.842 = external hidden unnamed_addr constant [29 x i8], align 1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #0

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #0

; Function Attrs: mustprogress nofree norecurse nosync nounwind optsize willreturn memory(read, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable
declare dso_local range(i32 0, 2) i32 @lua_toboolean(ptr noundef readonly captures(none), i32 noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nofree norecurse nosync nounwind optsize willreturn memory(write, argmem: readwrite, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable
declare dso_local void @lua_pushnil(ptr noundef captures(none)) local_unnamed_addr #2

; Function Attrs: mustprogress nofree norecurse nosync nounwind optsize willreturn memory(write, argmem: readwrite, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable
declare dso_local void @lua_pushinteger(ptr noundef captures(none), i64 noundef) local_unnamed_addr #2

; Function Attrs: nounwind optsize uwtable
declare dso_local void @luaL_checkstack(ptr noundef, i32 noundef, ptr noundef) local_unnamed_addr #3

; Function Attrs: nounwind optsize uwtable
declare dso_local i32 @luaL_error(ptr noundef, ptr noundef, ...) local_unnamed_addr #3

; Function Attrs: nounwind optsize uwtable
declare dso_local i32 @luaL_argerror(ptr noundef, i32 noundef, ptr noundef) local_unnamed_addr #3

; Function Attrs: nounwind optsize uwtable
declare dso_local ptr @luaL_checklstring(ptr noundef, i32 noundef, ptr noundef) local_unnamed_addr #3

; Function Attrs: nounwind optsize uwtable
declare dso_local i64 @luaL_optinteger(ptr noundef, i32 noundef, i64 noundef) local_unnamed_addr #3

; Function Attrs: nounwind optsize uwtable
define internal i32 @codepoint(ptr noundef %0) #3 {
  %2 = alloca i64, align 8
  %3 = alloca i32, align 4
  call void @llvm.lifetime.start.p0(ptr nonnull %2) #5
  %4 = call ptr @luaL_checklstring(ptr noundef %0, i32 noundef 1, ptr noundef nonnull %2) #6
  %5 = call i64 @luaL_optinteger(ptr noundef %0, i32 noundef 2, i64 noundef 1) #6
  %6 = load i64, ptr %2, align 8, !tbaa !9
  %7 = icmp sgt i64 %5, -1
  br i1 %7, label %14, label %8

8:                                                ; preds = %1
  %9 = sub i64 0, %5
  %10 = icmp ult i64 %6, %9
  br i1 %10, label %14, label %11

11:                                               ; preds = %8
  %12 = add nsw i64 %5, 1
  %13 = add i64 %12, %6
  br label %14

14:                                               ; preds = %1, %8, %11
  %15 = phi i64 [ %13, %11 ], [ %5, %1 ], [ 0, %8 ]
  %16 = call i64 @luaL_optinteger(ptr noundef %0, i32 noundef 3, i64 noundef %15) #6
  %17 = load i64, ptr %2, align 8, !tbaa !9
  %18 = icmp sgt i64 %16, -1
  br i1 %18, label %25, label %19

19:                                               ; preds = %14
  %20 = sub i64 0, %16
  %21 = icmp ult i64 %17, %20
  br i1 %21, label %25, label %22

22:                                               ; preds = %19
  %23 = add nsw i64 %16, 1
  %24 = add i64 %23, %17
  br label %25

25:                                               ; preds = %14, %19, %22
  %26 = phi i64 [ %24, %22 ], [ %16, %14 ], [ 0, %19 ]
  %27 = call i32 @lua_toboolean(ptr noundef %0, i32 noundef 4) #6
  %28 = icmp sgt i64 %15, 0
  br i1 %28, label %31, label %29, !prof !11

29:                                               ; preds = %25
  %30 = call i32 @luaL_argerror(ptr noundef %0, i32 noundef 2, ptr noundef nonnull @.str.9.845) #6
  br label %31

31:                                               ; preds = %29, %25
  %32 = load i64, ptr %2, align 8, !tbaa !9
  %33 = icmp sgt i64 %26, %32
  br i1 %33, label %34, label %36, !prof !12

34:                                               ; preds = %31
  %35 = call i32 @luaL_argerror(ptr noundef %0, i32 noundef 3, ptr noundef nonnull @.str.9.845) #6
  br label %36

36:                                               ; preds = %34, %31
  %37 = icmp sgt i64 %15, %26
  br i1 %37, label %65, label %38

38:                                               ; preds = %36
  %39 = sub nsw i64 %26, %15
  %40 = icmp sgt i64 %39, 2147483646
  br i1 %40, label %41, label %43

41:                                               ; preds = %38
  %42 = call i32 (ptr, ptr, ...) @luaL_error(ptr noundef %0, ptr noundef nonnull @.str.10.846) #6
  br label %65

43:                                               ; preds = %38
  %44 = trunc i64 %39 to i32
  %45 = add nsw i32 %44, 1
  call void @luaL_checkstack(ptr noundef %0, i32 noundef %45, ptr noundef nonnull @.str.10.846) #6
  %46 = getelementptr inbounds i8, ptr %4, i64 %26
  %47 = getelementptr i8, ptr %4, i64 %15
  %48 = getelementptr i8, ptr %47, i64 -1
  %49 = icmp ult ptr %48, %46
  br i1 %49, label %50, label %65

50:                                               ; preds = %43
  %51 = icmp eq i32 %27, 0
  %52 = zext i1 %51 to i32
  br label %53

53:                                               ; preds = %50, %60
  %54 = phi i32 [ 0, %50 ], [ %63, %60 ]
  %55 = phi ptr [ %48, %50 ], [ %56, %60 ]
  call void @llvm.lifetime.start.p0(ptr nonnull %3) #5
  %56 = call fastcc ptr @utf8_decode(ptr noundef %55, ptr noundef nonnull %3, i32 noundef %52) #7
  %57 = icmp eq ptr %56, null
  br i1 %57, label %58, label %60

58:                                               ; preds = %53
  %59 = call i32 (ptr, ptr, ...) @luaL_error(ptr noundef %0, ptr noundef nonnull @.str.11.840) #6
  call void @llvm.lifetime.end.p0(ptr nonnull %3) #5
  br label %65

60:                                               ; preds = %53
  %61 = load i32, ptr %3, align 4, !tbaa !1
  %62 = zext i32 %61 to i64
  call void @lua_pushinteger(ptr noundef %0, i64 noundef %62) #6
  %63 = add nuw nsw i32 %54, 1
  call void @llvm.lifetime.end.p0(ptr nonnull %3) #5
  %64 = icmp ult ptr %56, %46
  br i1 %64, label %53, label %65, !llvm.loop !13

65:                                               ; preds = %60, %43, %58, %36, %41
  %66 = phi i32 [ 0, %36 ], [ %42, %41 ], [ %59, %58 ], [ 0, %43 ], [ %63, %60 ]
  call void @llvm.lifetime.end.p0(ptr nonnull %2) #5
  ret i32 %66
}

; Function Attrs: nounwind optsize uwtable
define internal range(i32 1, 3) i32 @utflen(ptr noundef %0) #3 {
  %2 = alloca i64, align 8
  call void @llvm.lifetime.start.p0(ptr nonnull %2) #5
  %3 = call ptr @luaL_checklstring(ptr noundef %0, i32 noundef 1, ptr noundef nonnull %2) #6
  %4 = call i64 @luaL_optinteger(ptr noundef %0, i32 noundef 2, i64 noundef 1) #6
  %5 = load i64, ptr %2, align 8, !tbaa !9
  %6 = icmp sgt i64 %4, -1
  br i1 %6, label %13, label %7

7:                                                ; preds = %1
  %8 = sub i64 0, %4
  %9 = icmp ult i64 %5, %8
  br i1 %9, label %13, label %10

10:                                               ; preds = %7
  %11 = add nsw i64 %4, 1
  %12 = add i64 %11, %5
  br label %13

13:                                               ; preds = %1, %7, %10
  %14 = phi i64 [ %12, %10 ], [ %4, %1 ], [ 0, %7 ]
  %15 = call i64 @luaL_optinteger(ptr noundef %0, i32 noundef 3, i64 noundef -1) #6
  %16 = load i64, ptr %2, align 8, !tbaa !9
  %17 = icmp sgt i64 %15, -1
  br i1 %17, label %24, label %18

18:                                               ; preds = %13
  %19 = sub i64 0, %15
  %20 = icmp ult i64 %16, %19
  br i1 %20, label %24, label %21

21:                                               ; preds = %18
  %22 = add nsw i64 %15, 1
  %23 = add i64 %22, %16
  br label %24

24:                                               ; preds = %13, %18, %21
  %25 = phi i64 [ %23, %21 ], [ %15, %13 ], [ 0, %18 ]
  %26 = call i32 @lua_toboolean(ptr noundef %0, i32 noundef 4) #6
  %27 = icmp sgt i64 %14, 0
  %28 = add nsw i64 %14, -1
  %29 = load i64, ptr %2, align 8
  %30 = icmp sle i64 %28, %29
  %31 = select i1 %27, i64 %28, i64 %14
  %32 = select i1 %27, i1 %30, i1 false
  br i1 %32, label %36, label %33, !prof !11

33:                                               ; preds = %24
  %34 = call i32 @luaL_argerror(ptr noundef %0, i32 noundef 2, ptr noundef nonnull @.str.14.841) #6
  %35 = load i64, ptr %2, align 8, !tbaa !9
  br label %36

36:                                               ; preds = %33, %24
  %37 = phi i64 [ %35, %33 ], [ %29, %24 ]
  %38 = icmp sgt i64 %25, %37
  br i1 %38, label %39, label %41, !prof !12

39:                                               ; preds = %36
  %40 = call i32 @luaL_argerror(ptr noundef %0, i32 noundef 3, ptr noundef nonnull @.str.15.842) #6
  br label %41

41:                                               ; preds = %39, %36
  %42 = icmp slt i64 %31, %25
  br i1 %42, label %43, label %60

43:                                               ; preds = %41
  %44 = icmp eq i32 %26, 0
  %45 = zext i1 %44 to i32
  %46 = ptrtoint ptr %3 to i64
  br label %47

47:                                               ; preds = %43, %55
  %48 = phi i64 [ 0, %43 ], [ %58, %55 ]
  %49 = phi i64 [ %31, %43 ], [ %57, %55 ]
  %50 = getelementptr inbounds i8, ptr %3, i64 %49
  %51 = call fastcc ptr @utf8_decode(ptr noundef %50, ptr noundef null, i32 noundef %45) #7
  %52 = icmp eq ptr %51, null
  br i1 %52, label %53, label %55

53:                                               ; preds = %47
  call void @lua_pushnil(ptr noundef %0) #6
  %54 = add nsw i64 %49, 1
  br label %60

55:                                               ; preds = %47
  %56 = ptrtoint ptr %51 to i64
  %57 = sub i64 %56, %46
  %58 = add nuw nsw i64 %48, 1
  %59 = icmp slt i64 %57, %25
  br i1 %59, label %47, label %60, !llvm.loop !15

60:                                               ; preds = %55, %41, %53
  %61 = phi i64 [ %54, %53 ], [ 0, %41 ], [ %58, %55 ]
  %62 = phi i32 [ 2, %53 ], [ 1, %41 ], [ 1, %55 ]
  call void @lua_pushinteger(ptr noundef %0, i64 noundef %61) #6
  call void @llvm.lifetime.end.p0(ptr nonnull %2) #5
  ret i32 %62
}

; Function Attrs: nofree norecurse nosync nounwind optsize memory(argmem: readwrite) uwtable
declare hidden fastcc ptr @utf8_decode(ptr noundef readonly captures(ret: address, provenance), ptr noundef writeonly captures(address_is_null), i32 noundef range(i32 0, 2)) unnamed_addr #4

attributes #0 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #1 = { mustprogress nofree norecurse nosync nounwind optsize willreturn memory(read, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree norecurse nosync nounwind optsize willreturn memory(write, argmem: readwrite, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nounwind optsize uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nofree norecurse nosync nounwind optsize memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nounwind }
attributes #6 = { nounwind optsize }
attributes #7 = { optsize }

!llvm.ident = !{!0}
!llvm.errno.tbaa = !{!1}
!llvm.module.flags = !{!5, !6, !7, !8}

!0 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!1 = !{!2, !2, i64 0}
!2 = !{!"int", !3, i64 0}
!3 = !{!"omnipotent char", !4, i64 0}
!4 = !{!"Simple C/C++ TBAA"}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 8, !"PIC Level", i32 2}
!7 = !{i32 7, !"PIE Level", i32 2}
!8 = !{i32 7, !"uwtable", i32 2}
!9 = !{!10, !10, i64 0}
!10 = !{!"long", !3, i64 0}
!11 = !{!"branch_weights", !"expected", i32 2000, i32 1}
!12 = !{!"branch_weights", !"expected", i32 1, i32 2000}
!13 = distinct !{!13, !14}
!14 = !{!"llvm.loop.mustprogress"}
!15 = distinct !{!15, !14}

define i32 @lua_codepoint(ptr %L) {
  %r = call i32 @codepoint(ptr %L)
  ret i32 %r
}

define i32 @lua_utflen(ptr %L) {
  %r = call i32 @utflen(ptr %L)
  ret i32 %r
}

define i32 @c1(ptr %L, i32 %n) {
entry:
  %r = call i32 @codepoint(ptr %L)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ %r, %entry ], [ %acc.next, %loop ]
  %m = mul i32 %acc, 17
  %x = xor i32 %m, %i
  %s = lshr i32 %x, 3
  %o = or i32 %s, %m
  %a = add i32 %o, 101
  %q = urem i32 %a, 65521
  %acc.next = add i32 %q, %i
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %t = shl i32 %acc.next, 2
  %u = sub i32 %t, %r
  ret i32 %u
}

define i32 @c2(ptr %L, i32 %n) {
entry:
  %r = call i32 @utflen(ptr %L)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ %r, %entry ], [ %acc.next, %loop ]
  %m = mul i32 %acc, 19
  %x = xor i32 %m, %i
  %s = lshr i32 %x, 3
  %o = or i32 %s, %m
  %a = add i32 %o, 103
  %q = urem i32 %a, 65521
  %acc.next = add i32 %q, %i
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %t = shl i32 %acc.next, 2
  %u = sub i32 %t, %r
  ret i32 %u
}
