//! IR handles and read access: values, globals, functions, instructions, blocks, types, and
//! fmerge's own names for the LLVM enums callers need (linkage, visibility, `unnamed_addr`,
//! tail-call kind).
//!
//! The handles follow LLVM's class hierarchy as far as fmerge needs it:
//!
//! ```text
//! Value ─┬─ Global ─┬─ Function
//!        │          └─ GlobalVar
//!        └─ Instruction          Block, Type
//! ```
//!
//! A handle of a narrower kind dereferences to the wider one (`Function` → `Global` →
//! `Value`; the way web-sys models JavaScript's class hierarchy), so a function has every
//! method of a global and of a value, and `as_value()` is free. The way down is checked:
//! [`Value::as_function`], [`Value::as_instruction`] and the like return `None` for another
//! kind. Each kind has only the methods that make sense for it, and holding one is proof of
//! the kind, so its methods need no `LLVMIsA*` check of their own. Handles of different kinds
//! of one object compare, hash and print (`Debug`) as the same pointer.
//!
//! Read access is in this module ([`value`], [`global`], [`function`], [`instruction`],
//! [`types`]); setters and rewiring are in [`crate::edit`].
//!
//! **Soundness.** A handle is a pointer to a live LLVM object plus the lifetime `'m` of the
//! module borrow it came from (see the soundness rule in [`crate::module`]). Every `unsafe`
//! block of these modules relies on that invariant: *the object is alive and belongs to a
//! module borrowed for `'m`*; blocks that need more (the right kind of object) get it from
//! the handle's kind, or check it first and say so.

pub mod function;
pub mod global;
pub mod instruction;
pub mod types;
pub mod value;

pub use function::Function;
pub use global::{Global, GlobalVar, Linkage, UnnamedAddr, Visibility};
pub use instruction::{Block, Instruction, TailCallKind};
pub use types::{Type, TypeKind};
pub use value::{ContextConstant, Value};

/// The impls every narrower handle has: `Deref` to the wider handle, `Debug` as the value it
/// is, conversion into [`Value`].
macro_rules! narrower_handle {
    ($name:ident => $wider:ident) => {
        impl<'m> std::ops::Deref for $name<'m> {
            type Target = $wider<'m>;
            fn deref(&self) -> &$wider<'m> {
                &self.0
            }
        }

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.0, f)
            }
        }

        impl<'m> From<$name<'m>> for $crate::ir::Value<'m> {
            fn from(h: $name<'m>) -> $crate::ir::Value<'m> {
                h.as_value()
            }
        }
    };
}
pub(crate) use narrower_handle;
