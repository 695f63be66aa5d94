//! fmerge's own profile files (seed 001): the probe map `fmerge instrument` writes next to the
//! instrumented module, the raw records the instrumented program appends at exit, and the
//! profile file `fmerge profile merge` sums them into and `fmerge opt --profile` reads.
//!
//! **Flow.** `instrument` places probes per function ([`super::probes::place`]) and records,
//! for each function, its control-flow graph, how it is counted and which counters it owns
//! ([`ProbeMap`], JSON). Each run of the program appends one [`RawRecord`] per instrumented
//! module to the raw file: a 56-byte header (magic `FMPRAW03`, module id, number of counters,
//! wall-clock nanoseconds, the run's cost, CPU nanoseconds of the process, how the run ended:
//! 0 for exit, else the signal that ended it) and the counters, all little-endian `u64`.
//! [`read_raw`] steps over records a killed writer left incomplete. [`sum_records`] sums the
//! records of each module, rebuilds every block and edge count with the map
//! ([`super::probes::reconstruct`]) and gives a [`ProfileFile`] (JSON), keyed by function name
//! and a hash of the function's control-flow graph, so that a profile never lands on a
//! function whose code changed.
//!
//! **Cost mode** (`--mode work`): each kept probe's counter stands for some cost
//! ([`FunctionProbes::probe_costs`]), and a run's cost is Σ counter × its cost. The files
//! keep the command line's word: the fields are named `work`.
//!
//! **Schemes.** [`Scheme::Edges`]: Ball–Larus optimal placement, every edge and block count
//! recovered. [`Scheme::Blocks`]: one counter per reachable block, exact block counts; edge
//! counts only where flow conservation determines them. A function uses `Blocks` when asked
//! (`--probes blocks`, the reference the optimal counts are checked against) or when its
//! optimal placement needs a counter on an edge that cannot be split.

use super::costmodel::CostTable;
use super::probes::{self, Cfg, FlowEdge};
use crate::hash::StableHasher;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use thiserror::Error;

/// `format` of a probe map.
pub const MAP_FORMAT: &str = "fmerge-probe-map";
/// `format` of a profile file.
pub const PROFILE_FORMAT: &str = "fmerge-profile";
/// Version of both formats.
pub const VERSION: u32 = 1;
/// First word of every raw record: `FMPRAW03` read as a little-endian `u64`.
pub const RAW_MAGIC: u64 = u64::from_le_bytes(*b"FMPRAW03");
/// Header words of a raw record: magic, module id, counters, wall ns, cost, CPU ns, end.
pub const RAW_HEADER_WORDS: usize = 7;
/// The header word that says how the run ended: 0 for exit() or a return from main, else
/// the number of the signal that ended it.
pub const RAW_END_WORD: usize = 6;

/// How a function is counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    /// Optimal edge probes; `sites` lists them in counter order.
    Edges { sites: Vec<FlowEdge> },
    /// One counter at the start of each listed block.
    Blocks { blocks: Vec<u32> },
}

impl Scheme {
    pub fn counters(&self) -> usize {
        match self {
            Scheme::Edges { sites } => sites.len(),
            Scheme::Blocks { blocks } => blocks.len(),
        }
    }
}

/// One instrumented function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionProbes {
    pub name: String,
    /// [`cfg_hash`] of `cfg`.
    pub cfg_hash: u64,
    pub cfg: Cfg,
    pub scheme: Scheme,
    /// Index of the function's first counter in the module's counter array.
    pub first: u64,
    /// Why the function is counted with `Blocks` although `Edges` was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// Checking mode (`--probes check`): these blocks also carry a counter each, after the
    /// scheme's counters, and [`function_counts`] fails unless the counts the scheme gives
    /// equal them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_blocks: Option<Vec<u32>>,
    /// Each block's instructions: `(index into ProbeMap::opcodes, count)`.
    #[serde(default)]
    pub ops: Vec<Vec<(u32, u32)>>,
    /// Cost mode: the function's counters, one per kept probe: `(index of the site in the
    /// scheme, cost each execution stands for)`. A run's cost is the sum of each counter times
    /// its cost. Probes whose cost is 0, or that relaxation dropped, have no counter.
    #[serde(default, rename = "work", skip_serializing_if = "Option::is_none")]
    pub probe_costs: Option<Vec<(u32, i64)>>,
}

impl FunctionProbes {
    /// All counters of the function: the scheme's and the checking ones (cost mode: one per
    /// kept probe).
    pub fn counters(&self) -> usize {
        if let Some(w) = &self.probe_costs {
            return w.len();
        }
        self.scheme.counters() + self.check_blocks.as_ref().map_or(0, Vec::len)
    }
}

