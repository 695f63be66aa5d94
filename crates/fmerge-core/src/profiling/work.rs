//! Dynamic work: how many IR instructions a profiled run executes, and how many a merge adds.
//!
//! The unit is one executed IR instruction. A module built with a PGO profile gives every block
//! a count (entry count × the block's frequency); a function's work is Σ count(block) ×
//! instructions(block), and the program's work the sum over its functions. A merge adds work
//! in three places, each priced at the count of the original code it stands for:
//!
//! - **calls**: a member that becomes a thunk adds one jump per call ([`THUNK_WORK`]), plus
//!   one per argument it passes beyond its own ([`ARG_WORK`]: constants, the function id); a
//!   member whose call sites are rewritten adds the extra arguments per call;
//! - **constants as parameters** (merging with constants): each instruction that used a
//!   constant now reads a parameter ([`SITE_WORK`] per execution of its block, summed over
//!   the members);
//! - **differences inside a similar merge**: per paired block, one `select` per differing
//!   operand ([`SELECT_WORK`], a differing branch target is a dispatch branch at the same
//!   price), two branches per run of instructions only one side has ([`DIAMOND_WORK`]), all
//!   executed as often as the two original blocks together; and the entry's branch on the
//!   function id once per call.
//!
//! What the estimate leaves out: `select`s on edges where a shared phi takes different values
//! from the two functions, optimizations a constant allowed and a parameter no longer
//! does (strength reduction, unrolling by a known count), values carried across joins, and
//! machine-level effects (register pressure, layout). It counts IR instructions, not cycles.

use crate::align::{AlignEntry, BlockAlignment, FunctionAlignment};
use crate::ir::{FuncData, Operand};

/// A thunk's jump (`tail call` becomes `jmp`), per call.
pub const THUNK_WORK: u64 = 1;
/// Each argument a thunk or a rewritten call site passes beyond the member's own, per call.
pub const ARG_WORK: u64 = 1;
/// An instruction that read a constant and now reads a parameter, per execution.
pub const SITE_WORK: u64 = 1;
/// A `select` on the function id (or a dispatch branch), per execution.
pub const SELECT_WORK: u64 = 1;
/// A run of one side's instructions: a branch on the function id there and one back.
pub const DIAMOND_WORK: u64 = 2;

/// The work of one function: Σ count × instructions over its blocks (`counts` and `sizes` in
/// the same block order; missing entries count as 0).
pub fn function_work(counts: &[u64], sizes: &[u64]) -> u64 {
    counts.iter().zip(sizes).fold(0u64, |acc, (&c, &n)| acc.saturating_add(c.saturating_mul(n)))
}

/// The work a member's calls add: `calls` times a jump if it becomes a thunk, plus
/// `extra_args` arguments.
pub fn call_work(calls: u64, thunk: bool, extra_args: usize) -> u64 {
    let per_call = if thunk { THUNK_WORK } else { 0 } + ARG_WORK * extra_args as u64;
    calls.saturating_mul(per_call)
}

/// The work that parameterized constant sites add: `site_counts` holds, for each site, how
/// often its block ran (summed over the members).
pub fn sites_work(site_counts: impl IntoIterator<Item = u64>) -> u64 {
    site_counts.into_iter().fold(0u64, |acc, c| acc.saturating_add(c.saturating_mul(SITE_WORK)))
}

/// The block of each instruction of `f`.
pub fn block_of_insts(f: &FuncData) -> Vec<u32> {
    let mut out = vec![0u32; f.insts.len()];
    for (b, block) in f.blocks.iter().enumerate() {
        for i in block.insts.clone() {
            out[i as usize] = b as u32;
        }
    }
    out
}

