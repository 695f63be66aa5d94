//! The size guard: a merge whose generated code is larger than what it replaced is undone.
//!
//! Every merge is decided before the whole module is compiled: on a TTI estimate when the call
//! is clear, by compiling the candidates in isolation when it is close (within a budget). Both
//! can be wrong for real code generation of the whole module (the estimate is an estimate;
//! a body compiled alone is laid out, aligned and register-allocated differently). When fmerge
//! measures the module before and after anyway (`Measure::Text`), the guard reads every
//! merge's real effect off the two measurements, and [`run`] runs the stages again from the
//! input with the losing merges vetoed ([`Gate::veto`]).
//!
//! **Attribution.** A merge's effect is the size, in the input, of the functions it replaced,
//! minus the size, in the output, of the functions it left (the shared body and the members
//! that remain as thunks). Merges chain: a merged body can itself be merged again, and a
//! survivor of an identical group can become a member of a similar merge. Merges that share a
//! function are therefore judged together, as one *unit* (union-find over the names each merge
//! touches): a unit loses when its functions are larger afterwards, and all of its merges are
//! vetoed. What no function carries (a caller's extra argument where call sites were
//! rewritten, padding between functions) is not attributed; the whole-module comparison in
//! [`run`] catches what that misses.
//!
//! **What is not measured.** The guard compiles the functions with a section each (as lld
//! generates a link's code, and as `-ffunction-sections` builds do), so that a function's
//! size does not depend on what it is compiled with. It then leaves out the units that cannot
//! lose (`unclear`): erased identical copies, merges estimated to save `CLEAR_SAVING`
//! bytes or more, and, where the stages measured their close calls with this same ruler (the
//! plugin in a link, whose code generation puts every function in a section of its own),
//! merges the stages compiled and measured to save `MEASURED_SAVING` bytes or more. (Without
//! sections, leaving them out would regroup the rest, and a tail call to a neighbour
//! assembled as a short jump could move another unit's numbers by a few bytes.) Only when the whole module is measured as well (`fmerge opt --measure`) are the
//! units measured as the module is compiled, every one of them: their sizes are read off the
//! same code generation as the module's.
//!
//! **Data flow.** The guard sees a run of the stages only through [`Merges`] (the functions
//! each committed merge touched) and hands back a [`GuardRecord`]; the report holds that record
//! and is assembled after the guard is done (`crate::pipeline`).

use crate::fold::CallArg;
use crate::measure::Sizes;
use crate::session::Progress;
use crate::undo;
use fmerge_llvm::{LlvmError, Module, Snapshot, Target};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// How many times the size guard may run the stages again without the merges it vetoed.
const GUARD_RERUNS: usize = 2;

/// Module subsets the guard compiles the functions of one module in (each on a thread of its
/// own, up to `--jobs` at once).
const SUBSETS: usize = 4;

/// Which merges may be committed. Merges are numbered 1, 2, ... in the order the stages commit
/// them, which is deterministic (it never depends on threads or timing), so a number names the
/// same merge on every run of the same input with the same options.
#[derive(Clone, Debug, Default)]
pub struct Gate {
    /// Commit only merges 1..=limit (`Options::bisect_limit`).
    pub limit: Option<usize>,
    /// Merges never to commit, each named by the sorted names of the functions it merges (the
    /// size guard vetoes merges that generated code showed to lose bytes).
    pub veto: BTreeSet<Vec<String>>,
}

impl Gate {
    /// The gate of a first run: merges up to `limit`, nothing vetoed.
    pub fn limited(limit: Option<usize>) -> Gate {
        Gate { limit, veto: BTreeSet::new() }
    }

    /// May merge number `seq` (1-based) of `originals` be committed?
    pub fn allows(&self, seq: usize, originals: &[String]) -> bool {
        if self.limit.is_some_and(|l| seq > l) {
            return false;
        }
        self.veto.is_empty() || !self.veto.contains(&merge_key(originals))
    }
}

