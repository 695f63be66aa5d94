//! Edge profiling in LLVM IR (seed 001; `shim/profiling/`): what fmerge must know of a
//! function's control flow to place probes, the counter increments at the chosen sites, the
//! runtime that writes the counters, and profile counts put back into a module as `!prof`
//! metadata.
//!
//! The placement itself (which edges get a counter) is LLVM-free:
//! `fmerge_core::profiling::probes`. This module only reads and writes IR.

use crate::ffi;
use crate::ir::{Block, Function, GlobalVar};
use crate::module::Module;
use std::collections::HashMap;

/// What a block is, for probe placement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockFacts(u32);

impl BlockFacts {
    /// Leaves the function (ret, resume, unreachable).
    pub fn is_exit(self) -> bool {
        self.0 & 1 != 0
    }
    /// Holds a call that may not come back: a call that never returns, may unwind through a
    /// plain call, or (unless calls are assumed to return) may reach `exit()` or `longjmp`:
    /// an indirect call, a call of an unknown external function or of a library function
    /// that can (exit, longjmp, qsort's callback, ...), or of a function of the module that
    /// makes such a call.
    pub fn is_abnormal_exit(self) -> bool {
        self.0 & 2 != 0
    }
    /// The terminator is a call (invoke, callbr): a counter just before it would run before
    /// the call.
    pub fn call_terminator(self) -> bool {
        self.0 & 4 != 0
    }
    /// Edges leaving the block cannot be split (indirectbr, callbr).
    pub fn unsplittable_out(self) -> bool {
        self.0 & 8 != 0
    }
    /// An exception-handling pad other than a landing pad (funclets): edges into it cannot be
    /// split. (An edge into a landing pad is split by giving it a landing pad of its own.)
    pub fn eh_pad(self) -> bool {
        self.0 & 16 != 0
    }
    /// Funclet-based exception handling (Windows): not instrumented.
    pub fn unsupported(self) -> bool {
        self.0 & 32 != 0
    }
    /// Calls a function that returns twice (setjmp): control can come back into the middle
    /// of the block, which edge counters cannot see.
    pub fn returns_twice(self) -> bool {
        self.0 & 64 != 0
    }
}

/// Which calls of a module may not come back to their caller (see
/// [`BlockFacts::is_abnormal_exit`]): computed once per module, over all its functions.
pub struct ComebackAnalysis<'m> {
    raw: std::ptr::NonNull<std::ffi::c_void>,
    _m: std::marker::PhantomData<&'m ()>,
}

impl<'c> Module<'c> {
    /// The analysis of this module's calls; `assume_calls_return`: only calls that may unwind
    /// or never return may not come back. Valid while the module's calls stay as they are.
    pub fn comeback_analysis(&self, assume_calls_return: bool) -> ComebackAnalysis<'_> {
        // SAFETY: a live module; the shim allocates an analysis object that only reads it.
        let raw =
            unsafe { ffi::fm_comeback_analysis_new(self.raw(), i32::from(assume_calls_return)) };
        ComebackAnalysis {
            raw: std::ptr::NonNull::new(raw).expect("analysis allocated"),
            _m: std::marker::PhantomData,
        }
    }
}

impl Drop for ComebackAnalysis<'_> {
    fn drop(&mut self) {
        // SAFETY: allocated by fm_comeback_analysis_new, freed once.
        unsafe { ffi::fm_comeback_analysis_free(self.raw.as_ptr()) }
    }
}

/// A function's control flow as probe placement sees it: blocks in layout order, one edge per
/// successor slot (a switch with two cases to one block has two edges), in block order.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlFlow {
    pub blocks: usize,
    /// `(from, to)`, blocks by index, in block order then successor-slot order.
    pub edges: Vec<(u32, u32)>,
    /// Static estimate of each edge's frequency (LLVM's block frequency × branch
    /// probability; from the function's own profile if it has one).
    pub weights: Vec<f64>,
    pub facts: Vec<BlockFacts>,
}

/// Where a counter goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterSite {
    /// Just before the block's terminator.
    BeforeTerminator(u32),
    /// At the block's first insertion point (after phis and landing pads).
    BlockStart(u32),
    /// On edge `(block, successor slot)`, in a new block that splits it.
    SplitEdge(u32, u32),
}

