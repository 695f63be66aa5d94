//! Test-only builders for [`ModuleTables`] and [`FuncData`], plus a proptest strategy for small
//! random functions. Shared by the unit tests of the search and alignment modules.

use crate::ir::{
    Block, ConstId, ConstInfo, ConstRole, FuncData, Inst, ModuleTables, Operand, StateId,
    StateInfo, TypeId, TypeInfo, TypeKind, opcode,
};
use proptest::prelude::*;

/// Types every [`tables`] holds, by index.
pub const VOID: TypeId = TypeId(0);
pub const I1: TypeId = TypeId(1);
pub const I32: TypeId = TypeId(2);
pub const I64: TypeId = TypeId(3);
pub const PTR: TypeId = TypeId(4);
pub const TOKEN: TypeId = TypeId(5);
pub const FNTY: TypeId = TypeId(7);

/// Constants every [`tables`] holds: `C_I32[k]` is the i32 constant `k`; `C_FN[k]` are
/// functions (type ptr); `C_TOKEN_NONE` is `token none`.
pub const C_I32: [ConstId; 4] = [ConstId(0), ConstId(1), ConstId(2), ConstId(3)];
pub const C_FN: [ConstId; 3] = [ConstId(4), ConstId(5), ConstId(6)];
pub const C_TOKEN_NONE: ConstId = ConstId(7);

/// States: `S[k]` are distinct interned states.
pub const S: [StateId; 4] = [StateId(0), StateId(1), StateId(2), StateId(3)];

/// Module tables with the fixed types, constants and states above. `salt` shifts every interned
/// id (by prepending unused entries) without changing any stable hash, to model a second module.
pub fn tables_with_salt(salt: u32) -> ModuleTables {
    let mut t = ModuleTables::default();
    for k in 0..salt {
        t.types.push(TypeInfo {
            stable_hash: 0xdead_0000 + u64::from(k),
            kind: TypeKind::Other,
            int_bits: 0,
        });
        t.consts.push(ConstInfo {
            stable_hash: 0xbeef_0000 + u64::from(k),
            ty: TypeId(0),
            global_name: String::new(),
        });
        t.states.push(StateInfo { stable_hash: 0xcafe_0000 + u64::from(k) });
    }
    let ty = |t: &mut ModuleTables, h: u64, kind: TypeKind, bits: u32| {
        t.types.push(TypeInfo { stable_hash: h, kind, int_bits: bits });
        TypeId(t.types.len() as u32 - 1)
    };
    let tv = ty(&mut t, 0x1001, TypeKind::Void, 0);
    let t1 = ty(&mut t, 0x1002, TypeKind::Int, 1);
    let t32 = ty(&mut t, 0x1003, TypeKind::Int, 32);
    let t64 = ty(&mut t, 0x1004, TypeKind::Int, 64);
    let tp = ty(&mut t, 0x1005, TypeKind::Pointer, 0);
    let tt = ty(&mut t, 0x1006, TypeKind::Token, 0);
    let _tl = ty(&mut t, 0x1007, TypeKind::Label, 0);
    let _tf = ty(&mut t, 0x1008, TypeKind::Function, 0);
    let _ = (tv, t1, t64);
    t.ptr_type = tp;
    let c = |t: &mut ModuleTables, h: u64, ty: TypeId, name: &str| {
        t.consts.push(ConstInfo { stable_hash: h, ty, global_name: name.to_string() });
    };
    for k in 0..4 {
        c(&mut t, 0x2000 + k, t32, "");
    }
    for (k, name) in ["f0", "f1", "f2"].iter().enumerate() {
        c(&mut t, 0x3000 + k as u64, tp, name);
    }
    c(&mut t, 0x4000, tt, "");
    for k in 0..4 {
        t.states.push(StateInfo { stable_hash: 0x5000 + k });
    }
    t
}

/// Module tables without salt: ids equal the constants above.
pub fn tables() -> ModuleTables {
    tables_with_salt(0)
}

/// Maps the fixed ids above into tables made with `tables_with_salt(salt)`.
pub fn salted(salt: u32, f: &FuncData) -> FuncData {
    let mut g = f.clone();
    let ty = |x: TypeId| TypeId(x.0 + salt);
    g.ty = ty(g.ty);
    g.ret_type = ty(g.ret_type);
    g.header = StateId(g.header.0 + salt);
    for a in &mut g.arg_types {
        *a = ty(*a);
    }
    for i in &mut g.insts {
        i.ty = ty(i.ty);
        i.state = StateId(i.state.0 + salt);
    }
    for o in &mut g.operands {
        if let Operand::Const { id, .. } = o {
            *id = ConstId(id.0 + salt);
        }
    }
    g
}

/// Incremental function builder: add instructions, close blocks.
pub struct FuncBuilder {
    f: FuncData,
    block_start: u32,
}

impl FuncBuilder {
    pub fn new(name: &str, args: &[TypeId], ret: TypeId) -> Self {
        FuncBuilder {
            f: FuncData {
                name: name.to_string(),
                ty: FNTY,
                header: S[0],
                arg_types: args.to_vec(),
                ret_type: ret,
                blocks: Vec::new(),
                insts: Vec::new(),
                operands: Vec::new(),
                traits: 0,
            },
            block_start: 0,
        }
    }

