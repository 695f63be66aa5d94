//! [`Global`] (any global value: function, variable, alias) and [`GlobalVar`], with what the
//! linker sees of them: linkage, visibility, `unnamed_addr`, `dso_local`, comdat, section.
//! [`Linkage`], [`Visibility`] and [`UnnamedAddr`] are fmerge's own names for LLVM's enums,
//! converted here, so that no crate but this one needs LLVM's C API.

use super::{Type, Value, narrower_handle};
use crate::ffi;
use llvm_sys::core as c;
use llvm_sys::prelude::LLVMValueRef;
use llvm_sys::{LLVMLinkage, LLVMUnnamedAddr, LLVMVisibility};
use std::ffi::CStr;

/// A global value: a function, a global variable or an alias.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Global<'m>(pub(super) Value<'m>);
narrower_handle!(Global => Value);

/// A global variable.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GlobalVar<'m>(pub(super) Global<'m>);
narrower_handle!(GlobalVar => Global);

impl<'m> Global<'m> {
    /// A handle on a pointer the caller knows to be a global value.
    pub(crate) fn from_raw(raw: LLVMValueRef) -> Option<Global<'m>> {
        let v = Value::from_raw(raw)?;
        debug_assert!(v.is_global_value());
        Some(Global(v))
    }

    pub fn as_value(self) -> Value<'m> {
        self.0
    }

    /// This global as a function, if it is one.
    pub fn as_function(self) -> Option<super::Function<'m>> {
        self.0.as_function()
    }

    pub fn linkage(self) -> Linkage {
        // SAFETY: live global value (the handle's kind).
        Linkage::from_llvm(unsafe { c::LLVMGetLinkage(self.raw()) })
    }
    pub fn visibility(self) -> Visibility {
        // SAFETY: live global value.
        Visibility::from_llvm(unsafe { c::LLVMGetVisibility(self.raw()) })
    }
    pub fn unnamed_addr(self) -> UnnamedAddr {
        // SAFETY: live global value.
        UnnamedAddr::from_llvm(unsafe { c::LLVMGetUnnamedAddress(self.raw()) })
    }
    pub fn is_dso_local(self) -> bool {
        // SAFETY: live global value (the shim casts to GlobalValue).
        unsafe { ffi::fm_is_dso_local(self.raw()) != 0 }
    }
    /// Whether another definition may replace this one at link or load time.
    pub fn is_interposable(self) -> bool {
        // SAFETY: live global value.
        unsafe { ffi::fm_is_interposable(self.raw()) != 0 }
    }
    pub fn has_comdat(self) -> bool {
        // SAFETY: live global value.
        unsafe { !llvm_sys::comdat::LLVMGetComdat(self.raw()).is_null() }
    }
    pub fn section(self) -> Option<String> {
        // SAFETY: live global value; the string is owned by the value and copied at once.
        unsafe {
            let p = c::LLVMGetSection(self.raw());
            if p.is_null() {
                return None;
            }
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            (!s.is_empty()).then_some(s)
        }
    }
    pub fn is_declaration(self) -> bool {
        // SAFETY: live global value.
        unsafe { c::LLVMIsDeclaration(self.raw()) != 0 }
    }
    /// The value type of a global (the function type for functions).
    pub fn global_value_type(self) -> Type<'m> {
        // SAFETY: live global value.
        Type::from_raw(unsafe { c::LLVMGlobalGetValueType(self.raw()) }).expect("global type")
    }
}

impl<'m> GlobalVar<'m> {
    /// A handle on a pointer the caller knows to be a global variable.
    pub(crate) fn from_raw(raw: LLVMValueRef) -> Option<GlobalVar<'m>> {
        let v = Value::from_raw(raw)?;
        debug_assert!(v.is_global_variable());
        Some(GlobalVar(Global(v)))
    }

    pub fn as_global(self) -> Global<'m> {
        self.0
    }

    /// Whether the variable is `constant`.
    pub fn is_global_constant(self) -> bool {
        // SAFETY: live global variable (the handle's kind).
        unsafe { c::LLVMIsGlobalConstant(self.raw()) != 0 }
    }
    /// The initializer (none for a declaration).
    pub fn initializer(self) -> Option<Value<'m>> {
        // SAFETY: live global variable.
        Value::from_raw(unsafe { c::LLVMGetInitializer(self.raw()) })
    }
}

/// How a global's symbol links (LLVM's `GlobalValue::LinkageTypes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    External,
    AvailableExternally,
    LinkOnceAny,
    LinkOnceOdr,
    WeakAny,
    WeakOdr,
    Appending,
    Internal,
    Private,
    ExternalWeak,
    Common,
}

impl Linkage {
    /// Local to the module (internal or private)?
    pub fn is_local(self) -> bool {
        matches!(self, Linkage::Internal | Linkage::Private)
    }

    /// May the definition be dropped when unused (local, linkonce, available_externally)?
    pub fn is_discardable_if_unused(self) -> bool {
        matches!(
            self,
            Linkage::Internal
                | Linkage::Private
                | Linkage::LinkOnceAny
                | Linkage::LinkOnceOdr
                | Linkage::AvailableExternally
        )
    }

    /// ODR linkages: every definition of the symbol is known to be equivalent.
    pub fn is_odr(self) -> bool {
        matches!(self, Linkage::LinkOnceOdr | Linkage::WeakOdr)
    }

    /// May the linker keep one copy of the symbol out of several modules' (linkonce, weak)?
    pub fn is_linkonce_or_weak(self) -> bool {
        matches!(
            self,
            Linkage::LinkOnceAny | Linkage::LinkOnceOdr | Linkage::WeakAny | Linkage::WeakOdr
        )
    }

