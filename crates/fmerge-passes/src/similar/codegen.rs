//! Building the merged function of two similar functions (SalSSA-style code generation on a
//! HyFM block alignment).
//!
//! The merged body `M(params..., i1 %id)` runs the first function when `%id` is false and the
//! second when it is true:
//!
//! 1. **Entry.** A new entry block holds every static `alloca` of both originals' entry blocks
//!    (so they stay static), then branches on `%id` to where each original starts.
//! 2. **Blocks.** A paired block becomes one merged block: the phis of both originals (rebuilt
//!    in step 5), their shared landing pad, then the aligned instructions in order. A matched
//!    pair becomes one instruction. A run of unmatched instructions becomes a diamond:
//!    `br %id, R, L`, with the first function's instructions in L, the second's in R, both
//!    joining after; when the run ends the block (different terminators), L and R end with
//!    their own terminators instead. An unpaired block is copied for its side alone.
//! 3. **Operands.** A copied instruction takes its side's mapped operands. A shared instruction
//!    takes the operand both sides map to, or `select %id, second, first` when they differ.
//!    A branch target that differs becomes a dispatch block `br %id, second, first`; an
//!    `invoke` whose unwind destinations differ cannot be merged (an unwind edge must reach a
//!    landing pad directly) and the merge is abandoned.
//! 4. **Promises.** A shared instruction keeps only the flags, metadata and call attributes
//!    both originals have (`crate::intersect`).
//! 5. **Phis.** Phis of a paired block with the same type share one new phi. Every merged edge
//!    remembers which original edge(s) it stands for; a rebuilt phi takes each side's incoming
//!    value on that side's edges (a `select` in the predecessor where an edge serves both sides
//!    with different values) and `poison` where neither side takes the edge.
//! 6. **Dominance.** Values defined on one side's path and used after the paths join are
//!    demoted to stack slots and promoted back (`Function::repair_dominance`), as SalSSA does.
//! 7. **Checks.** Debug info is dropped (one body cannot claim two source locations), and the
//!    function must verify; any failure abandons the merge (the caller erases the body).
//!
//! Blocks unreachable from the entry are not copied: they never run, and references to them
//! from reachable code would only be phi entries for edges that do not exist in the merged body.

use super::params::ParamMap;
use crate::intersect;
use fmerge_core::align::{AlignEntry, BlockAlignment, FunctionAlignment};
use fmerge_core::compare::{UNREACHED, Walk};
use fmerge_core::ir::{FuncData, opcode};
use fmerge_llvm::lower::FuncHandles;
use fmerge_llvm::{Block, Builder, Function, Instruction, Module, Value};
use std::collections::{HashMap, HashSet};

/// Values a merged body may have to carry across joins through new phis (plus one per 16
/// instructions) before the merge is abandoned as too costly.
const MAX_REPAIRS: u32 = 64;

/// One original function as code generation sees it.
pub struct Side<'a, 'm> {
    pub data: &'a FuncData,
    pub handles: &'a FuncHandles<'m>,
    pub walk: &'a Walk,
}

/// Where an edge of the merged function came from: the original block (per side) whose
/// terminator it stands for, if that side takes it.
type Provenance = [Option<u32>; 2];

