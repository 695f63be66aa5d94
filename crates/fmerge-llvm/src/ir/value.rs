//! [`Value`]: any LLVM value (function, global, argument, instruction, constant, inline asm,
//! metadata, a block used as an operand), with what every value has: a type, a name,
//! operands and uses, its kind and the checked ways down to narrower handles.

use super::{Block, Function, Global, GlobalVar, Instruction, Type};
use llvm_sys::LLVMTypeKind;
use llvm_sys::core as c;
use llvm_sys::prelude::LLVMValueRef;
use std::ffi::CStr;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// Any LLVM value: function, global, argument, instruction, constant, inline asm, metadata.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value<'m> {
    raw: NonNull<llvm_sys::LLVMValue>,
    _m: PhantomData<&'m ()>,
}

impl<'m> Value<'m> {
    pub(crate) fn from_raw(raw: LLVMValueRef) -> Option<Value<'m>> {
        NonNull::new(raw).map(|raw| Value { raw, _m: PhantomData })
    }

    pub(crate) fn raw(self) -> LLVMValueRef {
        self.raw.as_ptr()
    }

    /// Pointer identity as an integer: for interning only, never for ordering output.
    pub fn identity(self) -> usize {
        self.raw.as_ptr() as usize
    }

    pub fn ty(self) -> Type<'m> {
        // SAFETY: live value (module invariant); every value has a type.
        Type::from_raw(unsafe { c::LLVMTypeOf(self.raw()) }).expect("value without type")
    }

    pub fn name(self) -> String {
        let mut len = 0usize;
        // SAFETY: live value; LLVM returns a pointer to `len` bytes owned by the value.
        let p = unsafe { c::LLVMGetValueName2(self.raw(), &mut len) };
        if p.is_null() || len == 0 {
            return String::new();
        }
        // SAFETY: `p` points at `len` readable bytes (LLVM's contract for LLVMGetValueName2).
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
        String::from_utf8_lossy(bytes).into_owned()
    }

    // ---- kinds -------------------------------------------------------------------------

    pub fn is_function(self) -> bool {
        // SAFETY: live value; LLVMIsA* accept any value.
        unsafe { !c::LLVMIsAFunction(self.raw()).is_null() }
    }
    pub fn is_instruction(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAInstruction(self.raw()).is_null() }
    }
    pub fn is_argument(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAArgument(self.raw()).is_null() }
    }
    pub fn is_constant(self) -> bool {
        // SAFETY: as above.
        unsafe { c::LLVMIsConstant(self.raw()) != 0 }
    }
    /// A key for this value if it is a constant that lives as long as its context and refers
    /// to no global (an integer, a floating-point value, `null`, `undef`, `poison`, a zero
    /// aggregate): such a constant is the same object in every module of the context and is
    /// never freed before it, so its key names it for as long as the context lives, even
    /// after the handle's module borrow ends. `None` for anything else.
    pub fn context_constant(self) -> Option<ContextConstant> {
        // SAFETY: live value; the `LLVMIsA*` casts only read its kind.
        let immortal = unsafe {
            let v = self.raw();
            !c::LLVMIsAConstantInt(v).is_null()
                || !c::LLVMIsAConstantFP(v).is_null()
                || !c::LLVMIsAConstantPointerNull(v).is_null()
                || !c::LLVMIsAUndefValue(v).is_null()
                || !c::LLVMIsAConstantAggregateZero(v).is_null()
        };
        // SAFETY: live value; its type's context is live too.
        let context = unsafe { c::LLVMGetTypeContext(c::LLVMTypeOf(self.raw())) };
        immortal.then(|| ContextConstant { value: self.raw() as usize, context: context as usize })
    }

    pub fn is_poison(self) -> bool {
        // SAFETY: as above.
        unsafe { c::LLVMIsPoison(self.raw()) != 0 }
    }
    pub fn is_global_value(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAGlobalValue(self.raw()).is_null() }
    }
    pub fn is_global_variable(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAGlobalVariable(self.raw()).is_null() }
    }
    pub fn is_global_alias(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAGlobalAlias(self.raw()).is_null() }
    }
    pub fn is_inline_asm(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAInlineAsm(self.raw()).is_null() }
    }
    pub fn is_metadata(self) -> bool {
        // SAFETY: live value; its type is alive with the context.
        unsafe {
            c::LLVMGetTypeKind(c::LLVMTypeOf(self.raw())) == LLVMTypeKind::LLVMMetadataTypeKind
        }
    }
    pub fn is_block_address(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsABlockAddress(self.raw()).is_null() }
    }
    pub fn is_constant_int(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAConstantInt(self.raw()).is_null() }
    }
    pub fn is_basic_block(self) -> bool {
        // SAFETY: as above.
        unsafe { c::LLVMValueIsBasicBlock(self.raw()) != 0 }
    }

    // ---- the checked ways down ---------------------------------------------------------

    /// This value as a global (function, variable, alias), if it is one.
    pub fn as_global(self) -> Option<Global<'m>> {
        self.is_global_value().then_some(Global(self))
    }
    /// This value as a function, if it is one.
    pub fn as_function(self) -> Option<Function<'m>> {
        self.is_function().then_some(Function(Global(self)))
    }
    /// This value as a global variable, if it is one.
    pub fn as_global_var(self) -> Option<GlobalVar<'m>> {
        self.is_global_variable().then_some(GlobalVar(Global(self)))
    }
    /// This value as an instruction, if it is one.
    pub fn as_instruction(self) -> Option<Instruction<'m>> {
        self.is_instruction().then_some(Instruction(self))
    }
    /// The block this value stands for, if it is a basic block used as an operand.
    pub fn as_block(self) -> Option<Block<'m>> {
        if !self.is_basic_block() {
            return None;
        }
        // SAFETY: checked to be a basic block just above.
        Block::from_raw(unsafe { c::LLVMValueAsBasicBlock(self.raw()) })
    }

    // ---- operands and uses -------------------------------------------------------------

    pub fn num_operands(self) -> u32 {
        if self.is_metadata() {
            return 0;
        }
        // SAFETY: live value; LLVMGetNumOperands accepts users and returns 0 for
        // non-users except metadata, which the check above excludes.
        let n = unsafe { c::LLVMGetNumOperands(self.raw()) };
        n.max(0) as u32
    }

    /// Operand `k` (raw: works for metadata and block operands too, unlike inkwell).
    pub fn operand(self, k: u32) -> Option<Value<'m>> {
        if k >= self.num_operands() {
            return None;
        }
        // SAFETY: `k` is in range for a live user.
        Value::from_raw(unsafe { c::LLVMGetOperand(self.raw(), k) })
    }

    /// Every user of this value (with repetitions, one per use), in use-list order.
    pub fn users(self) -> Vec<(Value<'m>, u32)> {
        let mut out = Vec::new();
        // SAFETY: walking the use list of a live value without mutating it.
        unsafe {
            let mut u = c::LLVMGetFirstUse(self.raw());
            while !u.is_null() {
                let user = c::LLVMGetUser(u);
                // Find which operand of `user` this use is.
                let n = c::LLVMGetNumOperands(user).max(0) as u32;
                let mut idx = u32::MAX;
                for k in 0..n {
                    if c::LLVMGetOperandUse(user, k) == u {
                        idx = k;
                        break;
                    }
                }
                if let Some(v) = Value::from_raw(user) {
                    out.push((v, idx));
                }
                u = c::LLVMGetNextUse(u);
            }
        }
        out
    }

    pub fn has_uses(self) -> bool {
        // SAFETY: live value.
        unsafe { !c::LLVMGetFirstUse(self.raw()).is_null() }
    }

    /// Looks through pointer casts of constants (`bitcast`/`addrspacecast` expressions).
    pub fn strip_pointer_casts(self) -> Value<'m> {
        let mut v = self;
        // SAFETY: live values; the opcode query is only made on constant expressions.
        unsafe {
            while !c::LLVMIsAConstantExpr(v.raw()).is_null() {
                let op = c::LLVMGetConstOpcode(v.raw());
                if op != llvm_sys::LLVMOpcode::LLVMBitCast
                    && op != llvm_sys::LLVMOpcode::LLVMAddrSpaceCast
                {
                    break;
                }
                match v.operand(0) {
                    Some(o) => v = o,
                    None => break,
                }
            }
        }
        v
    }

    // ---- constants ---------------------------------------------------------------------

    /// Zero-extended value of a constant integer of at most 64 bits.
    pub fn const_int_value(self) -> Option<u64> {
        if !self.is_constant_int() || self.ty().int_width() > 64 {
            return None;
        }
        // SAFETY: checked to be a ConstantInt of at most 64 bits.
        Some(unsafe { c::LLVMConstIntGetZExtValue(self.raw()) })
    }

    /// Textual IR of the value (for messages and `fmerge explain`).
    pub fn print(self) -> String {
        // SAFETY: live value; the returned message is disposed after copying.
        unsafe {
            let p = c::LLVMPrintValueToString(self.raw());
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            c::LLVMDisposeMessage(p);
            s
        }
    }
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        if name.is_empty() { write!(f, "Value({:p})", self.raw) } else { write!(f, "@{name}") }
    }
}

/// A constant that lives as long as its context, named without borrowing a module (see
/// [`Value::context_constant`]). Two keys are equal when they name the same constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ContextConstant {
    value: usize,
    context: usize,
}

impl ContextConstant {
    /// The constant, as a value usable in `module`; `None` if `module` is of another context
    /// than the one the key was made in.
    pub fn value<'m>(self, module: &'m crate::Module<'_>) -> Option<Value<'m>> {
        // SAFETY: live module.
        let context = unsafe { c::LLVMGetModuleContext(module.raw()) } as usize;
        if context != self.context {
            return None;
        }
        // SAFETY: the key was made from a constant of this context that is never freed before
        // the context (`Value::context_constant`), and the context is live (the module is).
        Value::from_raw(self.value as llvm_sys::prelude::LLVMValueRef)
    }
}
