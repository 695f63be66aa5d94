//! Which instructions of two functions can share one copy in a merged function, and the
//! alignments that pick them: HyFM block pairing (the default) and SalSSA whole-function
//! alignment (for small functions).
//!
//! **Legality** ([`insts_match`]) uses exact interned ids only (ir.rs invariant): two instructions
//! of one module may become one instruction of the merged function when they are the same
//! operation (opcode, result type, interned state, operand count) and every operand pair can be
//! reconciled. Differing operands are normally fine, because code generation selects between them
//! with the function identifier, but not where a select cannot stand:
//! - a `ConstRole::Fixed` constant (GEP struct index, switch case, intrinsic argument, alloca
//!   size ...) must be the very same constant on both sides;
//! - `Operand::Opaque` values (metadata, inline asm) must be equal;
//! - the callee of `call`/`invoke` (the *last* operand in LLVM's C API order) must be the same
//!   function (same `ConstId`, or both `SelfRef`): a select of two callees would turn direct
//!   calls into an indirect call, which costs more than it saves and loses attributes and
//!   inlining. Indirect callees (instructions, arguments) never match in this version: their
//!   values cannot be compared across functions, so a match would need exactly such a select.
//!   Inline-asm callees (`Opaque`) never match either, as in F3M;
//! - token-typed operands cannot be selected at all, and values of two functions cannot be
//!   compared, so a token operand pair matches only when both are the same constant;
//! - operand types must be equal (a select needs one type), and a label operand pairs only with a
//!   label (code generation rewrites branch targets, never selects labels with values);
//! - `callbr` never matches (its indirect targets cannot be rewritten safely);
//! - `landingpad` matches only a `landingpad` with identical operands (its clauses are fixed
//!   constants: the unwinder compares them, they cannot vary by a select);
//! - two `phi`s match whenever their types are equal: phis are not aligned but rebuilt by code
//!   generation from the block pairing, so only the type must agree.
//!
//! **Needleman–Wunsch** ([`needleman_wunsch`]) with match +2, gap −1 and mismatches forbidden
//! (SalSSA's scoring). With these scores the optimum has the largest number of matches (score =
//! 4·matches − n − m), i.e. a longest common subsequence under the match predicate. The score
//! table is computed row by row; only a 1-byte direction per cell is kept for the traceback, and
//! a cell count above a limit (default 64 Mi cells = 64 MiB) is refused (`None`) instead of
//! risking memory. Traceback walks back from the end and, on equal scores, prefers the diagonal
//! (a match), then a gap in the right sequence (`OnlyLeft`), then a gap in the left one
//! (`OnlyRight`), like SalSSA. Consequently, among equally good alignments, matches are placed as
//! late as possible and, between two adjacent gaps, the `OnlyRight` entry comes first.
//!
//! **HyFM block pairing** ([`align_blocks`], notes §2.4): each block gets an opcode-frequency
//! fingerprint (its instructions plus its successor count). For every block of the right function
//! in layout order, the nearest still-unpaired block of the left function (Manhattan distance,
//! strict `<` so the first in layout order wins ties) is aligned with it by NW over their
//! non-phi, non-landingpad instructions, and the pair is accepted when [`is_sa_profitable`] says
//! the merged block is no larger than the two originals. A rejected right block stays alone and
//! its candidate stays available. Blocks that are EH pads pair only with EH pads whose pad
//! instructions match (a landing pad's clauses decide what it catches), and ordinary blocks only
//! with ordinary ones. Unpaired left blocks are appended at the end in layout order.
//!
//! **Whole-function alignment** ([`align_linear`], SalSSA): the reachable blocks in reverse
//! post-order, each emitted as its label followed by its non-phi, non-landingpad instructions,
//! aligned by one NW. Quadratic in function size, so meant for small functions.

use crate::ir::{FuncData, ModuleTables, Operand, TypeKind, opcode};

/// One entry of a pairwise alignment. Indices are positions in the aligned sequences (for
/// [`align_blocks`] they are instruction indices of the two functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AlignEntry {
    Match(u32, u32),
    OnlyLeft(u32),
    OnlyRight(u32),
}

/// Default limit of [`needleman_wunsch`] (cells of the `(n+1)·(m+1)` table).
pub const DEFAULT_MAX_CELLS: u64 = 64 << 20;

/// Same exact value in both functions: only constants, `SelfRef` and opaque ids can be.
fn identical(x: Operand, y: Operand) -> bool {
    match (x, y) {
        (Operand::Const { id: a, .. }, Operand::Const { id: b, .. }) => a == b,
        (Operand::SelfRef, Operand::SelfRef) => true,
        (Operand::Opaque(a), Operand::Opaque(b)) => a == b,
        _ => false,
    }
}

fn is_fixed(x: Operand) -> bool {
    matches!(x, Operand::Const { role: crate::ir::ConstRole::Fixed, .. })
}

fn operand_pair_ok(t: &ModuleTables, f: &FuncData, x: Operand, g: &FuncData, y: Operand) -> bool {
    match (x, y) {
        (Operand::Block(_), Operand::Block(_)) => return true,
        (Operand::Block(_), _) | (_, Operand::Block(_)) => return false,
        (Operand::Opaque(_), _) | (_, Operand::Opaque(_)) => return identical(x, y),
        _ => {}
    }
    if is_fixed(x) || is_fixed(y) {
        return identical(x, y);
    }
    let (Some(tx), Some(ty)) = (f.operand_type(t, x), g.operand_type(t, y)) else {
        return false;
    };
    if tx != ty {
        return false;
    }
    let is_token = t.types.get(tx.0 as usize).is_some_and(|info| info.kind == TypeKind::Token);
    !is_token || identical(x, y)
}

