//! Profit math (seed 000): a merge of functions f1..fn into one body pays when
//!
//! Δ = Σ c(fi) − (c(merged) + ε) > 0,
//!
//! with c a code-size cost and ε what keeps the originals callable (thunks, extra arguments at
//! rewritten call sites). Costs here are TTI code-size units; [`BYTES_PER_UNIT`] turns them into
//! bytes for reports (the corpus fit of `../shared/notes/cost-model-facts.md`: 4.42 bytes per
//! unit on x86-64, 4.54 on aarch64).
//!
//! TTI cannot order two sizes within ~10% of each other much better than a coin, so a decision
//! whose estimated gain is small relative to the sizes involved is [`Verdict::Measure`]: the
//! caller confirms it by generating code.

/// Average bytes of machine code per TTI code-size unit.
pub const BYTES_PER_UNIT: f64 = 4.4;

/// Bytes per TTI unit, measured on fmerge's own merge decisions across the corpus (806
/// decisions of similar merging in exact mode, x86-64): ordinary functions compile to 4.8
/// bytes per unit, merged bodies to 6.1 (their selects, branches and phis cost more than TTI
/// says), thunks to 1.7 (a thunk is mostly a jump).
pub const BYTES_PER_UNIT_ORIGINAL: f64 = 4.8;
pub const BYTES_PER_UNIT_MERGED: f64 = 6.1;
pub const BYTES_PER_UNIT_THUNK: f64 = 1.7;

/// Estimated bytes a merge saves: originals of `before` units replaced by a body of `body`
/// units costing `body_factor` bytes per unit, plus `glue` units of thunks and call-site
/// arguments.
pub fn estimated_saving(before: i64, body: i64, body_factor: f64, glue: i64) -> i64 {
    (before as f64 * BYTES_PER_UNIT_ORIGINAL
        - body as f64 * body_factor
        - glue as f64 * BYTES_PER_UNIT_THUNK)
        .round() as i64
}

/// Instruction counts of a function (or several, added up) that TTI's code-size units miss
/// in a merged body: its IR instructions, blocks, `select`s and `switch`es.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodeShape {
    pub insts: i64,
    pub blocks: i64,
    pub selects: i64,
    pub switches: i64,
}

impl std::ops::Add for CodeShape {
    type Output = CodeShape;
    fn add(self, o: CodeShape) -> CodeShape {
        CodeShape {
            insts: self.insts + o.insts,
            blocks: self.blocks + o.blocks,
            selects: self.selects + o.selects,
            switches: self.switches + o.switches,
        }
    }
}

/// Estimated bytes a merge of similar functions saves: members of `before` TTI units and
/// shape `members` (added up) replaced by a body of `body` units and shape `merged`, plus
/// `glue` units of thunks and call-site arguments.
///
/// A least-squares fit to the bytes the corpus's 1,380 candidate merges of similar functions
/// actually saved (`--profit exact`, x86-64, llc's code): TTI alone
/// ([`estimated_saving`] with [`BYTES_PER_UNIT_MERGED`]) gets the sign of 347 of them wrong,
/// worth 26.6 KB; this fit 192 (8.2 KB), and fitted on every program but the one it prices,
/// 205 (9.2 KB; fitted on the C programs alone it still halves the Rust programs' losses).
/// What TTI misses: a merged body's instructions cost more than their units say (the
/// selects, phis and extra branches it adds), a new `switch` costs its jump-table
/// addressing, and the blocks a merge adds are cheaper than their branches' units.
pub fn estimated_similar_saving(
    before: i64,
    body: i64,
    glue: i64,
    members: CodeShape,
    merged: CodeShape,
) -> i64 {
    const UNITS_BEFORE: f64 = 5.252;
    const UNITS_BODY: f64 = -5.075;
    const UNITS_GLUE: f64 = -2.833;
    const INSTS_BEFORE: f64 = 1.110;
    const INSTS_BODY: f64 = -1.935;
    const ADDED_BLOCK: f64 = 5.895;
    const ADDED_SELECT: f64 = -5.011;
    const ADDED_SWITCH: f64 = -43.775;
    (UNITS_BEFORE * before as f64
        + UNITS_BODY * body as f64
        + UNITS_GLUE * glue as f64
        + INSTS_BEFORE * members.insts as f64
        + INSTS_BODY * merged.insts as f64
        + ADDED_BLOCK * (merged.blocks - members.blocks) as f64
        + ADDED_SELECT * (merged.selects - members.selects) as f64
        + ADDED_SWITCH * (merged.switches - members.switches) as f64)
        .round() as i64
}

/// Converts TTI units to estimated bytes.
pub fn units_to_bytes(units: i64) -> i64 {
    (units as f64 * BYTES_PER_UNIT).round() as i64
}

/// TTI units of a thunk forwarding `args` arguments: the call (1 + arguments) and the return.
pub fn thunk_units(args: usize) -> i64 {
    2 + args as i64
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Clearly saves code.
    Keep,
    /// Clearly does not.
    Reject,
    /// Too close to call from estimates.
    Measure,
}

