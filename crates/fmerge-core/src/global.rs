//! Global merging under separate compilation (seed 002, Meta's optimistic global function
//! merger): per-module summaries, combined into global merge information that every module
//! then applies on its own.
//!
//! - **Summarize** (per module): for each function, a *stable* hash of its structure that skips
//!   the constants a parameter could replace (`ConstRole::Param`: call targets and arguments,
//!   load/store operands, GEP bases), the number of instructions, its TTI size, and the
//!   skipped constants ("sites": walk position, operand, stable hash of the constant). Stable
//!   means computed from structure and names only, so equal on every machine, run and module.
//! - **Combine** (global): group functions by hash across all modules; a group is valid when
//!   every member has the same instruction count and the same sites. Sites whose constant is
//!   the same in every member need no parameter; the rest become parameters, one per distinct
//!   column of constant hashes. A group is kept when Benefit > Cost (seed 002's model, in TTI
//!   units): Benefit = size·(N−1), Cost = Σ over members (2·params + call overhead).
//! - **Apply** (per module, in `fmerge-passes`): each function whose recomputed hash is in the
//!   merge information gets a parameterized copy of *its own* body and becomes a thunk that
//!   passes its own constants. Correctness never depends on the information: stale or
//!   colliding hashes only cost size. The saving appears when the linker's identical code
//!   folding (`ld.lld --icf=all`) folds the identical copies made in different modules.
//!
//! File formats (little-endian, documented in `docs/FORMATS.md`): a magic, a format version,
//! the payload length, the payload, and a checksum of the payload (the stable hash of
//! [`crate::hash`]). Any mismatch is an error, never a guess.

use crate::compare::Walk;
use crate::hash::StableHasher;
use crate::ir::{ConstRole, FuncData, ModuleTables, Operand};
use std::collections::BTreeMap;
use thiserror::Error;

/// Version of both file formats. Bump on any change of layout *or* of the hash function.
pub const FORMAT_VERSION: u32 = 3;
const SUMMARY_MAGIC: &[u8; 8] = b"FMSUMMRY";
const INFO_MAGIC: &[u8; 8] = b"FMMERGEI";

#[derive(Debug, Error, PartialEq, Eq)]
pub enum FormatError {
    #[error("not an fmerge {0} file")]
    BadMagic(&'static str),
    #[error("{kind} format version {found}, this fmerge reads version {expected}; regenerate it")]
    Version { kind: &'static str, found: u32, expected: u32 },
    #[error("corrupt {0}: checksum mismatch")]
    Checksum(&'static str),
    #[error("corrupt {0}: truncated or malformed")]
    Malformed(&'static str),
}

/// A constant a parameter could replace: where it is and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Site {
    /// Instruction position in walk order (`compare::Walk`), the same in every module.
    pub inst: u32,
    /// Operand position within that instruction, in `compare::canonical_operands` order.
    pub op: u32,
    /// Stable hash of the constant found there.
    pub const_hash: u64,
}

/// One function of one module.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FunctionSummary {
    pub name: String,
    /// Stable structural hash, parameterizable constants left out.
    pub hash: u64,
    /// Instructions in walk order (reachable ones).
    pub inst_count: u32,
    /// TTI code-size units of the function.
    pub units: u32,
    /// Parameterizable constants, by position.
    pub sites: Vec<Site>,
}

impl FunctionSummary {
    /// The function's identity including every constant it skipped: equal keys mean equal
    /// functions (up to hash collisions, which `apply` rules out by comparing bodies).
    pub fn key(&self) -> u64 {
        let mut h = StableHasher::with_seed(0x6b65_7973);
        h.word(self.hash).word(u64::from(self.inst_count));
        for s in &self.sites {
            h.word(u64::from(s.inst)).word(u64::from(s.op)).word(s.const_hash);
        }
        h.finish()
    }
}

/// Every function of one module.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ModuleSummary {
    pub module: String,
    pub functions: Vec<FunctionSummary>,
    /// Bitcode of the functions' bodies, for merging similar functions across modules: a
    /// module whose function `fm.<k>` is `functions[k]` with every module-local symbol turned
    /// into a trailing parameter (empty: no bodies).
    #[serde(serialize_with = "byte_count")]
    pub bodies: Vec<u8>,
}

fn byte_count<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(v.len() as u64)
}