/// The work a similar merge of `f` and `g` adds inside the merged body (see the module
/// documentation), with `cf` and `cg` the block counts of `f` and `g` (layout order; a block
/// without a count counts 0). The same alignment the body is built from; the same rules as
/// [`crate::profit::predict_merged_units`] for what becomes a `select` or a diamond.
pub fn similar_body_work(
    f: &FuncData,
    g: &FuncData,
    align: &FunctionAlignment,
    cf: &[u64],
    cg: &[u64],
) -> u64 {
    let mut pairs = align.pairs();
    for b in &align.blocks {
        if let BlockAlignment::Paired { left, right, .. } = b {
            // The alignment leaves phis out; the merged body shares one phi between a phi of
            // the second function and the first phi of the first with the same type, in order
            // (`similar::codegen`), so their uses need no select.
            let mut left_phis = phis(f, *left);
            for j in phis(g, *right) {
                let ty = g.insts[j as usize].ty;
                if let Some(k) = left_phis.iter().position(|&i| f.insts[i as usize].ty == ty) {
                    pairs.set_matched(left_phis.remove(k), j);
                }
            }
        }
    }
    let same = |x: Operand, y: Operand| match (x, y) {
        (Operand::Inst(a), Operand::Inst(b)) => pairs.matched(a) == Some(b),
        (Operand::Block(a), Operand::Block(b)) => pairs.paired(a) == Some(b),
        (Operand::Arg(a), Operand::Arg(b)) => a == b,
        _ => x == y,
    };
    let count = |c: &[u64], b: u32| c.get(b as usize).copied().unwrap_or(0);
    // The entry's branch on the function id runs on every call of either function.
    let mut work = SELECT_WORK.saturating_mul(count(cf, 0).saturating_add(count(cg, 0)));
    for b in &align.blocks {
        let BlockAlignment::Paired { left, right, insts } = b else { continue };
        let mut added = 0u64;
        let mut in_run = false;
        for e in insts {
            match *e {
                AlignEntry::Match(i, j) => {
                    in_run = false;
                    let differing =
                        f.ops(i).iter().zip(g.ops(j)).filter(|&(&x, &y)| !same(x, y)).count();
                    added += SELECT_WORK * differing as u64;
                }
                AlignEntry::OnlyLeft(_) | AlignEntry::OnlyRight(_) => {
                    if !in_run {
                        added += DIAMOND_WORK;
                    }
                    in_run = true;
                }
            }
        }
        let runs = count(cf, *left).saturating_add(count(cg, *right));
        work = work.saturating_add(added.saturating_mul(runs));
    }
    work
}

/// The phis that open block `b` of `f`.
fn phis(f: &FuncData, b: u32) -> Vec<u32> {
    f.blocks
        .get(b as usize)
        .map_or(0..0, |blk| blk.insts.clone())
        .take_while(|&i| f.insts[i as usize].opcode == crate::ir::opcode::PHI)
        .collect()
}

/// How much of a run `work` is, as a fraction of `total` (0 when nothing ran).
pub fn fraction(work: u64, total: u64) -> f64 {
    if total == 0 { 0.0 } else { work as f64 / total as f64 }
}

/// Whether a merge that adds `added` work to a run of `total` and saves `saving` bytes adds at
/// most `rate_per_kb` (a fraction of the run, 0.001 for 0.1%) per KB it saves. Free merges
/// always do; a merge that adds work and saves nothing never does.
pub fn within_rate(added: u64, total: u64, saving: i64, rate_per_kb: f64) -> bool {
    added == 0 || (saving > 0 && fraction(added, total) <= rate_per_kb * saving as f64 / 1024.0)
}

/// The slowdown budget: the work merges may add together, spent merge by merge (`fmerge opt
/// --max-slowdown`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlowdownBudget {
    pub limit: u64,
    pub spent: u64,
}

impl SlowdownBudget {
    /// `max_slowdown` (a fraction, 0.005 for 0.5%) of a program that does `total` work.
    pub fn new(total: u64, max_slowdown: f64) -> SlowdownBudget {
        let limit = if max_slowdown.is_finite() && max_slowdown > 0.0 {
            (total as f64 * max_slowdown).min(u64::MAX as f64) as u64
        } else {
            0
        };
        SlowdownBudget { limit, spent: 0 }
    }

    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.spent)
    }

    /// Takes `work` if it fits; work 0 always fits.
    pub fn take(&mut self, work: u64) -> bool {
        let ok = work <= self.remaining();
        if ok {
            self.spent += work;
        }
        ok
    }
}

