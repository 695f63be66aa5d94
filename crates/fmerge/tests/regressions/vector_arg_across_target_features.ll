; Issue 13 (aho-corasick 1.1.5's AVX2 tests): @f1 and @f2 are equal up to a <32 x i8>
; constant and are compiled with AVX; their caller @main is not. Merging them turns the
; constant into a parameter of the merged body, and rewriting @main's calls to pass it
; would pass it the way a caller without AVX passes a 256-bit vector (in two XMM
; registers) to a body that reads it from one YMM register: the upper half is garbage.
; Call sites whose caller has other target attributes than the callee keep a thunk.
target triple = "x86_64-unknown-linux-gnu"

@fmt = private constant [4 x i8] c"%d\0A\00"

declare i32 @printf(ptr, ...)

define internal fastcc i32 @sum(<32 x i8> %v, i32 %k) #0 {
  %w = zext <32 x i8> %v to <32 x i32>
  %s = call i32 @llvm.vector.reduce.add.v32i32(<32 x i32> %w)
  %m = mul i32 %s, %k
  %x = xor i32 %m, 12345
  ret i32 %x
}

define internal i32 @f1(i32 %k) #1 {
  %a = call fastcc i32 @sum(<32 x i8> <i8 1, i8 2, i8 3, i8 4, i8 5, i8 6, i8 7, i8 8, i8 9, i8 10, i8 11, i8 12, i8 13, i8 14, i8 15, i8 16, i8 17, i8 18, i8 19, i8 20, i8 21, i8 22, i8 23, i8 24, i8 25, i8 26, i8 27, i8 28, i8 29, i8 30, i8 31, i8 32>, i32 %k)
  %b = call fastcc i32 @sum(<32 x i8> <i8 1, i8 2, i8 3, i8 4, i8 5, i8 6, i8 7, i8 8, i8 9, i8 10, i8 11, i8 12, i8 13, i8 14, i8 15, i8 16, i8 17, i8 18, i8 19, i8 20, i8 21, i8 22, i8 23, i8 24, i8 25, i8 26, i8 27, i8 28, i8 29, i8 30, i8 31, i8 32>, i32 %a)
  %c = add i32 %a, %b
  %d = mul i32 %c, 7
  %e = sub i32 %d, %k
  ret i32 %e
}

define internal i32 @f2(i32 %k) #1 {
  %a = call fastcc i32 @sum(<32 x i8> <i8 101, i8 2, i8 3, i8 4, i8 5, i8 6, i8 7, i8 8, i8 9, i8 10, i8 11, i8 12, i8 13, i8 14, i8 15, i8 16, i8 17, i8 18, i8 19, i8 20, i8 21, i8 22, i8 23, i8 24, i8 25, i8 26, i8 27, i8 28, i8 29, i8 30, i8 31, i8 132>, i32 %k)
  %b = call fastcc i32 @sum(<32 x i8> <i8 101, i8 2, i8 3, i8 4, i8 5, i8 6, i8 7, i8 8, i8 9, i8 10, i8 11, i8 12, i8 13, i8 14, i8 15, i8 16, i8 17, i8 18, i8 19, i8 20, i8 21, i8 22, i8 23, i8 24, i8 25, i8 26, i8 27, i8 28, i8 29, i8 30, i8 31, i8 132>, i32 %a)
  %c = add i32 %a, %b
  %d = mul i32 %c, 7
  %e = sub i32 %d, %k
  ret i32 %e
}

define i32 @main() #2 {
  %r1 = call i32 @f1(i32 3)
  %r2 = call i32 @f2(i32 5)
  %r = add i32 %r1, %r2
  %p = call i32 (ptr, ...) @printf(ptr @fmt, i32 %r)
  ret i32 0
}

declare i32 @llvm.vector.reduce.add.v32i32(<32 x i32>)

attributes #0 = { noinline nounwind "target-cpu"="x86-64" "target-features"="+avx" }
attributes #1 = { noinline nounwind "target-cpu"="x86-64" "target-features"="+avx" }
attributes #2 = { nounwind "target-cpu"="x86-64" }