/// The name of a merge: the sorted names of the functions it merges.
pub fn merge_key(originals: &[String]) -> Vec<String> {
    let mut k = originals.to_vec();
    k.sort();
    k
}

/// A committed merge as the guard sees it: the functions it touched.
#[derive(Clone, Debug)]
pub struct Footprint<'a> {
    /// Its number in commit order.
    pub seq: usize,
    /// The bytes the stage that made it expected it to save.
    pub estimated_saving: i64,
    /// The bytes the stage measured it to save, when it compiled it to decide (a close call).
    pub measured_saving: Option<i64>,
    /// The functions it merged, as they were named before (what names it for a veto).
    pub originals: &'a [String],
    /// The function holding the shared body afterwards, and the members merged into it.
    pub body: &'a str,
    pub members: Vec<&'a str>,
    /// Whether the guard may undo it in place (`crate::undo`): its body is a new function and
    /// each member became a thunk or had its call sites rewritten.
    pub undoable: bool,
    /// The members whose call sites were rewritten, with the arguments the rewritten calls
    /// pass to the body (`None`: not recorded, so they cannot be turned back).
    pub rewritten: Vec<(&'a str, Option<&'a [CallArg]>)>,
    /// The members that are gone, every use of each now a use of the body (identical
    /// functions).
    pub replaced: Vec<&'a str>,
}

/// What the guard reads of a run of the stages.
pub trait Merges {
    /// The merges the run committed, in commit order.
    fn footprints(&self) -> Vec<Footprint<'_>>;
    /// Forgets the merges numbered `seqs`: the guard undid them in place.
    fn forget(&mut self, seqs: &BTreeSet<usize>);
}

/// Merges judged together, and their measured effect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unit {
    /// `seq` of each merge in the unit, in commit order.
    pub merges: Vec<usize>,
    /// The name of each merge (`options::merge_key`), what a veto holds.
    #[serde(skip)]
    pub keys: Vec<Vec<String>>,
    /// Bytes of the unit's functions in the input and in the output.
    pub bytes_before: u64,
    pub bytes_after: u64,
}

impl Unit {
    /// Bytes saved (negative: the unit made the code larger).
    pub fn saving(&self) -> i64 {
        self.bytes_before as i64 - self.bytes_after as i64
    }
}

/// The functions a merge touches: its originals, its body and its members.
fn names<'a>(m: &Footprint<'a>) -> BTreeSet<&'a str> {
    let mut n: BTreeSet<&str> = m.originals.iter().map(String::as_str).collect();
    n.insert(m.body);
    n.extend(m.members.iter().copied());
    n
}

/// Bytes of function `name` in per-symbol sizes (Mach-O symbols carry a leading underscore).
pub fn symbol_size(sizes: &BTreeMap<String, u64>, name: &str) -> Option<u64> {
    sizes.get(name).or_else(|| sizes.get(&format!("_{name}"))).copied()
}

/// Groups `merges` into units and measures each with the per-function sizes of
/// the input (`before`) and of the output (`after`; a function missing there is gone). Units
/// come in the order of their first merge.
pub fn units(
    merges: &[Footprint<'_>],
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
) -> Vec<Unit> {
    let mut parent: HashMap<&str, &str> = HashMap::new();
    fn find<'a>(parent: &mut HashMap<&'a str, &'a str>, x: &'a str) -> &'a str {
        let mut r = x;
        while let Some(&p) = parent.get(r) {
            if p == r {
                break;
            }
            r = p;
        }
        parent.insert(x, r);
        r
    }
    for m in merges {
        let ns: Vec<&str> = names(m).into_iter().collect();
        for &n in &ns {
            parent.entry(n).or_insert(n);
        }
        let root = find(&mut parent, ns[0]);
        for &n in &ns[1..] {
            let r = find(&mut parent, n);
            parent.insert(r, root);
        }
    }
    let mut by_root: BTreeMap<usize, (BTreeSet<&str>, Unit)> = BTreeMap::new();
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    for m in merges {
        let ns = names(m);
        let root = find(&mut parent, ns.iter().next().expect("a merge names its body"));
        let first = *first_of.entry(root).or_insert(m.seq);
        let (all, unit) = by_root.entry(first).or_insert_with(|| {
            (
                BTreeSet::new(),
                Unit { merges: Vec::new(), keys: Vec::new(), bytes_before: 0, bytes_after: 0 },
            )
        });
        all.extend(ns);
        unit.merges.push(m.seq);
        unit.keys.push(merge_key(m.originals));
    }
    by_root
        .into_values()
        .map(|(all, mut unit)| {
            unit.bytes_before = all.iter().filter_map(|n| symbol_size(before, n)).sum();
            unit.bytes_after = all.iter().filter_map(|n| symbol_size(after, n)).sum();
            unit
        })
        .collect()
}

