//! One stable 32-bit integer per instruction: the alphabet that MinHash shingles are built from.
//!
//! An encoding summarizes what decides whether two instructions *could* share one copy in a
//! merged function, ignoring which values they use: the opcode, the result type, the operand
//! count, and the type of every operand at its position. Equal encodings suggest mergeable
//! instructions; different encodings (almost surely) mean instructions that cannot merge.
//!
//! How: every ingredient is fed as a 64-bit word into [`StableHasher`] (seeded for this use), and
//! the 64-bit result is folded to 32 bits by xoring its halves.
//!
//! Why the non-obvious rules:
//! - **Only stable hashes, never interned ids or pointers.** `TypeId` numbers depend on the order
//!   in which one module interned its types, so the same instruction would encode differently in
//!   two modules (F3M used `Type*` addresses, which even change between runs). Types enter as
//!   their `stable_hash`, so encodings are equal across modules, runs and machines.
//! - **A real hash instead of F3M's product of factors** (notes §2.1): multiplying
//!   `opcode * (nops+1) * (type+1) * ...` accumulates trailing zero bits with every even factor,
//!   collapses permutations of operand types onto one value, and becomes 0 as soon as a product
//!   is 0 mod 2^32. A sequential hash depends on every word and on their order.
//! - **Operand positions are hashed together with the operand type**, so `(i32, ptr)` and
//!   `(ptr, i32)` differ. Operands without a visible type (basic blocks, metadata, inline asm)
//!   contribute a per-kind tag instead, so `br label` and `br i1, label, label` still differ.
//! - **No operand values, constants, predicates or flags** (the interned `state`), as in F3M's
//!   effective key: MinHash should find functions whose *shapes* align; whether two aligned
//!   instructions are really legal to merge is decided later by `align::insts_match`.
//! - Phis and landing pads are encoded like any other instruction and take part in
//!   [`encode_function`]: they are part of the block's shape.

use crate::hash::StableHasher;
use crate::ir::{FuncData, ModuleTables, Operand};

/// Seed that separates instruction encodings from every other use of [`StableHasher`].
const ENCODE_SEED: u64 = 0x656e_636f_6465_0001;

/// Tags standing in for the type of operands that have none visible to the algorithms.
const TAG_BLOCK: u64 = 0x7461_675f_626c_6b00;
const TAG_OPAQUE: u64 = 0x7461_675f_6f70_7100;
/// Tag for a typed operand whose type index is out of range (malformed input); keeps the
/// function total instead of panicking.
const TAG_UNKNOWN_TYPE: u64 = 0x7461_675f_756e_6b00;

/// Folds a 64-bit hash to 32 bits; every input bit influences the result.
#[inline]
pub fn fold32(h: u64) -> u32 {
    (h ^ (h >> 32)) as u32
}

fn type_hash(t: &ModuleTables, ty: crate::ir::TypeId) -> u64 {
    t.types.get(ty.0 as usize).map_or(TAG_UNKNOWN_TYPE, |info| info.stable_hash)
}

/// Stable encoding of instruction `i` of `f`: opcode, result type, operand count and each
/// operand's type (or kind tag) at its position.
pub fn encode_inst(t: &ModuleTables, f: &FuncData, i: u32) -> u32 {
    let inst = &f.insts[i as usize];
    let ops = f.ops(i);
    let mut h = StableHasher::with_seed(ENCODE_SEED);
    h.word(u64::from(inst.opcode)).word(type_hash(t, inst.ty)).word(ops.len() as u64);
    for (pos, &op) in ops.iter().enumerate() {
        let ty_word = match f.operand_type(t, op) {
            Some(ty) => type_hash(t, ty),
            None => match op {
                Operand::Block(_) => TAG_BLOCK,
                Operand::Opaque(_) => TAG_OPAQUE,
                // An argument index past `arg_types`: malformed, but stay total.
                _ => TAG_UNKNOWN_TYPE,
            },
        };
        h.word(pos as u64).word(ty_word);
    }
    fold32(h.finish())
}

/// Encodings of every instruction of `f` in block layout order (phis and landing pads included).
pub fn encode_function(t: &ModuleTables, f: &FuncData) -> Vec<u32> {
    let mut out = Vec::with_capacity(f.insts.len());
    for b in &f.blocks {
        out.extend(b.insts.clone().map(|i| encode_inst(t, f, i)));
    }
    out
}