/// One function of a [`SimilarGroup`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SimilarMember {
    /// [`FunctionSummary::key`] of the function.
    pub key: u64,
    /// Where it came from (for reports only; matching goes by key and body).
    pub module: String,
    pub name: String,
}

/// Similar functions of several modules merged into one body (merge information's part that
/// goes beyond seed 002). `bitcode` holds, for member key K (hex, 16 digits):
/// `__fmerge.o.K`, the member as summarized (module-local symbols as trailing parameters);
/// `__fmerge.t.K`, a thunk of the same type that calls the merged body; and the merged bodies
/// `__fmerge.s.<group>.<j>` (linkonce_odr, hidden, each in its own comdat), which every module
/// that applies the group defines identically and the linker keeps once.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SimilarGroup {
    pub members: Vec<SimilarMember>,
    /// Estimated saving over all modules (code-size model, bytes).
    pub estimated_saving: i64,
    #[serde(serialize_with = "byte_count")]
    pub bitcode: Vec<u8>,
}

/// Stable summary of one function. `units` is its TTI size.
pub fn summarize(t: &ModuleTables, f: &FuncData, w: &Walk, units: u32) -> FunctionSummary {
    let mut h = StableHasher::with_seed(0x676d_6673);
    h.word(u64::from(f.blocks.len() as u32)).word(w.insts.len() as u64);
    // The function's own type and must-match attributes.
    h.word(t.types[f.ty.0 as usize].stable_hash).word(t.states[f.header.0 as usize].stable_hash);
    for &b in &w.blocks {
        h.word(f.blocks[b as usize].insts.len() as u64);
    }
    let mut sites = Vec::new();
    for (serial, &i) in w.insts.iter().enumerate() {
        let inst = &f.insts[i as usize];
        h.word(u64::from(inst.opcode))
            .word(t.types[inst.ty.0 as usize].stable_hash)
            .word(t.states[inst.state.0 as usize].stable_hash)
            .word(inst.ops.len() as u64);
        // Positions count operands in canonical order (phi entries by incoming block), so a
        // function whose phis list their entries in another order still matches.
        for (k, (_, op)) in crate::compare::canonical_operands(f, w, i).into_iter().enumerate() {
            match op {
                Operand::Inst(a) => h.word(1).word(u64::from(w.inst_serial[a as usize])),
                Operand::Block(a) => h.word(2).word(u64::from(w.block_serial[a as usize])),
                Operand::Arg(a) => h.word(3).word(u64::from(a)),
                Operand::Opaque(a) => h.word(5).word(t.opaque_hash(a)),
                Operand::SelfRef => {
                    // Its own address: a site, so that copies in other modules still match.
                    let name = crate::hash::hash_bytes(f.name.as_bytes());
                    sites.push(Site { inst: serial as u32, op: k as u32, const_hash: name });
                    h.word(6).word(t.types[t.ptr_type.0 as usize].stable_hash)
                }
                Operand::Const { id, role: ConstRole::Param } => {
                    let c = &t.consts[id.0 as usize];
                    sites.push(Site {
                        inst: serial as u32,
                        op: k as u32,
                        const_hash: c.stable_hash,
                    });
                    h.word(6).word(t.types[c.ty.0 as usize].stable_hash)
                }
                Operand::Const { id, .. } => h.word(7).word(t.consts[id.0 as usize].stable_hash),
            };
        }
    }
    FunctionSummary {
        name: f.name.clone(),
        hash: h.finish(),
        inst_count: w.insts.len() as u32,
        units,
        sites,
    }
}

/// Costs of the combine step's profitability model, in TTI units (seed 002's defaults).
#[derive(Clone, Copy, Debug)]
pub struct CostModel {
    /// Per parameter passed by a thunk.
    pub param: f64,
    /// Per thunk (the call itself).
    pub call: f64,
    /// Extra units a group must save.
    pub threshold: f64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel { param: 2.0, call: 1.0, threshold: 0.0 }
    }
}

/// One group of functions that share a body across modules.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MergeGroup {
    pub hash: u64,
    pub inst_count: u32,
    /// Parameters in order; each lists the sites (instruction, operand) it replaces.
    pub params: Vec<Vec<(u32, u32)>>,
    /// How many functions share the hash across all modules (for reports).
    pub members: u32,
}