/// The units of `merges` that made the code larger or saved nothing (a merge that saves no
/// bytes still costs time at run time). A unit none of whose functions the input measurement
/// knows is not judged.
pub fn losing_units(
    merges: &[Footprint<'_>],
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
) -> Vec<Unit> {
    units(merges, before, after)
        .into_iter()
        .filter(|u| u.bytes_before > 0 && u.saving() <= 0)
        .collect()
}

/// What the guard did, for the report.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GuardRecord {
    /// How many times the stages ran again with losing merges vetoed.
    pub reruns: usize,
    /// Losing units undone in place (their functions put back as they were in the input),
    /// without running the stages again.
    pub undone_in_place: usize,
    /// Merges that did not lose, undone in place with a losing unit: a merged body of theirs
    /// called the losing unit's body in a way only undoing both could take back.
    pub undone_along: usize,
    /// The units vetoed, with what they had measured.
    pub vetoed: Vec<VetoedUnit>,
    /// Units not measured: they could not lose (see `unclear`), and the sizes of the others
    /// did not depend on them (every function in a section of its own).
    #[serde(skip_serializing_if = "is_zero")]
    pub unmeasured: usize,
    /// Units that still lost bytes in the output written (the guard ran out of re-runs).
    pub losing_in_output: usize,
    /// The output would have been larger than the input even so: the input was written
    /// unchanged.
    pub kept_input: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A vetoed unit: the functions of its merges and the bytes they measured.
#[derive(Clone, Debug, Serialize)]
pub struct VetoedUnit {
    pub originals: Vec<Vec<String>>,
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// What merging under the guard left.
pub struct Guarded<R> {
    /// The last run of the stages: the one whose module is written (unless `kept_input`).
    pub ran: R,
    pub record: GuardRecord,
    /// `.text` bytes of the input and of the module written, when the whole module was
    /// measured.
    pub text_bytes: Option<(u64, u64)>,
}

/// A run of the stages to go on from, and the functions to look for partners for again.
pub struct Resume<R> {
    pub ran: R,
    pub functions: HashSet<String>,
}

/// Runs the stages (`stages`, on `module` with a gate) under the size guard: measures the
/// functions the merges touched, in the input and in the output, and takes back the losing
/// merges. In place when it can (`crate::undo`); then the functions of the undone merges get
/// one second chance to find other partners (`stages` with a [`Resume`]), and what that merges
/// is judged the same way. When a loss cannot be undone in place, the stages run again from
/// the input with the losing merges vetoed, at most `GUARD_RERUNS` times. `whole`: also
/// generate code for the whole module before and after, and put the input back if the
/// output is larger. `limit` is the bisect limit of every run's gate. The module returned
/// verifies if `whole`; otherwise the caller verifies it ([`verify_merged`]).
pub fn run<'c, R: Merges>(
    module: &mut Module<'c>,
    target: &Target,
    whole: bool,
    limit: Option<usize>,
    jobs: usize,
    progress: &dyn Progress,
    mut stages: impl FnMut(&mut Module<'c>, &Gate, Option<Resume<R>>) -> Result<R, LlvmError>,
) -> Result<Guarded<R>, LlvmError> {
    let before = if whole {
        progress.step("measuring the input");
        Some(target.measure(module)?)
    } else {
        None
    };
    // The input as it was: what losing merges are undone back to. Kept as bitcode while the
    // stages run (their peak is the run's), read back when they are done.
    progress.step("keeping a copy of the input");
    let deferred = Snapshot::defer(module)?;
    let mut gate = Gate::limited(limit);
    let mut record = GuardRecord::default();
    let mut input_sizes = InputSizes::default();
    let mut ran = stages(module, &gate, None)?;
    progress.step("reading back the copy of the input");
    let mut snapshot = deferred.read(module)?;
    // What units are measured with: a section per function, unless the whole module's
    // numbers are the reference.
    let sectioned;
    let measuring = if before.is_none() && !target.function_sections() {
        sectioned = target.with_function_sections()?;
        &sectioned
    } else {
        target
    };
    // Merges numbered up to this were judged already (they won).
    let mut judged = 0;
    let mut second_chance = true;
    loop {
        let merges = ran.footprints();
        // Only the functions merges touched differ from the input: measuring them (in a
        // module subset) tells each merge's effect at a fraction of the whole module's cost.
        // Units of merges judged before are not measured again.
        let mut fresh = fresh_units(&merges, judged);
        if measuring.function_sections() {
            // Sizes do not depend on what is compiled together: leaving units out of the
            // measurement changes no other unit's numbers.
            let clear;
            (fresh, clear) = unclear(fresh, target.function_sections());
            record.unmeasured += clear;
            if fresh.is_empty() {
                break;
            }
        }
        progress.step("measuring the merged functions");
        let names: BTreeSet<&str> = fresh
            .iter()
            .flat_map(|m| std::iter::once(m.body).chain(m.members.iter().copied()))
            .collect();
        // The input never changes: each of its functions is compiled once. Its functions and
        // the output's are compiled together, to keep every thread busy.
        let (after, input) = match &before {
            Some(_) => (sizes_of(module, target, &names, jobs)?, BTreeMap::new()),
            None => input_sizes.sizes_with(&snapshot, module, measuring, &names, jobs)?,
        };
        // Measuring freed the subsets and what the measuring threads allocated.
        fmerge_llvm::memory::release_freed_memory(module.embedding());
        let originals = before.as_ref().map_or(&input, |b| &b.functions);
        let losers = losing_units(&fresh, originals, &after);
        if std::env::var_os("FMERGE_DEBUG_GUARD").is_some() {
            // What calibrates CLEAR_SAVING: each measured unit's estimate and measurement.
            for u in units(&fresh, originals, &after) {
                let of_unit = || fresh.iter().filter(|m| u.merges.contains(&m.seq));
                let estimated: i64 = of_unit().map(|m| m.estimated_saving).sum();
                let ms: Vec<Option<i64>> = of_unit().map(|m| m.measured_saving).collect();
                eprintln!(
                    "guard: unit of {} merge(s): estimated saving {estimated}, stage measured {ms:?}, measured {} -> {}",
                    u.merges.len(),
                    u.bytes_before,
                    u.bytes_after
                );
            }
        }
        if losers.is_empty() {
            break;
        }
        progress.step("undoing the merges that measured larger");
        if let Some(undone) = undo::undo_in_place(module, &snapshot, &merges, &losers)? {
            record.undone_in_place += losers.len();
            record.undone_along += undone.along;
            veto(&mut record, &mut gate, losers);
            judged = merges.iter().map(|m| m.seq).max().unwrap_or(0);
            drop(merges);
            ran.forget(&undone.merges);
            if !std::mem::take(&mut second_chance) || undone.freed.is_empty() {
                break;
            }
            ran = stages(module, &gate, Some(Resume { ran, functions: undone.freed }))?;
            continue;
        }
        if record.reruns == GUARD_RERUNS {
            record.losing_in_output = losers.len();
            break;
        }
        record.reruns += 1;
        veto(&mut record, &mut gate, losers);
        drop(merges);
        progress.step("merging again without the merges that measured larger");
        *module = snapshot.working_copy()?;
        ran = stages(module, &gate, None)?;
        judged = 0;
    }
    // What was measured so far did not need the whole module verified: each module subset
    // compiled is verified on its own (`crate::measure`). Without the whole-module check the
    // caller verifies it, once, when nothing changes it any more.
    let Some(before) = before else {
        return Ok(Guarded { ran, record, text_bytes: None });
    };
    verify_merged(module, progress)?;
    progress.step("measuring the output");
    let mut text_after = target.measure(module)?.text_bytes;
    if text_after > before.text_bytes {
        // Larger in total although no merge (or none left to veto) measured as a loss:
        // callers' extra arguments or layout. The input is the smaller module.
        *module = snapshot.into_module()?;
        record.kept_input = true;
        record.losing_in_output = 0;
        text_after = before.text_bytes;
    }
    Ok(Guarded { ran, record, text_bytes: Some((before.text_bytes, text_after)) })
}

/// Verifies the module the stages and the guard made; a failure is fmerge's bug.
pub fn verify_merged(module: &Module<'_>, progress: &dyn Progress) -> Result<(), LlvmError> {
    progress.step("verifying");
    module.verify().map_err(merged_ir_error)
}

/// An error of verifying the merged module (or of writing it), as it is reported: invalid IR
/// there is fmerge's bug, not the input's.
pub fn merged_ir_error(e: LlvmError) -> LlvmError {
    match e {
        LlvmError::InvalidIr { message } => LlvmError::InvalidIr {
            message: format!("fmerge produced invalid IR (a bug: please report it): {message}"),
        },
        other => other,
    }
}

/// Estimated saving (bytes) from which the guard takes a unit's merges on the stages' word
/// instead of compiling them, when sizes do not depend on grouping. On the seven C and C++
/// corpus programs' full-LTO modules, no unit estimated to save 64 bytes or more measured a
/// loss, and those of 256 or more measured at least 0.64 of their estimate (41 units); on
/// zstd they hold 96% of the bytes the guard compiled. On the nine corpus whole-program
/// modules (`fmerge opt`, C, C++ and Rust), none of the 172 units estimated at 256 or more
/// lost (the least saved 2% of its estimate; three estimated at 128-255 lost), and they hold
/// 41-91% of the bytes the guard compiled on tokei, fd and zstd.
const CLEAR_SAVING: i64 = 256;

/// Bytes from which the guard takes a unit on the stages' own measurement, when they measured
/// with its ruler (see [`unclear`]). What can still move a body's size after the stage
/// compiled it is a call in it that a later merge rewrote to pass one more argument. On the
/// nine corpus whole-program modules the guard measured 107 units whose every merge the
/// similar or constants stage had compiled (without sections, against the guard's sections):
/// none lost, and the two measurements differed by -44 to +54 bytes (median 0).
const MEASURED_SAVING: i64 = 16;

/// `merges` without the units (see [`units`]) that cannot lose: those whose merges only
/// erased identical copies (what is left is one of the copies), those whose merges the
/// stages estimated to save at least [`CLEAR_SAVING`] bytes together, and, when the stages
/// measured with the guard's own ruler (`same_ruler`: every function in a section of its
/// own, as the plugin measures in a link), those whose every merge the stages compiled and
/// measured to save bytes, together at least [`MEASURED_SAVING`]: the guard would compile the
/// same functions again with the same code generation. Units are closed over the functions
/// they touch, so the result groups into the same units as the rest. Also returns how many
/// units were left out.
fn unclear<'a>(merges: Vec<Footprint<'a>>, same_ruler: bool) -> (Vec<Footprint<'a>>, usize) {
    let none = BTreeMap::new();
    let (keep, clear): (Vec<Unit>, Vec<Unit>) =
        units(&merges, &none, &none).into_iter().partition(|u| {
            let ms = || merges.iter().filter(|m| u.merges.contains(&m.seq));
            let copies = ms().all(|m| m.members.len() == m.replaced.len());
            let estimated: i64 = ms().map(|m| m.estimated_saving).sum();
            let measured: Option<i64> = ms().map(|m| m.measured_saving).sum();
            let trusted = same_ruler && measured.is_some_and(|s| s >= MEASURED_SAVING);
            !copies && estimated < CLEAR_SAVING && !trusted
        });
    let keep: BTreeSet<usize> = keep.into_iter().flat_map(|u| u.merges).collect();
    (merges.into_iter().filter(|m| keep.contains(&m.seq)).collect(), clear.len())
}

/// The merges of the units (see [`units`]) that hold a merge numbered above `judged`: what is
/// new since the guard last judged. Units are closed over the functions they touch, so the
/// result groups into the same units.
fn fresh_units<'a>(merges: &[Footprint<'a>], judged: usize) -> Vec<Footprint<'a>> {
    if judged == 0 {
        return merges.to_vec();
    }
    let none = BTreeMap::new();
    let fresh: BTreeSet<usize> = units(merges, &none, &none)
        .into_iter()
        .filter(|u| u.merges.iter().any(|&s| s > judged))
        .flat_map(|u| u.merges)
        .collect();
    merges.iter().filter(|m| fresh.contains(&m.seq)).cloned().collect()
}