/// Like [`encode_function`], but one vector per block (for shingling that must not cross block
/// boundaries).
pub fn encode_blocks(t: &ModuleTables, f: &FuncData) -> Vec<Vec<u32>> {
    f.blocks.iter().map(|b| b.insts.clone().map(|i| encode_inst(t, f, i)).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ConstRole, opcode};
    use crate::testkit::*;

    fn one_block(insts: &[(u32, crate::ir::TypeId, &[Operand])]) -> FuncData {
        let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
        for &(op, ty, ops) in insts {
            b.inst(op, ty, S[0], ops);
        }
        b.inst(opcode::RET, VOID, S[0], &[]);
        b.end_block(&[], false);
        b.finish()
    }

    #[test]
    fn encoding_is_equal_across_modules_with_different_interned_ids() {
        let t0 = tables();
        let t7 = tables_with_salt(7);
        let f = one_block(&[
            (opcode::LOAD, I32, &[Operand::Arg(0)]),
            (opcode::ADD, I32, &[Operand::Inst(0), cv(1)]),
            (opcode::CALL, VOID, &[Operand::Inst(1), callee(0)]),
        ]);
        let g = salted(7, &f);
        assert_ne!(f.insts[1].ty, g.insts[1].ty, "salt must really change the ids");
        assert_eq!(encode_function(&t0, &f), encode_function(&t7, &g));
    }

    #[test]
    fn encoding_ignores_values_but_sees_types_positions_and_counts() {
        let t = tables();
        let f = one_block(&[
            (opcode::ADD, I32, &[Operand::Arg(1), cv(1)]),
            (opcode::ADD, I32, &[cv(2), Operand::Arg(1)]),
            (opcode::ADD, I64, &[Operand::Arg(1), cv(1)]),
            (opcode::STORE, VOID, &[Operand::Arg(1), Operand::Arg(0)]),
            (opcode::STORE, VOID, &[Operand::Arg(0), Operand::Arg(1)]),
            (opcode::SUB, I32, &[Operand::Arg(1), cv(1)]),
            (opcode::CALL, VOID, &[callee(0)]),
            (opcode::CALL, VOID, &[Operand::Arg(1), callee(0)]),
        ]);
        let e = encode_function(&t, &f);
        // Different values of the same types: equal.
        assert_eq!(e[0], e[1]);
        // Result type, operand order of types, opcode, operand count: all different.
        assert_ne!(e[0], e[2]);
        assert_ne!(e[3], e[4]);
        assert_ne!(e[0], e[5]);
        assert_ne!(e[6], e[7]);
    }

    #[test]
    fn typeless_operands_contribute_their_kind() {
        let t = tables();
        let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
        b.inst(opcode::BR, VOID, S[0], &[Operand::Block(1)]);
        b.end_block(&[1], false);
        b.inst(opcode::CALL, VOID, S[0], &[Operand::Opaque(3), callee(0)]);
        b.inst(opcode::CALL, VOID, S[0], &[Operand::Opaque(9), callee(1)]);
        b.inst(opcode::CALL, VOID, S[0], &[Operand::Block(0), callee(1)]);
        b.inst(opcode::RET, VOID, S[0], &[]);
        b.end_block(&[], false);
        let f = b.finish();
        let e = encode_function(&t, &f);
        assert_eq!(e.len(), 5, "layout order covers every instruction");
        assert_eq!(e[1], e[2], "opaque payloads are values, not shapes");
        assert_ne!(e[2], e[3], "block and opaque operands carry different tags");
        assert_eq!(encode_blocks(&t, &f).concat(), e);
    }

    #[test]
    fn many_operands_do_not_collapse_the_encoding() {
        // F3M's product of (type+1)*(pos+1) factors goes to 0 mod 2^32 for long operand lists.
        let t = tables();
        let mut seen = std::collections::HashSet::new();
        for n in 0..64usize {
            let ops: Vec<Operand> =
                (0..n).map(|k| if k % 2 == 0 { cv(0) } else { Operand::Arg(0) }).collect();
            let mut b = FuncBuilder::new("f", &[PTR, I32], VOID);
            b.inst(opcode::CALL, VOID, S[0], &ops);
            b.inst(opcode::RET, VOID, S[0], &[]);
            b.end_block(&[], false);
            let f = b.finish();
            assert!(seen.insert(encode_inst(&t, &f, 0)), "operand count {n} collided");
        }
        assert!(!seen.contains(&0));
    }

    #[test]
    fn const_role_does_not_change_the_encoding() {
        let t = tables();
        let fixed = Operand::Const { id: C_I32[1], role: ConstRole::Fixed };
        let f = one_block(&[
            (opcode::ADD, I32, &[Operand::Arg(1), cv(1)]),
            (opcode::ADD, I32, &[Operand::Arg(1), fixed]),
        ]);
        let e = encode_function(&t, &f);
        assert_eq!(e[0], e[1]);
    }
}
