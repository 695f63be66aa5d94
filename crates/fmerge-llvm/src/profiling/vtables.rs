//! C++ virtual tables and virtual calls, as the run-time estimate reads them
//! (`fmerge_core::profiling::estimate::VirtualCalls` is what it does with them; the C++ half
//! is `shim/profiling/vtables.cpp`).
//!
//! A virtual call in the Itanium ABI loads the object's table pointer, then the function at
//! a constant byte offset past it: `%vtable = load ptr, ptr %obj`, `%slot = getelementptr
//! i8, ptr %vtable, i64 C` (none for C = 0), `%fn = load ptr, ptr %slot`, `call %fn(..)`
//! ([`Instruction::virtual_slot`]). The table pointer is an address point of some table
//! (`_ZTV*`, or a construction table `_ZTC*`): [`Module::virtual_tables`] reads each table's
//! function entries and address points, and [`VirtualTables::confine`] says whether a
//! function's address is used only as an entry of them. Whatever these cannot read they
//! leave out (a table) or answer `false`/`None` (a function, a call), which keeps the
//! estimate's wider, type-based set of targets.

use crate::ffi;
use crate::ir::{Function, GlobalVar, Instruction};
use crate::module::Module;
use fmerge_core::ir::opcode;
use llvm_sys::prelude::LLVMValueRef;

/// A virtual table of the module: its function entries and its address points (see
/// `fmerge_core::profiling::estimate::VirtualTable`).
#[derive(Clone, Debug)]
pub struct VirtualTableIr<'m> {
    pub global: GlobalVar<'m>,
    /// (byte offset, function) of each function in the initializer.
    pub entries: Vec<(u64, Function<'m>)>,
    /// Byte offsets at which pointers into the table may point.
    pub address_points: Vec<u64>,
}

/// The module's readable virtual tables ([`Module::virtual_tables`]).
#[derive(Clone, Debug, Default)]
pub struct VirtualTables<'m> {
    pub tables: Vec<VirtualTableIr<'m>>,
    /// The tables' globals, sorted by address (what the shim searches).
    sorted: Vec<LLVMValueRef>,
}

impl Module<'_> {
    /// The C++ virtual tables (globals named `_ZTV*` or `_ZTC*`) this module defines and
    /// whose contents and uses can be read: a definitive initializer of arrays and structs,
    /// used only as pointers at constant offsets (stored, in other constants, compared).
    pub fn virtual_tables(&self) -> VirtualTables<'_> {
        let mut tables = Vec::new();
        for g in self.globals() {
            let name = g.name();
            if !(name.starts_with("_ZTV") || name.starts_with("_ZTC")) {
                continue;
            }
            if let Some((entries, address_points)) = read_table(g) {
                tables.push(VirtualTableIr { global: g, entries, address_points });
            }
        }
        let mut sorted: Vec<LLVMValueRef> = tables.iter().map(|t| t.global.raw()).collect();
        sorted.sort_unstable_by_key(|&p| p as usize);
        VirtualTables { tables, sorted }
    }
}

impl<'m> VirtualTables<'m> {
    /// Whether every use of `f`'s address (every use but as a call's callee) is an entry of
    /// one of these tables' initializers: then only a load from one of their slots can
    /// produce it.
    pub fn confine(&self, f: Function<'m>) -> bool {
        // SAFETY: a live function and live globals of the same module (the tables borrow it),
        // sorted by address as the shim requires; the shim only reads use lists.
        unsafe { ffi::fm_vtable_confined(f.raw(), self.sorted.as_ptr(), self.sorted.len()) != 0 }
    }
}

#[allow(clippy::type_complexity)]
fn read_table<'m>(g: GlobalVar<'m>) -> Option<(Vec<(u64, Function<'m>)>, Vec<u64>)> {
    let (mut cap, mut point_cap) = (16usize, 4usize);
    loop {
        let mut offsets = vec![0u64; cap];
        let mut fns: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); cap];
        let mut points = vec![0u64; point_cap];
        let (mut n, mut np) = (0usize, 0usize);
        // SAFETY: a live global variable of a module borrowed for 'm; the shim only reads it
        // and its uses, and writes at most `cap` entries and `point_cap` points.
        let ok = unsafe {
            ffi::fm_vtable_read(
                g.raw(),
                offsets.as_mut_ptr(),
                fns.as_mut_ptr(),
                cap,
                &mut n,
                points.as_mut_ptr(),
                point_cap,
                &mut np,
            )
        };
        if ok == 0 {
            return None;
        }
        if n > cap || np > point_cap {
            cap = cap.max(n);
            point_cap = point_cap.max(np);
            continue;
        }
        let entries = offsets[..n]
            .iter()
            .zip(&fns[..n])
            .map(|(&o, &f)| Function::from_raw(f).map(|f| (o, f)))
            .collect::<Option<Vec<_>>>()?;
        points.truncate(np);
        return Some((entries, points));
    }
}

impl Instruction<'_> {
    /// For a call whose callee is loaded from a constant byte offset past a pointer loaded
    /// from memory (a virtual call: `obj->vptr[slot]`), that offset.
    pub fn virtual_slot(self) -> Option<u64> {
        if !self.is_call_like() {
            return None;
        }
        let load = self.called_value()?.as_instruction()?;
        if load.opcode() != opcode::LOAD {
            return None;
        }
        let slot = load.as_value().operand(0)?.as_instruction()?;
        if slot.opcode() == opcode::LOAD {
            return Some(0);
        }
        if slot.opcode() != opcode::GEP {
            return None;
        }
        let table = slot.as_value().operand(0)?.as_instruction()?;
        if table.opcode() != opcode::LOAD {
            return None;
        }
        let mut offset = 0i64;
        // SAFETY: a live getelementptr instruction; the shim only reads it.
        let ok = unsafe { ffi::fm_gep_constant_offset(slot.raw(), &mut offset) };
        (ok != 0).then_some(offset).and_then(|o| u64::try_from(o).ok())
    }
}
