//! Exact structural comparison of two functions, and comparison up to parameterizable constants.
//!
//! This is the plain-data counterpart of LLVM's `FunctionComparator`:
//! - Both functions are walked from the entry block in the same order (depth-first, successors
//!   in terminator order). Unreachable blocks take no part: they are never executed, and a
//!   function whose reachable part uses one is simply reported as different.
//! - Every reachable instruction and block gets a *serial number* (its position in the walk).
//!   Two functions are equal when, position by position, opcode, result type and interned state
//!   are equal and every operand refers to the same serial, argument, constant or the function
//!   itself.
//! - [`Mode::ModuloParams`] additionally accepts two *different* constants at a position the
//!   lowering marked `ConstRole::Param` (call targets and arguments, load/store operands) as long as
//!   their types are equal; those positions are what constant-parameterized merging turns into
//!   extra parameters. Functions that refer to themselves never compare equal in this mode.
//!
//! The same walk also gives the bucket hash ([`structural_hash`]): equal functions always get
//! equal hashes, so only functions sharing a hash need a full comparison.

use crate::hash::StableHasher;
use crate::ir::{ConstId, ConstRole, FuncData, ModuleTables, Operand, TypeId};

/// What counts as equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Everything equal (identical-function merging).
    Exact,
    /// Equal except for constants at `ConstRole::Param` positions (constant-parameterized merging).
    ModuloParams,
}

/// The reachable part of a function in walk order.
#[derive(Clone, Debug)]
pub struct Walk {
    /// Reachable blocks in visit order.
    pub blocks: Vec<u32>,
    /// Serial number of each block (`u32::MAX` = unreachable).
    pub block_serial: Vec<u32>,
    /// Serial number of each instruction (`u32::MAX` = in an unreachable block).
    pub inst_serial: Vec<u32>,
    /// Reachable instructions in serial order.
    pub insts: Vec<u32>,
}

pub const UNREACHED: u32 = u32::MAX;

impl Walk {
    /// Depth-first walk from the entry; a popped block's unvisited successors are pushed in
    /// terminator order (so the last successor is visited next).
    pub fn new(f: &FuncData) -> Walk {
        let nb = f.blocks.len();
        let mut block_serial = vec![UNREACHED; nb];
        let mut inst_serial = vec![UNREACHED; f.insts.len()];
        let mut blocks = Vec::with_capacity(nb);
        let mut insts = Vec::with_capacity(f.insts.len());
        if nb == 0 {
            return Walk { blocks, block_serial, inst_serial, insts };
        }
        let mut stack = vec![0u32];
        let mut pushed = vec![false; nb];
        pushed[0] = true;
        while let Some(b) = stack.pop() {
            block_serial[b as usize] = blocks.len() as u32;
            blocks.push(b);
            for i in f.blocks[b as usize].insts.clone() {
                inst_serial[i as usize] = insts.len() as u32;
                insts.push(i);
            }
            for &s in &f.blocks[b as usize].succs {
                if !pushed[s as usize] {
                    pushed[s as usize] = true;
                    stack.push(s);
                }
            }
        }
        Walk { blocks, block_serial, inst_serial, insts }
    }
}

/// A position where the two functions hold different constants (only in [`Mode::ModuloParams`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstDiff {
    /// Instruction index in the *first* function.
    pub inst: u32,
    /// Operand index within that instruction.
    pub op: u32,
    pub left: ConstId,
    pub right: ConstId,
}

/// Compares `f` and `g`. Returns `None` when they differ, otherwise the list of constant
/// positions that differ (always empty in [`Mode::Exact`]).
pub fn compare(
    t: &ModuleTables,
    f: &FuncData,
    wf: &Walk,
    g: &FuncData,
    wg: &Walk,
    mode: Mode,
) -> Option<Vec<ConstDiff>> {
    if f.header != g.header || f.ty != g.ty || wf.insts.len() != wg.insts.len() {
        return None;
    }
    if wf.blocks.len() != wg.blocks.len() {
        return None;
    }
    for (&bf, &bg) in wf.blocks.iter().zip(&wg.blocks) {
        if f.blocks[bf as usize].insts.len() != g.blocks[bg as usize].insts.len() {
            return None;
        }
    }
    let mut diffs = Vec::new();
    for (&i, &j) in wf.insts.iter().zip(&wg.insts) {
        let (a, b) = (&f.insts[i as usize], &g.insts[j as usize]);
        if a.opcode != b.opcode || a.ty != b.ty || a.state != b.state || a.ops.len() != b.ops.len()
        {
            return None;
        }
        let (xs, ys) = (canonical_operands(f, wf, i), canonical_operands(g, wg, j));
        for (&(k, x), &(_, y)) in xs.iter().zip(&ys) {
            if !operands_equal(t, f, wf, x, g, wg, y, mode)? {
                // Only reachable for two different `Param` constants of one type.
                let (Operand::Const { id: l, .. }, Operand::Const { id: r, .. }) = (x, y) else {
                    unreachable!("operands_equal reports a difference only for constants")
                };
                diffs.push(ConstDiff { inst: i, op: k, left: l, right: r });
            }
        }
    }
    Some(diffs)
}