struct Gen<'a, 'm> {
    m: Function<'m>,
    id: Value<'m>,
    b: Builder<'m>,
    sides: [&'a Side<'a, 'm>; 2],
    params: [HashMap<Value<'m>, u32>; 2],
    map: &'a ParamMap,
    vmap: [HashMap<Value<'m>, Value<'m>>; 2],
    start: [HashMap<u32, Block<'m>>; 2],
    hoisted: HashSet<Instruction<'m>>,
    /// Copied instructions and the originals they stand for.
    copies: Vec<(Instruction<'m>, [Option<u32>; 2])>,
    /// Rebuilt phis: the new phi and the original phi it stands for on each side.
    phis: Vec<(Instruction<'m>, [Option<Instruction<'m>>; 2])>,
    /// Provenance of every edge into a block that may have phis, and each edge's predecessor
    /// once per branch operand (a switch may reach one block several times).
    provenance: HashMap<(Block<'m>, Block<'m>), Provenance>,
    preds: HashMap<Block<'m>, Vec<Block<'m>>>,
    /// Lifetime markers of paired blocks left out of the merged body (side, original marker).
    dropped_markers: Vec<(usize, Instruction<'m>)>,
    /// Stack slots of the merged body that lost one of their original lifetime markers: all
    /// of their markers go (see [`Gen::settle_lifetimes`]).
    lost_markers: HashSet<Value<'m>>,
}

/// Builds the body of `m` (an empty function with `map`'s parameters plus the identifier).
pub fn build<'a, 'm>(
    module: &'m Module<'_>,
    m: Function<'m>,
    sides: [&'a Side<'a, 'm>; 2],
    align: &FunctionAlignment,
    map: &'a ParamMap,
) -> Result<(), String> {
    let params = m.params();
    let id = *params.last().ok_or("merged function without identifier")?;
    let mut g = Gen {
        m,
        id,
        b: Builder::new(module),
        sides,
        params: [param_index(sides[0]), param_index(sides[1])],
        map,
        vmap: [HashMap::new(), HashMap::new()],
        start: [HashMap::new(), HashMap::new()],
        hoisted: HashSet::new(),
        copies: Vec::new(),
        phis: Vec::new(),
        provenance: HashMap::new(),
        preds: HashMap::new(),
        dropped_markers: Vec::new(),
        lost_markers: HashSet::new(),
    };
    let entry = m.append_block("entry");
    g.hoist_allocas(entry);
    for b in reachable_only(align, sides) {
        match b {
            BlockAlignment::Paired { left, right, insts } => g.paired(left, right, &insts)?,
            BlockAlignment::OnlyLeft(x) => g.single(0, x)?,
            BlockAlignment::OnlyRight(y) => g.single(1, y)?,
        }
    }
    g.b.position_at_end(entry);
    let (s0, s1) = (g.start[0].get(&0).copied(), g.start[1].get(&0).copied());
    let (Some(a), Some(b)) = (s0, s1) else {
        return Err("an entry block was not copied".into());
    };
    if a == b {
        g.b.br(a);
    } else {
        g.b.cond_br(id, b, a);
    }
    // Entered from the top, neither side's phis (if the other function's block shares the
    // start) has a value to take: these edges carry no original edge.
    g.edge(entry, a, [None, None]);
    if a != b {
        g.edge(entry, b, [None, None]);
    }
    g.fix_operands()?;
    g.fill_phis()?;
    g.settle_lifetimes(module)?;
    m.strip_debug_info();
    m.repair_dominance(MAX_REPAIRS)?;
    m.verify().map_err(|e| format!("merged body does not verify: {}", e.trim()))
}

fn param_index<'m>(s: &Side<'_, 'm>) -> HashMap<Value<'m>, u32> {
    s.handles.function.params().into_iter().enumerate().map(|(k, p)| (p, k as u32)).collect()
}

/// The alignment without unreachable blocks (a pair with one unreachable half keeps the other).
fn reachable_only(align: &FunctionAlignment, sides: [&Side<'_, '_>; 2]) -> Vec<BlockAlignment> {
    let live = |s: usize, b: u32| sides[s].walk.block_serial[b as usize] != UNREACHED;
    let mut out = Vec::new();
    for b in &align.blocks {
        match b {
            BlockAlignment::Paired { left, right, .. } if live(0, *left) && live(1, *right) => {
                out.push(b.clone())
            }
            BlockAlignment::Paired { left, right, .. } => {
                if live(0, *left) {
                    out.push(BlockAlignment::OnlyLeft(*left));
                }
                if live(1, *right) {
                    out.push(BlockAlignment::OnlyRight(*right));
                }
            }
            BlockAlignment::OnlyLeft(x) if live(0, *x) => out.push(b.clone()),
            BlockAlignment::OnlyRight(y) if live(1, *y) => out.push(b.clone()),
            _ => {}
        }
    }
    out
}

impl<'a, 'm> Gen<'a, 'm> {
    fn inst(&self, s: usize, i: u32) -> Instruction<'m> {
        self.sides[s].handles.insts[i as usize]
    }

    fn opcode(&self, s: usize, i: u32) -> u32 {
        self.sides[s].data.insts[i as usize].opcode
    }

    /// Static allocas of both entry blocks go to the merged entry block. Only one side runs
    /// per call, so an alloca of the second function shares the slot of an alloca of the first
    /// with the same type, alignment and size (in order); the rest get their own.
    fn hoist_allocas(&mut self, entry: Block<'m>) {
        self.b.position_at_end(entry);
        let static_allocas = |s: usize| -> Vec<(u32, Instruction<'m>)> {
            let d = self.sides[s].data;
            let Some(first) = d.blocks.first() else { return Vec::new() };
            first
                .insts
                .clone()
                .filter(|&i| d.insts[i as usize].opcode == opcode::ALLOCA)
                .map(|i| (i, self.inst(s, i)))
                .filter(|(_, v)| v.operand(0).is_some_and(|n| n.is_constant()))
                .collect()
        };
        let (left, mut right) = (static_allocas(0), static_allocas(1));
        let shape = |s: usize, i: u32| {
            let d = self.sides[s].data;
            (d.insts[i as usize].state, d.ops(i).to_vec())
        };
        for (i, v) in left {
            let c = v.clone_instruction();
            self.b.insert(c);
            self.vmap[0].insert(v.as_value(), c.as_value());
            self.hoisted.insert(v);
            if let Some(k) = right.iter().position(|&(j, _)| shape(1, j) == shape(0, i)) {
                let (_, w) = right.remove(k);
                self.vmap[1].insert(w.as_value(), c.as_value());
                self.hoisted.insert(w);
            }
        }
        for (_, w) in right {
            let c = w.clone_instruction();
            self.b.insert(c);
            self.vmap[1].insert(w.as_value(), c.as_value());
            self.hoisted.insert(w);
        }
    }

    fn new_block(&self, name: &str) -> Block<'m> {
        self.m.append_block(name)
    }

    /// Copies instruction `i` of side `s` (operands fixed later) at the builder position.
    fn copy(&mut self, s: usize, i: u32) -> Instruction<'m> {
        let orig = self.inst(s, i);
        let c = orig.clone_instruction();
        self.b.insert(c);
        self.vmap[s].insert(orig.as_value(), c.as_value());
        let mut from = [None, None];
        from[s] = Some(i);
        self.copies.push((c, from));
        c
    }

    /// The phis of original block `blk` of side `s`.
    fn phis_in(&self, s: usize, blk: u32) -> Vec<Instruction<'m>> {
        let bb = self.sides[s].handles.blocks[blk as usize];
        bb.instructions().into_iter().take_while(|i| i.opcode() == opcode::PHI).collect()
    }

    /// Rebuilds the phis of original blocks `blks[s]` at the builder position. Phis of the two
    /// sides with the same type share one new phi (in order), which saves the `select` every
    /// use would otherwise need.
    fn rebuild_phis(&mut self, blks: [Option<u32>; 2]) {
        let mut left: Vec<Instruction<'m>> = blks[0].map_or(Vec::new(), |b| self.phis_in(0, b));
        let right: Vec<Instruction<'m>> = blks[1].map_or(Vec::new(), |b| self.phis_in(1, b));
        let mut pairs: Vec<[Option<Instruction<'m>>; 2]> = Vec::new();
        for r in right {
            match left.iter().position(|l| l.ty() == r.ty()) {
                Some(k) => pairs.push([Some(left.remove(k)), Some(r)]),
                None => pairs.push([None, Some(r)]),
            }
        }
        pairs.extend(left.into_iter().map(|l| [Some(l), None]));
        for origin in pairs {
            let ty = origin[0].or(origin[1]).expect("a phi on some side").ty();
            let p = self.b.phi(ty);
            for (vmap, o) in self.vmap.iter_mut().zip(origin) {
                if let Some(o) = o {
                    vmap.insert(o.as_value(), p.as_value());
                }
            }
            self.phis.push((p, origin));
        }
    }

    /// The landing pad (or other EH pad) of block `blk`, if it starts with one.
    fn pad_of(&self, s: usize, blk: u32) -> Option<u32> {
        let d = self.sides[s].data;
        d.blocks[blk as usize]
            .insts
            .clone()
            .find(|&i| d.insts[i as usize].opcode != opcode::PHI)
            .filter(|&i| d.insts[i as usize].opcode == opcode::LANDING_PAD)
    }

    fn single(&mut self, s: usize, blk: u32) -> Result<(), String> {
        let bb = self.new_block(if s == 0 { "m.left" } else { "m.right" });
        self.start[s].insert(blk, bb);
        self.b.position_at_end(bb);
        let mut blks = [None, None];
        blks[s] = Some(blk);
        self.rebuild_phis(blks);
        let range = self.sides[s].data.blocks[blk as usize].insts.clone();
        for i in range {
            let op = self.opcode(s, i);
            if op == opcode::PHI || self.hoisted.contains(&self.inst(s, i)) {
                continue;
            }
            self.copy(s, i);
        }
        Ok(())
    }

    fn paired(&mut self, left: u32, right: u32, entries: &[AlignEntry]) -> Result<(), String> {
        let bb = self.new_block("m.pair");
        self.start[0].insert(left, bb);
        self.start[1].insert(right, bb);
        self.b.position_at_end(bb);
        self.rebuild_phis([Some(left), Some(right)]);
        match (self.pad_of(0, left), self.pad_of(1, right)) {
            (Some(p), Some(q)) => {
                let c = self.copy(0, p);
                self.vmap[1].insert(self.inst(1, q).as_value(), c.as_value());
            }
            (None, None) => {}
            _ => return Err("a landing pad paired with an ordinary block".into()),
        }
        // A matched pair involving a hoisted alloca is no longer shared: each side has its own.
        let mut flat: Vec<AlignEntry> = Vec::with_capacity(entries.len());
        for &e in entries {
            match e {
                AlignEntry::Match(i, j)
                    if self.hoisted.contains(&self.inst(0, i))
                        || self.hoisted.contains(&self.inst(1, j)) =>
                {
                    flat.push(AlignEntry::OnlyLeft(i));
                    flat.push(AlignEntry::OnlyRight(j));
                }
                e => flat.push(e),
            }
        }
        let mut cur = bb;
        let mut k = 0;
        while k < flat.len() {
            if let AlignEntry::Match(i, j) = flat[k] {
                self.b.position_at_end(cur);
                let c = self.copy(0, i);
                self.vmap[1].insert(self.inst(1, j).as_value(), c.as_value());
                self.copies.last_mut().expect("just copied").1[1] = Some(j);
                k += 1;
                continue;
            }
            let (mut lefts, mut rights) = (Vec::new(), Vec::new());
            while k < flat.len() && !matches!(flat[k], AlignEntry::Match(..)) {
                // Hoisted allocas are already in place; unmatched lifetime markers are left out
                // (they are hints without code, and each would cost a branch here).
                match flat[k] {
                    AlignEntry::OnlyLeft(i) if self.emits_alone(0, i) => lefts.push(i),
                    AlignEntry::OnlyRight(j) if self.emits_alone(1, j) => rights.push(j),
                    AlignEntry::OnlyLeft(i) if is_lifetime_marker(self.inst(0, i)) => {
                        self.dropped_markers.push((0, self.inst(0, i)))
                    }
                    AlignEntry::OnlyRight(j) if is_lifetime_marker(self.inst(1, j)) => {
                        self.dropped_markers.push((1, self.inst(1, j)))
                    }
                    _ => {}
                }
                k += 1;
            }
            if lefts.is_empty() && rights.is_empty() {
                continue;
            }
            let ends = |s: usize, v: &[u32]| {
                v.last().is_some_and(|&i| opcode::is_terminator(self.opcode(s, i)))
            };
            let (end_l, end_r) = (ends(0, &lefts), ends(1, &rights));
            if end_l != end_r {
                return Err("terminators out of step in a block pair".into());
            }
            let l = (!lefts.is_empty()).then(|| self.new_block("m.l"));
            let r = (!rights.is_empty()).then(|| self.new_block("m.r"));
            let join = (!end_l).then(|| self.new_block("m.join"));
            let (to_l, to_r) = match (l.or(join), r.or(join)) {
                (Some(a), Some(b)) => (a, b),
                _ => return Err("an empty diamond".into()),
            };
            self.b.position_at_end(cur);
            self.b.cond_br(self.id, to_r, to_l);
            for (s, list, side_block) in [(0, &lefts, l), (1, &rights, r)] {
                let Some(sb) = side_block else { continue };
                self.b.position_at_end(sb);
                for &i in list {
                    self.copy(s, i);
                }
                if let Some(j) = join {
                    self.b.br(j);
                }
            }
            match join {
                Some(j) => cur = j,
                None => break,
            }
        }
        Ok(())
    }

    /// Whether an unmatched instruction of a paired block is copied into its side's branch.
    fn emits_alone(&self, s: usize, i: u32) -> bool {
        let v = self.inst(s, i);
        !self.hoisted.contains(&v) && !is_lifetime_marker(v)
    }

    /// The merged value standing for original value `v` of side `s`.
    fn value(&self, s: usize, v: Value<'m>) -> Result<Value<'m>, String> {
        if let Some(&m) = self.vmap[s].get(&v) {
            return Ok(m);
        }
        if let Some(&k) = self.params[s].get(&v) {
            return Ok(self.m.params()[self.map.of[s][k as usize] as usize]);
        }
        if v.is_constant() || v.is_inline_asm() || v.is_metadata() {
            return Ok(v);
        }
        Err(format!("{} uses a value the merged body does not have", self.sides[s].data.name))
    }

    fn block(&self, s: usize, b: Block<'m>) -> Result<(Block<'m>, u32), String> {
        let k = self.sides[s]
            .handles
            .blocks
            .iter()
            .position(|&x| x == b)
            .ok_or("a branch leaves its function")? as u32;
        let m = self.start[s].get(&k).copied().ok_or("a branch to a block that was not copied")?;
        Ok((m, k))
    }

    fn edge(&mut self, from: Block<'m>, to: Block<'m>, prov: Provenance) {
        let e = self.provenance.entry((from, to)).or_insert([None, None]);
        for s in 0..2 {
            if prov[s].is_some() {
                e[s] = prov[s];
            }
        }
        self.preds.entry(to).or_default().push(from);
    }

    /// Original block of side `s` that instruction `i` belongs to.
    fn block_of(&self, s: usize, i: u32) -> u32 {
        let d = self.sides[s].data;
        d.blocks.iter().position(|b| b.insts.contains(&i)).expect("instruction in a block") as u32
    }

    fn fix_operands(&mut self) -> Result<(), String> {
        let copies = std::mem::take(&mut self.copies);
        for &(c, from) in &copies {
            let here = c.parent_block().ok_or("a copy outside any block")?;
            match from {
                [Some(i), Some(j)] => self.fix_shared(c, here, i, j)?,
                [Some(i), None] => self.fix_single(c, here, 0, i)?,
                [None, Some(j)] => self.fix_single(c, here, 1, j)?,
                [None, None] => unreachable!("every copy has an origin"),
            }
        }
        Ok(())
    }

    fn fix_single(
        &mut self,
        c: Instruction<'m>,
        here: Block<'m>,
        s: usize,
        i: u32,
    ) -> Result<(), String> {
        let orig = self.inst(s, i);
        let blk = self.block_of(s, i);
        for k in 0..orig.num_operands() {
            let o = orig.operand(k).ok_or("missing operand")?;
            if let Some(ob) = o.as_block() {
                let (t, _) = self.block(s, ob)?;
                c.set_block_operand(k, t);
                let mut prov = [None, None];
                prov[s] = Some(blk);
                self.edge(here, t, prov);
            } else {
                c.set_operand(k, self.value(s, o)?);
            }
        }
        Ok(())
    }

    fn fix_shared(
        &mut self,
        c: Instruction<'m>,
        here: Block<'m>,
        i: u32,
        j: u32,
    ) -> Result<(), String> {
        let (x, y) = (self.inst(0, i), self.inst(1, j));
        let (bx, by) = (self.block_of(0, i), self.block_of(1, j));
        let is_invoke = x.opcode() == opcode::INVOKE;
        let n = x.num_operands();
        for k in 0..n {
            let (ox, oy) =
                (x.operand(k).ok_or("missing operand")?, y.operand(k).ok_or("missing operand")?);
            match (ox.as_block(), oy.as_block()) {
                (Some(bx_t), Some(by_t)) => {
                    let (t0, _) = self.block(0, bx_t)?;
                    let (t1, _) = self.block(1, by_t)?;
                    if t0 == t1 {
                        c.set_block_operand(k, t0);
                        self.edge(here, t0, [Some(bx), Some(by)]);
                    } else if is_invoke && k == n - 2 {
                        // The unwind destination (operands: args, normal, unwind, callee).
                        return Err("invokes unwinding to different landing pads".into());
                    } else {
                        let d = self.new_block("m.dispatch");
                        self.b.position_at_end(d);
                        self.b.cond_br(self.id, t1, t0);
                        c.set_block_operand(k, d);
                        self.edge(d, t0, [Some(bx), None]);
                        self.edge(d, t1, [None, Some(by)]);
                    }
                }
                (None, None) => {
                    let (v0, v1) = (self.value(0, ox)?, self.value(1, oy)?);
                    if v0 == v1 {
                        c.set_operand(k, v0);
                    } else if is_lifetime_marker(c) {
                        // A lifetime marker needs the alloca itself, not a select of two. Both
                        // slots lose this marker, so they lose all (`settle_lifetimes`).
                        self.lost_markers.insert(v0);
                        self.lost_markers.insert(v1);
                        c.set_operand(k, v0.ty().poison());
                    } else {
                        self.b.position_before(c);
                        let sel = self.b.select(self.id, v1, v0);
                        c.set_operand(k, sel.as_value());
                    }
                }
                _ => return Err("a label paired with a value".into()),
            }
        }
        if !intersect::instruction(c, y) {
            return Err("call attributes do not intersect".into());
        }
        Ok(())
    }

    fn fill_phis(&mut self) -> Result<(), String> {
        let phis = std::mem::take(&mut self.phis);
        let mut selects: HashMap<(Instruction<'m>, Block<'m>), Value<'m>> = HashMap::new();
        for (p, origin) in phis {
            let here = p.parent_block().ok_or("a phi outside any block")?;
            let preds = self.preds.get(&here).cloned().unwrap_or_default();
            if preds.is_empty() {
                return Err("a rebuilt phi in a block without predecessors".into());
            }
            for pred in preds {
                let prov = self.provenance.get(&(pred, here)).copied().unwrap_or([None, None]);
                let mut vals = [None, None];
                for s in 0..2 {
                    if let (Some(orig), Some(ob)) = (origin[s], prov[s]) {
                        vals[s] = Some(self.incoming(s, orig, ob)?);
                    }
                }
                let v = match vals {
                    [Some(a), Some(b)] if a == b => a,
                    [Some(a), Some(b)] => match selects.get(&(p, pred)) {
                        Some(&sel) => sel,
                        None => {
                            let term =
                                pred.terminator().ok_or("a predecessor without terminator")?;
                            self.b.position_before(term);
                            let sel = self.b.select(self.id, b, a).as_value();
                            selects.insert((p, pred), sel);
                            sel
                        }
                    },
                    [Some(a), None] | [None, Some(a)] => a,
                    [None, None] => p.ty().poison(),
                };
                p.phi_add_incoming(v, pred);
            }
        }
        Ok(())
    }

    /// Lifetime markers, the rule: **a stack slot of the merged body keeps its lifetime markers
    /// only if it keeps every one of them.** A slot that has a `lifetime.start` anywhere in a
    /// function is dead wherever no start reaches (LLVM's LangRef), and code generation lets
    /// dead slots share memory. Leaving out one side's start (an unmatched marker, or a matched
    /// pair of markers on two different slots) would make that side's slot dead where it is in
    /// use, and another slot could be laid over it: memory corruption (a Rust `regex` program
    /// freed a vector twice). A slot without markers is live in the whole function, which is
    /// always correct, so every marker of a slot that lost one is removed, as are markers left
    /// on `poison`. The markers of unpaired blocks and of matched pairs on one slot stay.
    fn settle_lifetimes(&mut self, module: &'m Module<'_>) -> Result<(), String> {
        for (s, orig) in std::mem::take(&mut self.dropped_markers) {
            let slot = orig.operand(0).ok_or("a lifetime marker without operand")?;
            let v = self.value(s, slot)?;
            self.lost_markers.insert(v);
        }
        for bb in self.m.blocks() {
            for i in bb.instructions() {
                if !is_lifetime_marker(i) {
                    continue;
                }
                let slot = i.operand(0).ok_or("a lifetime marker without operand")?;
                if slot.is_poison() || self.lost_markers.contains(&slot) {
                    i.set_operand(0, slot.ty().poison());
                    module.defer_erase_instruction(i);
                }
            }
        }
        Ok(())
    }

    /// The merged value phi `orig` of side `s` receives from original block `ob`.
    fn incoming(&self, s: usize, orig: Instruction<'m>, ob: u32) -> Result<Value<'m>, String> {
        let ob = self.sides[s].handles.blocks[ob as usize];
        let (v, _) = orig
            .phi_incoming()
            .into_iter()
            .find(|(_, b)| *b == ob)
            .ok_or("a phi without an entry for one of its edges")?;
        self.value(s, v)
    }
}

/// `llvm.lifetime.start` / `llvm.lifetime.end`.
fn is_lifetime_marker(v: Instruction<'_>) -> bool {
    v.opcode() == opcode::CALL
        && v.called_value()
            .is_some_and(|c| c.is_function() && c.name().starts_with("llvm.lifetime."))
}
