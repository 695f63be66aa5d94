; The guard test case with the two sort functions internal and called directly: their merge
; rewrites the call sites (no thunks), and undoing it must turn those calls back.
; Two instances of Rust's core::slice::sort::stable::drift::sort (from the regex + serde_json
; program of issue 13, debug info stripped, names shortened). Their similar merge is estimated
; to save 105 bytes but its generated code is 249 bytes larger than the two originals:
; with the measuring budget at 0 the estimate is trusted, and only the size guard undoes it.
; ModuleID = 'pair2.ll'
source_filename = "demo.e3b99eb56b26f51b-cgu.0"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #0

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #1

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.ctlz.i64(i64, i1 immarg) #3

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #4

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #5

; Function Attrs: nounwind nonlazybind uwtable
declare noundef range(i32 2, 9) i32 @rust_eh_personality(i32 noundef, i32 noundef, i64, ptr noundef, ptr noundef) unnamed_addr #6

; Function Attrs: nonlazybind uwtable
define internal fastcc void @drift_sort_inlined_function_address(ptr noalias noundef nonnull align 8 %0, i64 noundef range(i64 21, 288230376151711744) %1, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 48, 288230376151711744) %3, i1 noundef zeroext %4) unnamed_addr #7 personality ptr @rust_eh_personality {
  %6 = alloca [66 x i8], align 1
  %7 = alloca [528 x i8], align 8
  %8 = udiv i64 4611686018427387904, %1
  %9 = urem i64 4611686018427387904, %1
  %10 = icmp ne i64 %9, 0
  %11 = zext i1 %10 to i64
  %12 = add nuw nsw i64 %8, %11
  %13 = icmp samesign ult i64 %1, 4097
  br i1 %13, label %27, label %14

14:                                               ; preds = %5
  %15 = or i64 %1, 1
  %16 = tail call range(i64 0, 64) i64 @llvm.ctlz.i64(i64 %15, i1 true)
  %17 = trunc nuw nsw i64 %16 to i32
  %18 = xor i32 %17, 63
  %19 = lshr i32 %18, 1
  %20 = and i32 %18, 1
  %21 = add nuw nsw i32 %19, %20
  %22 = zext nneg i32 %21 to i64
  %23 = shl nuw nsw i64 1, %22
  %24 = lshr i64 %1, %22
  %25 = add nuw nsw i64 %23, %24
  %26 = lshr i64 %25, 1
  br label %31

27:                                               ; preds = %5
  %28 = lshr i64 %1, 1
  %29 = sub nsw i64 %1, %28
  %30 = tail call noundef i64 @llvm.umin.i64(i64 %29, i64 64)
  br label %31

31:                                               ; preds = %27, %14
  %32 = phi i64 [ %30, %27 ], [ %26, %14 ]
  call void @llvm.lifetime.start.p0(ptr nonnull %7)
  call void @llvm.lifetime.start.p0(ptr nonnull %6)
  br label %33

33:                                               ; preds = %275, %31
  %34 = phi i64 [ 1, %31 ], [ %40, %275 ]
  %35 = phi i64 [ 0, %31 ], [ %278, %275 ]
  %36 = phi i64 [ 0, %31 ], [ %276, %275 ]
  %37 = icmp samesign ult i64 %35, %1
  br i1 %37, label %44, label %38

38:                                               ; preds = %134, %33
  %39 = phi i8 [ %145, %134 ], [ 0, %33 ]
  %40 = phi i64 [ %135, %134 ], [ 1, %33 ]
  %41 = icmp ugt i64 %36, 1
  br i1 %41, label %42, label %.loopexit3

42:                                               ; preds = %38
  %43 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %0, i64 %35
  br label %146

44:                                               ; preds = %33
  %45 = sub nuw nsw i64 %1, %35
  %46 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %0, i64 %35
  %47 = icmp samesign ult i64 %45, %32
  br i1 %47, label %48, label %49

48:                                               ; preds = %.loopexit7, %44
  br i1 %4, label %109, label %106

49:                                               ; preds = %44
  %50 = icmp samesign ult i64 %45, 2
  br i1 %50, label %.loopexit5, label %51

51:                                               ; preds = %49
  %52 = getelementptr i8, ptr %46, i64 48
  %53 = load i64, ptr %52, align 8, !alias.scope !5, !noalias !8, !noundef !11
  %54 = getelementptr i8, ptr %46, i64 16
  %55 = load i64, ptr %54, align 8, !alias.scope !5, !noalias !8, !noundef !11
  %56 = icmp ult i64 %53, %55
  br i1 %56, label %57, label %59

57:                                               ; preds = %59, %51
  %58 = icmp eq i64 %45, 2
  br i1 %58, label %.loopexit7, label %.preheader6

59:                                               ; preds = %51
  %60 = load i64, ptr %46, align 8, !alias.scope !5, !noalias !8
  %61 = getelementptr inbounds nuw i8, ptr %46, i64 32
  %62 = load i64, ptr %61, align 8, !alias.scope !5, !noalias !8
  %63 = icmp ule i64 %53, %55
  %64 = icmp ult i64 %62, %60
  %65 = select i1 %63, i1 %64, i1 false
  br i1 %65, label %57, label %66

66:                                               ; preds = %59
  %67 = icmp eq i64 %45, 2
  br i1 %67, label %.loopexit7, label %.preheader9

.preheader9:                                      ; preds = %80, %66
  %68 = phi i64 [ %76, %80 ], [ %62, %66 ]
  %69 = phi i64 [ %73, %80 ], [ %53, %66 ]
  %70 = phi i64 [ %81, %80 ], [ 2, %66 ]
  %71 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %46, i64 %70
  %72 = getelementptr i8, ptr %71, i64 16
  %73 = load i64, ptr %72, align 8, !alias.scope !5, !noalias !8, !noundef !11
  %74 = icmp ult i64 %73, %69
  br i1 %74, label %.loopexit7, label %75

75:                                               ; preds = %.preheader9
  %76 = load i64, ptr %71, align 8, !alias.scope !5, !noalias !8
  %77 = icmp ule i64 %73, %69
  %78 = icmp ult i64 %76, %68
  %79 = select i1 %77, i1 %78, i1 false
  br i1 %79, label %.loopexit7, label %80

80:                                               ; preds = %75
  %81 = add nuw i64 %70, 1
  %82 = icmp eq i64 %81, %45
  br i1 %82, label %.loopexit7, label %.preheader9

.preheader6:                                      ; preds = %98, %57
  %83 = phi i64 [ %89, %98 ], [ %53, %57 ]
  %84 = phi i64 [ %99, %98 ], [ 2, %57 ]
  %85 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %46, i64 %84
  %86 = add nsw i64 %84, -1
  %87 = icmp ult i64 %86, %45
  tail call void @llvm.assume(i1 %87)
  %88 = getelementptr i8, ptr %85, i64 16
  %89 = load i64, ptr %88, align 8, !alias.scope !5, !noalias !8, !noundef !11
  %90 = icmp ult i64 %89, %83
  br i1 %90, label %98, label %91