/// What `fmerge instrument` did to one module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeMap {
    pub format: String,
    pub version: u32,
    /// Identifies the module's records in raw files: a hash of everything below.
    pub module_id: u64,
    pub counters: u64,
    /// Increments are atomic (`--atomic`).
    pub atomic: bool,
    /// Calls are assumed to come back (`--assume-calls-return`).
    pub assume_calls_return: bool,
    pub functions: Vec<FunctionProbes>,
    /// Functions left uninstrumented, with the reason.
    pub skipped: Vec<(String, String)>,
    /// Opcode names the functions' `ops` refer to.
    #[serde(default)]
    pub opcodes: Vec<String>,
    /// Cost mode: the costs the functions' `probe_costs` were computed with.
    #[serde(default, rename = "work", skip_serializing_if = "Option::is_none")]
    pub cost_table: Option<CostTable>,
}

/// How a module was instrumented, besides its functions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapOptions {
    pub atomic: bool,
    pub assume_calls_return: bool,
    pub opcodes: Vec<String>,
    /// Cost mode and its costs.
    pub cost_table: Option<CostTable>,
}

/// The structural hash of a control-flow graph: number of blocks and edges.
pub fn cfg_hash(cfg: &Cfg) -> u64 {
    let mut h = StableHasher::with_seed(0x6366_675f_6861_7368);
    h.word(cfg.blocks as u64);
    for &(a, b) in &cfg.edges {
        h.word(u64::from(a) << 32 | u64::from(b));
    }
    h.finish()
}

impl ProbeMap {
    /// A map over `functions`, counters numbered consecutively in that order; sets `first`
    /// and the module id.
    pub fn new(
        mut functions: Vec<FunctionProbes>,
        skipped: Vec<(String, String)>,
        opts: MapOptions,
    ) -> ProbeMap {
        let mut first = 0u64;
        let mut h = StableHasher::with_seed(0x7072_6f62_655f_6d61);
        h.word(u64::from(opts.atomic)).word(u64::from(opts.assume_calls_return));
        if let Some(w) = &opts.cost_table {
            h.word(4).str(&serde_json::to_string(w).expect("a cost table serializes"));
        }
        for f in &mut functions {
            f.first = first;
            first += f.counters() as u64;
            if let Some(w) = &f.probe_costs {
                for &(k, c) in w {
                    h.word(u64::from(k)).word(c as u64);
                }
            }
            h.str(&f.name).word(f.cfg_hash).word(f.first);
            match &f.scheme {
                Scheme::Edges { sites } => {
                    h.word(1).word(sites.len() as u64);
                }
                Scheme::Blocks { blocks } => {
                    h.word(2).words(&blocks.iter().map(|&b| u64::from(b)).collect::<Vec<_>>());
                }
            }
            if let Some(c) = &f.check_blocks {
                h.word(3).words(&c.iter().map(|&b| u64::from(b)).collect::<Vec<_>>());
            }
        }
        ProbeMap {
            format: MAP_FORMAT.into(),
            version: VERSION,
            module_id: h.finish(),
            counters: first,
            atomic: opts.atomic,
            assume_calls_return: opts.assume_calls_return,
            functions,
            skipped,
            opcodes: opts.opcodes,
            cost_table: opts.cost_table,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a probe map serializes")
    }

    pub fn from_json(text: &str) -> Result<ProbeMap, Error> {
        let map: ProbeMap =
            serde_json::from_str(text).map_err(|e| Error::Format(format!("probe map: {e}")))?;
        if map.format != MAP_FORMAT || map.version != VERSION {
            return Err(Error::Format(format!(
                "not a probe map of version {VERSION} (format {:?}, version {})",
                map.format, map.version
            )));
        }
        let mut first = 0u64;
        for f in &map.functions {
            f.cfg.validate().map_err(|e| Error::Format(format!("{}: {e}", f.name)))?;
            if f.ops.iter().flatten().any(|&(o, _)| o as usize >= map.opcodes.len()) {
                return Err(Error::Format(format!("{}: an opcode index is out of range", f.name)));
            }
            if f.first != first || cfg_hash(&f.cfg) != f.cfg_hash {
                return Err(Error::Format(format!("{}: counters or hash do not add up", f.name)));
            }
            if let Scheme::Edges { sites } = &f.scheme
                && probes::place(&f.cfg).sites().collect::<Vec<_>>() != *sites
            {
                return Err(Error::Format(format!(
                    "{}: the probe sites are not the CFG's",
                    f.name
                )));
            }
            let counted = match &f.scheme {
                Scheme::Blocks { blocks } => Some(blocks),
                Scheme::Edges { .. } => None,
            };
            if counted
                .into_iter()
                .chain(&f.check_blocks)
                .flatten()
                .any(|&b| b as usize >= f.cfg.blocks)
            {
                return Err(Error::Format(format!("{}: a counted block is out of range", f.name)));
            }
            if let Some(w) = &f.probe_costs
                && w.iter().any(|&(k, _)| k as usize >= f.scheme.counters())
            {
                return Err(Error::Format(format!("{}: a work term names no probe", f.name)));
            }
            first += f.counters() as u64;
        }
        if first != map.counters {
            return Err(Error::Format("the functions' counters do not add up".into()));
        }
        Ok(map)
    }
}

/// Why a profile file was rejected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    #[error("{0}")]
    Format(String),
    #[error("raw profile: {0}")]
    Raw(String),
}