/// Whether instruction `i` of `f` and instruction `j` of `g` (same module) may become one
/// instruction of a merged function. See the module documentation for the rules.
pub fn insts_match(t: &ModuleTables, f: &FuncData, i: u32, g: &FuncData, j: u32) -> bool {
    let (a, b) = (&f.insts[i as usize], &g.insts[j as usize]);
    if a.opcode != b.opcode || a.opcode == opcode::CALL_BR {
        return false;
    }
    if a.opcode == opcode::PHI {
        return a.ty == b.ty;
    }
    if a.ty != b.ty || a.state != b.state || a.ops.len() != b.ops.len() {
        return false;
    }
    let (xs, ys) = (f.ops(i), g.ops(j));
    if a.opcode == opcode::LANDING_PAD {
        return xs.iter().zip(ys).all(|(&x, &y)| identical(x, y));
    }
    if a.opcode == opcode::CALL || a.opcode == opcode::INVOKE {
        match (xs.last(), ys.last()) {
            (Some(&x), Some(&y)) if identical(x, y) && !matches!(x, Operand::Opaque(_)) => {}
            _ => return false,
        }
    }
    xs.iter().zip(ys).all(|(&x, &y)| operand_pair_ok(t, f, x, g, y))
}

/// Needleman–Wunsch over sequences of lengths `n` and `m`; `is_match(i, j)` says whether left
/// element `i` may be matched with right element `j`. Returns `None` when `(n+1)·(m+1)` exceeds
/// `max_cells`. Entries cover `0..n` and `0..m` exactly once each, in increasing order.
pub fn needleman_wunsch(
    n: usize,
    m: usize,
    max_cells: u64,
    mut is_match: impl FnMut(usize, usize) -> bool,
) -> Option<Vec<AlignEntry>> {
    const DIAG: u8 = 0;
    const UP: u8 = 1; // consume a left element: OnlyLeft
    const LEFT: u8 = 2; // consume a right element: OnlyRight
    let cells = (n as u64).checked_add(1)?.checked_mul((m as u64).checked_add(1)?)?;
    if cells > max_cells {
        return None;
    }
    let w = m + 1;
    let mut dir = vec![0u8; cells as usize];
    let mut prev: Vec<i64> = (0..=m as i64).map(|j| -j).collect();
    let mut cur = vec![0i64; w];
    for d in dir.iter_mut().take(w).skip(1) {
        *d = LEFT;
    }
    for i in 1..=n {
        cur[0] = -(i as i64);
        dir[i * w] = UP;
        for j in 1..=m {
            let up = prev[j] - 1;
            let left = cur[j - 1] - 1;
            let diag = if is_match(i - 1, j - 1) { prev[j - 1] + 2 } else { i64::MIN };
            let (best, d) = if diag >= up && diag >= left {
                (diag, DIAG)
            } else if up >= left {
                (up, UP)
            } else {
                (left, LEFT)
            };
            cur[j] = best;
            dir[i * w + j] = d;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let mut out = Vec::with_capacity(n + m);
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        match dir[i * w + j] {
            DIAG => {
                i -= 1;
                j -= 1;
                out.push(AlignEntry::Match(i as u32, j as u32));
            }
            UP => {
                i -= 1;
                out.push(AlignEntry::OnlyLeft(i as u32));
            }
            _ => {
                j -= 1;
                out.push(AlignEntry::OnlyRight(j as u32));
            }
        }
    }
    out.reverse();
    Some(out)
}

/// HyFM's `isSAProfitable` for the alignment of one block pair (whose labels match): a matched
/// instruction costs 1 in the merged block instead of 2, an unmatched one costs 1 either way, and
/// every switch between shared and guarded code costs a branch: entering a guarded run +1,
/// leaving it +2. Profitable when the merged size does not exceed the original size.
pub fn is_sa_profitable(entries: &[AlignEntry]) -> bool {
    let (mut orig, mut merged) = (0u64, 0u64);
    let mut split = false;
    for e in entries {
        match e {
            AlignEntry::Match(..) => {
                orig += 2;
                merged += 1;
                if split {
                    merged += 2;
                    split = false;
                }
            }
            AlignEntry::OnlyLeft(_) | AlignEntry::OnlyRight(_) => {
                orig += 1;
                merged += 1;
                if !split {
                    merged += 1;
                    split = true;
                }
            }
        }
    }
    merged <= orig
}

/// Counts of an alignment, over the aligned instructions (phis and landing pads excluded, since
/// they are not aligned; labels excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AlignStats {
    /// Matched instruction pairs.
    pub matched: usize,
    /// Aligned instructions of both functions together.
    pub total: usize,
}

impl AlignStats {
    /// Fraction of instructions that share a copy: `2·matched / total` (1 for a perfect match,
    /// 0 when nothing matches or there is nothing to align).
    pub fn ratio(&self) -> f64 {
        if self.total == 0 { 0.0 } else { (2 * self.matched) as f64 / self.total as f64 }
    }
}

/// Alignment options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlignConfig {
    /// NW table limit per alignment (see [`needleman_wunsch`]).
    pub max_cells: u64,
    /// Accept a block pair only when [`is_sa_profitable`] (HyFM's `hyfm-profitability`).
    pub profitability: bool,
}

impl Default for AlignConfig {
    fn default() -> Self {
        AlignConfig { max_cells: DEFAULT_MAX_CELLS, profitability: true }
    }
}

/// One element of a block-level alignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockAlignment {
    /// Block `left` of the left function shares a merged block with block `right`; `insts` aligns
    /// their non-phi, non-landingpad instructions (entries hold instruction indices).
    Paired {
        left: u32,
        right: u32,
        insts: Vec<AlignEntry>,
    },
    OnlyLeft(u32),
    OnlyRight(u32),
}

/// Whole-function result of [`align_blocks`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionAlignment {
    /// Right blocks in layout order (paired or alone), then the unpaired left blocks.
    pub blocks: Vec<BlockAlignment>,
    pub stats: AlignStats,
}

impl FunctionAlignment {
    /// The pairs the alignment made: matched instructions (left → right) and paired blocks
    /// (left → right).
    pub fn pairs(&self) -> Pairs {
        let mut pairs = Pairs::default();
        for b in &self.blocks {
            if let BlockAlignment::Paired { left, right, insts } = b {
                Pairs::set(&mut pairs.paired, *left, *right);
                for e in insts {
                    if let AlignEntry::Match(i, j) = *e {
                        pairs.set_matched(i, j);
                    }
                }
            }
        }
        pairs
    }
}