/// The operands of instruction `i` with their indices, in a canonical order: as they are, except
/// for a phi, whose (value, block) pairs are ordered by the walk position of the incoming block
/// (the order LLVM keeps them in says nothing about the program). For a phi with `n` entries the
/// result lists value `k` then block `k` for each entry in that order.
pub fn canonical_operands(f: &FuncData, w: &Walk, i: u32) -> Vec<(u32, Operand)> {
    let ops = f.ops(i);
    if f.insts[i as usize].opcode != crate::ir::opcode::PHI {
        return ops.iter().enumerate().map(|(k, &o)| (k as u32, o)).collect();
    }
    let n = ops.len() / 2;
    let serial = |b: Operand| match b {
        Operand::Block(b) => w.block_serial[b as usize],
        _ => UNREACHED,
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| serial(ops[n + k]));
    let mut out = Vec::with_capacity(ops.len());
    for k in order {
        out.push((k as u32, ops[k]));
        out.push(((n + k) as u32, ops[n + k]));
    }
    out
}

/// `Some(true)`: equal. `Some(false)`: different `Param` constants that `mode` tolerates.
/// `None`: different.
#[allow(clippy::too_many_arguments)]
fn operands_equal(
    t: &ModuleTables,
    f: &FuncData,
    wf: &Walk,
    x: Operand,
    g: &FuncData,
    wg: &Walk,
    y: Operand,
    mode: Mode,
) -> Option<bool> {
    let same = |c: bool| if c { Some(true) } else { None };
    match (x, y) {
        (Operand::Inst(a), Operand::Inst(b)) => {
            let (sa, sb) = (wf.inst_serial[a as usize], wg.inst_serial[b as usize]);
            same(sa != UNREACHED && sa == sb)
        }
        (Operand::Block(a), Operand::Block(b)) => {
            let (sa, sb) = (wf.block_serial[a as usize], wg.block_serial[b as usize]);
            same(sa != UNREACHED && sa == sb)
        }
        (Operand::Arg(a), Operand::Arg(b)) => same(a == b),
        // Identical functions may both call themselves: folding one into the other keeps the
        // recursion inside the surviving copy. Up to constants, a merged body shared by both
        // would call only one of them, so self-references end the comparison there.
        (Operand::SelfRef, Operand::SelfRef) => same(mode == Mode::Exact),
        (Operand::Opaque(a), Operand::Opaque(b)) => same(a == b),
        (Operand::Const { id: a, role: ra }, Operand::Const { id: b, role: rb }) => {
            if a == b {
                Some(true)
            } else if mode == Mode::ModuloParams
                && ra == ConstRole::Param
                && rb == ConstRole::Param
                && t.consts[a.0 as usize].ty == t.consts[b.0 as usize].ty
            {
                Some(false)
            } else {
                None
            }
        }
        _ => {
            let _ = (f, g);
            None
        }
    }
}

/// Bucket hash: functions that [`compare`] finds equal under `mode` always hash equally.
///
/// It uses exact interned ids, so it is only meaningful within one module (for cross-module
/// summaries use the stable hashes in the tables instead).
pub fn structural_hash(t: &ModuleTables, f: &FuncData, w: &Walk, mode: Mode) -> u64 {
    let mut h = StableHasher::with_seed(0x6669_6e64_6571);
    h.word(u64::from(f.header.0)).word(u64::from(f.ty.0));
    h.word(w.blocks.len() as u64).word(w.insts.len() as u64);
    for &b in &w.blocks {
        h.word(f.blocks[b as usize].insts.len() as u64);
    }
    for &i in &w.insts {
        let inst = &f.insts[i as usize];
        h.word(u64::from(inst.opcode))
            .word(u64::from(inst.ty.0))
            .word(u64::from(inst.state.0))
            .word(inst.ops.len() as u64);
        for (_, op) in canonical_operands(f, w, i) {
            match op {
                Operand::Inst(a) => h.word(1).word(u64::from(w.inst_serial[a as usize])),
                Operand::Block(a) => h.word(2).word(u64::from(w.block_serial[a as usize])),
                Operand::Arg(a) => h.word(3).word(u64::from(a)),
                Operand::SelfRef => h.word(4),
                Operand::Opaque(a) => h.word(5).word(u64::from(a)),
                Operand::Const { id, role } => {
                    if role == ConstRole::Param && mode == Mode::ModuloParams {
                        // Only the type must match; the value may become a parameter.
                        h.word(6).word(u64::from(const_type(t, id).0))
                    } else {
                        h.word(7).word(u64::from(id.0))
                    }
                }
            };
        }
    }
    h.finish()
}