/// One run of one instrumented module, as the runtime wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawRecord {
    pub module_id: u64,
    pub wall_ns: u64,
    /// The run's cost (cost mode; what the runtime wrote in the header otherwise, 0).
    pub cost: u64,
    pub cpu_ns: u64,
    /// The signal that ended the run (`None`: exit() or a return from main). Such a run
    /// stopped mid-way: the functions on its stack did not finish.
    pub signal: Option<u64>,
    pub counters: Vec<u64>,
}

/// The records of a raw profile file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawFile {
    pub records: Vec<RawRecord>,
    /// Bytes of records left incomplete (a writer killed in the middle of its write, by
    /// SIGKILL or a full disk), stepped over.
    pub damaged_bytes: u64,
}

/// Reads every record of a raw profile file.
///
/// Records are appended by one `write(2)` each, but a write the kernel cut short (the writer
/// killed by SIGKILL mid-write, a full disk) leaves a record incomplete, with the next process's
/// record right after it. A record whose length runs past the end of the file or past the
/// next record's magic is such a piece: it is counted in `damaged_bytes` and reading goes on at
/// the next magic. (No counter reaches the magic's value, 5.8·10¹⁸.)
pub fn read_raw(bytes: &[u8]) -> Result<RawFile, Error> {
    let word = |at: usize| -> Option<u64> {
        bytes.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    };
    // The next record start after `from` (8-byte steps: records are whole words), or the end.
    let next_magic = |from: usize| {
        (from..bytes.len()).step_by(8).find(|&a| word(a) == Some(RAW_MAGIC)).unwrap_or(bytes.len())
    };
    let mut out = RawFile::default();
    let mut at = 0usize;
    while at < bytes.len() {
        if at == 0 {
            match word(0) {
                Some(m)
                    if m == u64::from_le_bytes(*b"FMPRAW01")
                        || m == u64::from_le_bytes(*b"FMPRAW02") =>
                {
                    return Err(Error::Raw(
                        "a raw profile of an older fmerge: instrument with this fmerge again"
                            .into(),
                    ));
                }
                Some(m) if m == RAW_MAGIC => {}
                _ => {
                    return Err(Error::Raw(
                        "no record starts at byte 0 (not an fmerge raw profile)".into(),
                    ));
                }
            }
        }
        let header: Option<Vec<u64>> = (0..RAW_HEADER_WORDS).map(|k| word(at + 8 * k)).collect();
        let body = at + 8 * RAW_HEADER_WORDS;
        let end = header.as_ref().and_then(|h| {
            let n = usize::try_from(h[2]).ok().filter(|&n| n <= (bytes.len() - at) / 8)?;
            Some(body + 8 * n).filter(|&e| e <= bytes.len())
        });
        let next = next_magic(at + 8);
        match (header, end) {
            (Some(h), Some(end)) if end <= next => {
                let counters =
                    (0..h[2] as usize).map(|k| word(body + 8 * k).expect("in bounds")).collect();
                let signal = Some(h[RAW_END_WORD]).filter(|&s| s != 0);
                out.records.push(RawRecord {
                    module_id: h[1],
                    wall_ns: h[3],
                    cost: h[4],
                    cpu_ns: h[5],
                    signal,
                    counters,
                });
                let next = next_magic(end);
                out.damaged_bytes += (next - end) as u64;
                at = next;
            }
            _ => {
                out.damaged_bytes += (next - at) as u64;
                at = next;
            }
        }
    }
    Ok(out)
}

/// The counts of one function, summed over runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionProfile {
    pub name: String,
    pub cfg_hash: u64,
    /// Times the function was called.
    pub entries: u64,
    /// Times each block was entered.
    pub blocks: Vec<u64>,
    /// Times each edge (successor slot) was taken; `None` where the scheme cannot tell.
    pub edges: Vec<Option<u64>>,
}