91:                                               ; preds = %.preheader6
  %92 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %46, i64 %86
  %93 = load i64, ptr %92, align 8, !alias.scope !5, !noalias !8
  %94 = load i64, ptr %85, align 8, !alias.scope !5, !noalias !8
  %95 = icmp ule i64 %89, %83
  %96 = icmp ult i64 %94, %93
  %97 = select i1 %95, i1 %96, i1 false
  br i1 %97, label %98, label %.loopexit7

98:                                               ; preds = %91, %.preheader6
  %99 = add nuw i64 %84, 1
  %100 = icmp eq i64 %99, %45
  br i1 %100, label %.loopexit7, label %.preheader6

.loopexit7:                                       ; preds = %98, %91, %80, %75, %.preheader9, %66, %57
  %101 = phi i1 [ true, %57 ], [ true, %98 ], [ false, %66 ], [ true, %91 ], [ false, %.preheader9 ], [ false, %75 ], [ false, %80 ]
  %102 = phi i64 [ 2, %57 ], [ %45, %98 ], [ 2, %66 ], [ %84, %91 ], [ %70, %.preheader9 ], [ %45, %80 ], [ %70, %75 ]
  %103 = icmp ule i64 %102, %45
  tail call void @llvm.assume(i1 %103)
  %104 = icmp ult i64 %102, %32
  br i1 %104, label %48, label %105

105:                                              ; preds = %.loopexit7
  br i1 %101, label %116, label %.loopexit5

106:                                              ; preds = %48
  %107 = tail call noundef i64 @llvm.umin.i64(i64 range(i64 0, 288230376151711744) %45, i64 %32)
  %108 = shl nuw nsw i64 %107, 1
  br label %134

109:                                              ; preds = %48
  %110 = tail call noundef i64 @llvm.umin.i64(i64 range(i64 0, 288230376151711744) %45, i64 32)
  tail call fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_7sort_byNCNvMs1_B17_INtB17_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3o_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8 %46, i64 noundef %110, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 0, 288230376151711744) %3, i32 noundef 0, ptr noalias noundef readonly align 8 captures(address, read_provenance) dereferenceable_or_null(32) null) #9
  %111 = shl nuw nsw i64 %110, 1
  %112 = or disjoint i64 %111, 1
  br label %134

.loopexit5:                                       ; preds = %121, %116, %105, %49
  %113 = phi i64 [ %45, %49 ], [ %102, %105 ], [ %102, %116 ], [ %102, %121 ]
  %114 = shl nuw nsw i64 %113, 1
  %115 = or disjoint i64 %114, 1
  br label %134

116:                                              ; preds = %105
  %117 = lshr i64 %102, 1
  tail call void @llvm.experimental.noalias.scope.decl(metadata !12), !noalias !8
  tail call void @llvm.experimental.noalias.scope.decl(metadata !15), !noalias !8
  %118 = icmp eq i64 %117, 0
  br i1 %118, label %.loopexit5, label %119

119:                                              ; preds = %116
  %120 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %46, i64 %102
  br label %121

121:                                              ; preds = %121, %119
  %122 = phi i64 [ %132, %121 ], [ 0, %119 ]
  %123 = xor i64 %122, -1
  %124 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %46, i64 %122
  %125 = getelementptr { { i64, i64 }, i64, i64 }, ptr %120, i64 %123
  %126 = load <2 x i64>, ptr %124, align 8, !alias.scope !17, !noalias !23
  %127 = load <2 x i64>, ptr %125, align 8, !alias.scope !24, !noalias !27
  store <2 x i64> %127, ptr %124, align 8, !alias.scope !17, !noalias !23
  store <2 x i64> %126, ptr %125, align 8, !alias.scope !24, !noalias !27
  %128 = getelementptr inbounds nuw i8, ptr %124, i64 16
  %129 = getelementptr inbounds nuw i8, ptr %125, i64 16
  %130 = load <2 x i64>, ptr %128, align 8, !alias.scope !28, !noalias !23
  %131 = load <2 x i64>, ptr %129, align 8, !alias.scope !31, !noalias !27
  store <2 x i64> %131, ptr %128, align 8, !alias.scope !28, !noalias !23
  store <2 x i64> %130, ptr %129, align 8, !alias.scope !31, !noalias !27
  %132 = add nuw nsw i64 %122, 1
  %133 = icmp eq i64 %132, %117
  br i1 %133, label %.loopexit5, label %121

134:                                              ; preds = %.loopexit5, %109, %106
  %135 = phi i64 [ %115, %.loopexit5 ], [ %112, %109 ], [ %108, %106 ]
  %136 = lshr i64 %34, 1
  %137 = lshr i64 %135, 1
  %138 = shl nuw nsw i64 %35, 1
  %139 = sub nsw i64 %138, %136
  %140 = add nuw nsw i64 %137, %138
  %141 = mul i64 %139, %12
  %142 = mul i64 %140, %12
  %143 = xor i64 %142, %141
  %144 = tail call range(i64 0, 65) i64 @llvm.ctlz.i64(i64 %143, i1 false)
  %145 = trunc nuw nsw i64 %144 to i8
  br label %38

146:                                              ; preds = %272, %42
  %147 = phi i64 [ %36, %42 ], [ %149, %272 ]
  %148 = phi i64 [ %34, %42 ], [ %273, %272 ]
  %149 = add i64 %147, -1
  %150 = getelementptr inbounds nuw i8, ptr %6, i64 %149
  %151 = load i8, ptr %150, align 1, !noundef !11
  %152 = icmp ult i8 %151, %39
  br i1 %152, label %.loopexit3, label %157

.loopexit3:                                       ; preds = %272, %146, %38
  %153 = phi i64 [ %34, %38 ], [ %148, %146 ], [ %273, %272 ]
  %154 = phi i64 [ %36, %38 ], [ %147, %146 ], [ 1, %272 ]
  %155 = getelementptr inbounds nuw i64, ptr %7, i64 %154
  store i64 %153, ptr %155, align 8
  %156 = getelementptr inbounds nuw i8, ptr %6, i64 %154
  store i8 %39, ptr %156, align 1
  br i1 %37, label %275, label %279

157:                                              ; preds = %146
  %158 = getelementptr inbounds nuw i64, ptr %7, i64 %149
  %159 = load i64, ptr %158, align 8, !noundef !11
  %160 = lshr i64 %159, 1
  %161 = lshr i64 %148, 1
  %162 = add nuw i64 %160, %161
  %163 = sub i64 %35, %162
  %164 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %0, i64 %163
  %165 = icmp samesign ugt i64 %162, %3
  %166 = and i64 %148, 1
  %167 = icmp eq i64 %166, 0
  %168 = or i64 %159, %148
  %169 = and i64 %168, 1
  %170 = icmp ne i64 %169, 0
  %171 = or i1 %165, %170
  br i1 %171, label %172, label %175

172:                                              ; preds = %157
  %173 = and i64 %159, 1
  %174 = icmp eq i64 %173, 0
  br i1 %174, label %178, label %177

175:                                              ; preds = %157
  %176 = shl nuw nsw i64 %162, 1
  br label %272

177:                                              ; preds = %178, %172
  br i1 %167, label %265, label %184

