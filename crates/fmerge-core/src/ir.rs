//! The LLVM-free picture of a module that every algorithm in this crate works on.
//!
//! `fmerge-llvm` lowers each LLVM function into a [`FuncData`]: blocks, instructions and operands
//! as plain integers. Everything that decides whether two instructions may share one copy (opcode,
//! result type, predicates, flags, alignment, callee attributes, GEP source type, metadata ...) is
//! folded by the lowering into one interned [`StateId`], so "same operation" is an integer compare.
//!
//! Two kinds of identity live side by side:
//! - **exact ids** ([`TypeId`], [`ConstId`], [`StateId`]) are interned per module: equal id ⇔ the
//!   very same LLVM entity (LLVM uniques types and constants per context). They decide legality.
//! - **stable hashes** (`*_hash` fields) are computed from structure and names only, never from
//!   pointers, so they are equal across runs, machines and modules. They feed fingerprints,
//!   ordering (determinism) and the cross-module summaries.
//!
//! **Invariant:** legality decisions use exact ids only; a stable hash may only order or prune.

use std::ops::Range;

/// Interned LLVM type of one module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// Interned LLVM constant (including global values) of one module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConstId(pub u32);

/// Interned "special state" of an instruction: everything besides opcode, result type and
/// operands that must be equal for two instructions to be the same operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId(pub u32);

/// Index of a function in [`ModuleData::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// LLVM C API opcode numbers (`LLVMOpcode` in llvm-c/Core.h). They are part of LLVM's stable C
/// API; `fmerge-llvm` checks each one against llvm-sys in a test.
pub mod opcode {
    pub const RET: u32 = 1;
    pub const BR: u32 = 2;
    pub const SWITCH: u32 = 3;
    pub const INDIRECT_BR: u32 = 4;
    pub const INVOKE: u32 = 5;
    pub const UNREACHABLE: u32 = 7;
    pub const CALL_BR: u32 = 67;
    pub const FNEG: u32 = 66;
    pub const ADD: u32 = 8;
    pub const FADD: u32 = 9;
    pub const SUB: u32 = 10;
    pub const FSUB: u32 = 11;
    pub const MUL: u32 = 12;
    pub const FMUL: u32 = 13;
    pub const UDIV: u32 = 14;
    pub const SDIV: u32 = 15;
    pub const FDIV: u32 = 16;
    pub const UREM: u32 = 17;
    pub const SREM: u32 = 18;
    pub const FREM: u32 = 19;
    pub const SHL: u32 = 20;
    pub const LSHR: u32 = 21;
    pub const ASHR: u32 = 22;
    pub const AND: u32 = 23;
    pub const OR: u32 = 24;
    pub const XOR: u32 = 25;
    pub const ALLOCA: u32 = 26;
    pub const LOAD: u32 = 27;
    pub const STORE: u32 = 28;
    pub const GEP: u32 = 29;
    pub const TRUNC: u32 = 30;
    pub const ZEXT: u32 = 31;
    pub const SEXT: u32 = 32;
    pub const FPTOUI: u32 = 33;
    pub const FPTOSI: u32 = 34;
    pub const UITOFP: u32 = 35;
    pub const SITOFP: u32 = 36;
    pub const FPTRUNC: u32 = 37;
    pub const FPEXT: u32 = 38;
    pub const PTRTOINT: u32 = 39;
    pub const PTRTOADDR: u32 = 69;
    pub const INTTOPTR: u32 = 40;
    pub const BITCAST: u32 = 41;
    pub const ADDRSPACECAST: u32 = 60;
    pub const ICMP: u32 = 42;
    pub const FCMP: u32 = 43;
    pub const PHI: u32 = 44;
    pub const CALL: u32 = 45;
    pub const SELECT: u32 = 46;
    pub const USER_OP1: u32 = 47;
    pub const USER_OP2: u32 = 48;
    pub const VA_ARG: u32 = 49;
    pub const EXTRACT_ELEMENT: u32 = 50;
    pub const INSERT_ELEMENT: u32 = 51;
    pub const SHUFFLE_VECTOR: u32 = 52;
    pub const EXTRACT_VALUE: u32 = 53;
    pub const INSERT_VALUE: u32 = 54;
    pub const FREEZE: u32 = 68;
    pub const FENCE: u32 = 55;
    pub const ATOMIC_CMPXCHG: u32 = 56;
    pub const ATOMIC_RMW: u32 = 57;
    pub const RESUME: u32 = 58;
    pub const LANDING_PAD: u32 = 59;
    pub const CLEANUP_RET: u32 = 61;
    pub const CATCH_RET: u32 = 62;
    pub const CATCH_PAD: u32 = 63;
    pub const CLEANUP_PAD: u32 = 64;
    pub const CATCH_SWITCH: u32 = 65;