impl FunctionProfile {
    /// The largest count in the function (entry or block).
    pub fn max_count(&self) -> u64 {
        self.blocks.iter().copied().chain([self.entries]).max().unwrap_or(0)
    }
}

/// A profile file (`.fprof`): every function's counts summed over all runs read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfileFile {
    pub format: String,
    pub version: u32,
    /// Records read, per module id (hex).
    pub runs: u64,
    /// Wall-clock nanoseconds of each record, in the order read.
    pub wall_ns: Vec<u64>,
    /// Cost of each record (cost mode; 0 otherwise), in the same order.
    #[serde(default, rename = "work")]
    pub cost: Vec<u64>,
    /// CPU nanoseconds of each record's process, in the same order.
    #[serde(default)]
    pub cpu_ns: Vec<u64>,
    /// Instructions executed per cost class ([`super::costmodel::class_of`]), over all runs
    /// (counters mode): the regressors of the cost model.
    #[serde(default)]
    pub executed: BTreeMap<String, u64>,
    pub functions: Vec<FunctionProfile>,
    /// Functions whose counts do not fit their CFG (another build, lost updates of
    /// non-atomic counters in threads, ...), with the reason; left out of `functions`.
    pub inconsistent: Vec<(String, String)>,
    /// Records of modules no map was given for.
    pub unknown_records: u64,
    /// Records of runs ended by a signal (`fmerge instrument --write-on-signal`), among `runs`.
    #[serde(default)]
    pub signal_runs: u64,
    /// Functions whose counts do not fit their CFG with the runs ended by a signal (a run
    /// stopped inside them) and are counted without those runs.
    #[serde(default)]
    pub without_signal_runs: Vec<String>,
    /// Bytes of incomplete records stepped over in the raw files ([`RawFile::damaged_bytes`]).
    #[serde(default)]
    pub damaged_bytes: u64,
}

impl ProfileFile {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a profile serializes")
    }

    pub fn from_json(text: &str) -> Result<ProfileFile, Error> {
        let p: ProfileFile =
            serde_json::from_str(text).map_err(|e| Error::Format(format!("profile: {e}")))?;
        if p.format != PROFILE_FORMAT || p.version != VERSION {
            return Err(Error::Format(format!(
                "not an fmerge profile of version {VERSION} (format {:?}, version {})",
                p.format, p.version
            )));
        }
        Ok(p)
    }

    /// Adds `other`'s counts to this profile (functions matched by name and CFG hash).
    pub fn add(&mut self, other: &ProfileFile) {
        self.runs += other.runs;
        self.wall_ns.extend(&other.wall_ns);
        self.cost.extend(&other.cost);
        self.cpu_ns.extend(&other.cpu_ns);
        for (k, v) in &other.executed {
            *self.executed.entry(k.clone()).or_insert(0) += v;
        }
        self.unknown_records += other.unknown_records;
        self.signal_runs += other.signal_runs;
        self.damaged_bytes += other.damaged_bytes;
        self.inconsistent.extend(other.inconsistent.iter().cloned());
        for f in &other.without_signal_runs {
            if !self.without_signal_runs.contains(f) {
                self.without_signal_runs.push(f.clone());
            }
        }
        let mut index: HashMap<(String, u64), usize> = self
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| ((f.name.clone(), f.cfg_hash), i))
            .collect();
        for f in &other.functions {
            match index.get(&(f.name.clone(), f.cfg_hash)) {
                Some(&i) => {
                    let mine = &mut self.functions[i];
                    mine.entries = mine.entries.saturating_add(f.entries);
                    for (a, b) in mine.blocks.iter_mut().zip(&f.blocks) {
                        *a = a.saturating_add(*b);
                    }
                    for (a, b) in mine.edges.iter_mut().zip(&f.edges) {
                        *a = match (*a, *b) {
                            (Some(a), Some(b)) => Some(a.saturating_add(b)),
                            _ => None,
                        };
                    }
                }
                None => {
                    index.insert((f.name.clone(), f.cfg_hash), self.functions.len());
                    self.functions.push(f.clone());
                }
            }
        }
    }
}