178:                                              ; preds = %172
  %179 = or i64 %160, 1
  %180 = tail call range(i64 6, 64) i64 @llvm.ctlz.i64(i64 %179, i1 true)
  %181 = trunc nuw nsw i64 %180 to i32
  %182 = shl nuw nsw i32 %181, 1
  %183 = xor i32 %182, 126
  tail call fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_7sort_byNCNvMs1_B17_INtB17_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3o_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8 %164, i64 noundef range(i64 0, 288230376151711744) %160, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 0, 288230376151711744) %3, i32 noundef %183, ptr noalias noundef readonly align 8 captures(address, read_provenance) dereferenceable_or_null(32) null) #9
  br label %177

184:                                              ; preds = %265, %177
  tail call void @llvm.experimental.noalias.scope.decl(metadata !34)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !37)
  %185 = icmp eq i64 %160, 0
  %186 = icmp eq i64 %161, 0
  %187 = or i1 %186, %185
  br i1 %187, label %262, label %188

188:                                              ; preds = %184
  %189 = tail call i64 @llvm.umin.i64(i64 %161, i64 range(i64 0, -9223372036854775808) %160)
  %190 = icmp samesign ult i64 %3, %189
  br i1 %190, label %262, label %191

191:                                              ; preds = %188
  %192 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %164, i64 %160
  %193 = icmp samesign ugt i64 %160, %161
  %194 = select i1 %193, ptr %192, ptr %164
  %195 = shl nuw nsw i64 %189, 5
  tail call void @llvm.memcpy.p0.p0.i64(ptr nonnull align 8 %2, ptr nonnull align 8 %194, i64 %195, i1 false), !alias.scope !39
  %196 = getelementptr inbounds nuw i8, ptr %2, i64 %195
  br i1 %193, label %.preheader, label %.preheader1

.preheader:                                       ; preds = %216, %191
  %197 = phi ptr [ %223, %216 ], [ %196, %191 ]
  %198 = phi ptr [ %221, %216 ], [ %192, %191 ]
  %199 = phi ptr [ %202, %216 ], [ %43, %191 ]
  %200 = getelementptr inbounds i8, ptr %198, i64 -32
  %201 = getelementptr inbounds i8, ptr %197, i64 -32
  %202 = getelementptr inbounds i8, ptr %199, i64 -32
  %203 = getelementptr i8, ptr %197, i64 -16
  %204 = load i64, ptr %203, align 8, !alias.scope !37, !noalias !40, !noundef !11
  %205 = getelementptr i8, ptr %198, i64 -16
  %206 = load i64, ptr %205, align 8, !alias.scope !34, !noalias !43, !noundef !11
  %207 = icmp ult i64 %204, %206
  br i1 %207, label %216, label %208

208:                                              ; preds = %.preheader
  %209 = load i64, ptr %200, align 8, !alias.scope !34, !noalias !43
  %210 = load i64, ptr %201, align 8, !alias.scope !37, !noalias !40
  %211 = icmp ule i64 %204, %206
  %212 = icmp ult i64 %210, %209
  %213 = freeze i1 %212
  %214 = and i1 %211, %213
  %215 = select i1 %214, ptr %200, ptr %201
  br label %216

216:                                              ; preds = %208, %.preheader
  %217 = phi i1 [ %214, %208 ], [ true, %.preheader ]
  %218 = phi ptr [ %215, %208 ], [ %200, %.preheader ]
  tail call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 8 dereferenceable(32) %202, ptr noundef nonnull align 8 dereferenceable(32) %218, i64 32, i1 false), !alias.scope !39, !noalias !44
  %219 = xor i1 %217, true
  %220 = zext i1 %219 to i64
  %221 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %200, i64 %220
  %222 = zext i1 %217 to i64
  %223 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %201, i64 %222
  %224 = icmp eq ptr %221, %164
  %225 = icmp eq ptr %223, %2
  %226 = select i1 %224, i1 true, i1 %225
  br i1 %226, label %.loopexit, label %.preheader

.preheader1:                                      ; preds = %246, %191
  %227 = phi ptr [ %252, %246 ], [ %164, %191 ]
  %228 = phi ptr [ %251, %246 ], [ %192, %191 ]
  %229 = phi ptr [ %250, %246 ], [ %2, %191 ]
  %230 = getelementptr i8, ptr %228, i64 16
  %231 = load i64, ptr %230, align 8, !alias.scope !34, !noalias !45, !noundef !11
  %232 = getelementptr i8, ptr %229, i64 16
  %233 = load i64, ptr %232, align 8, !alias.scope !37, !noalias !48, !noundef !11
  %234 = icmp ult i64 %231, %233
  br i1 %234, label %246, label %235

235:                                              ; preds = %.preheader1
  %236 = load i64, ptr %229, align 8, !alias.scope !37, !noalias !48
  %237 = load i64, ptr %228, align 8, !alias.scope !34, !noalias !45
  %238 = icmp ule i64 %231, %233
  %239 = icmp ult i64 %237, %236
  %240 = freeze i1 %239
  %241 = and i1 %238, %240
  %242 = xor i1 %241, true
  %243 = select i1 %241, ptr %228, ptr %229
  %244 = zext i1 %242 to i64
  %245 = zext i1 %241 to i64
  br label %246

246:                                              ; preds = %235, %.preheader1
  %247 = phi i64 [ %244, %235 ], [ 0, %.preheader1 ]
  %248 = phi i64 [ %245, %235 ], [ 1, %.preheader1 ]
  %249 = phi ptr [ %243, %235 ], [ %228, %.preheader1 ]
  tail call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 8 dereferenceable(32) %227, ptr noundef nonnull align 8 dereferenceable(32) %249, i64 32, i1 false), !alias.scope !39, !noalias !49
  %250 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %229, i64 %247
  %251 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %228, i64 %248
  %252 = getelementptr inbounds nuw i8, ptr %227, i64 32
  %253 = icmp ne ptr %250, %196
  %254 = icmp ne ptr %251, %43
  %255 = select i1 %253, i1 %254, i1 false
  br i1 %255, label %.preheader1, label %.loopexit

.loopexit:                                        ; preds = %246, %216
  %256 = phi ptr [ %221, %216 ], [ %252, %246 ]
  %257 = phi ptr [ %223, %216 ], [ %196, %246 ]
  %258 = phi ptr [ %2, %216 ], [ %250, %246 ]
  %259 = ptrtoint ptr %257 to i64
  %260 = ptrtoint ptr %258 to i64
  %261 = sub nuw i64 %259, %260
  tail call void @llvm.memcpy.p0.p0.i64(ptr nonnull align 8 %256, ptr align 8 %258, i64 %261, i1 false), !alias.scope !39, !noalias !50
  br label %262

262:                                              ; preds = %.loopexit, %188, %184
  %263 = shl nuw nsw i64 %162, 1
  %264 = or disjoint i64 %263, 1
  br label %272

