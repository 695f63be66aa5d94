//! A snapshot of a module as it was, from which functions of the working module can be put
//! back.
//!
//! The size guard keeps the input while the stages merge a working module: as its bitcode
//! while they run ([`Snapshot::defer`]), then as a [`Snapshot`]. When a merge's generated code
//! measures larger than the functions it replaced, the guard puts those functions back
//! ([`Snapshot::restore`]) instead of running every stage again from a fresh copy. The
//! snapshot is read back from that bitcode into the same context lazily (as
//! [`Module::lazy_copy`] reads): a body is read only when the guard needs it (to measure it, to
//! put it back), so keeping the input costs little time and memory. Its named struct types are
//! other types than the working module's (`%T.0` for `%T`); it knows which of its types
//! stands for which of the working module's, and restored bodies use the working module's
//! types and globals (`shim/restore.cpp` says how).

use crate::error::{LlvmError, Result};
use crate::ffi::{self, FmTypePairs};
use crate::module::Module;

/// A module as it was, and how its types pair with those of the working module it was taken
/// from (or last copied to, [`Snapshot::working_copy`]).
pub struct Snapshot<'c> {
    module: Module<'c>,
    /// Null when the types did not line up: nothing can be restored then.
    pairs: *mut FmTypePairs,
}

/// A snapshot not read yet: the bitcode of the module as it was ([`Snapshot::defer`]).
pub struct DeferredSnapshot {
    bitcode: crate::module::Source,
}

impl DeferredSnapshot {
    /// The snapshot, read back lazily into the context of `working` (the module it was taken
    /// from, changed or not since).
    pub fn read<'c>(self, working: &Module<'c>) -> Result<Snapshot<'c>> {
        let module = working.lazy_copy_of_bitcode(&self.bitcode.into_bytes()?)?;
        // SAFETY: the shim returns a new object that this snapshot owns and frees.
        let pairs = unsafe { ffi::fm_type_pairs_by_name() };
        Ok(Snapshot { module, pairs })
    }
}

impl<'c> Snapshot<'c> {
    /// A snapshot of `working` as it is now, read only when [`DeferredSnapshot::read`] is
    /// called: until then it is the module's bitcode alone (what the module was read from, if
    /// nothing has changed it, else written now), without the copy's global values, types and
    /// metadata, which take about half as much memory again on a large module.
    pub fn defer(working: &Module<'c>) -> Result<DeferredSnapshot> {
        // Taking the bitcode forgets it: the working module is about to change through
        // handles.
        Ok(DeferredSnapshot { bitcode: working.take_bitcode()? })
    }