/// Sums the records of every module a map is given for and rebuilds each function's counts.
///
/// A run ended by a signal stopped inside the functions on its stack, so their counts may not
/// fit their CFGs: such a function is counted from the other runs alone (and named in
/// [`ProfileFile::without_signal_runs`]); every other function gets the counts of all runs.
pub fn sum_records(maps: &[ProbeMap], records: &[RawRecord]) -> ProfileFile {
    let mut profile =
        ProfileFile { format: PROFILE_FORMAT.into(), version: VERSION, ..ProfileFile::default() };
    let by_id: HashMap<u64, &ProbeMap> = maps.iter().map(|m| (m.module_id, m)).collect();
    let mut sums: HashMap<u64, ModuleSums> = HashMap::new();
    for r in records {
        match by_id.get(&r.module_id) {
            Some(m) if r.counters.len() as u64 == m.counters => {
                let n = r.counters.len();
                let ModuleSums { all, exited, ends } =
                    sums.entry(r.module_id).or_insert_with(|| ModuleSums {
                        all: vec![0; n],
                        exited: vec![0; n],
                        ends: [0; 2],
                    });
                ends[usize::from(r.signal.is_some())] += 1;
                for (a, b) in all.iter_mut().zip(&r.counters) {
                    *a = a.wrapping_add(*b);
                }
                if r.signal.is_none() {
                    for (a, b) in exited.iter_mut().zip(&r.counters) {
                        *a = a.wrapping_add(*b);
                    }
                } else {
                    profile.signal_runs += 1;
                }
                profile.runs += 1;
                profile.wall_ns.push(r.wall_ns);
                profile.cost.push(if m.cost_table.is_some() {
                    run_cost(m, &r.counters)
                } else {
                    r.cost
                });
                profile.cpu_ns.push(r.cpu_ns);
            }
            _ => profile.unknown_records += 1,
        }
    }
    for m in maps {
        let Some(ModuleSums { all, exited, ends }) = sums.get(&m.module_id) else { continue };
        if m.cost_table.is_some() {
            continue; // cost mode: the runs' costs are the profile
        }
        let classes: Vec<&str> = m.opcodes.iter().map(|o| super::costmodel::class_of(o)).collect();
        // Runs of this module ended by exit and others by a signal.
        let fallback = ends[0] > 0 && ends[1] > 0;
        for f in &m.functions {
            let range = f.first as usize..f.first as usize + f.counters();
            let counts = function_counts(f, &all[range.clone()]).or_else(|e| {
                if !fallback {
                    return Err(e);
                }
                let without = function_counts(f, &exited[range]).map_err(|_| e)?;
                profile.without_signal_runs.push(f.name.clone());
                Ok(without)
            });
            match counts {
                Ok(fp) => {
                    for (ops, &n) in f.ops.iter().zip(&fp.blocks) {
                        for &(o, k) in ops {
                            let e = profile
                                .executed
                                .entry(classes[o as usize].to_string())
                                .or_insert(0);
                            *e = e.saturating_add(n.saturating_mul(u64::from(k)));
                        }
                    }
                    profile.functions.push(fp)
                }
                Err(e) => profile.inconsistent.push((f.name.clone(), e.to_string())),
            }
        }
    }
    profile
}

/// One module's counters summed over its runs, and over those that ended by exit; how many
/// runs ended by exit (`ends[0]`) and by a signal (`ends[1]`).
struct ModuleSums {
    all: Vec<u64>,
    exited: Vec<u64>,
    ends: [u64; 2],
}

/// The cost of one run of a cost-mode module: each counter times the cost it stands for
/// (wrapping: terms can be negative, the sum is not; 0 if it comes out negative, which only a
/// run the map does not describe can give).
fn run_cost(m: &ProbeMap, counters: &[u64]) -> u64 {
    let mut w: i128 = 0;
    for f in &m.functions {
        for (k, &(_, c)) in f.probe_costs.iter().flatten().enumerate() {
            let n = counters.get(f.first as usize + k).copied().unwrap_or(0);
            w += i128::from(c) * i128::from(n);
        }
    }
    u64::try_from(w.max(0)).unwrap_or(u64::MAX)
}

/// One function's counts from its counters (the scheme's, then any checking ones).
pub fn function_counts(
    f: &FunctionProbes,
    counters: &[u64],
) -> Result<FunctionProfile, CountError> {
    let (own, check) = counters.split_at(f.scheme.counters().min(counters.len()));
    let profile = scheme_counts(f, own)?;
    for (&b, &c) in f.check_blocks.iter().flatten().zip(check) {
        if profile.blocks[b as usize] != c {
            return Err(CountError::CheckFailed {
                block: b,
                rebuilt: profile.blocks[b as usize],
                counted: c,
            });
        }
    }
    Ok(profile)
}

/// Why a function's counts could not be used.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CountError {
    #[error(transparent)]
    Probes(#[from] probes::Error),
    #[error("check failed: block {block} rebuilt as {rebuilt} but counted {counted} times")]
    CheckFailed { block: u32, rebuilt: u64, counted: u64 },
}