    /// From the C API's value. The C API's obsolete linkages, which LLVM 22 never returns,
    /// map to what `LLVMSetLinkage` makes of them.
    pub(crate) fn from_llvm(l: LLVMLinkage) -> Linkage {
        use LLVMLinkage::*;
        match l {
            LLVMExternalLinkage | LLVMDLLImportLinkage | LLVMDLLExportLinkage
            | LLVMGhostLinkage => Linkage::External,
            LLVMAvailableExternallyLinkage => Linkage::AvailableExternally,
            LLVMLinkOnceAnyLinkage => Linkage::LinkOnceAny,
            LLVMLinkOnceODRLinkage | LLVMLinkOnceODRAutoHideLinkage => Linkage::LinkOnceOdr,
            LLVMWeakAnyLinkage => Linkage::WeakAny,
            LLVMWeakODRLinkage => Linkage::WeakOdr,
            LLVMAppendingLinkage => Linkage::Appending,
            LLVMInternalLinkage => Linkage::Internal,
            LLVMPrivateLinkage | LLVMLinkerPrivateLinkage | LLVMLinkerPrivateWeakLinkage => {
                Linkage::Private
            }
            LLVMExternalWeakLinkage => Linkage::ExternalWeak,
            LLVMCommonLinkage => Linkage::Common,
        }
    }

    pub(crate) fn to_llvm(self) -> LLVMLinkage {
        use LLVMLinkage::*;
        match self {
            Linkage::External => LLVMExternalLinkage,
            Linkage::AvailableExternally => LLVMAvailableExternallyLinkage,
            Linkage::LinkOnceAny => LLVMLinkOnceAnyLinkage,
            Linkage::LinkOnceOdr => LLVMLinkOnceODRLinkage,
            Linkage::WeakAny => LLVMWeakAnyLinkage,
            Linkage::WeakOdr => LLVMWeakODRLinkage,
            Linkage::Appending => LLVMAppendingLinkage,
            Linkage::Internal => LLVMInternalLinkage,
            Linkage::Private => LLVMPrivateLinkage,
            Linkage::ExternalWeak => LLVMExternalWeakLinkage,
            Linkage::Common => LLVMCommonLinkage,
        }
    }
}

/// Who outside the linked object may see a symbol (`default`, `hidden`, `protected`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Visibility {
    Default,
    Hidden,
    Protected,
}

impl Visibility {
    pub(crate) fn from_llvm(v: LLVMVisibility) -> Visibility {
        match v {
            LLVMVisibility::LLVMDefaultVisibility => Visibility::Default,
            LLVMVisibility::LLVMHiddenVisibility => Visibility::Hidden,
            LLVMVisibility::LLVMProtectedVisibility => Visibility::Protected,
        }
    }

    pub(crate) fn to_llvm(self) -> LLVMVisibility {
        match self {
            Visibility::Default => LLVMVisibility::LLVMDefaultVisibility,
            Visibility::Hidden => LLVMVisibility::LLVMHiddenVisibility,
            Visibility::Protected => LLVMVisibility::LLVMProtectedVisibility,
        }
    }
}

/// Whether a global's address is significant: `None` (it is), `Local` (`local_unnamed_addr`:
/// not within the module), `Global` (`unnamed_addr`: nowhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnnamedAddr {
    None,
    Local,
    Global,
}

impl UnnamedAddr {
    pub(crate) fn from_llvm(u: LLVMUnnamedAddr) -> UnnamedAddr {
        match u {
            LLVMUnnamedAddr::LLVMNoUnnamedAddr => UnnamedAddr::None,
            LLVMUnnamedAddr::LLVMLocalUnnamedAddr => UnnamedAddr::Local,
            LLVMUnnamedAddr::LLVMGlobalUnnamedAddr => UnnamedAddr::Global,
        }
    }

    pub(crate) fn to_llvm(self) -> LLVMUnnamedAddr {
        match self {
            UnnamedAddr::None => LLVMUnnamedAddr::LLVMNoUnnamedAddr,
            UnnamedAddr::Local => LLVMUnnamedAddr::LLVMLocalUnnamedAddr,
            UnnamedAddr::Global => LLVMUnnamedAddr::LLVMGlobalUnnamedAddr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linkages_convert_both_ways() {
        use Linkage::*;
        for l in [
            External,
            AvailableExternally,
            LinkOnceAny,
            LinkOnceOdr,
            WeakAny,
            WeakOdr,
            Appending,
            Internal,
            Private,
            ExternalWeak,
            Common,
        ] {
            assert_eq!(Linkage::from_llvm(l.to_llvm()), l);
        }
        assert_eq!(Linkage::from_llvm(LLVMLinkage::LLVMLinkerPrivateLinkage), Private);
    }

    #[test]
    fn linkage_classes() {
        assert!(Linkage::Internal.is_local() && Linkage::Private.is_local());
        assert!(!Linkage::LinkOnceOdr.is_local());
        assert!(Linkage::LinkOnceOdr.is_odr() && Linkage::WeakOdr.is_odr());
        assert!(!Linkage::WeakAny.is_odr());
        assert!(Linkage::AvailableExternally.is_discardable_if_unused());
        assert!(!Linkage::WeakOdr.is_discardable_if_unused());
        assert!(Linkage::WeakAny.is_linkonce_or_weak());
        assert!(!Linkage::External.is_linkonce_or_weak());
    }

    #[test]
    fn visibility_and_unnamed_addr_convert_both_ways() {
        for v in [Visibility::Default, Visibility::Hidden, Visibility::Protected] {
            assert_eq!(Visibility::from_llvm(v.to_llvm()), v);
        }
        for u in [UnnamedAddr::None, UnnamedAddr::Local, UnnamedAddr::Global] {
            assert_eq!(UnnamedAddr::from_llvm(u.to_llvm()), u);
        }
    }
}