/// The global merge information.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MergeInfo {
    /// Sorted by hash.
    pub groups: Vec<MergeGroup>,
    /// Similar functions merged across modules (no member key in two groups).
    pub similar: Vec<SimilarGroup>,
}

impl MergeInfo {
    pub fn group(&self, hash: u64) -> Option<&MergeGroup> {
        self.groups.binary_search_by_key(&hash, |g| g.hash).ok().map(|k| &self.groups[k])
    }
}

/// Combines module summaries into merge information (see the module documentation).
pub fn combine(summaries: &[ModuleSummary], cost: &CostModel) -> MergeInfo {
    let mut by_hash: BTreeMap<u64, Vec<&FunctionSummary>> = BTreeMap::new();
    for m in summaries {
        for f in &m.functions {
            by_hash.entry(f.hash).or_default().push(f);
        }
    }
    let mut groups = Vec::new();
    for (hash, members) in by_hash {
        if members.len() < 2 {
            continue;
        }
        let root = members[0];
        let positions: Vec<(u32, u32)> = root.sites.iter().map(|s| (s.inst, s.op)).collect();
        let consistent = members.iter().all(|m| {
            m.inst_count == root.inst_count
                && m.sites.len() == root.sites.len()
                && m.sites.iter().zip(&positions).all(|(s, &(i, o))| s.inst == i && s.op == o)
        });
        if !consistent {
            continue;
        }
        // One parameter per distinct column of constant hashes; uniform columns need none.
        let mut params: BTreeMap<Vec<u64>, Vec<(u32, u32)>> = BTreeMap::new();
        let mut order: Vec<Vec<u64>> = Vec::new();
        for (k, &pos) in positions.iter().enumerate() {
            let column: Vec<u64> = members.iter().map(|m| m.sites[k].const_hash).collect();
            if column.iter().all(|&h| h == column[0]) {
                continue;
            }
            let entry = params.entry(column.clone()).or_default();
            if entry.is_empty() {
                order.push(column);
            }
            entry.push(pos);
        }
        let n = members.len() as f64;
        let p = order.len() as f64;
        let size = members.iter().map(|m| f64::from(m.units)).sum::<f64>() / n;
        let benefit = size * (n - 1.0);
        let costs = n * (p * cost.param + cost.call) + cost.threshold;
        if benefit <= costs {
            continue;
        }
        groups.push(MergeGroup {
            hash,
            inst_count: root.inst_count,
            params: order.into_iter().map(|c| params.remove(&c).expect("collected")).collect(),
            members: members.len() as u32,
        });
    }
    MergeInfo { groups, similar: Vec::new() }
}

// ---- names of shared copies ---------------------------------------------------------------

/// The textual IR of a module that holds one shared copy (the function and the declarations,
/// types and attribute groups it uses), in a form that depends on what the module means and
/// not on the order the module it was extracted from happened to list things in: the text
/// names every shared copy in a ThinLTO link, so that modules which make the same copy give it
/// the same name and the linker keeps one.
///
/// LLVM prints a module's declarations (and so numbers its attribute groups, `#N`) in the
/// order the source module lists them, which follows the order its code first used them:
/// two test files that register their tests with the same static constructor made texts that
/// differed only there, and each kept its own copy (with exception tables, which identical
/// code folding never folds: 609 bytes lost on Ninja's test binary). Here every reference to
/// an attribute group outside quoted strings is replaced by the group's contents, the groups'
/// own lines, comments and blank lines are dropped, and the top-level entities (a definition
/// with its body, or any other line: a declaration, a type, a global, metadata) are sorted.
/// Reordering top-level entities does not change a module's meaning, so equal results still
/// mean equal copies.
pub fn canonical_copy_text(text: &str) -> String {
    let mut groups: BTreeMap<&str, &str> = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("attributes ")
            && let Some((id, contents)) = rest.split_once(" = ")
        {
            groups.insert(id, contents);
        }
    }
    let mut entities: Vec<String> = Vec::new();
    let mut definition: Option<String> = None;
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(body) = definition.as_mut() {
            body.push('\n');
            body.push_str(&inline_attribute_groups(line, &groups));
            if line == "}" {
                entities.extend(definition.take());
            }
            continue;
        }
        if line.is_empty() || line.starts_with(';') || line.starts_with("attributes #") {
            continue;
        }
        let line = inline_attribute_groups(line, &groups);
        if line.starts_with("define ") && line.ends_with('{') {
            definition = Some(line);
        } else {
            entities.push(line);
        }
    }
    // An unterminated definition (not what LLVM prints) is kept as it is.
    entities.extend(definition);
    entities.sort_unstable();
    entities.join("\n")
}