fn scheme_counts(f: &FunctionProbes, counters: &[u64]) -> Result<FunctionProfile, probes::Error> {
    match &f.scheme {
        Scheme::Edges { .. } => {
            let p = probes::place(&f.cfg);
            let c = probes::reconstruct(&f.cfg, &p, counters)?;
            Ok(FunctionProfile {
                name: f.name.clone(),
                cfg_hash: f.cfg_hash,
                entries: c.entries,
                blocks: c.blocks,
                edges: c.edges.into_iter().map(Some).collect(),
            })
        }
        Scheme::Blocks { blocks } => {
            let mut counts = vec![0u64; f.cfg.blocks];
            for (&b, &c) in blocks.iter().zip(counters) {
                counts[b as usize] = c;
            }
            Ok(FunctionProfile {
                name: f.name.clone(),
                cfg_hash: f.cfg_hash,
                entries: counts[0],
                edges: edges_from_blocks(&f.cfg, &counts),
                blocks: counts,
            })
        }
    }
}

/// The edge counts that block counts determine by flow conservation: a block that cannot
/// leave abnormally sends all its count along its out-edges, and every block but the entry
/// receives its count along its in-edges. Solved repeatedly until nothing changes; the rest
/// stay `None`.
pub fn edges_from_blocks(cfg: &Cfg, blocks: &[u64]) -> Vec<Option<u64>> {
    let n = cfg.edges.len();
    let mut edges: Vec<Option<u64>> = vec![None; n];
    let live = cfg.reachable();
    for (i, &(a, _)) in cfg.edges.iter().enumerate() {
        if !live[a as usize] || blocks[a as usize] == 0 {
            edges[i] = Some(0);
        }
    }
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); cfg.blocks];
    let mut inc: Vec<Vec<usize>> = vec![Vec::new(); cfg.blocks];
    for (i, &(a, b)) in cfg.edges.iter().enumerate() {
        out[a as usize].push(i);
        inc[b as usize].push(i);
    }
    let mut leaky = vec![false; cfg.blocks];
    for &x in cfg.exits.iter().chain(&cfg.abnormal_exits) {
        leaky[x as usize] = true;
    }
    let solve = |edges: &mut Vec<Option<u64>>, group: &[usize], total: u64| -> bool {
        let unknown: Vec<usize> = group.iter().copied().filter(|&e| edges[e].is_none()).collect();
        if unknown.len() != 1 {
            return false;
        }
        let known: u64 = group.iter().filter_map(|&e| edges[e]).fold(0, u64::saturating_add);
        match total.checked_sub(known) {
            Some(x) => {
                edges[unknown[0]] = Some(x);
                true
            }
            None => false,
        }
    };
    loop {
        let mut changed = false;
        for b in 0..cfg.blocks {
            if !leaky[b] && !out[b].is_empty() {
                changed |= solve(&mut edges, &out[b], blocks[b]);
            }
            if b != 0 && !inc[b].is_empty() {
                changed |= solve(&mut edges, &inc[b], blocks[b]);
            }
        }
        if !changed {
            return edges;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diamond() -> Cfg {
        Cfg {
            blocks: 4,
            edges: vec![(0, 1), (0, 2), (1, 3), (2, 3)],
            weights: vec![0.7, 0.3, 0.7, 0.3],
            exits: vec![3],
            abnormal_exits: vec![],
            pinned: vec![],
        }
    }

    fn record(id: u64, counters: &[u64]) -> Vec<u8> {
        let mut v = Vec::new();
        for w in [RAW_MAGIC, id, counters.len() as u64, 5, 0, 4, 0].iter().chain(counters) {
            v.extend(w.to_le_bytes());
        }
        v
    }

    fn map_of(cfg: Cfg, blocks: bool) -> ProbeMap {
        let scheme = if blocks {
            Scheme::Blocks { blocks: (0..cfg.blocks as u32).collect() }
        } else {
            Scheme::Edges { sites: probes::place(&cfg).sites().collect() }
        };
        let f = FunctionProbes {
            name: "f".into(),
            cfg_hash: cfg_hash(&cfg),
            cfg,
            scheme,
            first: 0,
            fallback: None,
            check_blocks: None,
            ops: Vec::new(),
            probe_costs: None,
        };
        ProbeMap::new(vec![f], vec![], MapOptions::default())
    }

    #[test]
    fn checking_counters_must_equal_the_rebuilt_blocks() {
        let mut map = map_of(diamond(), false);
        map.functions[0].check_blocks = Some(vec![0, 1, 2, 3]);
        let map = ProbeMap::new(map.functions, vec![], MapOptions::default());
        assert_eq!(map.counters, 6);
        let map = ProbeMap::from_json(&map.to_json()).unwrap();
        let good = record(map.module_id, &[7, 3, 10, 7, 3, 10]);
        let p = sum_records(std::slice::from_ref(&map), &read_raw(&good).unwrap().records);
        assert_eq!((p.functions.len(), p.inconsistent.len()), (1, 0), "{:?}", p.inconsistent);
        let bad = record(map.module_id, &[7, 3, 10, 6, 3, 10]);
        let p = sum_records(std::slice::from_ref(&map), &read_raw(&bad).unwrap().records);
        assert_eq!(p.functions.len(), 0);
        assert!(
            p.inconsistent[0].1.contains("block 1 rebuilt as 7 but counted 6"),
            "{:?}",
            p.inconsistent
        );
    }

    #[test]
    fn raw_records_round_trip_and_reject_garbage() {
        let mut bytes = record(7, &[1, 2, 3]);
        bytes.extend(record(9, &[]));
        let r = read_raw(&bytes).unwrap();
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.damaged_bytes, 0);
        let first = &r.records[0];
        assert_eq!((first.module_id, first.wall_ns, first.counters.clone()), (7, 5, vec![1, 2, 3]));
        assert_eq!(first.signal, None);
        assert!(r.records[1].counters.is_empty());
        assert!(matches!(
            read_raw(b"not a profile at all, no sir....................."),
            Err(Error::Raw(_))
        ));
        for old in [b"FMPRAW01", b"FMPRAW02"] {
            let mut rec = record(1, &[]);
            rec[..8].copy_from_slice(old);
            assert!(read_raw(&rec).unwrap_err().to_string().contains("older fmerge"));
        }
        assert_eq!(read_raw(&[]).unwrap(), RawFile::default());
    }

    #[test]
    fn records_cut_short_by_a_killed_writer_are_stepped_over() {
        let whole = record(7, &[1, 2, 3]);
        // Cut at the end of the file: in the header, in the counters, mid-word.
        for cut in [20, 60, whole.len() - 8, whole.len() - 3] {
            let mut bytes = record(9, &[4]);
            bytes.extend(&whole[..cut]);
            let r = read_raw(&bytes).unwrap();
            assert_eq!(r.records.len(), 1, "cut at {cut}");
            assert_eq!(r.records[0].module_id, 9);
            assert_eq!(r.damaged_bytes, cut as u64, "cut at {cut}");
        }
        // Cut, with the next process's record right after it.
        let mut bytes = whole[..whole.len() - 16].to_vec();
        bytes.extend(record(9, &[4]));
        let r = read_raw(&bytes).unwrap();
        assert_eq!(r.records.iter().map(|r| r.module_id).collect::<Vec<_>>(), vec![9]);
        assert_eq!(r.damaged_bytes, whole.len() as u64 - 16);
        // A count larger than the file.
        let mut huge = record(1, &[]);
        huge[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        huge.extend(record(2, &[]));
        let r = read_raw(&huge).unwrap();
        assert_eq!(r.records.iter().map(|r| r.module_id).collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn runs_ended_by_a_signal_count_where_they_fit() {
        // Two functions in one module: a diamond g, and f = a diamond whose runs a signal can
        // stop in an arm (entered, never left).
        let f = map_of(diamond(), false).functions.remove(0);
        let mut g = f.clone();
        g.name = "g".into();
        let map = ProbeMap::new(vec![f, g], vec![], MapOptions::default());
        assert_eq!(map.counters, 4);
        // f: 10 calls, 3 through the cold arm; g: 5 calls, 1 cold.
        let mut bytes = record(map.module_id, &[7, 3, 4, 1]);
        // A run ended by SIGTERM (15) whose counts for f do not fit f's CFG together with the
        // other run's (here: more calls than 64 bits hold; in a real run, a loop's counter
        // kept in a register and lost); g ran twice through its hot arm.
        let half = u64::MAX / 2;
        let mut killed = record(map.module_id, &[half, half, 2, 0]);
        killed[8 * RAW_END_WORD..8 * RAW_END_WORD + 8].copy_from_slice(&15u64.to_le_bytes());
        bytes.extend(&killed);
        let raw = read_raw(&bytes).unwrap();
        assert_eq!(raw.records[1].signal, Some(15));
        let p = sum_records(std::slice::from_ref(&map), &raw.records);
        assert_eq!((p.runs, p.signal_runs), (2, 1));
        assert_eq!(p.without_signal_runs, vec!["f".to_string()]);
        assert!(p.inconsistent.is_empty(), "{:?}", p.inconsistent);
        let by_name: HashMap<&str, &FunctionProfile> =
            p.functions.iter().map(|f| (f.name.as_str(), f)).collect();
        assert_eq!(by_name["f"].blocks, vec![10, 7, 3, 10]);
        assert_eq!(by_name["g"].blocks, vec![7, 6, 1, 7]);
        // Without a run that ended by exit, counts that do not fit are inconsistent.
        let mut twice = killed.clone();
        twice.extend(&killed);
        let p = sum_records(std::slice::from_ref(&map), &read_raw(&twice).unwrap().records);
        assert_eq!(p.inconsistent.len(), 1);
        assert!(p.without_signal_runs.is_empty());
    }

    #[test]
    fn summing_records_rebuilds_counts() {
        let map = map_of(diamond(), false);
        assert_eq!(map.counters, 2);
        // Optimal probes of the diamond: the ends of both arms (the exit and the hot arm's
        // first edge are heavier).
        let sites = match &map.functions[0].scheme {
            Scheme::Edges { sites } => sites.clone(),
            Scheme::Blocks { .. } => unreachable!(),
        };
        assert_eq!(sites, vec![FlowEdge::Real(2), FlowEdge::Real(3)]);
        // Two runs: 10 calls with 3 cold, 5 calls with 1 cold.
        let mut bytes = record(map.module_id, &[7, 3]);
        bytes.extend(record(map.module_id, &[4, 1]));
        bytes.extend(record(12345, &[1]));
        let p = sum_records(std::slice::from_ref(&map), &read_raw(&bytes).unwrap().records);
        assert_eq!((p.runs, p.unknown_records), (2, 1));
        let f = &p.functions[0];
        assert_eq!(f.entries, 15);
        assert_eq!(f.blocks, vec![15, 11, 4, 15]);
        assert_eq!(f.edges, vec![Some(11), Some(4), Some(11), Some(4)]);
        // Counts that cannot come from this CFG are reported, not used.
        let bad = record(map.module_id, &[u64::MAX, 10]);
        let p = sum_records(std::slice::from_ref(&map), &read_raw(&bad).unwrap().records);
        assert!(p.functions.is_empty());
        assert_eq!(p.inconsistent.len(), 1);
    }

    #[test]
    fn block_counters_give_blocks_and_determined_edges() {
        let map = map_of(diamond(), true);
        let bytes = record(map.module_id, &[15, 11, 4, 15]);
        let p = sum_records(std::slice::from_ref(&map), &read_raw(&bytes).unwrap().records);
        let f = &p.functions[0];
        assert_eq!(f.blocks, vec![15, 11, 4, 15]);
        assert_eq!(f.edges, vec![Some(11), Some(4), Some(11), Some(4)]);
        // A block that may leave abnormally does not determine its out-edges.
        let mut g = diamond();
        g.abnormal_exits = vec![0];
        assert_eq!(
            edges_from_blocks(&g, &[15, 11, 4, 15]),
            vec![Some(11), Some(4), Some(11), Some(4)]
        );
        g.abnormal_exits = vec![0, 1];
        g.edges.push((1, 2));
        g.weights.push(0.0);
        let e = edges_from_blocks(&g, &[15, 11, 4, 15]);
        // 2 -> 3 from block 2, then 1 -> 3 from block 3's in-flow; 0 -> 2 and 1 -> 2 stay
        // unknown (both sources may leave abnormally).
        assert_eq!((e[0], e[2], e[3]), (Some(11), Some(11), Some(4)));
        assert_eq!((e[1], e[4]), (None, None));
    }

    #[test]
    fn maps_and_profiles_round_trip_and_are_checked() {
        let map = map_of(diamond(), false);
        let back = ProbeMap::from_json(&map.to_json()).unwrap();
        assert_eq!(back, map);
        let mut wrong = map.clone();
        wrong.functions[0].cfg.edges.swap(0, 1);
        assert!(ProbeMap::from_json(&wrong.to_json()).is_err());
        let mut wrong = map.clone();
        wrong.counters += 1;
        assert!(ProbeMap::from_json(&wrong.to_json()).is_err());
        assert!(ProbeMap::from_json("{}").is_err());
        let p = sum_records(
            std::slice::from_ref(&map),
            &read_raw(&record(map.module_id, &[7, 3])).unwrap().records,
        );
        let mut twice = ProfileFile::from_json(&p.to_json()).unwrap();
        twice.add(&p);
        assert_eq!(twice.runs, 2);
        assert_eq!(twice.functions[0].blocks, vec![20, 14, 6, 20]);
        assert!(ProfileFile::from_json(&map.to_json()).is_err());
    }
}