/// Records the losing units as vetoed, and vetoes their merges in later runs.
fn veto(record: &mut GuardRecord, gate: &mut Gate, losers: Vec<Unit>) {
    for u in losers {
        gate.veto.extend(u.keys.iter().cloned());
        record.vetoed.push(VetoedUnit {
            originals: u.keys,
            bytes_before: u.bytes_before,
            bytes_after: u.bytes_after,
        });
    }
}

/// Bytes by symbol.
type SymbolSizes = BTreeMap<String, u64>;

/// The symbol and bytes of each function compiled so far, by name (`None`: no symbol came
/// out, e.g. a function code generation dropped).
type Known = HashMap<String, Option<(String, u64)>>;

/// Sizes of the input's functions, each compiled once however often the guard measures (the
/// input never changes).
#[derive(Default)]
struct InputSizes {
    known: Known,
}

impl InputSizes {
    /// Machine-code bytes by symbol of the functions `names` in `output` (compiled now) and
    /// in `input` (those not compiled before), all compiled in one batch.
    fn sizes_with<'c>(
        &mut self,
        input: &Snapshot<'c>,
        output: &Module<'c>,
        target: &Target,
        names: &BTreeSet<&str>,
        jobs: usize,
    ) -> Result<(SymbolSizes, SymbolSizes), LlvmError> {
        // Bodies not read yet count no instructions, and the subsets are balanced by
        // instruction count.
        let unread: Vec<&str> =
            names.iter().copied().filter(|n| !self.known.contains_key(*n)).collect();
        input.materialize(&unread)?;
        let mut fresh = HashMap::new();
        // The input's functions first: they are the larger (merging made the output's
        // smaller), and compiling the largest first keeps every thread busy to the end.
        let mut both = [(input.module(), &mut self.known), (output, &mut fresh)];
        let mut sizes = measure_functions(&mut both, target, names, jobs)?.into_iter();
        let input = sizes.next().expect("input");
        Ok((sizes.next().expect("output"), input))
    }
}

