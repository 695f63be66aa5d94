; The guard test case where a losing merge's body is called from another merge's body in a way
; no member's call explains. Reduced by llvm-reduce from zstd's full-LTO module (the legacy
; Huffman decoders of zstd's v0.5 and v0.6 formats), so the bodies are what the reducer left.
; With --no-estimate:
; - the constants stage merges HUFv05_readDTableX2 and HUFv06_readDTableX2 (they differ in the
;   function they call) and rewrites their call sites: HUFv05_decompress1X2 now calls
;   HUFv05_readDTableX2.fmerged(..., ptr @HUFv05_readStats), HUFv06_decompress1X2 the same body
;   with `ptr null` (the merged decompress4X2 functions pass the two functions' addresses, so
;   a second merge of the pair makes them thunks of another body);
; - the similar stage merges the two decompress1X2 functions: their merged body passes
;   `select %function.id, ...` where each passed a constant;
; - generated code shows the readDTableX2 merge larger than the two functions it replaced.
; Undoing it must undo the decompress1X2 merge with it: the select matches neither member.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.FSE_DStream_t = type { i64, i32, ptr, ptr }

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #0

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr writeonly captures(none), i8, i64, i1 immarg) #1

define internal fastcc i64 @HUFv05_readDTableX2(ptr %0, ptr %1, i64 %2) {
  %4 = alloca [256 x i8], align 16
  %5 = alloca [17 x i32], align 16
  %6 = alloca i32, align 4
  %7 = alloca i32, align 4
  call void @llvm.lifetime.start.p0(ptr %4)
  call void @llvm.lifetime.start.p0(ptr %5)
  call void @llvm.lifetime.start.p0(ptr %6)
  store i32 0, ptr null, align 4
  call void @llvm.lifetime.start.p0(ptr %7)
  store i32 0, ptr null, align 4
  %8 = getelementptr i8, ptr %0, i64 2
  %9 = call fastcc i64 @HUFv05_readStats(ptr null, ptr null, ptr null, ptr null, ptr null, i64 0)
  %10 = icmp ult i64 0, 0
  %11 = load i32, ptr null, align 4
  %12 = load i16, ptr null, align 2
  %13 = zext i16 0 to i32
  %14 = icmp ugt i32 0, 0
  ret i64 0
}

declare fastcc i64 @HUFv05_readStats(ptr, ptr, ptr, ptr, ptr, i64)

define fastcc i64 @HUFv05_decompress1X2() {
  %1 = alloca [4097 x i16], align 16
  store i16 0, ptr null, align 16
  %2 = call fastcc i64 @HUFv05_readDTableX2(ptr null, ptr null, i64 0)
  store ptr null, ptr null, align 8
  %3 = load i64, ptr null, align 1
  store i64 0, ptr null, align 8
  ret i64 0
}

define i64 @HUFv05_decompress4X2(ptr %0, i64 %1, ptr %2, i64 %3, i64 %4) {
  %6 = alloca %struct.FSE_DStream_t, align 8
  %7 = alloca %struct.FSE_DStream_t, align 8
  %8 = alloca %struct.FSE_DStream_t, align 8
  %9 = alloca %struct.FSE_DStream_t, align 8
  %10 = alloca [4097 x i16], align 16
  call void @llvm.lifetime.start.p0(ptr %10)
  call void @llvm.memset.p0.i64(ptr null, i8 0, i64 0, i1 false)
  store i16 0, ptr null, align 16
  %11 = icmp ult i64 0, 0
  %12 = icmp ult i64 0, 0
  %13 = call fastcc i64 @HUFv05_readDTableX2(ptr null, ptr null, i64 0)
  %14 = getelementptr i8, ptr %2, i64 %4
  %15 = sub i64 0, 0
  %16 = icmp ult i64 0, 0
  ret i64 0
}

define internal fastcc i64 @HUFv06_readDTableX2(ptr %0, ptr %1, i64 %2) {
  %4 = alloca [256 x i8], align 16
  %5 = alloca [17 x i32], align 16
  %6 = alloca i32, align 4
  %7 = alloca i32, align 4
  call void @llvm.lifetime.start.p0(ptr %4)
  call void @llvm.lifetime.start.p0(ptr %5)
  call void @llvm.lifetime.start.p0(ptr %6)
  store i32 0, ptr null, align 4
  call void @llvm.lifetime.start.p0(ptr %7)
  store i32 0, ptr null, align 4
  %8 = getelementptr i8, ptr %0, i64 2
  %9 = call fastcc i64 null(ptr null, ptr null, ptr null, ptr null, ptr null, i64 0)
  %10 = icmp ult i64 0, 0
  %11 = load i32, ptr null, align 4
  %12 = load i16, ptr null, align 2
  %13 = zext i16 0 to i32
  %14 = icmp ugt i32 0, 0
  ret i64 0
}

define fastcc i64 @HUFv06_decompress1X2() {
  %1 = alloca [4097 x i16], align 16
  call void @llvm.memset.p0.i64(ptr null, i8 0, i64 0, i1 false)
  %2 = call fastcc i64 @HUFv06_readDTableX2(ptr null, ptr null, i64 0)
  store ptr null, ptr null, align 8
  %3 = load i64, ptr null, align 1
  store i64 0, ptr null, align 8
  ret i64 0
}

define i64 @HUFv06_decompress4X2(ptr %0, i64 %1, ptr %2, i64 %3, i64 %4) {
  %6 = alloca %struct.FSE_DStream_t, align 8
  %7 = alloca %struct.FSE_DStream_t, align 8
  %8 = alloca %struct.FSE_DStream_t, align 8
  %9 = alloca %struct.FSE_DStream_t, align 8
  %10 = alloca [4097 x i16], align 16
  call void @llvm.lifetime.start.p0(ptr %10)
  call void @llvm.memset.p0.i64(ptr null, i8 0, i64 0, i1 false)
  store i16 0, ptr null, align 16
  %11 = icmp ult i64 0, 0
  %12 = icmp ult i64 0, 0
  %13 = call fastcc i64 @HUFv06_readDTableX2(ptr null, ptr null, i64 0)
  %14 = getelementptr i8, ptr %2, i64 %4
  %15 = sub i64 0, 0
  %16 = icmp ult i64 0, 0
  ret i64 0
}

attributes #0 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #1 = { nocallback nofree nounwind willreturn memory(argmem: write) }