    /// Appends an instruction; returns its index.
    pub fn inst(&mut self, op: u32, ty: TypeId, state: StateId, ops: &[Operand]) -> u32 {
        let start = self.f.operands.len() as u32;
        self.f.operands.extend_from_slice(ops);
        let end = self.f.operands.len() as u32;
        self.f.insts.push(Inst { opcode: op, ty, state, ops: start..end });
        self.f.insts.len() as u32 - 1
    }

    /// Closes the current block (its last instruction should be a terminator).
    pub fn end_block(&mut self, succs: &[u32], is_eh_pad: bool) -> u32 {
        let end = self.f.insts.len() as u32;
        self.f.blocks.push(Block {
            insts: self.block_start..end,
            succs: succs.to_vec(),
            is_eh_pad,
        });
        self.block_start = end;
        self.f.blocks.len() as u32 - 1
    }

    pub fn finish(self) -> FuncData {
        assert_eq!(self.block_start as usize, self.f.insts.len(), "unterminated block");
        self.f
    }
}

pub fn cv(k: usize) -> Operand {
    Operand::Const { id: C_I32[k], role: ConstRole::Value }
}

pub fn callee(k: usize) -> Operand {
    Operand::Const { id: C_FN[k], role: ConstRole::Param }
}

/// One body instruction of a random function, as a small recipe.
#[derive(Clone, Debug)]
pub enum Step {
    /// `add i32 a, b` with operands chosen from args/consts/previous i32 results.
    Add(u8, u8),
    /// `icmp` (state picks the predicate) of two i32 values.
    Cmp(u8, u8, u8),
    /// `load i32 ptr arg0`.
    Load,
    /// `store i32 v, ptr arg0`.
    Store(u8),
    /// `call void @f_k(i32 v)`.
    Call(u8, u8),
    /// `zext i32 -> i64`.
    Zext(u8),
}

/// Recipe for a random function: blocks of steps; each block ends in `br` to the next block
/// (or `ret` for the last one), and optionally a conditional branch back to an earlier block.
#[derive(Clone, Debug)]
pub struct Recipe {
    pub blocks: Vec<(Vec<Step>, Option<u8>)>,
}

pub fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Step::Add(a, b)),
        2 => (0u8..2, any::<u8>(), any::<u8>()).prop_map(|(p, a, b)| Step::Cmp(p, a, b)),
        3 => Just(Step::Load),
        3 => any::<u8>().prop_map(Step::Store),
        2 => (0u8..3, any::<u8>()).prop_map(|(c, v)| Step::Call(c, v)),
        1 => any::<u8>().prop_map(Step::Zext),
    ]
}

pub fn recipe() -> impl Strategy<Value = Recipe> {
    prop::collection::vec(
        (prop::collection::vec(step(), 0..8), prop::option::of(any::<u8>())),
        1..5,
    )
    .prop_map(|blocks| Recipe { blocks })
}

/// Builds a function (args: ptr, i32; returns void) from a recipe.
pub fn build(r: &Recipe) -> FuncData {
    let mut b = FuncBuilder::new("rand", &[PTR, I32], VOID);
    let nb = r.blocks.len() as u32;
    let mut i32_vals: Vec<Operand> = vec![Operand::Arg(1)];
    let pick = |vals: &Vec<Operand>, k: u8| -> Operand {
        let n = vals.len() + 2;
        let k = k as usize % n;
        if k < vals.len() { vals[k] } else { cv(k - vals.len()) }
    };
    for (bi, (steps, back)) in r.blocks.iter().enumerate() {
        let bi = bi as u32;
        for s in steps {
            match *s {
                Step::Add(x, y) => {
                    let ops = [pick(&i32_vals, x), pick(&i32_vals, y)];
                    let v = b.inst(opcode::ADD, I32, S[0], &ops);
                    i32_vals.push(Operand::Inst(v));
                }
                Step::Cmp(p, x, y) => {
                    let ops = [pick(&i32_vals, x), pick(&i32_vals, y)];
                    b.inst(opcode::ICMP, I1, S[1 + p as usize], &ops);
                }
                Step::Load => {
                    let v = b.inst(opcode::LOAD, I32, S[0], &[Operand::Arg(0)]);
                    i32_vals.push(Operand::Inst(v));
                }
                Step::Store(x) => {
                    let ops = [pick(&i32_vals, x), Operand::Arg(0)];
                    b.inst(opcode::STORE, VOID, S[0], &ops);
                }
                Step::Call(c, x) => {
                    let ops = [pick(&i32_vals, x), callee(c as usize)];
                    b.inst(opcode::CALL, VOID, S[0], &ops);
                }
                Step::Zext(x) => {
                    let ops = [pick(&i32_vals, x)];
                    b.inst(opcode::ZEXT, I64, S[0], &ops);
                }
            }
        }
        if bi + 1 == nb {
            b.inst(opcode::RET, VOID, S[0], &[]);
            b.end_block(&[], false);
        } else if let Some(k) = back {
            let target = u32::from(*k) % (bi + 1);
            let c = b.inst(opcode::ICMP, I1, S[1], &[Operand::Arg(1), cv(0)]);
            let ops = [Operand::Inst(c), Operand::Block(bi + 1), Operand::Block(target)];
            b.inst(opcode::BR, VOID, S[0], &ops);
            b.end_block(&[bi + 1, target], false);
        } else {
            b.inst(opcode::BR, VOID, S[0], &[Operand::Block(bi + 1)]);
            b.end_block(&[bi + 1], false);
        }
    }
    b.finish()
}