use fmerge_core::profiling::files::{RAW_END_WORD, RAW_HEADER_WORDS, RAW_MAGIC};

impl<'m> Function<'m> {
    /// The number of blocks and the edges, one per successor slot (blocks by index, in block
    /// order then slot order): the control flow without analyses.
    pub fn cfg_edges(self) -> (usize, Vec<(u32, u32)>) {
        assert!(self.is_function() && !self.is_declaration());
        let blocks = self.blocks();
        let index: HashMap<Block<'m>, u32> =
            blocks.iter().enumerate().map(|(i, &b)| (b, i as u32)).collect();
        let mut edges = Vec::new();
        for (i, b) in blocks.iter().enumerate() {
            for s in b.terminator().map(|t| t.successors()).unwrap_or_default() {
                edges.push((i as u32, index[&s]));
            }
        }
        (blocks.len(), edges)
    }

    /// The function's control flow with static weights; `calls` is the analysis of the
    /// function's module.
    pub fn control_flow(self, calls: &ComebackAnalysis<'_>) -> ControlFlow {
        let (blocks, edges) = self.cfg_edges();
        let mut weights = vec![0.0; edges.len()];
        // SAFETY: a live function definition (checked); the shim builds its own analyses and
        // writes at most `weights.len()` values.
        let n = unsafe { ffi::fm_edge_weights(self.raw(), weights.as_mut_ptr(), weights.len()) };
        assert_eq!(n, edges.len(), "successor slots counted twice differently");
        let mut facts = vec![0u32; blocks];
        // SAFETY: as above, with a live analysis of the same module (both borrow it); at most
        // `facts.len()` values written.
        unsafe {
            ffi::fm_block_facts(self.raw(), calls.raw.as_ptr(), facts.as_mut_ptr(), facts.len())
        };
        ControlFlow { blocks, edges, weights, facts: facts.into_iter().map(BlockFacts).collect() }
    }

    /// Puts a counter update at each site: site `i` adds `updates[i].1` (wrapping) to word
    /// `updates[i].0` of the module's profile data ([`ProfileData::counter_word`] or
    /// a header word). Sites refer to blocks and successor slots as
    /// [`Function::control_flow`] numbered them before this call. A `SplitEdge` site must name an
    /// edge that can be split (not into a funclet pad, not out of indirectbr/callbr) whose
    /// source has several successors and whose target has several predecessors; an edge into a
    /// landing pad gets a landing pad of its own. Otherwise this returns an error and the
    /// function may be partly instrumented.
    pub fn instrument_counters(
        self,
        sites: &[CounterSite],
        updates: &[(u64, i64)],
        data: ProfileData<'m>,
        atomic: bool,
    ) -> Result<(), String> {
        assert!(self.is_function() && !self.is_declaration());
        assert_eq!(sites.len(), updates.len());
        let nblocks = self.blocks().len() as u32;
        let mut raw = Vec::with_capacity(sites.len() * 3);
        for s in sites {
            let (k, b, slot) = match *s {
                CounterSite::BeforeTerminator(b) => (0, b, 0),
                CounterSite::BlockStart(b) => (1, b, 0),
                CounterSite::SplitEdge(b, slot) => (2, b, slot),
            };
            if b >= nblocks {
                return Err(format!("counter site {s:?} names a block >= {nblocks}"));
            }
            raw.extend([k, b, slot]);
        }
        if let Some(&(w, _)) = updates.iter().find(|u| u.0 >= data.words) {
            return Err(format!(
                "counter word {w} is past the profile data ({} words)",
                data.words
            ));
        }
        let (index, amount): (Vec<u64>, Vec<i64>) = updates.iter().copied().unzip();
        // SAFETY: a live function definition; every block index and data word was checked
        // above (slots are checked against the terminator by the Rust caller that derived them
        // from `control_flow`); `data` is the module's profile data global. The shim only adds
        // blocks and instructions.
        let rc = unsafe {
            ffi::fm_instrument_function(
                self.raw(),
                raw.as_ptr(),
                sites.len(),
                data.global.raw(),
                index.as_ptr(),
                amount.as_ptr(),
                i32::from(atomic),
            )
        };
        if rc == 0 { Ok(()) } else { Err(format!("{}: an edge could not be split", self.name())) }
    }