265:                                              ; preds = %177
  %266 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %164, i64 %160
  %267 = or i64 %161, 1
  %268 = tail call range(i64 6, 64) i64 @llvm.ctlz.i64(i64 %267, i1 true)
  %269 = trunc nuw nsw i64 %268 to i32
  %270 = shl nuw nsw i32 %269, 1
  %271 = xor i32 %270, 126
  tail call fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_7sort_byNCNvMs1_B17_INtB17_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3o_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8 %266, i64 noundef range(i64 0, 288230376151711744) %161, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 0, 288230376151711744) %3, i32 noundef %271, ptr noalias noundef readonly align 8 captures(address, read_provenance) dereferenceable_or_null(32) null) #9
  br label %184

272:                                              ; preds = %262, %175
  %273 = phi i64 [ %264, %262 ], [ %176, %175 ]
  %274 = icmp ugt i64 %149, 1
  br i1 %274, label %146, label %.loopexit3

275:                                              ; preds = %.loopexit3
  %276 = add i64 %154, 1
  %277 = lshr i64 %40, 1
  %278 = add nuw nsw i64 %277, %35
  br label %33

279:                                              ; preds = %.loopexit3
  %.lcssa58 = phi i64 [ %153, %.loopexit3 ]
  %280 = and i64 %.lcssa58, 1
  %281 = icmp eq i64 %280, 0
  br i1 %281, label %282, label %288

282:                                              ; preds = %279
  %283 = or i64 %1, 1
  %284 = tail call range(i64 6, 64) i64 @llvm.ctlz.i64(i64 %283, i1 true)
  %285 = trunc nuw nsw i64 %284 to i32
  %286 = shl nuw nsw i32 %285, 1
  %287 = xor i32 %286, 126
  tail call fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_7sort_byNCNvMs1_B17_INtB17_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3o_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8 %0, i64 noundef range(i64 0, 288230376151711744) %1, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 0, 288230376151711744) %3, i32 noundef %287, ptr noalias noundef readonly align 8 captures(address, read_provenance) dereferenceable_or_null(32) null) #9
  br label %288

288:                                              ; preds = %282, %279
  call void @llvm.lifetime.end.p0(ptr nonnull %6)
  call void @llvm.lifetime.end.p0(ptr nonnull %7)
  ret void
}

; Function Attrs: noinline nonlazybind uwtable
declare hidden fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_7sort_byNCNvMs1_B17_INtB17_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3o_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8, i64 noundef range(i64 0, 288230376151711744), ptr noalias noundef nonnull align 8, i64 noundef range(i64 48, 288230376151711744), i32 noundef range(i32 0, 128), ptr noalias noundef readonly align 8 captures(address) dereferenceable_or_null(32)) unnamed_addr #8

; Function Attrs: nonlazybind uwtable
define internal fastcc void @drift_sort_unit_range(ptr noalias noundef nonnull align 8 %0, i64 noundef range(i64 21, 288230376151711744) %1, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 48, 288230376151711744) %3, i1 noundef zeroext %4) unnamed_addr #7 personality ptr @rust_eh_personality {
  %6 = alloca [66 x i8], align 1
  %7 = alloca [528 x i8], align 8
  %8 = udiv i64 4611686018427387904, %1
  %9 = urem i64 4611686018427387904, %1
  %10 = icmp ne i64 %9, 0
  %11 = zext i1 %10 to i64
  %12 = add nuw nsw i64 %8, %11
  %13 = icmp samesign ult i64 %1, 4097
  br i1 %13, label %27, label %14

14:                                               ; preds = %5
  %15 = or i64 %1, 1
  %16 = tail call range(i64 0, 64) i64 @llvm.ctlz.i64(i64 %15, i1 true)
  %17 = trunc nuw nsw i64 %16 to i32
  %18 = xor i32 %17, 63
  %19 = lshr i32 %18, 1
  %20 = and i32 %18, 1
  %21 = add nuw nsw i32 %19, %20
  %22 = zext nneg i32 %21 to i64
  %23 = shl nuw nsw i64 1, %22
  %24 = lshr i64 %1, %22
  %25 = add nuw nsw i64 %23, %24
  %26 = lshr i64 %25, 1
  br label %31

27:                                               ; preds = %5
  %28 = lshr i64 %1, 1
  %29 = sub nsw i64 %1, %28
  %30 = tail call noundef i64 @llvm.umin.i64(i64 %29, i64 64)
  br label %31

31:                                               ; preds = %27, %14
  %32 = phi i64 [ %30, %27 ], [ %26, %14 ]
  call void @llvm.lifetime.start.p0(ptr nonnull %7)
  call void @llvm.lifetime.start.p0(ptr nonnull %6)
  br label %33

33:                                               ; preds = %232, %31
  %34 = phi i64 [ 1, %31 ], [ %40, %232 ]
  %35 = phi i64 [ 0, %31 ], [ %235, %232 ]
  %36 = phi i64 [ 0, %31 ], [ %233, %232 ]
  %37 = icmp samesign ult i64 %35, %1
  br i1 %37, label %44, label %38

38:                                               ; preds = %112, %33
  %39 = phi i8 [ %123, %112 ], [ 0, %33 ]
  %40 = phi i64 [ %113, %112 ], [ 1, %33 ]
  %41 = icmp ugt i64 %36, 1
  br i1 %41, label %42, label %.loopexit3

42:                                               ; preds = %38
  %43 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %0, i64 %35
  br label %124

44:                                               ; preds = %33
  %45 = sub nuw nsw i64 %1, %35
  %46 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %0, i64 %35
  %47 = icmp samesign ult i64 %45, %32
  br i1 %47, label %48, label %49

48:                                               ; preds = %.loopexit7, %44
  br i1 %4, label %85, label %82

49:                                               ; preds = %44
  %50 = icmp samesign ult i64 %45, 2
  br i1 %50, label %.loopexit5, label %51

51:                                               ; preds = %49
  %52 = getelementptr i8, ptr %46, i64 40
  %53 = load i64, ptr %52, align 8, !alias.scope !55, !noalias !58, !noundef !11
  %54 = getelementptr i8, ptr %46, i64 8
  %55 = load i64, ptr %54, align 8, !alias.scope !55, !noalias !58, !noundef !11
  %56 = icmp ult i64 %53, %55
  %57 = icmp eq i64 %45, 2
  br i1 %56, label %59, label %58

58:                                               ; preds = %51
  br i1 %57, label %.loopexit5, label %.preheader9

59:                                               ; preds = %51
  br i1 %57, label %95, label %.preheader6

.preheader9:                                      ; preds = %66, %58
  %60 = phi i64 [ %64, %66 ], [ %53, %58 ]
  %61 = phi i64 [ %67, %66 ], [ 2, %58 ]
  %62 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %46, i64 %61
  %63 = getelementptr i8, ptr %62, i64 8
  %64 = load i64, ptr %63, align 8, !alias.scope !55, !noalias !58, !noundef !11
  %65 = icmp ult i64 %64, %60
  br i1 %65, label %.loopexit7, label %66

66:                                               ; preds = %.preheader9
  %67 = add nuw i64 %61, 1
  %68 = icmp eq i64 %67, %45
  br i1 %68, label %.loopexit7, label %.preheader9

