//! [`Type`]: LLVM types (uniqued per context: equal handles ⇔ equal types), their shape,
//! and the constants every type has (null, poison, integers).

use super::Value;
use llvm_sys::LLVMTypeKind;
use llvm_sys::core as c;
use llvm_sys::prelude::LLVMTypeRef;
use std::ffi::CStr;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// An LLVM type (uniqued per context: equal handles ⇔ equal types).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Type<'m> {
    raw: NonNull<llvm_sys::LLVMType>,
    _m: PhantomData<&'m ()>,
}

/// Coarse kind of a type.
pub use fmerge_core::ir::TypeKind;

impl<'m> Type<'m> {
    pub(crate) fn from_raw(raw: LLVMTypeRef) -> Option<Type<'m>> {
        NonNull::new(raw).map(|raw| Type { raw, _m: PhantomData })
    }

    pub(crate) fn raw(self) -> LLVMTypeRef {
        self.raw.as_ptr()
    }

    pub fn identity(self) -> usize {
        self.raw.as_ptr() as usize
    }

    pub fn kind(self) -> TypeKind {
        use LLVMTypeKind::*;
        // SAFETY: live type (types live as long as the context).
        match unsafe { c::LLVMGetTypeKind(self.raw()) } {
            LLVMVoidTypeKind => TypeKind::Void,
            LLVMIntegerTypeKind => TypeKind::Int,
            LLVMHalfTypeKind
            | LLVMBFloatTypeKind
            | LLVMFloatTypeKind
            | LLVMDoubleTypeKind
            | LLVMX86_FP80TypeKind
            | LLVMFP128TypeKind
            | LLVMPPC_FP128TypeKind => TypeKind::Float,
            LLVMPointerTypeKind => TypeKind::Pointer,
            LLVMVectorTypeKind | LLVMScalableVectorTypeKind => TypeKind::Vector,
            LLVMArrayTypeKind => TypeKind::Array,
            LLVMStructTypeKind => TypeKind::Struct,
            LLVMFunctionTypeKind => TypeKind::Function,
            LLVMLabelTypeKind => TypeKind::Label,
            LLVMTokenTypeKind => TypeKind::Token,
            LLVMMetadataTypeKind => TypeKind::Metadata,
            _ => TypeKind::Other,
        }
    }

    /// Raw LLVM type kind number (for hashing: distinguishes `float` from `double`).
    pub fn raw_kind(self) -> u32 {
        // SAFETY: live type.
        unsafe { c::LLVMGetTypeKind(self.raw()) as u32 }
    }

    pub fn int_width(self) -> u32 {
        if self.kind() != TypeKind::Int {
            return 0;
        }
        // SAFETY: checked to be an integer type.
        unsafe { c::LLVMGetIntTypeWidth(self.raw()) }
    }

    pub fn pointer_address_space(self) -> u32 {
        if self.kind() != TypeKind::Pointer {
            return 0;
        }
        // SAFETY: checked to be a pointer type.
        unsafe { c::LLVMGetPointerAddressSpace(self.raw()) }
    }

    /// Element types of a struct, or the one element type of an array/vector.
    pub fn element_types(self) -> Vec<Type<'m>> {
        // SAFETY: live type; each query is made only for the matching kind.
        unsafe {
            match self.kind() {
                TypeKind::Struct => {
                    let n = c::LLVMCountStructElementTypes(self.raw());
                    (0..n)
                        .filter_map(|k| Type::from_raw(c::LLVMStructGetTypeAtIndex(self.raw(), k)))
                        .collect()
                }
                TypeKind::Array | TypeKind::Vector => {
                    Type::from_raw(c::LLVMGetElementType(self.raw())).into_iter().collect()
                }
                _ => Vec::new(),
            }
        }
    }

    /// Number of elements of an array or fixed vector.
    pub fn length(self) -> u64 {
        // SAFETY: live type; each query is made only for the matching kind.
        unsafe {
            match c::LLVMGetTypeKind(self.raw()) {
                LLVMTypeKind::LLVMArrayTypeKind => c::LLVMGetArrayLength2(self.raw()),
                LLVMTypeKind::LLVMVectorTypeKind | LLVMTypeKind::LLVMScalableVectorTypeKind => {
                    u64::from(c::LLVMGetVectorSize(self.raw()))
                }
                _ => 0,
            }
        }
    }

    pub fn struct_name(self) -> Option<String> {
        if self.kind() != TypeKind::Struct {
            return None;
        }
        // SAFETY: checked to be a struct type; the name is copied at once.
        unsafe {
            let p = c::LLVMGetStructName(self.raw());
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        }
    }

    pub fn is_packed_struct(self) -> bool {
        // SAFETY: only queried on struct types.
        self.kind() == TypeKind::Struct && unsafe { c::LLVMIsPackedStruct(self.raw()) != 0 }
    }

    pub fn is_opaque_struct(self) -> bool {
        // SAFETY: only queried on struct types.
        self.kind() == TypeKind::Struct && unsafe { c::LLVMIsOpaqueStruct(self.raw()) != 0 }
    }

    /// Return type of a function type.
    pub fn return_type(self) -> Type<'m> {
        assert_eq!(self.kind(), TypeKind::Function);
        // SAFETY: checked to be a function type.
        Type::from_raw(unsafe { c::LLVMGetReturnType(self.raw()) }).expect("return type")
    }

    /// Parameter types of a function type.
    pub fn param_types(self) -> Vec<Type<'m>> {
        assert_eq!(self.kind(), TypeKind::Function);
        // SAFETY: checked to be a function type; the buffer has room for `n` types.
        unsafe {
            let n = c::LLVMCountParamTypes(self.raw()) as usize;
            let mut v = vec![std::ptr::null_mut(); n];
            c::LLVMGetParamTypes(self.raw(), v.as_mut_ptr());
            v.into_iter().filter_map(Type::from_raw).collect()
        }
    }

    pub fn is_vararg(self) -> bool {
        // SAFETY: only queried on function types.
        self.kind() == TypeKind::Function && unsafe { c::LLVMIsFunctionVarArg(self.raw()) != 0 }
    }

    /// Textual form, e.g. `i32`, `{ ptr, i64 }`.
    pub fn print(self) -> String {
        // SAFETY: live type; the message is disposed after copying.
        unsafe {
            let p = c::LLVMPrintTypeToString(self.raw());
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            c::LLVMDisposeMessage(p);
            s
        }
    }

    /// The all-zero / null constant of this type.
    pub fn const_null(self) -> Value<'m> {
        // SAFETY: live first-class type.
        Value::from_raw(unsafe { c::LLVMConstNull(self.raw()) }).expect("null constant")
    }

    /// `poison` of this type.
    pub fn poison(self) -> Value<'m> {
        // SAFETY: live type.
        Value::from_raw(unsafe { c::LLVMGetPoison(self.raw()) }).expect("poison")
    }

    /// An integer constant of this integer type.
    pub fn const_int(self, v: u64) -> Value<'m> {
        assert_eq!(self.kind(), TypeKind::Int);
        // SAFETY: checked to be an integer type.
        Value::from_raw(unsafe { c::LLVMConstInt(self.raw(), v, 0) }).expect("int constant")
    }
}

impl fmt::Debug for Type<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.print())
    }
}