    /// The opcode names of each block's instructions, counted: `(name, count)` per block in
    /// block order, names sorted (LLVM's names: "add", "load", "call", ...).
    pub fn block_opcodes(self) -> Vec<Vec<(&'static str, u32)>> {
        assert!(self.is_function());
        self.blocks()
            .into_iter()
            .map(|b| {
                let mut counts: std::collections::BTreeMap<&'static str, u32> = Default::default();
                for i in b.instructions() {
                    // SAFETY: a live instruction; LLVM returns a static, NUL-terminated name.
                    let name = unsafe { std::ffi::CStr::from_ptr(ffi::fm_opcode_name(i.raw())) };
                    *counts.entry(name.to_str().unwrap_or("?")).or_insert(0) += 1;
                }
                counts.into_iter().collect()
            })
            .collect()
    }

    /// Gives the function a profile: its entry count and, on each terminator with two or more
    /// successors, branch weights from `edge_counts` (one per successor slot, in
    /// [`Function::control_flow`] order). Replaces any profile it had.
    pub fn set_profile(self, entry: u64, edge_counts: &[u64]) {
        assert!(self.is_function() && !self.is_declaration());
        // SAFETY: a live function definition; the shim reads at most `edge_counts.len()`
        // counts and stops if the function has more successor slots.
        unsafe {
            ffi::fm_set_function_profile(self.raw(), entry, edge_counts.as_ptr(), edge_counts.len())
        }
    }
}

/// Why [`Module::add_profile_runtime`] added nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuntimeError {
    /// Signal handlers for a target whose `struct sigaction` and signal numbers the runtime
    /// does not know.
    SignalAbi,
    /// fmerge was built without a runtime for the module's architecture and data layout.
    NoRuntime,
    /// The runtime could not be linked into the module (LLVM's message).
    Link(String),
}

/// What counter promotion did in one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Promotion {
    /// Loops that keep at least one counter in a register.
    pub loops: u64,
    /// (loop, counter) pairs promoted: a counter promoted in an inner loop and again in the
    /// loop around it counts twice.
    pub counters: u64,
}

/// The module's block of profile data: a header (magic, module id, number of counters, wall
/// time, cost, CPU time) and the counters, `u64` words written as one record at exit.
#[derive(Clone, Copy, Debug)]
pub struct ProfileData<'m> {
    global: GlobalVar<'m>,
    words: u64,
}

impl ProfileData<'_> {
    /// Header words before the counters.
    pub const HEADER_WORDS: u64 = RAW_HEADER_WORDS as u64;
    /// The word of counter `i`.
    pub fn counter_word(i: u64) -> u64 {
        Self::HEADER_WORDS + i
    }
}