/// `line` with every attribute group reference (`#N`, outside quoted strings) replaced by the
/// group's contents from `groups`.
fn inline_attribute_groups(line: &str, groups: &BTreeMap<&str, &str>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quoted = false;
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if c == '"' {
            quoted = !quoted;
        }
        if c == '#' && !quoted {
            let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
            if let Some(contents) = groups.get(&rest[..1 + digits]).filter(|_| digits > 0) {
                out.push_str(contents);
                rest = &rest[1 + digits..];
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

// ---- serialisation -----------------------------------------------------------------------

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
    }
}

struct Reader<'a> {
    data: &'a [u8],
    kind: &'static str,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        if self.data.len() < n {
            return Err(FormatError::Malformed(self.kind));
        }
        let (a, b) = self.data.split_at(n);
        self.data = b;
        Ok(a)
    }
    fn u32(&mut self) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, FormatError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn str(&mut self) -> Result<String, FormatError> {
        String::from_utf8(self.bytes()?).map_err(|_| FormatError::Malformed(self.kind))
    }
    fn bytes(&mut self) -> Result<Vec<u8>, FormatError> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }
    fn i64(&mut self) -> Result<i64, FormatError> {
        Ok(self.u64()? as i64)
    }
    /// A count of items that each need at least `min_bytes`: guards allocations on corrupt input.
    fn count(&mut self, min_bytes: usize) -> Result<usize, FormatError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_bytes) > self.data.len() {
            return Err(FormatError::Malformed(self.kind));
        }
        Ok(n)
    }
}

fn envelope(magic: &[u8; 8], payload: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 28);
    out.extend_from_slice(magic);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let sum = crate::hash::hash_bytes(&payload);
    out.extend_from_slice(&payload);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

fn open<'a>(
    magic: &[u8; 8],
    kind: &'static str,
    data: &'a [u8],
) -> Result<Reader<'a>, FormatError> {
    if data.len() < 20 || &data[..8] != magic {
        return Err(FormatError::BadMagic(kind));
    }
    let version = u32::from_le_bytes(data[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(FormatError::Version { kind, found: version, expected: FORMAT_VERSION });
    }
    let len = u64::from_le_bytes(data[12..20].try_into().expect("8 bytes")) as usize;
    let rest = &data[20..];
    if rest.len() != len.saturating_add(8) {
        return Err(FormatError::Malformed(kind));
    }
    let (payload, sum) = rest.split_at(len);
    if crate::hash::hash_bytes(payload) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err(FormatError::Checksum(kind));
    }
    Ok(Reader { data: payload, kind })
}

impl ModuleSummary {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        w.str(&self.module);
        w.u32(self.functions.len() as u32);
        for f in &self.functions {
            w.str(&f.name);
            w.u64(f.hash);
            w.u32(f.inst_count);
            w.u32(f.units);
            w.u32(f.sites.len() as u32);
            for s in &f.sites {
                w.u32(s.inst);
                w.u32(s.op);
                w.u64(s.const_hash);
            }
        }
        w.bytes(&self.bodies);
        envelope(SUMMARY_MAGIC, w.0)
    }

    pub fn from_bytes(data: &[u8]) -> Result<ModuleSummary, FormatError> {
        let mut r = open(SUMMARY_MAGIC, "summary", data)?;
        let module = r.str()?;
        let n = r.count(24)?;
        let mut functions = Vec::with_capacity(n);
        for _ in 0..n {
            let name = r.str()?;
            let (hash, inst_count, units) = (r.u64()?, r.u32()?, r.u32()?);
            let ns = r.count(16)?;
            let mut sites = Vec::with_capacity(ns);
            for _ in 0..ns {
                sites.push(Site { inst: r.u32()?, op: r.u32()?, const_hash: r.u64()? });
            }
            functions.push(FunctionSummary { name, hash, inst_count, units, sites });
        }
        let bodies = r.bytes()?;
        if !r.data.is_empty() {
            return Err(FormatError::Malformed("summary"));
        }
        Ok(ModuleSummary { module, functions, bodies })
    }
}