/// The order in which priced merges should spend a budget: most bytes saved per unit of added
/// work first (free merges before all others), ties by position. `merges` holds (bytes saved,
/// added work); returns positions.
pub fn cheapest_first(merges: &[(i64, u64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..merges.len()).collect();
    // bytes_a / work_a > bytes_b / work_b  <=>  bytes_a * work_b > bytes_b * work_a (works ≥ 0).
    let key = |k: usize| {
        let (bytes, work) = merges[k];
        (i128::from(bytes.max(0)), i128::from(work))
    };
    order.sort_by(|&a, &b| {
        let ((ba, wa), (bb, wb)) = (key(a), key(b));
        (bb * wa).cmp(&(ba * wb)).then(wa.cmp(&wb)).then(a.cmp(&b))
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{AlignConfig, align_blocks};
    use crate::ir::opcode;
    use crate::testkit::*;

    #[test]
    fn work_is_counts_times_instructions() {
        assert_eq!(function_work(&[10, 1000, 0], &[3, 5, 7]), 30 + 5000);
        assert_eq!(function_work(&[u64::MAX], &[2]), u64::MAX);
    }

    #[test]
    fn calls_add_a_jump_and_their_extra_arguments() {
        assert_eq!(call_work(1000, true, 2), 3000);
        assert_eq!(call_work(1000, false, 2), 2000);
        assert_eq!(call_work(0, true, 5), 0, "never called: free");
        assert_eq!(sites_work([10, 0, 5]), 15);
    }

    #[test]
    fn the_cheapest_merges_per_byte_spend_the_budget_first() {
        // (bytes, work): free first, then 100 B for 10 (10 B/unit), 50 B for 10 (5 B/unit),
        // then 10 B for 1000.
        let order = cheapest_first(&[(50, 10), (10, 1000), (100, 10), (5, 0)]);
        assert_eq!(order, vec![3, 2, 0, 1]);
        let mut b = SlowdownBudget::new(10_000, 0.005);
        assert_eq!(b.limit, 50);
        assert!(b.take(0) && b.take(40) && !b.take(11) && b.take(10));
        assert_eq!(b.remaining(), 0);
        assert_eq!(SlowdownBudget::new(10_000, f64::NAN).limit, 0);
        assert_eq!(fraction(5, 0), 0.0);
        assert_eq!(fraction(5, 1000), 0.005);
        // 0.1% of the run per KB: 512 bytes may add 0.05%.
        assert!(within_rate(500, 1_000_000, 512, 0.001));
        assert!(!within_rate(501, 1_000_000, 512, 0.001));
        assert!(within_rate(0, 1_000_000, -10, 0.001), "free merges are always affordable");
        assert!(!within_rate(1, 1_000_000, 0, 0.001));
    }

    /// One block: `add %arg1, k` for each k of `adds`, then `ret void`.
    fn adds(adds: &[usize]) -> FuncData {
        let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
        for &k in adds {
            b.inst(opcode::ADD, I32, S[0], &[Operand::Arg(1), cv(k)]);
        }
        b.inst(opcode::RET, VOID, S[0], &[]);
        b.end_block(&[], false);
        b.finish()
    }

    /// `entry: br loop; loop: %i = phi [0, entry], [%n, loop]; %n = add %i, k; br loop/exit;
    /// exit: ret`.
    fn counting_loop(k: usize) -> FuncData {
        let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
        b.inst(opcode::BR, VOID, S[0], &[Operand::Block(1)]);
        b.end_block(&[1], false);
        let phi = b.inst(opcode::PHI, I32, S[0], &[cv(0), Operand::Block(0), Operand::Inst(2)]);
        let next = b.inst(opcode::ADD, I32, S[0], &[Operand::Inst(phi), cv(k)]);
        assert_eq!(next, 2);
        b.inst(
            opcode::BR,
            VOID,
            S[1],
            &[Operand::Inst(next), Operand::Block(1), Operand::Block(2)],
        );
        b.end_block(&[1, 2], false);
        b.inst(opcode::RET, VOID, S[0], &[]);
        b.end_block(&[], false);
        b.finish()
    }

    #[test]
    fn a_shared_phi_needs_no_select() {
        let t = tables();
        let (f, g) = (counting_loop(1), counting_loop(2));
        let align = align_blocks(&t, &f, &g, &AlignConfig::default());
        // Entered once each, the loop ran 1000 times: only the add's constant differs.
        let counts = [1, 1000, 1];
        assert_eq!(similar_body_work(&f, &g, &align, &counts, &counts), 2 + 2000 * SELECT_WORK);
        assert_eq!(similar_body_work(&f, &f, &align, &counts, &counts), 2);
    }

    #[test]
    fn a_similar_merge_adds_its_differences_times_how_often_they_ran() {
        let t = tables();
        let f = adds(&[1, 2, 3]);
        // Identical functions: only the entry's branch on the id, once per call.
        let align = align_blocks(&t, &f, &f, &AlignConfig::default());
        assert_eq!(similar_body_work(&f, &f, &align, &[7], &[3]), 10);
        // One constant differs: one select, run by both functions' calls.
        let g = adds(&[1, 0, 3]);
        let align = align_blocks(&t, &f, &g, &AlignConfig::default());
        assert_eq!(similar_body_work(&f, &g, &align, &[7], &[3]), 10 + 10 * SELECT_WORK);
        assert_eq!(similar_body_work(&f, &g, &align, &[100], &[0]), 100 + 100 * SELECT_WORK);
        // A cold pair (or one without counts) adds nothing, whatever differs.
        assert_eq!(similar_body_work(&f, &g, &align, &[0], &[0]), 0);
        assert_eq!(similar_body_work(&f, &g, &align, &[], &[]), 0);
        // An instruction only one side has: a diamond (branch there and back).
        let h = adds(&[0, 1, 2, 3]);
        let align = align_blocks(&t, &f, &h, &AlignConfig::default());
        assert_eq!(
            similar_body_work(&f, &h, &align, &[1], &[1]),
            2 + 2 * DIAMOND_WORK,
            "{align:?}"
        );
    }
}