fn const_type(t: &ModuleTables, id: ConstId) -> TypeId {
    t.consts[id.0 as usize].ty
}

/// Partitions `candidates` into classes of mutually equal functions under `mode`, using
/// [`structural_hash`] buckets and then full comparisons against each class's first member.
///
/// The result is deterministic: classes are ordered by their first member, and members keep
/// the order of `candidates`. Singleton classes are dropped.
pub fn equal_classes(
    t: &ModuleTables,
    funcs: &[&FuncData],
    walks: &[Walk],
    mode: Mode,
) -> Vec<Vec<usize>> {
    use std::collections::HashMap;
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    for (k, f) in funcs.iter().enumerate() {
        let h = structural_hash(t, f, &walks[k], mode);
        let e = buckets.entry(h).or_default();
        if e.is_empty() {
            order.push(h);
        }
        e.push(k);
    }
    let mut classes = Vec::new();
    for h in order {
        let members = &buckets[&h];
        if members.len() < 2 {
            continue;
        }
        let mut local: Vec<Vec<usize>> = Vec::new();
        for &k in members {
            let found = local.iter_mut().find(|c| {
                let r = c[0];
                compare(t, funcs[r], &walks[r], funcs[k], &walks[k], mode).is_some()
            });
            match found {
                Some(c) => c.push(k),
                None => local.push(vec![k]),
            }
        }
        classes.extend(local.into_iter().filter(|c| c.len() > 1));
    }
    classes.sort_by_key(|c| c[0]);
    classes
}

/// The parameters a class of functions equal up to constants needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamPlan {
    /// `(instruction index in the representative, operand index, parameter number)`.
    pub sites: Vec<(u32, u32, u32)>,
    /// For each member (in class order), the constant it passes for each parameter.
    pub args: Vec<Vec<ConstId>>,
    /// Type of each parameter.
    pub types: Vec<TypeId>,
}

impl ParamPlan {
    pub fn num_params(&self) -> usize {
        self.types.len()
    }
}

/// Computes the minimal parameter set for `class` (indices into `funcs`, first = representative):
/// one parameter per distinct column of constants across members; positions whose constants
/// agree in every member stay constants. Returns `None` if a member is not equal to the
/// representative up to constants (the caller passed something that is not a class).
pub fn param_plan(
    t: &ModuleTables,
    funcs: &[&FuncData],
    walks: &[Walk],
    class: &[usize],
) -> Option<ParamPlan> {
    use std::collections::BTreeMap;
    let r = *class.first()?;
    let rep = funcs[r];
    // Column of constants per (inst, op) of the representative, over all members.
    let mut columns: BTreeMap<(u32, u32), Vec<ConstId>> = BTreeMap::new();
    let mut member_diffs = Vec::with_capacity(class.len());
    for &k in class {
        member_diffs.push(compare(t, rep, &walks[r], funcs[k], &walks[k], Mode::ModuloParams)?);
    }
    for d in member_diffs.iter().flatten() {
        columns.entry((d.inst, d.op)).or_insert_with(|| vec![d.left; class.len()]);
    }
    for (m, diffs) in member_diffs.iter().enumerate() {
        for d in diffs {
            columns.get_mut(&(d.inst, d.op)).expect("column made above")[m] = d.right;
        }
    }
    let mut plan =
        ParamPlan { sites: Vec::new(), args: vec![Vec::new(); class.len()], types: Vec::new() };
    let mut param_of: BTreeMap<Vec<ConstId>, u32> = BTreeMap::new();
    // Walk order of the representative keeps parameter numbering stable and readable.
    let mut keys: Vec<(u32, u32)> = columns.keys().copied().collect();
    keys.sort_by_key(|&(i, op)| (walks[r].inst_serial[i as usize], op));
    for (inst, op) in keys {
        let col = &columns[&(inst, op)];
        let next = plan.types.len() as u32;
        let p = *param_of.entry(col.clone()).or_insert_with(|| {
            plan.types.push(const_type(t, col[0]));
            for (m, c) in col.iter().enumerate() {
                plan.args[m].push(*c);
            }
            next
        });
        plan.sites.push((inst, op, p));
    }
    Some(plan)
}