.preheader6:                                      ; preds = %75, %59
  %69 = phi i64 [ %73, %75 ], [ %53, %59 ]
  %70 = phi i64 [ %76, %75 ], [ 2, %59 ]
  %71 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %46, i64 %70
  %72 = getelementptr i8, ptr %71, i64 8
  %73 = load i64, ptr %72, align 8, !alias.scope !55, !noalias !58, !noundef !11
  %74 = icmp ult i64 %73, %69
  br i1 %74, label %75, label %.loopexit7

75:                                               ; preds = %.preheader6
  %76 = add nuw i64 %70, 1
  %77 = icmp eq i64 %76, %45
  br i1 %77, label %.loopexit7, label %.preheader6

.loopexit7:                                       ; preds = %75, %.preheader6, %66, %.preheader9
  %78 = phi i64 [ %70, %.preheader6 ], [ %45, %75 ], [ %61, %.preheader9 ], [ %45, %66 ]
  %79 = icmp samesign ule i64 %78, %45
  tail call void @llvm.assume(i1 %79)
  %80 = icmp ult i64 %78, %32
  br i1 %80, label %48, label %81

81:                                               ; preds = %.loopexit7
  br i1 %56, label %92, label %.loopexit5

82:                                               ; preds = %48
  %83 = tail call noundef i64 @llvm.umin.i64(i64 range(i64 0, 288230376151711744) %45, i64 %32)
  %84 = shl nuw nsw i64 %83, 1
  br label %112

85:                                               ; preds = %48
  %86 = tail call noundef i64 @llvm.umin.i64(i64 range(i64 0, 288230376151711744) %45, i64 32)
  tail call fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_11sort_by_keyyNCNvMs_B17_INtB17_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3b_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8 %46, i64 noundef %86, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 0, 288230376151711744) %3, i32 noundef 0, ptr noalias noundef readonly align 8 captures(address, read_provenance) dereferenceable_or_null(32) null) #9
  %87 = shl nuw nsw i64 %86, 1
  %88 = or disjoint i64 %87, 1
  br label %112

.loopexit5:                                       ; preds = %99, %92, %81, %58, %49
  %89 = phi i64 [ %45, %49 ], [ %78, %81 ], [ %78, %92 ], [ 2, %58 ], [ %97, %99 ]
  %90 = shl nuw nsw i64 %89, 1
  %91 = or disjoint i64 %90, 1
  br label %112

92:                                               ; preds = %81
  %93 = lshr i64 %78, 1
  tail call void @llvm.experimental.noalias.scope.decl(metadata !61), !noalias !58
  tail call void @llvm.experimental.noalias.scope.decl(metadata !64), !noalias !58
  %94 = icmp eq i64 %93, 0
  br i1 %94, label %.loopexit5, label %95

95:                                               ; preds = %92, %59
  %96 = phi i64 [ %93, %92 ], [ 1, %59 ]
  %97 = phi i64 [ %78, %92 ], [ 2, %59 ]
  %98 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %46, i64 %97
  br label %99

99:                                               ; preds = %99, %95
  %100 = phi i64 [ %110, %99 ], [ 0, %95 ]
  %101 = xor i64 %100, -1
  %102 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %46, i64 %100
  %103 = getelementptr { { i64, i64 }, i64, i64 }, ptr %98, i64 %101
  %104 = load <2 x i64>, ptr %102, align 8, !alias.scope !66, !noalias !72
  %105 = load <2 x i64>, ptr %103, align 8, !alias.scope !73, !noalias !76
  store <2 x i64> %105, ptr %102, align 8, !alias.scope !66, !noalias !72
  store <2 x i64> %104, ptr %103, align 8, !alias.scope !73, !noalias !76
  %106 = getelementptr inbounds nuw i8, ptr %102, i64 16
  %107 = getelementptr inbounds nuw i8, ptr %103, i64 16
  %108 = load <2 x i64>, ptr %106, align 8, !alias.scope !77, !noalias !72
  %109 = load <2 x i64>, ptr %107, align 8, !alias.scope !80, !noalias !76
  store <2 x i64> %109, ptr %106, align 8, !alias.scope !77, !noalias !72
  store <2 x i64> %108, ptr %107, align 8, !alias.scope !80, !noalias !76
  %110 = add nuw nsw i64 %100, 1
  %111 = icmp eq i64 %110, %96
  br i1 %111, label %.loopexit5, label %99

112:                                              ; preds = %.loopexit5, %85, %82
  %113 = phi i64 [ %91, %.loopexit5 ], [ %88, %85 ], [ %84, %82 ]
  %114 = lshr i64 %34, 1
  %115 = lshr i64 %113, 1
  %116 = shl nuw nsw i64 %35, 1
  %117 = sub nsw i64 %116, %114
  %118 = add nuw nsw i64 %115, %116
  %119 = mul i64 %117, %12
  %120 = mul i64 %118, %12
  %121 = xor i64 %120, %119
  %122 = tail call range(i64 0, 65) i64 @llvm.ctlz.i64(i64 %121, i1 false)
  %123 = trunc nuw nsw i64 %122 to i8
  br label %38

124:                                              ; preds = %229, %42
  %125 = phi i64 [ %36, %42 ], [ %127, %229 ]
  %126 = phi i64 [ %34, %42 ], [ %230, %229 ]
  %127 = add i64 %125, -1
  %128 = getelementptr inbounds nuw i8, ptr %6, i64 %127
  %129 = load i8, ptr %128, align 1, !noundef !11
  %130 = icmp ult i8 %129, %39
  br i1 %130, label %.loopexit3, label %135

.loopexit3:                                       ; preds = %229, %124, %38
  %131 = phi i64 [ %34, %38 ], [ %126, %124 ], [ %230, %229 ]
  %132 = phi i64 [ %36, %38 ], [ %125, %124 ], [ 1, %229 ]
  %133 = getelementptr inbounds nuw i64, ptr %7, i64 %132
  store i64 %131, ptr %133, align 8
  %134 = getelementptr inbounds nuw i8, ptr %6, i64 %132
  store i8 %39, ptr %134, align 1
  br i1 %37, label %232, label %236

135:                                              ; preds = %124
  %136 = getelementptr inbounds nuw i64, ptr %7, i64 %127
  %137 = load i64, ptr %136, align 8, !noundef !11
  %138 = lshr i64 %137, 1
  %139 = lshr i64 %126, 1
  %140 = add nuw i64 %138, %139
  %141 = sub i64 %35, %140
  %142 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %0, i64 %141
  %143 = icmp samesign ugt i64 %140, %3
  %144 = and i64 %126, 1
  %145 = icmp eq i64 %144, 0
  %146 = or i64 %137, %126
  %147 = and i64 %146, 1
  %148 = icmp ne i64 %147, 0
  %149 = or i1 %143, %148
  br i1 %149, label %150, label %153

150:                                              ; preds = %135
  %151 = and i64 %137, 1
  %152 = icmp eq i64 %151, 0
  br i1 %152, label %156, label %155

153:                                              ; preds = %135
  %154 = shl nuw nsw i64 %140, 1
  br label %229

155:                                              ; preds = %156, %150
  br i1 %145, label %222, label %162

