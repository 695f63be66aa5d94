//! Measuring the input's copies of merged functions while the stages are still merging.
//!
//! The size guard (`crate::guard`) judges every merge by the size of the functions it replaced,
//! compiled from the input, against what it left. Which input functions it will need is known
//! as soon as a stage commits a merge (its originals), and the stages run on one core for most
//! of their time. So each committed merge's originals are read from the input's snapshot, put
//! into module subsets of about [`SUBSET_INSTRUCTIONS`] instructions, in commit order, and
//! compiled on a thread of their own ([`fmerge_llvm::target::Background`]) while the stages go
//! on; the guard collects the sizes when it measures and compiles only what is left.
//!
//! Results never depend on timing or on `--jobs`: the subsets are made from the commit order
//! alone (which is deterministic), and with one job they are compiled when the guard collects
//! them, on its own thread. A subset that cannot be made or compiled is forgotten: the guard
//! then measures its functions itself.

use crate::guard::Known;
use fmerge_llvm::target::Background;
use fmerge_llvm::{Snapshot, Target};
use std::collections::HashSet;

/// Instructions per prefetched subset: large enough that making a subset (on the stages'
/// thread) costs little beside compiling it, small enough to keep the measuring thread busy
/// while the stages go on.
const SUBSET_INSTRUCTIONS: usize = 3000;

pub struct Prefetch {
    /// `None`: nothing is prefetched (the guard measures the whole input instead).
    background: Option<Background>,
    /// Input functions waiting for the next subset, and their instructions.
    queue: Vec<String>,
    queued: usize,
    /// Input functions queued, submitted or collected already.
    seen: HashSet<String>,
    /// The functions of each submitted subset, in order.
    submitted: Vec<Vec<String>>,
}

impl Prefetch {
    /// A prefetch on its own thread if `jobs` > 1; `on` false: a prefetch that does nothing.
    pub fn new(target: &Target, jobs: usize, on: bool) -> Prefetch {
        Prefetch {
            background: on.then(|| Background::new(target, jobs > 1)),
            queue: Vec::new(),
            queued: 0,
            seen: HashSet::new(),
            submitted: Vec::new(),
        }
    }

    /// A merge of `originals` was committed: queues the input's copies of those the input
    /// defines.
    pub fn committed(&mut self, input: &Snapshot<'_>, originals: &[String]) {
        if self.background.is_none() {
            return;
        }
        let fresh: Vec<&str> = originals
            .iter()
            .filter(|n| !self.seen.contains(n.as_str()))
            .filter(|n| input.module().function(n).is_some_and(|f| !f.is_declaration()))
            .map(String::as_str)
            .collect();
        if fresh.is_empty() {
            return;
        }
        if input.materialize(&fresh).is_err() {
            // The guard reads them again (and reports the error) when it measures.
            return;
        }
        for name in fresh {
            let f = input.module().function(name).expect("defined");
            self.queued += f.instruction_count();
            self.seen.insert(name.to_string());
            self.queue.push(name.to_string());
        }
        if self.queued >= SUBSET_INSTRUCTIONS {
            self.submit(input);
        }
    }

    /// Sends the queued functions to be compiled, as one subset.
    fn submit(&mut self, input: &Snapshot<'_>) {
        let Some(background) = &mut self.background else { return };
        let names = std::mem::take(&mut self.queue);
        self.queued = 0;
        if names.is_empty() {
            return;
        }
        let fns: Vec<_> = names.iter().filter_map(|n| input.module().function(n)).collect();
        let groups = [fns.as_slice()];
        match crate::measure::subsets_as_bitcode(input.module(), &groups).next() {
            Some(Ok(bitcode)) => {
                background.submit(bitcode);
                self.submitted.push(names);
            }
            // Not measurable here: the guard measures them itself.
            _ => {
                for n in &names {
                    self.seen.remove(n);
                }
            }
        }
    }

    /// Waits for everything prefetched so far and adds the sizes to `known` (by input
    /// function: its symbol and bytes, `None` if code generation left no symbol).
    pub fn collect_into(&mut self, input: &Snapshot<'_>, known: &mut Known) {
        self.submit(input);
        let Some(background) = &mut self.background else { return };
        let submitted = std::mem::take(&mut self.submitted);
        let results = background.collect();
        if results.len() != submitted.len() {
            // The measuring thread stopped: trust nothing it did.
            return;
        }
        for (names, result) in submitted.into_iter().zip(results) {
            let Ok(sizes) = result else { continue };
            for name in names {
                known.insert(name.clone(), crate::guard::symbol_of(&sizes.functions, &name));
            }
        }
    }
}