/// Machine-code bytes of the functions of `module` named in `names` (those it defines), by
/// symbol.
fn sizes_of(
    module: &Module<'_>,
    target: &Target,
    names: &BTreeSet<&str>,
    jobs: usize,
) -> Result<BTreeMap<String, u64>, LlvmError> {
    let mut known = HashMap::new();
    let sizes = measure_functions(&mut [(module, &mut known)], target, names, jobs)?;
    Ok(sizes.into_iter().next().expect("one module"))
}

/// For each (module, known sizes): machine-code bytes by symbol of the functions of the
/// module named in `names` (those it defines). Those not known yet are compiled, in module
/// subsets of about equal size, all of them on up to `jobs` threads at once, and added to
/// what is known.
fn measure_functions(
    modules: &mut [(&Module<'_>, &mut Known)],
    target: &Target,
    names: &BTreeSet<&str>,
    jobs: usize,
) -> Result<Vec<SymbolSizes>, LlvmError> {
    // Code generation is per function: the split into subsets changes no size.
    let mut groups_of = Vec::new();
    for (module, known) in modules.iter() {
        let missing: Vec<_> = names
            .iter()
            .filter(|n| !known.contains_key(**n))
            .filter_map(|n| module.function(n))
            .filter(|f| !f.is_declaration())
            .collect();
        // A fixed number of subsets, whatever `jobs`: which functions share a subset can
        // change a size by a few bytes, and the output must not depend on the thread count.
        groups_of.push(crate::measure::balanced_groups(&missing, SUBSETS));
    }
    let refs: Vec<Vec<&[_]>> =
        groups_of.iter().map(|gs| gs.iter().map(Vec::as_slice).collect()).collect();
    // Subsets are made (on this thread) while those made before are compiled.
    let bitcode = modules
        .iter()
        .zip(&refs)
        .flat_map(|((module, _), groups)| crate::measure::subsets_as_bitcode(module, groups));
    let mut measured = Sizes::of_bitcode(target, bitcode, jobs).into_iter();
    let mut out = Vec::new();
    for ((module, known), groups) in modules.iter_mut().zip(&groups_of) {
        for group in groups {
            let sizes = measured.next().expect("one result per subset")?;
            for name in group.iter().map(|f| f.name()) {
                // Mach-O symbols carry a leading underscore.
                let symbol = [name.clone(), format!("_{name}")]
                    .into_iter()
                    .find_map(|s| sizes.by_symbol().get(&s).map(|&b| (s, b)));
                known.insert(name, symbol);
            }
        }
        out.push(
            names
                .iter()
                .filter(|n| module.function(n).is_some_and(|f| !f.is_declaration()))
                .filter_map(|n| known.get(*n).cloned().flatten())
                .collect(),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn merge<'a>(
        seq: usize,
        originals: &'a [String],
        body: &'a str,
        members: &[&'a str],
    ) -> Footprint<'a> {
        Footprint {
            seq,
            estimated_saving: 0,
            measured_saving: None,
            originals,
            body,
            members: members.to_vec(),
            undoable: true,
            rewritten: Vec::new(),
            replaced: Vec::new(),
        }
    }

    fn sizes(v: &[(&str, u64)]) -> BTreeMap<String, u64> {
        v.iter().map(|(n, b)| (n.to_string(), *b)).collect()
    }

    #[test]
    fn the_gate_admits_up_to_its_limit_and_never_a_vetoed_merge() {
        let open = Gate::default();
        assert!(open.allows(1_000_000, &names(&["f", "g"])));
        let limited = Gate::limited(Some(2));
        assert!(limited.allows(2, &names(&["f", "g"])));
        assert!(!limited.allows(3, &names(&["f", "g"])));
        let zero = Gate::limited(Some(0));
        assert!(!zero.allows(1, &names(&["f"])));
        let mut vetoed = Gate::default();
        vetoed.veto.insert(merge_key(&names(&["g", "f"])));
        assert!(!vetoed.allows(1, &names(&["f", "g"])));
        assert!(vetoed.allows(1, &names(&["f", "h"])));
    }

    #[test]
    fn chained_merges_are_judged_together_and_a_loss_is_found() {
        let (ab, cd, ae) = (names(&["a", "b"]), names(&["c", "d"]), names(&["a.fmerged", "e"]));
        let merges = vec![
            merge(1, &ab, "a.fmerged", &["a", "b"]),
            merge(2, &cd, "c.fmerged", &["c", "d"]),
            // The body of merge 1 merges again with e: one unit with merge 1.
            merge(3, &ae, "a.fmerged.fmerged", &["a.fmerged", "e"]),
        ];
        let before = sizes(&[("a", 100), ("b", 90), ("c", 40), ("d", 40), ("e", 80), ("x", 7)]);
        let after = sizes(&[
            ("a", 5),
            ("b", 5),
            ("a.fmerged", 5),
            ("e", 5),
            ("a.fmerged.fmerged", 150),
            ("c.fmerged", 75),
            ("d", 6),
            ("x", 7),
        ]);
        let us = units(&merges, &before, &after);
        assert_eq!(us.len(), 2);
        assert_eq!(us[0].merges, vec![1, 3]);
        assert_eq!((us[0].bytes_before, us[0].bytes_after), (270, 170));
        assert_eq!(us[1].merges, vec![2]);
        assert_eq!((us[1].bytes_before, us[1].bytes_after), (80, 81));
        let losers = losing_units(&merges, &before, &after);
        assert_eq!(losers.len(), 1);
        assert_eq!(losers[0].keys, vec![vec!["c".to_string(), "d".to_string()]]);
    }

    #[test]
    fn units_that_cannot_lose_are_not_measured_and_a_chain_is_judged_whole() {
        let (ab, cd, ef, eg) =
            (names(&["a", "b"]), names(&["c", "d"]), names(&["e", "f"]), names(&["e.m", "g"]));
        let copies = Footprint { replaced: vec!["b"], ..merge(1, &ab, "a", &["b"]) };
        let small = Footprint { estimated_saving: 40, ..merge(2, &cd, "c.m", &["c", "d"]) };
        // Merge 3 alone is clear, but it shares a unit with merge 4, which is not: together
        // they are estimated to save CLEAR_SAVING - 1 bytes, and are measured.
        let big =
            Footprint { estimated_saving: CLEAR_SAVING + 9, ..merge(3, &ef, "e.m", &["e", "f"]) };
        let chained = Footprint { estimated_saving: -10, ..merge(4, &eg, "e.m.m", &["e.m", "g"]) };
        let (kept, clear) =
            unclear(vec![copies.clone(), small.clone(), big.clone(), chained], false);
        assert_eq!(kept.iter().map(|m| m.seq).collect::<Vec<_>>(), vec![2, 3, 4]);
        assert_eq!(clear, 1);
        let (kept, clear) = unclear(vec![copies, small, big], false);
        assert_eq!(kept.iter().map(|m| m.seq).collect::<Vec<_>>(), vec![2]);
        assert_eq!(clear, 2);
    }

    #[test]
    fn units_the_stages_measured_with_the_guards_ruler_are_not_measured_again() {
        let (ab, cd, ef, eg) =
            (names(&["a", "b"]), names(&["c", "d"]), names(&["e", "f"]), names(&["e.m", "g"]));
        let measured = |seq, originals, body, members: &[&'static str], saving| Footprint {
            measured_saving: Some(saving),
            ..merge(seq, originals, body, members)
        };
        let won = measured(1, &ab, "a.m", &["a", "b"], MEASURED_SAVING);
        let barely = measured(2, &cd, "c.m", &["c", "d"], MEASURED_SAVING - 1);
        // A measured merge chained with an estimated one: the chain is judged whole.
        let first = measured(3, &ef, "e.m", &["e", "f"], 400);
        let estimated = merge(4, &eg, "e.m.m", &["e.m", "g"]);
        let all = vec![won, barely, first, estimated];
        let (kept, clear) = unclear(all.clone(), true);
        assert_eq!(kept.iter().map(|m| m.seq).collect::<Vec<_>>(), vec![2, 3, 4]);
        assert_eq!(clear, 1);
        // Measured with another ruler (no sections in the stage), every unit is measured.
        let (kept, clear) = unclear(all, false);
        assert_eq!(kept.len(), 4);
        assert_eq!(clear, 0);
    }

    #[test]
    fn no_merges_no_units() {
        assert!(units(&[], &BTreeMap::new(), &BTreeMap::new()).is_empty());
    }
}
