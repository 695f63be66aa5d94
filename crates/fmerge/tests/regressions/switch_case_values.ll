; Two functions that differ only in one switch case value (5 vs 6). LLVM 22 keeps case values
; outside the operand list; the lowering missed them and the identical stage merged @f and @g
; (main printed 516750764 instead of -2992312). From the issue's C reproducer, clang-22 -Os.
; ModuleID = '/work/scratch/sw/sw.c'
source_filename = "/work/scratch/sw/sw.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@__const.main.a = private unnamed_addr constant [5 x i32] [i32 1, i32 2, i32 3, i32 4, i32 5], align 16
@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind optsize willreturn memory(argmem: read) uwtable
define dso_local i32 @f(i32 noundef %0, ptr noundef readonly captures(none) %1) local_unnamed_addr #0 {
  switch i32 %0, label %18 [
    i32 3, label %3
    i32 5, label %6
    i32 11, label %10
    i32 12, label %14
  ]

3:                                                ; preds = %2
  %4 = load i32, ptr %1, align 4, !tbaa !5
  %5 = mul nsw i32 %4, 7
  br label %21

6:                                                ; preds = %2
  %7 = getelementptr inbounds nuw i8, ptr %1, i64 4
  %8 = load i32, ptr %7, align 4, !tbaa !5
  %9 = add nsw i32 %8, 9
  br label %21

10:                                               ; preds = %2
  %11 = getelementptr inbounds nuw i8, ptr %1, i64 8
  %12 = load i32, ptr %11, align 4, !tbaa !5
  %13 = xor i32 %12, 5
  br label %21

14:                                               ; preds = %2
  %15 = getelementptr inbounds nuw i8, ptr %1, i64 12
  %16 = load i32, ptr %15, align 4, !tbaa !5
  %17 = add nsw i32 %16, -1
  br label %21

18:                                               ; preds = %2
  %19 = getelementptr inbounds nuw i8, ptr %1, i64 16
  %20 = load i32, ptr %19, align 4, !tbaa !5
  br label %21

21:                                               ; preds = %18, %14, %10, %6, %3
  %22 = phi i32 [ %20, %18 ], [ %5, %3 ], [ %9, %6 ], [ %13, %10 ], [ %17, %14 ]
  ret i32 %22
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind optsize willreturn memory(argmem: read) uwtable
define dso_local i32 @g(i32 noundef %0, ptr noundef readonly captures(none) %1) local_unnamed_addr #0 {
  switch i32 %0, label %18 [
    i32 3, label %3
    i32 6, label %6
    i32 11, label %10
    i32 12, label %14
  ]

3:                                                ; preds = %2
  %4 = load i32, ptr %1, align 4, !tbaa !5
  %5 = mul nsw i32 %4, 7
  br label %21

6:                                                ; preds = %2
  %7 = getelementptr inbounds nuw i8, ptr %1, i64 4
  %8 = load i32, ptr %7, align 4, !tbaa !5
  %9 = add nsw i32 %8, 9
  br label %21

10:                                               ; preds = %2
  %11 = getelementptr inbounds nuw i8, ptr %1, i64 8
  %12 = load i32, ptr %11, align 4, !tbaa !5
  %13 = xor i32 %12, 5
  br label %21

14:                                               ; preds = %2
  %15 = getelementptr inbounds nuw i8, ptr %1, i64 12
  %16 = load i32, ptr %15, align 4, !tbaa !5
  %17 = add nsw i32 %16, -1
  br label %21

18:                                               ; preds = %2
  %19 = getelementptr inbounds nuw i8, ptr %1, i64 16
  %20 = load i32, ptr %19, align 4, !tbaa !5
  br label %21

21:                                               ; preds = %18, %14, %10, %6, %3
  %22 = phi i32 [ %20, %18 ], [ %5, %3 ], [ %9, %6 ], [ %13, %10 ], [ %17, %14 ]
  ret i32 %22
}

; Function Attrs: nofree nounwind optsize uwtable
define dso_local noundef i32 @main() local_unnamed_addr #1 {
  br label %3

1:                                                ; preds = %3
  %2 = tail call i32 (ptr, ...) @printf(ptr noundef nonnull dereferenceable(1) @.str, i32 noundef %11) #3
  ret i32 0

3:                                                ; preds = %0, %3
  %4 = phi i32 [ 0, %0 ], [ %12, %3 ]
  %5 = phi i32 [ 0, %0 ], [ %11, %3 ]
  %6 = mul nsw i32 %5, 31
  %7 = tail call i32 @f(i32 noundef %4, ptr noundef nonnull @__const.main.a) #3
  %8 = add nsw i32 %7, %6
  %9 = tail call i32 @g(i32 noundef %4, ptr noundef nonnull @__const.main.a) #3
  %10 = mul nsw i32 %9, 3
  %11 = add nsw i32 %8, %10
  %12 = add nuw nsw i32 %4, 1
  %13 = icmp eq i32 %12, 14
  br i1 %13, label %1, label %3, !llvm.loop !9
}

; Function Attrs: nofree nounwind optsize
declare noundef i32 @printf(ptr noundef readonly captures(none), ...) local_unnamed_addr #2

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind optsize willreturn memory(argmem: read) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree nounwind optsize uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nofree nounwind optsize "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { optsize }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}
!llvm.errno.tbaa = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = distinct !{!9, !10}
!10 = !{!"llvm.loop.mustprogress"}