/// What an alignment pairs, looked up by the left function's ids: dense tables, since the
/// pricing of every candidate pair looks up each operand of each matched instruction.
#[derive(Clone, Debug, Default)]
pub struct Pairs {
    matched: Vec<u32>,
    paired: Vec<u32>,
}

impl Pairs {
    const NONE: u32 = u32::MAX;

    /// The right instruction matched with left instruction `i`.
    pub fn matched(&self, i: u32) -> Option<u32> {
        self.matched.get(i as usize).copied().filter(|&j| j != Self::NONE)
    }

    /// The right block paired with left block `b`.
    pub fn paired(&self, b: u32) -> Option<u32> {
        self.paired.get(b as usize).copied().filter(|&c| c != Self::NONE)
    }

    /// Matches left instruction `i` with right instruction `j` (replacing any match of `i`).
    pub fn set_matched(&mut self, i: u32, j: u32) {
        Self::set(&mut self.matched, i, j);
    }

    fn set(table: &mut Vec<u32>, left: u32, right: u32) {
        let k = left as usize;
        if table.len() <= k {
            table.resize(k + 1, Self::NONE);
        }
        table[k] = right;
    }
}

/// Whether two invokes the alignment matches unwind to blocks it does not pair. Their merged
/// body cannot be built: one invoke has one unwind edge, and it must reach a landing pad
/// directly (no dispatch block can choose between two). Such a pair is given up before its
/// body is built.
pub fn unwinds_apart(f: &FuncData, g: &FuncData, align: &FunctionAlignment) -> bool {
    let pairs = align.pairs();
    align.blocks.iter().any(|b| {
        let BlockAlignment::Paired { left, right, insts } = b else { return false };
        let (bl, br) = (&f.blocks[*left as usize], &g.blocks[*right as usize]);
        // An invoke ends its block.
        let (i, j) = (bl.insts.end - 1, br.insts.end - 1);
        let invokes = f.insts[i as usize].opcode == opcode::INVOKE
            && g.insts[j as usize].opcode == opcode::INVOKE;
        if !invokes || !insts.contains(&AlignEntry::Match(i, j)) {
            return false;
        }
        // Successors in terminator order: normal destination, then unwind destination.
        match (bl.succs.get(1), br.succs.get(1)) {
            (Some(&u), Some(&v)) => pairs.paired(u) != Some(v),
            _ => true,
        }
    })
}

/// Instructions of block `b` that take part in alignment (not phis, not landing pads).
pub fn aligned_insts(f: &FuncData, b: u32) -> Vec<u32> {
    f.blocks[b as usize]
        .insts
        .clone()
        .filter(|&i| !matches!(f.insts[i as usize].opcode, opcode::PHI | opcode::LANDING_PAD))
        .collect()
}

/// The instructions of `f` an alignment counts in [`AlignStats::total`] (not phis or landing
/// pads).
pub fn aligned_count(f: &FuncData) -> usize {
    f.insts.iter().filter(|i| !matches!(i.opcode, opcode::PHI | opcode::LANDING_PAD)).count()
}

/// First non-phi instruction of a block (the pad of an EH pad block).
fn first_non_phi(f: &FuncData, b: u32) -> Option<u32> {
    f.blocks[b as usize].insts.clone().find(|&i| f.insts[i as usize].opcode != opcode::PHI)
}

/// Whether block `bf` of `f` and block `bg` of `g` may share a merged block: ordinary blocks
/// always, EH pads only with EH pads whose pad instructions match.
pub fn blocks_compatible(t: &ModuleTables, f: &FuncData, bf: u32, g: &FuncData, bg: u32) -> bool {
    let (pf, pg) = (f.blocks[bf as usize].is_eh_pad, g.blocks[bg as usize].is_eh_pad);
    match (pf, pg) {
        (false, false) => true,
        (true, true) => match (first_non_phi(f, bf), first_non_phi(g, bg)) {
            (Some(i), Some(j)) => insts_match(t, f, i, g, j),
            _ => false,
        },
        _ => false,
    }
}

/// Slots of a block fingerprint: slot 0 counts successors (no opcode is 0), slot `op` counts
/// opcode `op`, and slot `opcode::COUNT` collects opcode numbers this table does not know.
const BLOCK_SLOTS: usize = opcode::COUNT + 1;

fn block_fingerprint(f: &FuncData, b: u32) -> [u32; BLOCK_SLOTS] {
    let mut fp = [0u32; BLOCK_SLOTS];
    let block = &f.blocks[b as usize];
    fp[0] = block.succs.len() as u32;
    for i in block.insts.clone() {
        let op = f.insts[i as usize].opcode as usize;
        fp[op.min(opcode::COUNT)] += 1;
    }
    fp
}

/// The Manhattan distance of two block fingerprints (the reference the sparse form below must
/// agree with).
#[cfg(test)]
fn manhattan(a: &[u32; BLOCK_SLOTS], b: &[u32; BLOCK_SLOTS]) -> u64 {
    a.iter().zip(b).map(|(&x, &y)| u64::from(x.abs_diff(y))).sum()
}

/// A block fingerprint as its non-zero slots and their sum. A block uses a handful of the
/// opcode slots, so the distance to a dense fingerprint costs a few steps instead of one per
/// slot (the dense scan over every left block was most of a pairing's time on large
/// functions).
struct SparseFingerprint {
    total: u64,
    slots: Vec<(u8, u32)>,
}

impl SparseFingerprint {
    fn new(fp: &[u32; BLOCK_SLOTS]) -> Self {
        let slots: Vec<(u8, u32)> =
            fp.iter().enumerate().filter(|(_, c)| **c != 0).map(|(k, &c)| (k as u8, c)).collect();
        SparseFingerprint { total: fp.iter().map(|&c| u64::from(c)).sum(), slots }
    }