156:                                              ; preds = %150
  %157 = or i64 %138, 1
  %158 = tail call range(i64 6, 64) i64 @llvm.ctlz.i64(i64 %157, i1 true)
  %159 = trunc nuw nsw i64 %158 to i32
  %160 = shl nuw nsw i32 %159, 1
  %161 = xor i32 %160, 126
  tail call fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_11sort_by_keyyNCNvMs_B17_INtB17_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3b_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8 %142, i64 noundef range(i64 0, 288230376151711744) %138, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 0, 288230376151711744) %3, i32 noundef %161, ptr noalias noundef readonly align 8 captures(address, read_provenance) dereferenceable_or_null(32) null) #9
  br label %155

162:                                              ; preds = %222, %155
  tail call void @llvm.experimental.noalias.scope.decl(metadata !83)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !86)
  %163 = icmp eq i64 %138, 0
  %164 = icmp eq i64 %139, 0
  %165 = or i1 %164, %163
  br i1 %165, label %219, label %166

166:                                              ; preds = %162
  %167 = tail call i64 @llvm.umin.i64(i64 %139, i64 range(i64 0, -9223372036854775808) %138)
  %168 = icmp samesign ult i64 %3, %167
  br i1 %168, label %219, label %169

169:                                              ; preds = %166
  %170 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %142, i64 %138
  %171 = icmp samesign ugt i64 %138, %139
  %172 = select i1 %171, ptr %170, ptr %142
  %173 = shl nuw nsw i64 %167, 5
  tail call void @llvm.memcpy.p0.p0.i64(ptr nonnull align 8 %2, ptr nonnull align 8 %172, i64 %173, i1 false), !alias.scope !88
  %174 = getelementptr inbounds nuw i8, ptr %2, i64 %173
  br i1 %171, label %.preheader, label %.preheader1

.preheader:                                       ; preds = %.preheader, %169
  %175 = phi ptr [ %191, %.preheader ], [ %174, %169 ]
  %176 = phi ptr [ %189, %.preheader ], [ %170, %169 ]
  %177 = phi ptr [ %180, %.preheader ], [ %43, %169 ]
  %178 = getelementptr inbounds i8, ptr %176, i64 -32
  %179 = getelementptr inbounds i8, ptr %175, i64 -32
  %180 = getelementptr inbounds i8, ptr %177, i64 -32
  %181 = getelementptr i8, ptr %175, i64 -24
  %182 = load i64, ptr %181, align 8, !alias.scope !86, !noalias !89, !noundef !11
  %183 = getelementptr i8, ptr %176, i64 -24
  %184 = load i64, ptr %183, align 8, !alias.scope !83, !noalias !92, !noundef !11
  %185 = icmp ult i64 %182, %184
  %186 = select i1 %185, ptr %178, ptr %179
  tail call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 8 dereferenceable(32) %180, ptr noundef nonnull align 8 dereferenceable(32) %186, i64 32, i1 false), !alias.scope !88, !noalias !93
  %187 = xor i1 %185, true
  %188 = zext i1 %187 to i64
  %189 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %178, i64 %188
  %190 = zext i1 %185 to i64
  %191 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %179, i64 %190
  %192 = icmp eq ptr %189, %142
  %193 = icmp eq ptr %191, %2
  %194 = select i1 %192, i1 true, i1 %193
  br i1 %194, label %.loopexit, label %.preheader

.preheader1:                                      ; preds = %.preheader1, %169
  %195 = phi ptr [ %209, %.preheader1 ], [ %142, %169 ]
  %196 = phi ptr [ %208, %.preheader1 ], [ %170, %169 ]
  %197 = phi ptr [ %206, %.preheader1 ], [ %2, %169 ]
  %198 = getelementptr i8, ptr %196, i64 8
  %199 = load i64, ptr %198, align 8, !alias.scope !83, !noalias !94, !noundef !11
  %200 = getelementptr i8, ptr %197, i64 8
  %201 = load i64, ptr %200, align 8, !alias.scope !86, !noalias !97, !noundef !11
  %202 = icmp ult i64 %199, %201
  %203 = xor i1 %202, true
  %204 = select i1 %202, ptr %196, ptr %197
  tail call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 8 dereferenceable(32) %195, ptr noundef nonnull align 8 dereferenceable(32) %204, i64 32, i1 false), !alias.scope !88, !noalias !98
  %205 = zext i1 %203 to i64
  %206 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %197, i64 %205
  %207 = zext i1 %202 to i64
  %208 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %196, i64 %207
  %209 = getelementptr inbounds nuw i8, ptr %195, i64 32
  %210 = icmp ne ptr %206, %174
  %211 = icmp ne ptr %208, %43
  %212 = select i1 %210, i1 %211, i1 false
  br i1 %212, label %.preheader1, label %.loopexit

.loopexit:                                        ; preds = %.preheader1, %.preheader
  %213 = phi ptr [ %189, %.preheader ], [ %209, %.preheader1 ]
  %214 = phi ptr [ %191, %.preheader ], [ %174, %.preheader1 ]
  %215 = phi ptr [ %2, %.preheader ], [ %206, %.preheader1 ]
  %216 = ptrtoint ptr %214 to i64
  %217 = ptrtoint ptr %215 to i64
  %218 = sub nuw i64 %216, %217
  tail call void @llvm.memcpy.p0.p0.i64(ptr nonnull align 8 %213, ptr align 8 %215, i64 %218, i1 false), !alias.scope !88, !noalias !99
  br label %219

219:                                              ; preds = %.loopexit, %166, %162
  %220 = shl nuw nsw i64 %140, 1
  %221 = or disjoint i64 %220, 1
  br label %229

222:                                              ; preds = %155
  %223 = getelementptr inbounds nuw { { i64, i64 }, i64, i64 }, ptr %142, i64 %138
  %224 = or i64 %139, 1
  %225 = tail call range(i64 6, 64) i64 @llvm.ctlz.i64(i64 %224, i1 true)
  %226 = trunc nuw nsw i64 %225 to i32
  %227 = shl nuw nsw i32 %226, 1
  %228 = xor i32 %227, 126
  tail call fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_11sort_by_keyyNCNvMs_B17_INtB17_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3b_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8 %223, i64 noundef range(i64 0, 288230376151711744) %139, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 0, 288230376151711744) %3, i32 noundef %228, ptr noalias noundef readonly align 8 captures(address, read_provenance) dereferenceable_or_null(32) null) #9
  br label %162

229:                                              ; preds = %219, %153
  %230 = phi i64 [ %221, %219 ], [ %154, %153 ]
  %231 = icmp ugt i64 %127, 1
  br i1 %231, label %124, label %.loopexit3

232:                                              ; preds = %.loopexit3
  %233 = add i64 %132, 1
  %234 = lshr i64 %40, 1
  %235 = add nuw nsw i64 %234, %35
  br label %33

236:                                              ; preds = %.loopexit3
  %.lcssa47 = phi i64 [ %131, %.loopexit3 ]
  %237 = and i64 %.lcssa47, 1
  %238 = icmp eq i64 %237, 0
  br i1 %238, label %239, label %245