    /// The module as it was (for measuring its functions; never changed, but its bodies are
    /// read as they are needed).
    pub fn module(&self) -> &Module<'c> {
        &self.module
    }

    /// Reads the snapshot's bodies of `names` now (those it defines), so that their uses of
    /// other functions are there to be seen. Fails if one cannot be read.
    pub fn materialize(&self, names: &[&str]) -> Result<()> {
        let fns: Vec<_> =
            names.iter().filter_map(|n| self.module.function(n)).map(|f| f.raw()).collect();
        // SAFETY: functions of the live snapshot; reading bodies frees nothing.
        if unsafe { ffi::fm_materialize_functions(fns.as_ptr(), fns.len()) } == 0 {
            return Err(LlvmError::InvalidIr {
                message: "a function body of the input could not be read again".to_string(),
            });
        }
        Ok(())
    }

    /// A fresh exact copy of the snapshot, to be the working module from now on: later
    /// restores pair with it.
    pub fn working_copy(&mut self) -> Result<Module<'c>> {
        self.module.materialize_all()?;
        let copy = self.module.duplicate()?;
        // SAFETY: as in `of`; the old pairing is freed first (nothing else holds it).
        unsafe {
            if !self.pairs.is_null() {
                ffi::fm_type_pairs_free(self.pairs);
            }
            self.pairs = ffi::fm_type_pairs_new(self.module.raw(), copy.raw());
        }
        Ok(copy)
    }

    /// The snapshot's module itself, every body read (when the input is what gets written).
    pub fn into_module(mut self) -> Result<Module<'c>> {
        self.module.materialize_all()?;
        let pairs = std::mem::replace(&mut self.pairs, std::ptr::null_mut());
        if !pairs.is_null() {
            // SAFETY: owned by this snapshot, freed once.
            unsafe { ffi::fm_type_pairs_free(pairs) };
        }
        // `Snapshot` has a destructor, so its module is moved out through a `ManuallyDrop`.
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; the module is read out exactly once.
        Ok(unsafe { std::ptr::read(&this.module) })
    }

    /// Whether [`Snapshot::restore`] can put back the snapshot's definitions of the functions
    /// `names` in `working` (the module this snapshot pairs with): each is defined in the
    /// snapshot, and everything their definitions refer to is still in `working`, or is a
    /// function `working` no longer has that `replaced` names a replacement for (`(erased,
    /// replacement)`: every use of the erased function became a use of the replacement, an
    /// equal function). `Err` says why not.
    pub fn restorable(
        &self,
        working: &Module<'c>,
        names: &[&str],
        replaced: &[(&str, &str)],
    ) -> std::result::Result<(), String> {
        if self.pairs.is_null() {
            return Err("the snapshot's types do not pair with the module's".to_string());
        }
        let fns = self.functions(names).ok_or("a function the input does not define")?;
        self.set_replaced(working, replaced);
        let mut why = std::ptr::null_mut();
        // SAFETY: live modules of one context, functions of the snapshot, pairing owned here;
        // on refusal the shim returns a malloc'ed message, copied and freed.
        unsafe {
            if ffi::fm_restorable(working.raw(), self.pairs, fns.as_ptr(), fns.len(), &mut why) == 0
            {
                return Err(ffi::take_message(why));
            }
        }
        Ok(())
    }

    /// Gives the functions `names` of `working` their definitions in the snapshot (body,
    /// attributes, linkage, comdat), creating those `working` no longer has; `replaced` as in
    /// [`Snapshot::restorable`]. Fails, changing nothing, unless restorable. `&mut`: the old
    /// bodies are freed, so no handle into `working` may be alive.
    pub fn restore(
        &self,
        working: &mut Module<'c>,
        names: &[&str],
        replaced: &[(&str, &str)],
    ) -> Result<()> {
        if let Err(why) = self.restorable(working, names, replaced) {
            return Err(LlvmError::InvalidIr {
                message: format!("the functions cannot be put back as they were: {why}"),
            });
        }
        let fns = self.functions(names).expect("checked by restorable");
        // SAFETY: checked restorable (which set the replacements, of `working`'s functions,
        // alive until the restore below); `&mut working` (no handle alive) and the snapshot
        // is only read.
        unsafe {
            ffi::fm_restore_functions(
                working.raw(),
                self.module.raw(),
                self.pairs,
                fns.as_ptr(),
                fns.len(),
            );
            ffi::fm_type_pairs_set_replaced(self.pairs, std::ptr::null(), std::ptr::null(), 0);
        }
        Ok(())
    }

    /// Hands the shim the replacements (those `working` has), for the next check or restore.
    fn set_replaced(&self, working: &Module<'c>, replaced: &[(&str, &str)]) {
        let (names, fns): (Vec<std::ffi::CString>, Vec<_>) = replaced
            .iter()
            .filter(|(erased, _)| working.function(erased).is_none())
            .filter_map(|&(erased, by)| {
                Some((std::ffi::CString::new(erased).ok()?, working.function(by)?.raw()))
            })
            .unzip();
        let ptrs: Vec<*const std::ffi::c_char> = names.iter().map(|n| n.as_ptr()).collect();
        // SAFETY: the shim copies the names; the functions are live functions of `working`.
        unsafe {
            ffi::fm_type_pairs_set_replaced(self.pairs, ptrs.as_ptr(), fns.as_ptr(), fns.len())
        };
    }

    /// The snapshot's definitions of `names`; `None` if one is missing or a declaration.
    fn functions(&self, names: &[&str]) -> Option<Vec<llvm_sys::prelude::LLVMValueRef>> {
        names
            .iter()
            .map(|n| self.module.function(n).filter(|f| !f.is_declaration()).map(|f| f.raw()))
            .collect()
    }
}

impl Drop for Snapshot<'_> {
    fn drop(&mut self) {
        if !self.pairs.is_null() {
            // SAFETY: owned by this snapshot, freed once.
            unsafe { ffi::fm_type_pairs_free(self.pairs) };
        }
    }
}