    /// The Manhattan distance to the dense fingerprint `b` whose slots sum to `b_total`:
    /// Σ|a − b| = Σa + Σb − 2·Σmin(a, b), and min(a, b) is 0 wherever `a` is.
    fn distance(&self, b: &[u32; BLOCK_SLOTS], b_total: u64) -> u64 {
        let common: u64 = self.slots.iter().map(|&(k, c)| u64::from(c.min(b[k as usize]))).sum();
        self.total + b_total - 2 * common
    }
}

/// HyFM block pairing of `f` (left) and `g` (right); see the module documentation.
pub fn align_blocks(
    t: &ModuleTables,
    f: &FuncData,
    g: &FuncData,
    cfg: &AlignConfig,
) -> FunctionAlignment {
    let nf = f.blocks.len();
    let fps_f: Vec<SparseFingerprint> =
        (0..nf as u32).map(|b| SparseFingerprint::new(&block_fingerprint(f, b))).collect();
    let mut free = vec![true; nf];
    // The unpaired left blocks, in layout order (the nearest one is searched among these).
    let mut free_list: Vec<u32> = (0..nf as u32).collect();
    let mut blocks = Vec::with_capacity(nf + g.blocks.len());
    let mut matched = 0usize;
    for bg in 0..g.blocks.len() as u32 {
        let fg = block_fingerprint(g, bg);
        let fg_total: u64 = fg.iter().map(|&c| u64::from(c)).sum();
        // The first free, compatible left block at the least distance. A block whose
        // distance cannot be below the best so far (it is at least the difference of the
        // totals) is skipped before anything else is computed, and compatibility (which
        // may compare pad instructions) is only asked of a block that would win.
        let mut best: Option<(u64, u32)> = None;
        for &bf in &free_list {
            let fp = &fps_f[bf as usize];
            if best.is_some_and(|(bd, _)| fp.total.abs_diff(fg_total) >= bd) {
                continue;
            }
            let d = fp.distance(&fg, fg_total);
            if best.is_none_or(|(bd, _)| d < bd) && blocks_compatible(t, f, bf, g, bg) {
                best = Some((d, bf));
            }
        }
        let paired = best.and_then(|(_, bf)| {
            let (li, ri) = (aligned_insts(f, bf), aligned_insts(g, bg));
            let entries = needleman_wunsch(li.len(), ri.len(), cfg.max_cells, |a, b| {
                insts_match(t, f, li[a], g, ri[b])
            })?;
            if cfg.profitability && !is_sa_profitable(&entries) {
                return None;
            }
            let insts: Vec<AlignEntry> = entries
                .into_iter()
                .map(|e| match e {
                    AlignEntry::Match(a, b) => AlignEntry::Match(li[a as usize], ri[b as usize]),
                    AlignEntry::OnlyLeft(a) => AlignEntry::OnlyLeft(li[a as usize]),
                    AlignEntry::OnlyRight(b) => AlignEntry::OnlyRight(ri[b as usize]),
                })
                .collect();
            Some((bf, insts))
        });
        match paired {
            Some((bf, insts)) => {
                free[bf as usize] = false;
                free_list.retain(|&b| b != bf);
                matched += insts.iter().filter(|e| matches!(e, AlignEntry::Match(..))).count();
                blocks.push(BlockAlignment::Paired { left: bf, right: bg, insts });
            }
            None => blocks.push(BlockAlignment::OnlyRight(bg)),
        }
    }
    blocks.extend((0..nf as u32).filter(|&b| free[b as usize]).map(BlockAlignment::OnlyLeft));
    let stats = AlignStats { matched, total: aligned_count(f) + aligned_count(g) };
    FunctionAlignment { blocks, stats }
}