impl<'c> Module<'c> {
    /// Adds the profile data global (`__fmerge_prof_data`, internal) with `counters` zeroed
    /// counters.
    pub fn add_profile_data(&self, module_id: u64, counters: u64) -> ProfileData<'_> {
        // SAFETY: a live module; the shim adds one global to it.
        let g = unsafe {
            ffi::fm_profile_data_global(
                self.raw(),
                RAW_MAGIC,
                module_id,
                ProfileData::HEADER_WORDS,
                counters,
            )
        };
        ProfileData {
            global: GlobalVar::from_raw(g).expect("profile data global"),
            words: ProfileData::HEADER_WORDS + counters,
        }
    }

    /// The profile data [`Module::add_profile_data`] added, if any.
    pub fn profile_data(&self) -> Option<ProfileData<'_>> {
        let global = self.global("__fmerge_prof_data")?;
        Some(ProfileData { global, words: global.global_value_type().length() })
    }

    /// Counter promotion, after every function's counters were placed
    /// ([`Function::instrument_counters`], non-atomic): in every loop that no call but a harmless
    /// intrinsic (memcpy, lifetime, arithmetic, ...) can leave or look into, each counter
    /// updated more often than the loop is entered (by LLVM's static estimate) is loaded once
    /// before the loop, kept in an SSA value and stored at every exit; innermost loops first,
    /// so a counter ends in the outermost such loop, and only as many counters (hottest first)
    /// as the loop has room for: twice the target's integer registers (LLVM's cost model, for
    /// the module's triple) minus the most integer and pointer values live at one point of the
    /// loop (SSA liveness), minus those of the callers the function will be inlined into (at
    /// -Os), minus the counters already kept through it. Loops get a preheader and dedicated exits
    /// where they lack them (new blocks); loops with more than 10 exits, none, or exits that
    /// cannot be split keep their counters in memory, as do functions that call `setjmp`. The
    /// counts stay exact: the counters are written at exit() or the return from main, and
    /// neither can happen inside such a loop. (A signal handler that leaves such a loop by
    /// `siglongjmp` or calls `exit()` loses the loop's counts in progress, as with LLVM's own
    /// instrumentation; threads sharing non-atomic counters lose more updates.)
    pub fn promote_counters(&mut self) -> Promotion {
        let mut loops = 0u64;
        // Without a target machine for the triple, the shim assumes x86-64's registers.
        let target = crate::Target::new(&self.triple()).ok();
        let tm = target.as_ref().map_or(std::ptr::null_mut(), |t| t.raw());
        // SAFETY: `&mut self`: no handle is alive. The shim erases only the counter loads and
        // stores it replaced (made by `instrument_counters`, never handed to Rust) and adds
        // blocks, loads, stores and phis; it only reads the target machine (alive or null).
        let counters = unsafe { ffi::fm_promote_counters(self.raw(), tm, &mut loops) };
        Promotion { loops, counters }
    }

    /// Adds the profile runtime (`shim/profiling/`), which appends the profile data to
    /// `$FMERGE_PROFILE_FILE` (default `fmerge.profraw`) at exit and, with `on_signals`, when a
    /// signal that ends the process arrives. Errors: `on_signals` for a target whose signal ABI
    /// the runtime does not know (glibc or musl Linux on x86, Arm, AArch64, RISC-V, LoongArch)
    /// and a target fmerge has no runtime for add nothing; a failure of LLVM's linker may leave
    /// the module partly changed (the caller discards it).
    pub fn add_profile_runtime(
        &self,
        data: ProfileData<'_>,
        on_signals: bool,
    ) -> Result<(), RuntimeError> {
        let mut err = std::ptr::null_mut();
        // SAFETY: a live module and its own profile data global; the shim adds the runtime's
        // functions and globals to the module (it may rename a local symbol whose name the
        // runtime needs: handles stay valid) and deletes nothing; `err` gets a malloc'ed
        // message or null.
        let rc = unsafe {
            ffi::fm_profile_runtime(
                self.raw(),
                data.global.raw(),
                RAW_END_WORD as u64,
                i32::from(on_signals),
                &mut err,
            )
        };
        // SAFETY: a message from the shim's strdup, freed once.
        let message = (!err.is_null()).then(|| unsafe { ffi::take_message(err) });
        match rc {
            0 => Ok(()),
            -1 => Err(RuntimeError::SignalAbi),
            -2 => Err(RuntimeError::NoRuntime),
            _ => Err(RuntimeError::Link(message.unwrap_or_default())),
        }
    }

    /// After counters were added: drops every claim of a function defined here (and of its
    /// call sites) that it does not write memory (`memory(...)`, `speculatable`), which
    /// instrumented functions no longer keep; an optimizer trusting them would lose counts.
    pub fn forget_memory_effects(&self) {
        // SAFETY: a live module; the shim only removes attributes.
        unsafe { ffi::fm_forget_memory_effects(self.raw()) }
    }

    /// After counters were added: the program's own memory accesses are marked as never
    /// touching the counters (`!noalias` of a scope the counter accesses carry), so that the
    /// optimizer may keep a counter in a register through a loop without calls.
    pub fn isolate_counters(&self, data: ProfileData<'_>) {
        // SAFETY: a live module and its own profile data global; the shim only sets metadata.
        unsafe { ffi::fm_isolate_counters(self.raw(), data.global.raw()) }
    }

    /// Sets the module's profile summary (what LLVM and fmerge call hot) from every entry
    /// count and block count of a profile.
    pub fn set_profile_summary(&self, entries: &[u64], counts: &[u64]) {
        // SAFETY: a live module; the shim reads exactly the given lengths.
        unsafe {
            ffi::fm_set_profile_summary(
                self.raw(),
                entries.as_ptr(),
                entries.len(),
                counts.as_ptr(),
                counts.len(),
            )
        }
    }
}