    /// One past the largest opcode number above; size of opcode-indexed tables.
    pub const COUNT: usize = 70;

    /// Terminators end a basic block.
    pub fn is_terminator(op: u32) -> bool {
        matches!(
            op,
            RET | BR
                | SWITCH
                | INDIRECT_BR
                | INVOKE
                | UNREACHABLE
                | CALL_BR
                | RESUME
                | CLEANUP_RET
                | CATCH_RET
                | CATCH_SWITCH
        )
    }

    /// Short lowercase name as in textual IR (for reports and `fmerge explain`).
    pub fn name(op: u32) -> &'static str {
        match op {
            RET => "ret",
            BR => "br",
            SWITCH => "switch",
            INDIRECT_BR => "indirectbr",
            INVOKE => "invoke",
            UNREACHABLE => "unreachable",
            CALL_BR => "callbr",
            FNEG => "fneg",
            ADD => "add",
            FADD => "fadd",
            SUB => "sub",
            FSUB => "fsub",
            MUL => "mul",
            FMUL => "fmul",
            UDIV => "udiv",
            SDIV => "sdiv",
            FDIV => "fdiv",
            UREM => "urem",
            SREM => "srem",
            FREM => "frem",
            SHL => "shl",
            LSHR => "lshr",
            ASHR => "ashr",
            AND => "and",
            OR => "or",
            XOR => "xor",
            ALLOCA => "alloca",
            LOAD => "load",
            STORE => "store",
            GEP => "getelementptr",
            TRUNC => "trunc",
            ZEXT => "zext",
            SEXT => "sext",
            FPTOUI => "fptoui",
            FPTOSI => "fptosi",
            UITOFP => "uitofp",
            SITOFP => "sitofp",
            FPTRUNC => "fptrunc",
            FPEXT => "fpext",
            PTRTOINT => "ptrtoint",
            PTRTOADDR => "ptrtoaddr",
            INTTOPTR => "inttoptr",
            BITCAST => "bitcast",
            ADDRSPACECAST => "addrspacecast",
            ICMP => "icmp",
            FCMP => "fcmp",
            PHI => "phi",
            CALL => "call",
            SELECT => "select",
            VA_ARG => "va_arg",
            EXTRACT_ELEMENT => "extractelement",
            INSERT_ELEMENT => "insertelement",
            SHUFFLE_VECTOR => "shufflevector",
            EXTRACT_VALUE => "extractvalue",
            INSERT_VALUE => "insertvalue",
            FREEZE => "freeze",
            FENCE => "fence",
            ATOMIC_CMPXCHG => "cmpxchg",
            ATOMIC_RMW => "atomicrmw",
            RESUME => "resume",
            LANDING_PAD => "landingpad",
            CLEANUP_RET => "cleanupret",
            CATCH_RET => "catchret",
            CATCH_PAD => "catchpad",
            CLEANUP_PAD => "cleanuppad",
            CATCH_SWITCH => "catchswitch",
            _ => "op?",
        }
    }
}

/// One operand of an instruction, as seen by the algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Result of instruction `i` of the same function (index into [`FuncData::insts`]).
    Inst(u32),
    /// Formal argument `n` of the function.
    Arg(u32),
    /// Basic block `b` of the same function (branch targets, phi incoming blocks).
    Block(u32),
    /// A constant or global value, with what the position allows (see [`ConstRole`]).
    Const { id: ConstId, role: ConstRole },
    /// The function itself (recursive calls, its own address).
    SelfRef,
    /// Metadata, inline asm or another operand the algorithms treat as an opaque exact value;
    /// the payload is an exact interned id (compare for equality only).
    Opaque(u32),
}