239:                                              ; preds = %236
  %240 = or i64 %1, 1
  %241 = tail call range(i64 6, 64) i64 @llvm.ctlz.i64(i64 %240, i1 true)
  %242 = trunc nuw nsw i64 %241 to i32
  %243 = shl nuw nsw i32 %242, 1
  %244 = xor i32 %243, 126
  tail call fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_11sort_by_keyyNCNvMs_B17_INtB17_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3b_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8 %0, i64 noundef range(i64 0, 288230376151711744) %1, ptr noalias noundef nonnull align 8 %2, i64 noundef range(i64 0, 288230376151711744) %3, i32 noundef %244, ptr noalias noundef readonly align 8 captures(address, read_provenance) dereferenceable_or_null(32) null) #9
  br label %245

245:                                              ; preds = %239, %236
  call void @llvm.lifetime.end.p0(ptr nonnull %6)
  call void @llvm.lifetime.end.p0(ptr nonnull %7)
  ret void
}

; Function Attrs: noinline nonlazybind uwtable
declare hidden fastcc void @_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable9quicksort9quicksortNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSB15_11sort_by_keyyNCNvMs_B17_INtB17_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3b_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std(ptr noalias noundef nonnull align 8, i64 noundef range(i64 0, 288230376151711744), ptr noalias noundef nonnull align 8, i64 noundef range(i64 48, 288230376151711744), i32 noundef range(i32 0, 128), ptr noalias noundef readonly align 8 captures(address) dereferenceable_or_null(32)) unnamed_addr #8

attributes #0 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }
attributes #6 = { nounwind nonlazybind uwtable "frame-pointer"="non-leaf" "probe-stack"="inline-asm" "target-cpu"="x86-64" }
attributes #7 = { nonlazybind uwtable "frame-pointer"="non-leaf" "probe-stack"="inline-asm" "target-cpu"="x86-64" }
attributes #8 = { noinline nonlazybind uwtable "frame-pointer"="non-leaf" "probe-stack"="inline-asm" "target-cpu"="x86-64" }
attributes #9 = { noinline }