/// Reachable blocks in reverse post-order of a depth-first walk from the entry that visits
/// successors in terminator order.
pub fn reverse_post_order(f: &FuncData) -> Vec<u32> {
    let nb = f.blocks.len();
    if nb == 0 {
        return Vec::new();
    }
    let mut seen = vec![false; nb];
    let mut post = Vec::with_capacity(nb);
    let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (b, next) = *top;
        let succs = &f.blocks[b as usize].succs;
        if next < succs.len() {
            top.1 += 1;
            let s = succs[next];
            if !seen[s as usize] {
                seen[s as usize] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// One element of a linearized function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    /// The start of block `b`.
    Label(u32),
    /// Instruction `i`.
    Inst(u32),
}

/// SalSSA's linearization: reachable blocks in reverse post-order, each as its label followed by
/// its non-phi, non-landingpad instructions.
pub fn linearize(f: &FuncData) -> Vec<Item> {
    let mut out = Vec::with_capacity(f.insts.len() + f.blocks.len());
    for b in reverse_post_order(f) {
        out.push(Item::Label(b));
        out.extend(aligned_insts(f, b).into_iter().map(Item::Inst));
    }
    out
}

/// Result of [`align_linear`]: entries index into `left` and `right`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearAlignment {
    pub left: Vec<Item>,
    pub right: Vec<Item>,
    pub entries: Vec<AlignEntry>,
    /// Counts instructions only (labels excluded).
    pub stats: AlignStats,
}

/// Whether two linearized items may be matched: labels with compatible blocks, instructions by
/// [`insts_match`].
pub fn items_match(t: &ModuleTables, f: &FuncData, x: Item, g: &FuncData, y: Item) -> bool {
    match (x, y) {
        (Item::Label(a), Item::Label(b)) => blocks_compatible(t, f, a, g, b),
        (Item::Inst(i), Item::Inst(j)) => insts_match(t, f, i, g, j),
        _ => false,
    }
}

/// SalSSA whole-function alignment; `None` when the NW table would exceed `max_cells`.
pub fn align_linear(
    t: &ModuleTables,
    f: &FuncData,
    g: &FuncData,
    max_cells: u64,
) -> Option<LinearAlignment> {
    let (left, right) = (linearize(f), linearize(g));
    let entries = needleman_wunsch(left.len(), right.len(), max_cells, |a, b| {
        items_match(t, f, left[a], g, right[b])
    })?;
    let matched = entries
        .iter()
        .filter(
            |e| matches!(e, AlignEntry::Match(a, _) if matches!(left[*a as usize], Item::Inst(_))),
        )
        .count();
    let count = |v: &[Item]| v.iter().filter(|x| matches!(x, Item::Inst(_))).count();
    let stats = AlignStats { matched, total: count(&left) + count(&right) };
    Some(LinearAlignment { left, right, entries, stats })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ConstRole, FuncData, Operand, opcode};
    use crate::testkit::*;
    use proptest::prelude::*;

    fn fixed(k: usize) -> Operand {
        Operand::Const { id: C_I32[k], role: ConstRole::Fixed }
    }

    /// One block holding `insts` then `ret void`.
    fn func(insts: &[(u32, crate::ir::TypeId, usize, Vec<Operand>)]) -> FuncData {
        let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
        for (op, ty, st, ops) in insts {
            b.inst(*op, *ty, S[*st], ops);
        }
        b.inst(opcode::RET, VOID, S[0], &[]);
        b.end_block(&[], false);
        b.finish()
    }

    fn m(f: &FuncData, g: &FuncData) -> bool {
        insts_match(&tables(), f, 0, g, 0)
    }

    /// `invoke callee(0)` to block 1 (returns) or to a landing pad: block 2, or block 3 with
    /// `unwind_last` (blocks 2 and 3 are the same landing pad).
    fn invoking(unwind_last: bool) -> FuncData {
        let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
        b.inst(opcode::INVOKE, VOID, S[0], &[Operand::Block(1), Operand::Block(2), callee(0)]);
        b.end_block(&[1, if unwind_last { 3 } else { 2 }], false);
        b.inst(opcode::RET, VOID, S[0], &[]);
        b.end_block(&[], false);
        for _ in 0..2 {
            b.inst(opcode::LANDING_PAD, TOKEN, S[0], &[]);
            b.inst(opcode::RESUME, VOID, S[0], &[]);
            b.end_block(&[], true);
        }
        b.finish()
    }

    #[test]
    fn matched_invokes_must_unwind_to_paired_blocks() {
        let pair = |l, r| BlockAlignment::Paired { left: l, right: r, insts: vec![] };
        let invokes =
            BlockAlignment::Paired { left: 0, right: 0, insts: vec![AlignEntry::Match(0, 0)] };
        let aligned = |blocks| FunctionAlignment { blocks, stats: AlignStats::default() };
        let (f, g) = (invoking(false), invoking(true));
        // f unwinds to its block 2, g to its block 3.
        let together = aligned(vec![invokes.clone(), pair(1, 1), pair(2, 3), pair(3, 2)]);
        assert!(!unwinds_apart(&f, &g, &together));
        let apart = aligned(vec![invokes.clone(), pair(1, 1), pair(2, 2), pair(3, 3)]);
        assert!(unwinds_apart(&f, &g, &apart));
        let alone = aligned(vec![
            invokes,
            pair(1, 1),
            BlockAlignment::OnlyLeft(2),
            BlockAlignment::OnlyRight(3),
        ]);
        assert!(unwinds_apart(&f, &g, &alone));
        // Invokes that the alignment does not match are built apart: nothing to check.
        let unmatched = BlockAlignment::Paired {
            left: 0,
            right: 0,
            insts: vec![AlignEntry::OnlyLeft(0), AlignEntry::OnlyRight(0)],
        };
        assert!(!unwinds_apart(&f, &g, &aligned(vec![unmatched, pair(1, 1)])));
    }

    #[test]
    fn match_needs_same_opcode_type_state_and_arity() {
        let add = func(&[(opcode::ADD, I32, 0, vec![Operand::Arg(1), cv(1)])]);
        let add_other_values = func(&[(opcode::ADD, I32, 0, vec![cv(2), Operand::Arg(1)])]);
        let sub = func(&[(opcode::SUB, I32, 0, vec![Operand::Arg(1), cv(1)])]);
        let add_nsw = func(&[(opcode::ADD, I32, 1, vec![Operand::Arg(1), cv(1)])]);
        let add64 = func(&[(opcode::ADD, I64, 0, vec![Operand::Arg(1), cv(1)])]);
        let add3 = func(&[(opcode::ADD, I32, 0, vec![Operand::Arg(1), cv(1), cv(1)])]);
        assert!(m(&add, &add_other_values), "different values can be selected");
        assert!(!m(&add, &sub));
        assert!(!m(&add, &add_nsw));
        assert!(!m(&add, &add64));
        assert!(!m(&add, &add3));
    }

    #[test]
    fn operand_types_must_agree() {
        let z32 = func(&[(opcode::ZEXT, I64, 0, vec![Operand::Arg(1)])]);
        let zptr = func(&[(opcode::ZEXT, I64, 0, vec![Operand::Arg(0)])]);
        assert!(!m(&z32, &zptr));
    }

    #[test]
    fn fixed_constants_and_opaque_operands_must_be_identical() {
        let gep = |c: Operand| func(&[(opcode::GEP, PTR, 0, vec![Operand::Arg(0), c])]);
        assert!(m(&gep(fixed(1)), &gep(fixed(1))));
        assert!(!m(&gep(fixed(1)), &gep(fixed(2))));
        assert!(
            !m(&gep(fixed(1)), &gep(Operand::Arg(1))),
            "a fixed constant cannot pair with a value"
        );
        assert!(m(&gep(cv(1)), &gep(Operand::Arg(1))), "a value constant can");
        let asm = |k: u32| func(&[(opcode::CALL, VOID, 0, vec![Operand::Opaque(k), callee(0)])]);
        assert!(m(&asm(3), &asm(3)));
        assert!(!m(&asm(3), &asm(4)));
    }

    #[test]
    fn calls_need_the_same_callee() {
        let call = |c: Operand, arg: Operand| func(&[(opcode::CALL, VOID, 0, vec![arg, c])]);
        assert!(m(&call(callee(0), cv(1)), &call(callee(0), Operand::Arg(1))));
        assert!(!m(&call(callee(0), cv(1)), &call(callee(1), cv(1))), "no select of callees");
        assert!(m(&call(Operand::SelfRef, cv(1)), &call(Operand::SelfRef, cv(1))));
        assert!(!m(&call(Operand::SelfRef, cv(1)), &call(callee(0), cv(1))));
        // Indirect calls (callee is a value) never match, not even the same argument.
        assert!(!m(&call(Operand::Arg(0), cv(1)), &call(Operand::Arg(0), cv(1))));
        // Invoke: callee last too.
        let inv = |c: Operand| {
            let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
            b.inst(opcode::INVOKE, VOID, S[0], &[cv(0), Operand::Block(1), Operand::Block(1), c]);
            b.end_block(&[1, 1], false);
            b.inst(opcode::RET, VOID, S[0], &[]);
            b.end_block(&[], false);
            b.finish()
        };
        assert!(m(&inv(callee(2)), &inv(callee(2))));
        assert!(!m(&inv(callee(2)), &inv(callee(1))));
    }

    #[test]
    fn token_operands_match_only_as_the_same_constant() {
        let none = Operand::Const { id: C_TOKEN_NONE, role: ConstRole::Value };
        let pad = |parent: Operand| func(&[(opcode::CLEANUP_PAD, TOKEN, 0, vec![parent])]);
        assert!(m(&pad(none), &pad(none)));
        // A token produced by an instruction: never, even at the same index.
        let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
        b.inst(opcode::CLEANUP_PAD, TOKEN, S[0], &[none]);
        b.inst(opcode::CLEANUP_RET, VOID, S[0], &[Operand::Inst(0)]);
        b.end_block(&[], true);
        let f = b.finish();
        assert!(insts_match(&tables(), &f, 0, &f, 0));
        assert!(!insts_match(&tables(), &f, 1, &f, 1));
    }

    #[test]
    fn callbr_never_and_phis_by_type_only() {
        let cb = func(&[(opcode::CALL_BR, VOID, 0, vec![callee(0)])]);
        assert!(!m(&cb, &cb));
        let phi = |ty, st, ops: Vec<Operand>| func(&[(opcode::PHI, ty, st, ops)]);
        let p1 = phi(I32, 0, vec![cv(1), Operand::Block(0)]);
        let p2 = phi(I32, 2, vec![cv(1), cv(2), Operand::Block(0), Operand::Block(0)]);
        assert!(m(&p1, &p2), "phis are rebuilt, only the type counts");
        assert!(!m(&p1, &phi(I64, 0, vec![cv(1), Operand::Block(0)])));
    }

    #[test]
    fn landingpads_need_identical_clauses() {
        let lp = |clause: Operand| func(&[(opcode::LANDING_PAD, I32, 0, vec![clause])]);
        let clause = |k: usize| Operand::Const { id: C_FN[k], role: ConstRole::Fixed };
        assert!(m(&lp(clause(1)), &lp(clause(1))));
        assert!(!m(&lp(clause(1)), &lp(clause(2))));
        assert!(!m(
            &lp(clause(1)),
            &func(&[(opcode::LANDING_PAD, I32, 0, vec![clause(1), clause(2)])])
        ));
    }

    #[test]
    fn nw_places_ties_as_documented() {
        // [a] vs [a, a]: the match goes to the later right element.
        let e = needleman_wunsch(1, 2, DEFAULT_MAX_CELLS, |_, _| true).unwrap();
        assert_eq!(e, vec![AlignEntry::OnlyRight(0), AlignEntry::Match(0, 1)]);
        // [x] vs [y]: two gaps; traceback takes the gap in the right first, so it ends up last.
        let e = needleman_wunsch(1, 1, DEFAULT_MAX_CELLS, |_, _| false).unwrap();
        assert_eq!(e, vec![AlignEntry::OnlyRight(0), AlignEntry::OnlyLeft(0)]);
        // Empty sides.
        assert_eq!(
            needleman_wunsch(0, 2, 100, |_, _| true).unwrap(),
            vec![AlignEntry::OnlyRight(0), AlignEntry::OnlyRight(1)]
        );
        assert_eq!(needleman_wunsch(0, 0, 100, |_, _| true).unwrap(), vec![]);
    }

    #[test]
    fn nw_refuses_tables_above_the_limit() {
        assert!(needleman_wunsch(9, 9, 100, |_, _| true).is_some());
        assert!(needleman_wunsch(10, 9, 100, |_, _| true).is_none());
        assert!(needleman_wunsch(usize::MAX, usize::MAX, u64::MAX, |_, _| true).is_none());
    }

    #[test]
    fn sa_profitability_charges_region_switches() {
        use AlignEntry::*;
        assert!(is_sa_profitable(&[Match(0, 0), Match(1, 1)]));
        assert!(is_sa_profitable(&[]));
        // One unmatched: orig 1, merged 2.
        assert!(!is_sa_profitable(&[OnlyLeft(0)]));
        // M U M: orig 5, merged 1 + (1+1) + (1+2) = 6.
        assert!(!is_sa_profitable(&[Match(0, 0), OnlyLeft(1), Match(1, 2)]));
        // M M U M M: orig 9, merged 2 + 2 + 3 = 7.
        assert!(is_sa_profitable(&[
            Match(0, 0),
            Match(1, 1),
            OnlyRight(2),
            Match(2, 3),
            Match(3, 4)
        ]));
    }

    fn two_blocks(
        first: &[(u32, crate::ir::TypeId, Vec<Operand>)],
        second: &[(u32, crate::ir::TypeId, Vec<Operand>)],
    ) -> FuncData {
        let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
        for (op, ty, ops) in first {
            b.inst(*op, *ty, S[0], ops);
        }
        b.inst(opcode::BR, VOID, S[0], &[Operand::Block(1)]);
        b.end_block(&[1], false);
        for (op, ty, ops) in second {
            b.inst(*op, *ty, S[0], ops);
        }
        b.inst(opcode::RET, VOID, S[0], &[]);
        b.end_block(&[], false);
        b.finish()
    }

    #[test]
    fn hyfm_pairs_nearest_blocks_and_rejects_unprofitable_pairs() {
        let t = tables();
        let loads = vec![(opcode::LOAD, I32, vec![Operand::Arg(0)]); 4];
        let calls = vec![(opcode::CALL, VOID, vec![cv(0), callee(0)]); 3];
        // f: [loads] [calls];  g: [calls] [loads] (blocks swapped in layout).
        let f = two_blocks(&loads, &calls);
        let g = two_blocks(&calls, &loads);
        let a = align_blocks(&t, &f, &g, &AlignConfig::default());
        let pairs: Vec<(u32, u32)> = a
            .blocks
            .iter()
            .filter_map(|b| match b {
                BlockAlignment::Paired { left, right, .. } => Some((*left, *right)),
                _ => None,
            })
            .collect();
        assert_eq!(pairs.len(), 2);
        // g's block 0 (calls + br) is nearer to f's calls block (distance 3) than to its loads
        // block (distance 7), and g's loads block then takes the remaining one.
        assert!(pairs.contains(&(1, 0)) && pairs.contains(&(0, 1)), "{pairs:?}");
        // Everything but the two terminators (br vs ret) matches.
        assert_eq!(a.stats.total, 2 * 9);
        assert_eq!(a.stats.matched, 7);
        // A block whose only candidate shares nothing stays alone on both sides.
        let h = two_blocks(
            &[(opcode::ZEXT, I64, vec![Operand::Arg(1)])],
            &[(opcode::ZEXT, I64, vec![Operand::Arg(1)])],
        );
        let b = align_blocks(&t, &f, &h, &AlignConfig::default());
        assert_eq!(b.stats.matched, 0);
        assert!(b.blocks.iter().all(|x| !matches!(x, BlockAlignment::Paired { .. })));
        assert_eq!(b.blocks.len(), 4);
        // Without profitability, the nearest block is taken anyway.
        let c = align_blocks(
            &t,
            &f,
            &h,
            &AlignConfig { profitability: false, ..AlignConfig::default() },
        );
        assert!(c.blocks.iter().any(|x| matches!(x, BlockAlignment::Paired { .. })));
    }

    #[test]
    fn eh_pads_pair_only_with_matching_eh_pads() {
        let t = tables();
        let clause = |k: usize| Operand::Const { id: C_FN[k], role: ConstRole::Fixed };
        let with_pad = |k: usize| {
            let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
            b.inst(opcode::INVOKE, VOID, S[0], &[Operand::Block(1), Operand::Block(2), callee(0)]);
            b.end_block(&[1, 2], false);
            b.inst(opcode::RET, VOID, S[0], &[]);
            b.end_block(&[], false);
            b.inst(opcode::LANDING_PAD, I32, S[0], &[clause(k)]);
            b.inst(opcode::RESUME, VOID, S[0], &[Operand::Inst(2)]);
            b.end_block(&[], true);
            b.finish()
        };
        let (f, g, h) = (with_pad(1), with_pad(1), with_pad(2));
        assert!(blocks_compatible(&t, &f, 2, &g, 2));
        assert!(!blocks_compatible(&t, &f, 2, &h, 2));
        assert!(!blocks_compatible(&t, &f, 1, &g, 2));
        let a = align_blocks(&t, &f, &h, &AlignConfig::default());
        assert!(a.blocks.contains(&BlockAlignment::OnlyRight(2)));
        assert!(a.blocks.contains(&BlockAlignment::OnlyLeft(2)));
        // The landing pad is not part of the instruction alignment.
        let same = align_blocks(&t, &f, &g, &AlignConfig::default());
        assert_eq!(same.stats.total, 2 * 3);
        assert_eq!(same.stats.matched, 3);
    }

    #[test]
    fn linearization_is_reverse_post_order_of_reachable_blocks() {
        // 0 -> 2, 0 -> 1, 1 -> 3, 2 -> 3, block 4 unreachable.
        let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
        let c = b.inst(opcode::ICMP, I1, S[1], &[Operand::Arg(1), cv(0)]);
        b.inst(opcode::BR, VOID, S[0], &[Operand::Inst(c), Operand::Block(2), Operand::Block(1)]);
        b.end_block(&[2, 1], false);
        b.inst(opcode::BR, VOID, S[0], &[Operand::Block(3)]);
        b.end_block(&[3], false);
        b.inst(opcode::BR, VOID, S[0], &[Operand::Block(3)]);
        b.end_block(&[3], false);
        b.inst(opcode::PHI, I32, S[0], &[cv(1), cv(2), Operand::Block(1), Operand::Block(2)]);
        b.inst(opcode::RET, VOID, S[0], &[]);
        b.end_block(&[], false);
        b.inst(opcode::UNREACHABLE, VOID, S[0], &[]);
        b.end_block(&[], false);
        let f = b.finish();
        // DFS visits 2 first (first successor), then 1: post order 3, 2, 1, 0.
        assert_eq!(reverse_post_order(&f), vec![0, 1, 2, 3]);
        let lin = linearize(&f);
        assert_eq!(
            lin,
            vec![
                Item::Label(0),
                Item::Inst(0),
                Item::Inst(1),
                Item::Label(1),
                Item::Inst(2),
                Item::Label(2),
                Item::Inst(3),
                Item::Label(3),
                Item::Inst(5)
            ],
            "phi skipped, unreachable block absent"
        );
        let a = align_linear(&tables(), &f, &f, DEFAULT_MAX_CELLS).unwrap();
        assert_eq!(a.stats, AlignStats { matched: 5, total: 10 });
        assert!(align_linear(&tables(), &f, &f, 10).is_none());
    }

    fn check_cover(entries: &[AlignEntry], n: usize, m: usize) -> Result<(), TestCaseError> {
        let (mut li, mut ri) = (Vec::new(), Vec::new());
        for e in entries {
            match *e {
                AlignEntry::Match(a, b) => {
                    li.push(a);
                    ri.push(b);
                }
                AlignEntry::OnlyLeft(a) => li.push(a),
                AlignEntry::OnlyRight(b) => ri.push(b),
            }
        }
        prop_assert_eq!(li, (0..n as u32).collect::<Vec<_>>());
        prop_assert_eq!(ri, (0..m as u32).collect::<Vec<_>>());
        Ok(())
    }

    /// Longest common subsequence under a predicate (reference for NW optimality).
    fn lcs(n: usize, m: usize, p: impl Fn(usize, usize) -> bool) -> usize {
        let mut d = vec![vec![0usize; m + 1]; n + 1];
        for i in 1..=n {
            for j in 1..=m {
                d[i][j] = d[i - 1][j].max(d[i][j - 1]);
                if p(i - 1, j - 1) {
                    d[i][j] = d[i][j].max(d[i - 1][j - 1] + 1);
                }
            }
        }
        d[n][m]
    }

    proptest! {
        #[test]
        fn sparse_block_distance_is_the_manhattan_distance(
            a in prop::collection::vec((0usize..BLOCK_SLOTS, 0u32..5), 0..12),
            b in prop::collection::vec((0usize..BLOCK_SLOTS, 0u32..5), 0..12),
        ) {
            let dense = |v: &[(usize, u32)]| {
                let mut fp = [0u32; BLOCK_SLOTS];
                for &(k, c) in v {
                    fp[k] += c;
                }
                fp
            };
            let (da, db) = (dense(&a), dense(&b));
            let total: u64 = db.iter().map(|&c| u64::from(c)).sum();
            prop_assert_eq!(SparseFingerprint::new(&da).distance(&db, total), manhattan(&da, &db));
        }

        #[test]
        fn nw_covers_both_sides_in_order_and_is_optimal(
            a in prop::collection::vec(0u8..4, 0..30),
            b in prop::collection::vec(0u8..4, 0..30),
        ) {
            let p = |i: usize, j: usize| a[i] == b[j];
            let e = needleman_wunsch(a.len(), b.len(), DEFAULT_MAX_CELLS, p).unwrap();
            check_cover(&e, a.len(), b.len())?;
            let matches = e.iter().filter(|x| matches!(x, AlignEntry::Match(..))).count();
            for x in &e {
                if let AlignEntry::Match(i, j) = *x {
                    prop_assert!(p(i as usize, j as usize));
                }
            }
            prop_assert_eq!(matches, lcs(a.len(), b.len(), p));
        }

        #[test]
        fn aligning_a_function_with_itself_matches_everything(r in recipe()) {
            let t = tables();
            let f = build(&r);
            let a = align_blocks(&t, &f, &f, &AlignConfig::default());
            prop_assert_eq!(a.stats.matched * 2, a.stats.total);
            prop_assert_eq!(a.stats.ratio(), 1.0);
            for (k, b) in a.blocks.iter().enumerate() {
                let is_identity = matches!(b, BlockAlignment::Paired { left, right, .. } if *left as usize == k && *right as usize == k);
                prop_assert!(is_identity);
            }
            let l = align_linear(&t, &f, &f, DEFAULT_MAX_CELLS).unwrap();
            prop_assert_eq!(l.stats.matched * 2, l.stats.total);
            prop_assert!(l.entries.iter().all(|e| matches!(e, AlignEntry::Match(a, b) if a == b)));
        }

        #[test]
        fn block_alignment_covers_everything_once_and_matches_are_legal(r1 in recipe(), r2 in recipe()) {
            let t = tables();
            let (f, g) = (build(&r1), build(&r2));
            let a = align_blocks(&t, &f, &g, &AlignConfig::default());
            let (mut lb, mut rb) = (Vec::new(), Vec::new());
            let mut matched = 0;
            for b in &a.blocks {
                match b {
                    BlockAlignment::Paired { left, right, insts } => {
                        lb.push(*left);
                        rb.push(*right);
                        let (li, ri) = (aligned_insts(&f, *left), aligned_insts(&g, *right));
                        // Map instruction indices back to positions and check coverage.
                        let pos = |v: &[u32], x: u32| v.iter().position(|&y| y == x).unwrap() as u32;
                        let local: Vec<AlignEntry> = insts.iter().map(|e| match *e {
                            AlignEntry::Match(x, y) => AlignEntry::Match(pos(&li, x), pos(&ri, y)),
                            AlignEntry::OnlyLeft(x) => AlignEntry::OnlyLeft(pos(&li, x)),
                            AlignEntry::OnlyRight(y) => AlignEntry::OnlyRight(pos(&ri, y)),
                        }).collect();
                        check_cover(&local, li.len(), ri.len())?;
                        for e in insts {
                            if let AlignEntry::Match(x, y) = *e {
                                prop_assert!(insts_match(&t, &f, x, &g, y));
                                matched += 1;
                            }
                        }
                        prop_assert!(is_sa_profitable(insts));
                    }
                    BlockAlignment::OnlyLeft(x) => lb.push(*x),
                    BlockAlignment::OnlyRight(y) => rb.push(*y),
                }
            }
            lb.sort_unstable();
            rb.sort_unstable();
            prop_assert_eq!(lb, (0..f.blocks.len() as u32).collect::<Vec<_>>());
            prop_assert_eq!(rb, (0..g.blocks.len() as u32).collect::<Vec<_>>());
            prop_assert_eq!(a.stats.matched, matched);
            prop_assert_eq!(a.stats.total, f.insts.len() + g.insts.len());

            let l = align_linear(&t, &f, &g, DEFAULT_MAX_CELLS).unwrap();
            check_cover(&l.entries, l.left.len(), l.right.len())?;
            for e in &l.entries {
                if let AlignEntry::Match(x, y) = *e {
                    prop_assert!(items_match(&t, &f, l.left[x as usize], &g, l.right[y as usize]));
                }
            }
        }
    }
}