/// What may stand at the position of a constant operand instead of this very constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstRole {
    /// A parameter may replace it, and constant-parameterized merging does so: call targets
    /// and arguments of ordinary calls, load/store operands (the positions seed 002 and LLVM's
    /// GlobalMergeFunc parameterize), and the base address of a GEP.
    Param,
    /// Any runtime value of the same type may replace it (a `select` in a merged function), but
    /// constant-parameterized merging leaves it alone, because an immediate folds into the
    /// instruction and a parameter would not (arithmetic and compare operands ...).
    Value,
    /// It must stay exactly this constant: GEP struct indices, switch case values, intrinsic
    /// arguments and callees, landingpad clauses, alloca sizes, inline asm.
    Fixed,
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// LLVM C API opcode (see [`opcode`]).
    pub opcode: u32,
    /// Result type (`void` for stores, branches ...).
    pub ty: TypeId,
    /// Everything else that must be equal for two instructions to be the same operation.
    pub state: StateId,
    /// Operand range in [`FuncData::operands`]. For `phi`, the incoming values come first, then
    /// the incoming blocks in the same order.
    pub ops: Range<u32>,
}

/// One basic block: a contiguous run of instructions, the last one a terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub insts: Range<u32>,
    /// Successor blocks in terminator order (duplicates kept, as LLVM reports them).
    pub succs: Vec<u32>,
    /// True when the block starts with a `landingpad` (or another EH pad).
    pub is_eh_pad: bool,
}

/// Facts about a function that restrict how it may be merged. Each merging stage decides what
/// it can handle; [`traits::describe`] turns a set into the reason shown in reports.
pub mod traits {
    /// Variable arguments: a thunk cannot forward them.
    pub const VARARGS: u32 = 1 << 0;
    /// Contains a `musttail` call: the caller's signature must not change.
    pub const MUSTTAIL: u32 = 1 << 1;
    /// Its blocks' addresses are taken (`blockaddress`) or it uses `indirectbr`.
    pub const BLOCK_ADDRESS: u32 = 1 << 2;
    /// Contains `callbr` (asm goto).
    pub const CALLBR: u32 = 1 << 3;
    /// Uses funclet-based exception handling (catchswitch, catchpad, cleanuppad).
    pub const EH_FUNCLETS: u32 = 1 << 4;
    /// Contains `invoke`/`landingpad`.
    pub const LANDING_PADS: u32 = 1 << 5;
    /// Has a `swifterror` argument or alloca.
    pub const SWIFTERROR: u32 = 1 << 6;
    /// Has a garbage-collection strategy.
    pub const GC: u32 = 1 << 7;
    /// Has prefix or prologue data.
    pub const PREFIX_PROLOGUE: u32 = 1 << 8;
    /// Calls inline assembly.
    pub const INLINE_ASM: u32 = 1 << 9;
    /// Produces or consumes `token` values (other than through EH pads).
    pub const TOKENS: u32 = 1 << 10;
    /// Its body references itself other than by direct recursive calls.
    pub const SELF_ADDRESS: u32 = 1 << 11;

    const NAMES: [(u32, &str); 12] = [
        (VARARGS, "variable arguments"),
        (MUSTTAIL, "musttail call"),
        (BLOCK_ADDRESS, "blockaddress/indirectbr"),
        (CALLBR, "callbr (asm goto)"),
        (EH_FUNCLETS, "funclet exception handling"),
        (LANDING_PADS, "invoke/landingpad"),
        (SWIFTERROR, "swifterror"),
        (GC, "garbage-collection strategy"),
        (PREFIX_PROLOGUE, "prefix/prologue data"),
        (INLINE_ASM, "inline assembly"),
        (TOKENS, "token values"),
        (SELF_ADDRESS, "takes its own address"),
    ];