/// Judges Δ = `before` − `after` (TTI units). Gains within `margin` × `before` of zero are too
/// close to call; `margin` = 0 trusts the estimate completely.
pub fn judge(before: i64, after: i64, margin: f64) -> Verdict {
    let delta = before - after;
    let band = (before.max(1) as f64 * margin).ceil() as i64;
    if margin > 0.0 && delta.abs() <= band {
        Verdict::Measure
    } else if delta > 0 {
        Verdict::Keep
    } else {
        Verdict::Reject
    }
}

/// Predicts the TTI units of the merged body an alignment would produce, without building it:
/// matched pairs cost the dearer of the two plus one `select` per operand pair that is not
/// obviously the same value; unmatched runs cost their instructions plus the branches of their
/// diamond; unpaired blocks cost their instructions. `cf`/`cg` are the per-instruction TTI
/// units of `f`/`g` in layout order. Used to skip pairs that cannot pay before spending time
/// on code generation; the built body is priced again.
pub fn predict_merged_units(
    f: &crate::ir::FuncData,
    g: &crate::ir::FuncData,
    align: &crate::align::FunctionAlignment,
    cf: &[i64],
    cg: &[i64],
) -> i64 {
    use crate::align::{AlignEntry, BlockAlignment};
    use crate::ir::Operand;
    let pairs = align.pairs();
    let same = |x: Operand, y: Operand| match (x, y) {
        (Operand::Inst(a), Operand::Inst(b)) => pairs.matched(a) == Some(b),
        (Operand::Block(a), Operand::Block(b)) => pairs.paired(a) == Some(b),
        (Operand::Arg(a), Operand::Arg(b)) => a == b,
        _ => x == y,
    };
    let cost = |c: &[i64], i: u32| c.get(i as usize).copied().unwrap_or(1);
    let block_cost = |d: &crate::ir::FuncData, c: &[i64], b: u32| -> i64 {
        d.blocks[b as usize].insts.clone().map(|i| cost(c, i)).sum()
    };
    let mut units = 1; // the entry's branch on the function identifier
    for b in &align.blocks {
        match b {
            BlockAlignment::OnlyLeft(x) => units += block_cost(f, cf, *x),
            BlockAlignment::OnlyRight(y) => units += block_cost(g, cg, *y),
            BlockAlignment::Paired { insts, .. } => {
                let mut in_run = false;
                for e in insts {
                    match *e {
                        AlignEntry::Match(i, j) => {
                            in_run = false;
                            units += cost(cf, i).max(cost(cg, j));
                            units += f
                                .ops(i)
                                .iter()
                                .zip(g.ops(j))
                                .filter(|&(&x, &y)| !same(x, y))
                                .count() as i64;
                        }
                        AlignEntry::OnlyLeft(i) => {
                            units += cost(cf, i) + if in_run { 0 } else { 2 };
                            in_run = true;
                        }
                        AlignEntry::OnlyRight(j) => {
                            units += cost(cg, j) + if in_run { 0 } else { 2 };
                            in_run = true;
                        }
                    }
                }
            }
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(insts: i64, blocks: i64, selects: i64, switches: i64) -> CodeShape {
        CodeShape { insts, blocks, selects, switches }
    }

    #[test]
    fn a_body_no_larger_than_one_member_saves_about_the_other() {
        // Two members of 100 units and 80 instructions each, merged into a body like either
        // (plus the entry branch), kept callable by two thunks of 4 units.
        let one = shape(80, 6, 1, 0);
        let saving = estimated_similar_saving(200, 101, 8, one + one, shape(81, 6, 1, 0));
        assert!((350..=650).contains(&saving), "{saving}");
    }

    #[test]
    fn what_a_merged_body_adds_costs_bytes() {
        let m = shape(80, 6, 1, 0) + shape(80, 6, 1, 0);
        let plain = estimated_similar_saving(200, 120, 8, m, shape(100, 6, 1, 0));
        let selects = estimated_similar_saving(200, 120, 8, m, shape(100, 6, 11, 0));
        let switch = estimated_similar_saving(200, 120, 8, m, shape(100, 6, 1, 1));
        assert!(selects < plain && switch < plain);
        assert!(estimated_similar_saving(200, 260, 8, m, shape(200, 14, 30, 0)) < 0);
    }

    #[test]
    fn clear_gains_and_losses_need_no_measurement() {
        assert_eq!(judge(100, 50, 0.2), Verdict::Keep);
        assert_eq!(judge(100, 150, 0.2), Verdict::Reject);
    }

    #[test]
    fn close_calls_are_measured() {
        assert_eq!(judge(100, 95, 0.2), Verdict::Measure);
        assert_eq!(judge(100, 105, 0.2), Verdict::Measure);
    }

    #[test]
    fn zero_margin_trusts_the_estimate_and_ties_are_rejected() {
        assert_eq!(judge(100, 99, 0.0), Verdict::Keep);
        assert_eq!(judge(100, 100, 0.0), Verdict::Reject);
    }
}