!llvm.module.flags = !{!0, !1, !2, !3, !4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"PIE Level", i32 2}
!2 = !{i32 2, !"RtLibUseGOT", i32 1}
!3 = !{i32 7, !"Dwarf Version", i32 4}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{!6}
!6 = distinct !{!6, !7, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5drift10create_runNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSB13_7sort_byNCNvMs1_B15_INtB15_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3m_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std: argument 0"}
!7 = distinct !{!7, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5drift10create_runNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSB13_7sort_byNCNvMs1_B15_INtB15_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3m_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std"}
!8 = !{!9, !10}
!9 = distinct !{!9, !7, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5drift10create_runNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSB13_7sort_byNCNvMs1_B15_INtB15_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3m_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std: argument 1"}
!10 = distinct !{!10, !7, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5drift10create_runNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSB13_7sort_byNCNvMs1_B15_INtB15_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3m_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std: argument 2"}
!11 = !{}
!12 = !{!13}
!13 = distinct !{!13, !14, !"_RINvNvMNtCsgEmfK2I1SDS_4core5sliceSp7reverse7revswapNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressECsjrHSEGnQ3l9_3std: argument 0"}
!14 = distinct !{!14, !"_RINvNvMNtCsgEmfK2I1SDS_4core5sliceSp7reverse7revswapNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressECsjrHSEGnQ3l9_3std"}
!15 = !{!16}
!16 = distinct !{!16, !14, !"_RINvNvMNtCsgEmfK2I1SDS_4core5sliceSp7reverse7revswapNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressECsjrHSEGnQ3l9_3std: argument 1"}
!17 = !{!18, !13, !20, !22}
!18 = distinct !{!18, !19, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 0:It1"}
!19 = distinct !{!19, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std"}
!20 = distinct !{!20, !21, !"_RNvMNtCsgEmfK2I1SDS_4core5sliceSNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddress7reverseCsjrHSEGnQ3l9_3std: argument 0"}
!21 = distinct !{!21, !"_RNvMNtCsgEmfK2I1SDS_4core5sliceSNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddress7reverseCsjrHSEGnQ3l9_3std"}
!22 = distinct !{!22, !19, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 0"}
!23 = !{!16, !9, !10}
!24 = !{!25, !16, !20, !26}
!25 = distinct !{!25, !19, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 1:It1"}
!26 = distinct !{!26, !19, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 1"}
!27 = !{!13, !9, !10}
!28 = !{!29, !13, !20, !30}
!29 = distinct !{!29, !19, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 0:It3"}
!30 = distinct !{!30, !19, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 0:It2"}
!31 = !{!32, !16, !20, !33}
!32 = distinct !{!32, !19, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 1:It3"}
!33 = distinct !{!33, !19, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 1:It2"}
!34 = !{!35}
!35 = distinct !{!35, !36, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5merge5mergeNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSBX_7sort_byNCNvMs1_BZ_INtBZ_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3d_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std: argument 0"}
!36 = distinct !{!36, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5merge5mergeNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSBX_7sort_byNCNvMs1_BZ_INtBZ_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3d_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std"}
!37 = !{!38}
!38 = distinct !{!38, !36, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5merge5mergeNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressNCINvMNtCslNYArtu3iFV_5alloc5sliceSBX_7sort_byNCNvMs1_BZ_INtBZ_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3d_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std: argument 1"}
!39 = !{!35, !38}
!40 = !{!41, !35}
!41 = distinct !{!41, !42, !"_RINvMNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB3_10MergeStateNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressE10merge_downNCINvMNtCslNYArtu3iFV_5alloc5sliceSB1a_7sort_byNCNvMs1_B1c_INtB1c_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3G_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std: argument 0"}
!42 = distinct !{!42, !"_RINvMNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB3_10MergeStateNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressE10merge_downNCINvMNtCslNYArtu3iFV_5alloc5sliceSB1a_7sort_byNCNvMs1_B1c_INtB1c_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3G_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std"}
!43 = !{!41, !38}
!44 = !{!41}
!45 = !{!46, !38}
!46 = distinct !{!46, !47, !"_RINvMNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB3_10MergeStateNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressE8merge_upNCINvMNtCslNYArtu3iFV_5alloc5sliceSB1a_7sort_byNCNvMs1_B1c_INtB1c_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3D_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std: argument 0"}
!47 = distinct !{!47, !"_RINvMNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB3_10MergeStateNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressE8merge_upNCINvMNtCslNYArtu3iFV_5alloc5sliceSB1a_7sort_byNCNvMs1_B1c_INtB1c_8FunctionINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3D_9endianity12LittleEndianEE5parse0E0ECsjrHSEGnQ3l9_3std"}
!48 = !{!46, !35}
!49 = !{!46}
!50 = !{!51, !53}
!51 = distinct !{!51, !52, !"_RNvXs_NtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB4_10MergeStateNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressENtNtNtBc_3ops4drop4Drop4dropCsjrHSEGnQ3l9_3std: argument 0"}
!52 = distinct !{!52, !"_RNvXs_NtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB4_10MergeStateNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressENtNtNtBc_3ops4drop4Drop4dropCsjrHSEGnQ3l9_3std"}
!53 = distinct !{!53, !54, !"_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtNtNtNtB4_5slice4sort6stable5merge10MergeStateNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressEECsjrHSEGnQ3l9_3std: argument 0"}
!54 = distinct !{!54, !"_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtNtNtNtB4_5slice4sort6stable5merge10MergeStateNtNtCs4X4t9plMPHF_9addr2line8function22InlinedFunctionAddressEECsjrHSEGnQ3l9_3std"}
!55 = !{!56}
!56 = distinct !{!56, !57, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5drift10create_runNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSB13_11sort_by_keyyNCNvMs_B15_INtB15_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB39_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std: argument 0"}
!57 = distinct !{!57, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5drift10create_runNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSB13_11sort_by_keyyNCNvMs_B15_INtB15_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB39_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std"}
!58 = !{!59, !60}
!59 = distinct !{!59, !57, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5drift10create_runNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSB13_11sort_by_keyyNCNvMs_B15_INtB15_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB39_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std: argument 1"}
!60 = distinct !{!60, !57, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5drift10create_runNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSB13_11sort_by_keyyNCNvMs_B15_INtB15_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB39_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std: argument 2"}
!61 = !{!62}
!62 = distinct !{!62, !63, !"_RINvNvMNtCsgEmfK2I1SDS_4core5sliceSp7reverse7revswapNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeECsjrHSEGnQ3l9_3std: argument 0"}
!63 = distinct !{!63, !"_RINvNvMNtCsgEmfK2I1SDS_4core5sliceSp7reverse7revswapNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeECsjrHSEGnQ3l9_3std"}
!64 = !{!65}
!65 = distinct !{!65, !63, !"_RINvNvMNtCsgEmfK2I1SDS_4core5sliceSp7reverse7revswapNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeECsjrHSEGnQ3l9_3std: argument 1"}
!66 = !{!67, !62, !69, !71}
!67 = distinct !{!67, !68, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 0:It1"}
!68 = distinct !{!68, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std"}
!69 = distinct !{!69, !70, !"_RNvMNtCsgEmfK2I1SDS_4core5sliceSNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRange7reverseCsjrHSEGnQ3l9_3std: argument 0"}
!70 = distinct !{!70, !"_RNvMNtCsgEmfK2I1SDS_4core5sliceSNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRange7reverseCsjrHSEGnQ3l9_3std"}
!71 = distinct !{!71, !68, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 0"}
!72 = !{!65, !59, !60}
!73 = !{!74, !65, !69, !75}
!74 = distinct !{!74, !68, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 1:It1"}
!75 = distinct !{!75, !68, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 1"}
!76 = !{!62, !59, !60}
!77 = !{!78, !62, !69, !79}
!78 = distinct !{!78, !68, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 0:It3"}
!79 = distinct !{!79, !68, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 0:It2"}
!80 = !{!81, !65, !69, !82}
!81 = distinct !{!81, !68, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 1:It3"}
!82 = distinct !{!82, !68, !"_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECsjrHSEGnQ3l9_3std: argument 1:It2"}
!83 = !{!84}
!84 = distinct !{!84, !85, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5merge5mergeNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSBX_11sort_by_keyyNCNvMs_BZ_INtBZ_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB30_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std: argument 0"}
!85 = distinct !{!85, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5merge5mergeNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSBX_11sort_by_keyyNCNvMs_BZ_INtBZ_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB30_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std"}
!86 = !{!87}
!87 = distinct !{!87, !85, !"_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5merge5mergeNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeNCINvMNtCslNYArtu3iFV_5alloc5sliceSBX_11sort_by_keyyNCNvMs_BZ_INtBZ_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB30_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std: argument 1"}
!88 = !{!84, !87}
!89 = !{!90, !84}
!90 = distinct !{!90, !91, !"_RINvMNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB3_10MergeStateNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeE10merge_downNCINvMNtCslNYArtu3iFV_5alloc5sliceSB1a_11sort_by_keyyNCNvMs_B1c_INtB1c_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3t_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std: argument 0"}
!91 = distinct !{!91, !"_RINvMNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB3_10MergeStateNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeE10merge_downNCINvMNtCslNYArtu3iFV_5alloc5sliceSB1a_11sort_by_keyyNCNvMs_B1c_INtB1c_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3t_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std"}
!92 = !{!90, !87}
!93 = !{!90}
!94 = !{!95, !87}
!95 = distinct !{!95, !96, !"_RINvMNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB3_10MergeStateNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeE8merge_upNCINvMNtCslNYArtu3iFV_5alloc5sliceSB1a_11sort_by_keyyNCNvMs_B1c_INtB1c_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3q_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std: argument 0"}
!96 = distinct !{!96, !"_RINvMNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB3_10MergeStateNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeE8merge_upNCINvMNtCslNYArtu3iFV_5alloc5sliceSB1a_11sort_by_keyyNCNvMs_B1c_INtB1c_8ResUnitsINtNtNtCsduwmD7cSIQq_5gimli4read12endian_slice11EndianSliceNtNtB3q_9endianity12LittleEndianEE5parses2_0E0ECsjrHSEGnQ3l9_3std"}
!97 = !{!95, !84}
!98 = !{!95}
!99 = !{!100, !102}
!100 = distinct !{!100, !101, !"_RNvXs_NtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB4_10MergeStateNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeENtNtNtBc_3ops4drop4Drop4dropCsjrHSEGnQ3l9_3std: argument 0"}
!101 = distinct !{!101, !"_RNvXs_NtNtNtNtCsgEmfK2I1SDS_4core5slice4sort6stable5mergeINtB4_10MergeStateNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeENtNtNtBc_3ops4drop4Drop4dropCsjrHSEGnQ3l9_3std"}
!102 = distinct !{!102, !103, !"_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtNtNtNtB4_5slice4sort6stable5merge10MergeStateNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeEECsjrHSEGnQ3l9_3std: argument 0"}
!103 = distinct !{!103, !"_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtNtNtNtB4_5slice4sort6stable5merge10MergeStateNtNtCs4X4t9plMPHF_9addr2line4unit9UnitRangeEECsjrHSEGnQ3l9_3std"}

; Callers, so that the two sorts are called directly only and their call sites are rewritten.
define void @sort_inlined_function_addresses(ptr noalias noundef nonnull align 8 %v, i64 %n, ptr noalias noundef nonnull align 8 %scratch, i64 %len) {
  %n1 = or i64 %n, 64
  %len1 = or i64 %len, 64
  call fastcc void @drift_sort_inlined_function_address(ptr %v, i64 %n1, ptr %scratch, i64 %len1, i1 false)
  ret void
}

define void @sort_unit_ranges(ptr noalias noundef nonnull align 8 %v, i64 %n, ptr noalias noundef nonnull align 8 %scratch, i64 %len) {
  %n0 = shl i64 %n, 1
  %n1 = or i64 %n0, 64
  %len0 = mul i64 %len, 3
  %len1 = or i64 %len0, 64
  call fastcc void @drift_sort_unit_range(ptr %v, i64 %n1, ptr %scratch, i64 %len1, i1 true)
  ret void
}