    /// Human-readable list of the traits in `set`.
    pub fn describe(set: u32) -> String {
        let parts: Vec<&str> =
            NAMES.iter().filter(|(bit, _)| set & bit != 0).map(|(_, n)| *n).collect();
        parts.join(", ")
    }
}

/// A function lowered to plain data. Blocks are in layout order; block 0 is the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncData {
    pub name: String,
    /// The function's type (`ret (args...)`), interned.
    pub ty: TypeId,
    /// Interned "header state": attributes, calling convention, GC, section, personality,
    /// varargs, alignment — all that two functions must share to be interchangeable.
    pub header: StateId,
    pub arg_types: Vec<TypeId>,
    pub ret_type: TypeId,
    pub blocks: Vec<Block>,
    pub insts: Vec<Inst>,
    pub operands: Vec<Operand>,
    /// Facts that restrict how the function may be merged (see [`traits`]).
    pub traits: u32,
}

impl FuncData {
    pub fn ops(&self, i: u32) -> &[Operand] {
        let r = &self.insts[i as usize].ops;
        &self.operands[r.start as usize..r.end as usize]
    }

    pub fn block_insts(&self, b: u32) -> &[Inst] {
        let r = &self.blocks[b as usize].insts;
        &self.insts[r.start as usize..r.end as usize]
    }

    /// Whether the body is at most one call and a return, in one block: a forwarding thunk
    /// (often one an earlier merge made). Merging thunks can only replace them with thunks.
    pub fn is_forwarder(&self) -> bool {
        self.blocks.len() == 1 && self.num_insts() <= 2
    }

    pub fn num_insts(&self) -> usize {
        self.insts.len()
    }

    /// Type of an operand, when it has one the algorithms can see.
    pub fn operand_type(&self, module: &ModuleTables, op: Operand) -> Option<TypeId> {
        match op {
            Operand::Inst(i) => Some(self.insts[i as usize].ty),
            Operand::Arg(a) => self.arg_types.get(a as usize).copied(),
            Operand::Const { id, .. } => Some(module.consts[id.0 as usize].ty),
            Operand::SelfRef => Some(module.ptr_type),
            Operand::Block(_) | Operand::Opaque(_) => None,
        }
    }
}

/// What a type is, coarsely, plus its stable hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeInfo {
    pub stable_hash: u64,
    pub kind: TypeKind,
    /// Size in bits for integers, 0 otherwise.
    pub int_bits: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Void,
    Int,
    Float,
    Pointer,
    Vector,
    Array,
    Struct,
    Function,
    Label,
    Token,
    Metadata,
    Other,
}

/// What a constant is, plus its stable hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstInfo {
    /// Stable across modules when the lowering asked for it (global merging's summaries);
    /// lowerings for merging inside one module use a placeholder unique within the tables.
    pub stable_hash: u64,
    pub ty: TypeId,
    /// Name for global values (functions, variables, aliases), empty otherwise.
    pub global_name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateInfo {
    /// Stable hash of the state, with every interned id replaced by its stable hash.
    pub stable_hash: u64,
}

/// Module-wide intern tables shared by all functions of a [`ModuleData`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleTables {
    pub types: Vec<TypeInfo>,
    pub consts: Vec<ConstInfo>,
    pub states: Vec<StateInfo>,
    /// The opaque pointer type of address space 0.
    pub ptr_type: TypeId,
    /// Stable hash of each opaque entity (`Operand::Opaque` ids and the attribute-list keys in
    /// states), by id; as for constants, a placeholder unless the lowering asked for stable
    /// hashes.
    pub opaque: Vec<u64>,
}

impl ModuleTables {
    /// Stable hash of opaque id `id` (0 for an id the tables do not know).
    pub fn opaque_hash(&self, id: u32) -> u64 {
        self.opaque.get(id as usize).copied().unwrap_or(0)
    }
}

/// A whole module lowered to plain data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleData {
    pub tables: ModuleTables,
    pub functions: Vec<FuncData>,
}

impl ModuleData {
    pub fn func(&self, id: FuncId) -> &FuncData {
        &self.functions[id.0 as usize]
    }
}