impl MergeInfo {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        w.u32(self.groups.len() as u32);
        for g in &self.groups {
            w.u64(g.hash);
            w.u32(g.inst_count);
            w.u32(g.members);
            w.u32(g.params.len() as u32);
            for p in &g.params {
                w.u32(p.len() as u32);
                for &(i, o) in p {
                    w.u32(i);
                    w.u32(o);
                }
            }
        }
        w.u32(self.similar.len() as u32);
        for g in &self.similar {
            w.u32(g.members.len() as u32);
            for m in &g.members {
                w.u64(m.key);
                w.str(&m.module);
                w.str(&m.name);
            }
            w.u64(g.estimated_saving as u64);
            w.bytes(&g.bitcode);
        }
        envelope(INFO_MAGIC, w.0)
    }

    pub fn from_bytes(data: &[u8]) -> Result<MergeInfo, FormatError> {
        let mut r = open(INFO_MAGIC, "merge info", data)?;
        let n = r.count(20)?;
        let mut groups = Vec::with_capacity(n);
        for _ in 0..n {
            let (hash, inst_count, members) = (r.u64()?, r.u32()?, r.u32()?);
            let np = r.count(4)?;
            let mut params = Vec::with_capacity(np);
            for _ in 0..np {
                let ns = r.count(8)?;
                let mut sites = Vec::with_capacity(ns);
                for _ in 0..ns {
                    sites.push((r.u32()?, r.u32()?));
                }
                params.push(sites);
            }
            groups.push(MergeGroup { hash, inst_count, params, members });
        }
        let n = r.count(16)?;
        let mut similar = Vec::with_capacity(n);
        let mut keys = std::collections::HashSet::new();
        for _ in 0..n {
            let nm = r.count(16)?;
            let mut members = Vec::with_capacity(nm);
            for _ in 0..nm {
                let key = r.u64()?;
                if !keys.insert(key) {
                    return Err(FormatError::Malformed("merge info"));
                }
                members.push(SimilarMember { key, module: r.str()?, name: r.str()? });
            }
            let estimated_saving = r.i64()?;
            similar.push(SimilarGroup { members, estimated_saving, bitcode: r.bytes()? });
        }
        if !r.data.is_empty() || groups.windows(2).any(|w| w[0].hash >= w[1].hash) {
            return Err(FormatError::Malformed("merge info"));
        }
        Ok(MergeInfo { groups, similar })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two modules that list the same copy's declarations in different orders (and so number
    /// their attribute groups differently) give the same text; a different body does not.
    #[test]
    fn copy_texts_do_not_depend_on_the_order_of_declarations() {
        let a = "; ModuleID = 'a'\n\
            %T = type { i32 }\n\
            \n\
            define linkonce_odr hidden void @fmerge.shared(ptr %0) #0 {\n  \
              call void @f(ptr %0) #2\n  \
              call void @g(ptr %0)\n  \
              ret void\n\
            }\n\
            \n\
            ; Function Attrs: nounwind\n\
            declare void @g(ptr) #1\n\
            \n\
            declare void @f(ptr) #2\n\
            \n\
            attributes #0 = { optsize }\n\
            attributes #1 = { nounwind }\n\
            attributes #2 = { cold \"x\"=\"#1\" }\n";
        let b = "; ModuleID = 'b'\n\
            %T = type { i32 }\n\
            \n\
            define linkonce_odr hidden void @fmerge.shared(ptr %0) #0 {\n  \
              call void @f(ptr %0) #1\n  \
              call void @g(ptr %0)\n  \
              ret void\n\
            }\n\
            \n\
            declare void @f(ptr) #1\n\
            \n\
            ; Function Attrs: nounwind\n\
            declare void @g(ptr) #2\n\
            \n\
            attributes #0 = { optsize }\n\
            attributes #1 = { cold \"x\"=\"#1\" }\n\
            attributes #2 = { nounwind }\n";
        assert_eq!(canonical_copy_text(a), canonical_copy_text(b));
        assert!(canonical_copy_text(a).contains("declare void @g(ptr) { nounwind }"));
        // The quoted "#1" stays as it is.
        assert!(canonical_copy_text(a).contains("\"x\"=\"#1\""));
        // The calls in the other order: another function, another text.
        let swapped = b.replace(
            "call void @f(ptr %0) #1\n  call void @g(ptr %0)",
            "call void @g(ptr %0)\n  call void @f(ptr %0) #1",
        );
        assert_ne!(swapped, b);
        assert_ne!(canonical_copy_text(a), canonical_copy_text(&swapped));
        // Another attribute on a declaration: another text.
        let other = b.replace("attributes #2 = { nounwind }", "attributes #2 = { nounwind cold }");
        assert_ne!(canonical_copy_text(a), canonical_copy_text(&other));
    }

    fn f(name: &str, hash: u64, consts: &[u64]) -> FunctionSummary {
        FunctionSummary {
            name: name.into(),
            hash,
            inst_count: 10,
            units: 40,
            sites: consts
                .iter()
                .enumerate()
                .map(|(k, &c)| Site { inst: k as u32, op: 0, const_hash: c })
                .collect(),
        }
    }

    fn module(name: &str, fs: Vec<FunctionSummary>) -> ModuleSummary {
        ModuleSummary { module: name.into(), functions: fs, bodies: Vec::new() }
    }

    #[test]
    fn groups_across_modules_need_one_parameter_per_distinct_column() {
        // Site 0 differs per member, site 1 is the same everywhere, site 2 follows site 0.
        let a = module("a", vec![f("x", 7, &[1, 5, 1])]);
        let b = module("b", vec![f("y", 7, &[2, 5, 2])]);
        let c = module("c", vec![f("z", 7, &[3, 5, 3]), f("lonely", 9, &[])]);
        let info = combine(&[a, b, c], &CostModel::default());
        assert_eq!(info.groups.len(), 1);
        let g = &info.groups[0];
        assert_eq!((g.hash, g.members), (7, 3));
        assert_eq!(g.params, vec![vec![(0, 0), (2, 0)]]);
    }

    #[test]
    fn inconsistent_groups_and_unprofitable_groups_are_dropped() {
        let mut odd = f("y", 7, &[2]);
        odd.inst_count = 11;
        let info = combine(
            &[module("a", vec![f("x", 7, &[1])]), module("b", vec![odd])],
            &CostModel::default(),
        );
        assert!(info.groups.is_empty());
        let mut tiny = f("x", 8, &[1, 2, 3]);
        tiny.units = 4;
        let mut tiny2 = f("y", 8, &[4, 5, 6]);
        tiny2.units = 4;
        let info = combine(&[module("a", vec![tiny, tiny2])], &CostModel::default());
        assert!(info.groups.is_empty(), "3 parameters cost more than a 4-unit body saves");
    }

    #[test]
    fn formats_round_trip_and_reject_damage() {
        let s = module("m.bc", vec![f("x", 7, &[1, 2]), f("y", 8, &[])]);
        let bytes = s.to_bytes();
        assert_eq!(ModuleSummary::from_bytes(&bytes), Ok(s.clone()));
        let info =
            combine(&[s.clone(), module("n.bc", vec![f("z", 7, &[3, 4])])], &CostModel::default());
        assert_eq!(MergeInfo::from_bytes(&info.to_bytes()), Ok(info.clone()));

        let mut flipped = bytes.clone();
        flipped[30] ^= 1;
        assert_eq!(ModuleSummary::from_bytes(&flipped), Err(FormatError::Checksum("summary")));
        assert_eq!(
            ModuleSummary::from_bytes(&bytes[..bytes.len() - 3]),
            Err(FormatError::Malformed("summary"))
        );
        let mut newer = bytes.clone();
        newer[8] = 99;
        assert!(matches!(
            ModuleSummary::from_bytes(&newer),
            Err(FormatError::Version { found: 99, .. })
        ));
        assert_eq!(MergeInfo::from_bytes(&bytes), Err(FormatError::BadMagic("merge info")));
    }
}
