//! Lowering: LLVM functions → `fmerge_core::ir` plain data.
//!
//! The [`Lowerer`] walks functions through the handles of this crate and interns types,
//! constants, instruction "states" and opaque operands per module (see `fmerge_core::ir` for
//! what exact ids and stable hashes are). It also remembers, for every lowered function, which
//! LLVM value each instruction and block index stands for, so transformations can map plain-data
//! decisions back to IR.
//!
//! What goes into an instruction's state (must be equal for two instructions to be one
//! operation): the called function type, calling convention, tail-call kind and attribute list
//! of calls, operand bundle tags; compare predicates; allocated type and alignment of allocas;
//! volatility, alignment, ordering and sync scope of memory operations; GEP source element type;
//! aggregate indices; shuffle masks; atomic operations; landing pad cleanup flag.
//!
//! What deliberately stays *out*: poison-generating and fast-math flags, metadata attachments,
//! and the intersectable part of attribute lists (inferred facts like `range`, `nonnull`,
//! `memory(...)`). Dropping them never changes meaning, so merging keeps their intersection
//! (see `fmerge-passes`) instead of refusing the merge. Attributes that must match (ABI,
//! string attributes such as "target-features") are in the state through [`Function::attr_key`]
//! and [`Instruction::attr_key`].

use crate::ir::{Block, Function, Instruction, Linkage, TailCallKind, Type, Value};
use crate::module::Module;
use fmerge_core::hash::StableHasher;
use fmerge_core::ir::{
    self, ConstId, ConstInfo, ConstRole, FuncData, Inst, ModuleTables, Operand, StateId, StateInfo,
    TypeId, TypeInfo, TypeKind, opcode, traits,
};
use llvm_sys::prelude::{LLVMTypeRef, LLVMValueRef};
// Interning hashes pointers and small words: FxHash is several times faster than SipHash
// here, and deterministic (iteration order never decides output anyway).
use rustc_hash::FxHashMap as HashMap;

/// The LLVM values behind one lowered function: its instructions and blocks in the order
/// [`FuncData`] numbers them (empty in a lean lowering, [`lower_module_lean`]).
#[derive(Clone, Debug)]
pub struct FuncHandles<'m> {
    pub function: Function<'m>,
    pub insts: Vec<Instruction<'m>>,
    pub blocks: Vec<Block<'m>>,
}

impl<'m> FuncHandles<'m> {
    /// The handles of `f` as it is now, numbered as its lowering numbers them (blocks in
    /// layout order, each block's instructions in order). Equal to what lowering `f` gives as
    /// long as `f` has not changed since.
    pub fn of(f: Function<'m>) -> FuncHandles<'m> {
        let blocks = f.blocks();
        let insts = blocks.iter().flat_map(|b| b.instructions()).collect();
        FuncHandles { function: f, insts, blocks }
    }

    /// The function alone, without instruction and block handles.
    fn lean(self) -> FuncHandles<'m> {
        FuncHandles { function: self.function, insts: Vec::new(), blocks: Vec::new() }
    }
}

/// Interns module-wide entities and lowers functions.
pub struct Lowerer<'m> {
    tables: ModuleTables,
    types: HashMap<Type<'m>, TypeId>,
    consts: HashMap<Value<'m>, ConstId>,
    const_values: Vec<Value<'m>>,
    states: HashMap<Vec<u64>, StateId>,
    opaque: HashMap<usize, u32>,
    /// Attribute-list identity → the identity of its must-match part (`attr_key`), which
    /// costs new attribute sets to compute; lists are few and shared by many call sites.
    attr_keys: HashMap<usize, usize>,
    /// The module's source file name, which tells module-local globals of different modules
    /// apart in stable hashes.
    source_file: String,
    /// Whether constants get hashes that are stable across modules (see [`Hashes`]).
    hashes: Hashes,
}

/// A [`Lowerer`] and the functions of its lowering, let go of their module so that the module
/// can be swept ([`Module::sweep`], which needs it unborrowed) while the lowering is kept:
/// [`Lowerer::park`], then [`Parked::resume`] on the same module.
///
/// Sound because nothing it holds is used as a handle until it is resumed, and resuming
/// hands back only what is still alive: a sweep frees only functions (and instructions, which
/// a lowering keeps no handle to), so the functions and the constants that are functions are
/// checked against the module's functions (by address, before anything is read through
/// them); types and every other constant belong to the context and outlive any sweep. A
/// function the sweep erased comes back as `None`, and a constant that was one is forgotten
/// (a later lowering gives it a new id if it meets it; it cannot, as nothing uses it).
pub struct Parked {
    module: usize,
    functions: Vec<Option<usize>>,
    tables: ModuleTables,
    types: Vec<(usize, TypeId)>,
    /// Each interned constant, and whether it is a function.
    consts: Vec<(usize, ConstId, bool)>,
    states: HashMap<Vec<u64>, StateId>,
    opaque: HashMap<usize, u32>,
    attr_keys: HashMap<usize, usize>,
    source_file: String,
    hashes: Hashes,
}

impl Parked {
    /// The lowerer and functions again, borrowing `module` (the module they were parked from;
    /// checked): functions the module no longer has are `None`.
    pub fn resume<'m>(self, module: &'m Module<'_>) -> (Lowerer<'m>, Vec<Option<Function<'m>>>) {
        assert_eq!(self.module, module.raw() as usize, "resumed on another module");
        // Addresses only: nothing is read through a parked address before it is known alive.
        let alive: std::collections::HashSet<usize> =
            module.functions().into_iter().map(|f| f.raw() as usize).collect();
        let function =
            |a: usize| alive.contains(&a).then(|| Function::from_raw(a as LLVMValueRef)).flatten();
        let functions = self.functions.into_iter().map(|f| f.and_then(function)).collect();
        let mut consts = HashMap::default();
        let mut const_values = Vec::with_capacity(self.consts.len());
        // A gone function's id keeps a place in the id order, held by a value that is alive
        // (nothing alive refers to the gone one, so no operand lowers to that id again).
        let placeholder = module.ptr_type().poison();
        for (a, id, is_function) in self.consts {
            let v = if is_function {
                function(a).map(|f| f.as_value())
            } else {
                Value::from_raw(a as LLVMValueRef)
            };
            match v {
                Some(v) => {
                    consts.insert(v, id);
                    const_values.push(v);
                }
                None => const_values.push(placeholder),
            }
        }
        let types = self
            .types
            .into_iter()
            .map(|(t, id)| (Type::from_raw(t as LLVMTypeRef).expect("parked type"), id))
            .collect();
        let lowerer = Lowerer {
            tables: self.tables,
            types,
            consts,
            const_values,
            states: self.states,
            opaque: self.opaque,
            attr_keys: self.attr_keys,
            source_file: self.source_file,
            hashes: self.hashes,
        };
        (lowerer, functions)
    }
}

/// Which hashes of constants a lowering computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hashes {
    /// Stable across modules and runs (names, contents, printed text): what global merging's
    /// summaries are made of. Costly: every constant is printed.
    Stable,
    /// Valid within this lowering only (`ConstInfo::stable_hash` is the constant's index):
    /// enough for merging inside one module, which compares constants by identity.
    Local,
}

impl<'m> Lowerer<'m> {
    pub fn new(module: &'m Module<'_>, hashes: Hashes) -> Lowerer<'m> {
        let mut l = Lowerer {
            hashes,
            tables: ModuleTables::default(),
            types: HashMap::default(),
            consts: HashMap::default(),
            const_values: Vec::new(),
            states: HashMap::default(),
            opaque: HashMap::default(),
            attr_keys: HashMap::default(),
            source_file: module.source_file_name(),
        };
        l.tables.ptr_type = l.type_id(module.ptr_type());
        l
    }

    pub fn tables(&self) -> &ModuleTables {
        &self.tables
    }

    /// Lets go of `module` (the module this lowerer lowers) and of `functions` of it, keeping
    /// everything learnt ([`Parked`]).
    pub fn park(self, module: &Module<'_>, functions: Vec<Option<Function<'m>>>) -> Parked {
        // Constants by id, so that resuming keeps the id order.
        let mut consts: Vec<(usize, ConstId, bool)> = self
            .const_values
            .iter()
            .enumerate()
            .map(|(k, v)| (v.identity(), ConstId(k as u32), v.is_function()))
            .collect();
        consts.sort_by_key(|c| c.1);
        Parked {
            module: module.raw() as usize,
            functions: functions.into_iter().map(|f| f.map(|f| f.raw() as usize)).collect(),
            tables: self.tables,
            types: self.types.into_iter().map(|(t, id)| (t.raw() as usize, id)).collect(),
            consts,
            states: self.states,
            opaque: self.opaque,
            attr_keys: self.attr_keys,
            source_file: self.source_file,
            hashes: self.hashes,
        }
    }

    /// The LLVM constant behind a [`ConstId`].
    pub fn const_value(&self, id: ConstId) -> Value<'m> {
        self.const_values[id.0 as usize]
    }

    pub fn type_id(&mut self, t: Type<'m>) -> TypeId {
        if let Some(&id) = self.types.get(&t) {
            return id;
        }
        let info = TypeInfo { stable_hash: type_hash(t), kind: t.kind(), int_bits: t.int_width() };
        let id = TypeId(self.tables.types.len() as u32);
        self.tables.types.push(info);
        self.types.insert(t, id);
        id
    }

    fn const_id(&mut self, v: Value<'m>) -> ConstId {
        if let Some(&id) = self.consts.get(&v) {
            return id;
        }
        let ty = self.type_id(v.ty());
        let (stable_hash, global_name) = if self.hashes == Hashes::Local {
            let name = if v.is_global_value() { v.name() } else { String::new() };
            (self.tables.consts.len() as u64, name)
        } else if let Some(g) = v.as_global() {
            let name = v.name();
            // A local that ThinLTO promoted for its imports is still one module's object, and
            // its suffix changes whenever the module does: it is hashed as the local it was.
            let promoted = promoted_local(&name)
                .filter(|_| g.visibility() == crate::ir::global::Visibility::Hidden);
            let local = g.linkage().is_local() || promoted.is_some();
            let name = promoted.map_or(name.clone(), str::to_string);
            let var = v.as_global_var();
            let hash = match var.and_then(|g| g.initializer()) {
                // A module-local constant (a string literal ...) is known by its contents:
                // `.str.3` here and `.str` in another module may be the same text.
                Some(init) if local && var.is_some_and(|g| g.is_global_constant()) => {
                    StableHasher::with_seed(0x636f6e74).str(&init.print()).finish()
                }
                // Any other module-local global is a different object in every module.
                _ if local => {
                    StableHasher::with_seed(0x6c6f6361).str(&self.source_file).str(&name).finish()
                }
                _ => StableHasher::with_seed(0x676c6f62).str(&name).finish(),
            };
            (hash, v.name())
        } else {
            // Constants that are not globals print as self-contained text (`i32 7`,
            // `getelementptr (i8, ptr @g, i64 4)`), which names globals, never addresses.
            (StableHasher::with_seed(0x636f6e73).str(&v.print()).finish(), String::new())
        };
        let id = ConstId(self.tables.consts.len() as u32);
        self.tables.consts.push(ConstInfo { stable_hash, ty, global_name });
        self.consts.insert(v, id);
        self.const_values.push(v);
        id
    }

    /// Interns an opaque entity (metadata, inline asm, an attribute-list key) by identity;
    /// `stable` computes its stable hash the first time it is seen (stable lowerings only).
    fn opaque_id(&mut self, identity: usize, stable: impl FnOnce() -> u64) -> u32 {
        if let Some(&id) = self.opaque.get(&identity) {
            return id;
        }
        let id = self.tables.opaque.len() as u32;
        // Printing metadata can print a whole graph of it: only stable lowerings pay for that.
        let hash = if self.hashes == Hashes::Stable { stable() } else { u64::from(id) };
        self.tables.opaque.push(hash);
        self.opaque.insert(identity, id);
        id
    }

    /// An opaque id equal to no other operand anywhere: for an operand the lowering cannot
    /// name (so that two of them never compare equal).
    fn unique_opaque(&mut self) -> u32 {
        let id = self.tables.opaque.len() as u32;
        self.tables.opaque.push(0x756e_6971_7565 ^ u64::from(id));
        id
    }

    fn state_id(&mut self, s: StateWords) -> StateId {
        if let Some(&id) = self.states.get(&s.exact) {
            return id;
        }
        let id = StateId(self.tables.states.len() as u32);
        self.tables.states.push(StateInfo { stable_hash: s.stable.finish() });
        self.states.insert(s.exact, id);
        id
    }

    /// Lowers one function definition.
    pub fn lower(&mut self, f: Function<'m>) -> (FuncData, FuncHandles<'m>) {
        assert!(!f.is_declaration(), "lowering a declaration");
        let blocks = f.blocks();
        let block_index: HashMap<Block<'m>, u32> =
            blocks.iter().enumerate().map(|(k, &b)| (b, k as u32)).collect();
        let mut insts = Vec::new();
        let mut ranges = Vec::with_capacity(blocks.len());
        for &b in &blocks {
            let start = insts.len() as u32;
            insts.extend(b.instructions());
            ranges.push(start..insts.len() as u32);
        }
        let inst_index: HashMap<Value<'m>, u32> =
            insts.iter().enumerate().map(|(k, &i)| (i.as_value(), k as u32)).collect();
        let params = f.params();
        let param_index: HashMap<Value<'m>, u32> =
            params.iter().enumerate().map(|(k, &p)| (p, k as u32)).collect();

        let fn_ty = f.global_value_type();
        let mut data = FuncData {
            name: f.name(),
            ty: self.type_id(fn_ty),
            header: StateId(0),
            arg_types: params.iter().map(|p| self.type_id(p.ty())).collect(),
            ret_type: self.type_id(fn_ty.return_type()),
            blocks: Vec::with_capacity(blocks.len()),
            insts: Vec::with_capacity(insts.len()),
            operands: Vec::new(),
            traits: 0,
        };
        data.header = self.header_state(f, &mut data.traits);

        let ctx = LocalIds {
            f,
            inst_index: &inst_index,
            block_index: &block_index,
            param_index: &param_index,
        };
        for &i in &insts {
            let inst = self.lower_inst(i, &ctx, &mut data);
            data.insts.push(inst);
        }
        for (k, &b) in blocks.iter().enumerate() {
            let succs = b
                .terminator()
                .map(|t| t.successors().iter().map(|s| block_index[s]).collect())
                .unwrap_or_default();
            let first = b.first_instruction().map(|i| i.opcode());
            let is_eh_pad = matches!(
                first,
                Some(
                    opcode::LANDING_PAD
                        | opcode::CATCH_PAD
                        | opcode::CLEANUP_PAD
                        | opcode::CATCH_SWITCH
                )
            );
            data.blocks.push(ir::Block { insts: ranges[k].clone(), succs, is_eh_pad });
        }
        (data, FuncHandles { function: f, insts, blocks })
    }

    fn header_state(&mut self, f: Function<'m>, tr: &mut u32) -> StateId {
        let mut s = StateWords::new(0x68656164);
        let fn_ty = f.global_value_type();
        s.ty(self, fn_ty);
        let key = *self.attr_keys.entry(f.attr_list_identity()).or_insert_with(|| f.attr_key());
        let attrs = self.opaque_id(key, || f.attr_key_hash());
        s.word(u64::from(attrs), self.tables.opaque[attrs as usize]).same(u64::from(f.call_conv()));
        if let Some(gc) = f.gc() {
            *tr |= traits::GC;
            s.same(fmerge_core::hash::hash_bytes(gc.as_bytes()));
        }
        if let Some(sec) = f.section() {
            s.same(fmerge_core::hash::hash_bytes(sec.as_bytes()));
        }
        if let Some(p) = f.personality() {
            let id = self.const_id(p);
            s.word(u64::from(id.0) | 1 << 40, self.tables.consts[id.0 as usize].stable_hash);
        }
        if f.has_prefix_or_prologue() {
            *tr |= traits::PREFIX_PROLOGUE;
        }
        if fn_ty.is_vararg() {
            *tr |= traits::VARARGS;
        }
        if f.blocks_address_taken() {
            *tr |= traits::BLOCK_ADDRESS;
        }
        self.state_id(s)
    }

    fn lower_inst(
        &mut self,
        i: Instruction<'m>,
        cx: &LocalIds<'_, 'm>,
        data: &mut FuncData,
    ) -> Inst {
        let op = i.opcode();
        let ty = i.ty();
        let mut s = StateWords::new(u64::from(op));
        let start = data.operands.len() as u32;
        let n = i.num_operands();
        match op {
            opcode::ICMP => {
                s.same(u64::from(i.icmp_predicate()));
            }
            opcode::FCMP => {
                s.same(u64::from(i.fcmp_predicate()));
            }
            opcode::ALLOCA => {
                s.ty(self, i.allocated_type());
                s.same(u64::from(i.alignment()));
            }
            opcode::LOAD | opcode::STORE => {
                s.same(u64::from(i.is_volatile())).same(u64::from(i.alignment()));
                s.same(u64::from(i.ordering()));
                if i.ordering() != 0 {
                    s.same(u64::from(i.sync_scope()));
                }
            }
            opcode::GEP => {
                s.ty(self, i.gep_source_type());
            }
            opcode::SWITCH => {
                // Not operands in LLVM 22: without them here, two switches that jump on
                // different values would compare equal.
                for v in i.switch_case_values() {
                    let id = self.const_id(v);
                    s.word(
                        u64::from(id.0) | 1 << 42,
                        self.tables.consts[id.0 as usize].stable_hash,
                    );
                }
            }
            opcode::EXTRACT_VALUE | opcode::INSERT_VALUE => {
                for k in i.aggregate_indices() {
                    s.same(u64::from(k));
                }
            }
            opcode::SHUFFLE_VECTOR => {
                for m in i.shuffle_mask() {
                    s.same(m as u32 as u64);
                }
            }
            opcode::FENCE => {
                s.same(u64::from(i.ordering())).same(u64::from(i.sync_scope()));
            }
            opcode::ATOMIC_RMW => {
                s.same(u64::from(i.atomic_rmw_op())).same(u64::from(i.ordering()));
                s.same(u64::from(i.is_volatile())).same(u64::from(i.alignment()));
                s.same(u64::from(i.sync_scope()));
            }
            opcode::ATOMIC_CMPXCHG => {
                let (ok, fail, weak) = i.cmpxchg_orderings();
                s.same(u64::from(ok)).same(u64::from(fail)).same(u64::from(weak));
                s.same(u64::from(i.is_volatile())).same(u64::from(i.alignment()));
                s.same(u64::from(i.sync_scope()));
            }
            opcode::LANDING_PAD => {
                data.traits |= traits::LANDING_PADS;
                s.same(u64::from(i.landingpad_is_cleanup()));
            }
            opcode::INVOKE => data.traits |= traits::LANDING_PADS,
            opcode::CALL_BR => data.traits |= traits::CALLBR,
            opcode::INDIRECT_BR => data.traits |= traits::BLOCK_ADDRESS,
            opcode::CATCH_SWITCH
            | opcode::CATCH_PAD
            | opcode::CLEANUP_PAD
            | opcode::CATCH_RET
            | opcode::CLEANUP_RET => data.traits |= traits::EH_FUNCLETS,
            _ => {}
        }
        let is_call = matches!(op, opcode::CALL | opcode::INVOKE | opcode::CALL_BR);
        let mut call = None;
        if is_call {
            let callee = i.called_value();
            let intrinsic = callee.and_then(|c| c.as_function()).map_or(0, |f| f.intrinsic_id());
            let asm = callee.is_some_and(|c| c.is_inline_asm());
            if asm {
                data.traits |= traits::INLINE_ASM;
            }
            s.ty(self, i.called_function_type());
            s.same(u64::from(i.call_conv()));
            let key = *self.attr_keys.entry(i.attr_list_identity()).or_insert_with(|| i.attr_key());
            let attrs = self.opaque_id(key, || i.attr_key_hash());
            s.word(u64::from(attrs), self.tables.opaque[attrs as usize]);
            if op == opcode::CALL {
                // The C API's number of the kind (`TailCallKind`'s discriminants).
                let kind = i.tail_call_kind();
                s.same(u64::from(kind as u32));
                if kind == TailCallKind::MustTail {
                    data.traits |= traits::MUSTTAIL;
                }
            }
            let bundles = i.operand_bundles();
            for (tag, args) in &bundles {
                s.same(fmerge_core::hash::hash_bytes(tag.as_bytes())).same(u64::from(*args));
            }
            call = Some(CallShape {
                args: i.num_arg_operands(),
                callee_index: n.saturating_sub(1),
                intrinsic,
                asm,
            });
        }
        // GEP: which indices select struct fields (those must stay constants).
        let gep_fixed = if op == opcode::GEP { gep_struct_indices(i) } else { Vec::new() };

        let phi = op == opcode::PHI;
        if phi {
            for (v, _) in i.phi_incoming() {
                // An address arriving along an edge (a string, a table) can arrive as a
                // parameter instead; a number stays an immediate.
                let role = if v.is_global_value() { ConstRole::Param } else { ConstRole::Value };
                let o = self.lower_operand(v, role, cx, data);
                data.operands.push(o);
            }
            for (_, b) in i.phi_incoming() {
                data.operands.push(Operand::Block(cx.block_index[&b]));
            }
        } else {
            for k in 0..n {
                let Some(v) = i.operand(k) else {
                    let o = Operand::Opaque(self.unique_opaque());
                    data.operands.push(o);
                    continue;
                };
                let role = operand_role(op, k, call.as_ref(), &gep_fixed, i);
                let o = self.lower_operand(v, role, cx, data);
                data.operands.push(o);
            }
        }
        if ty.kind() == TypeKind::Token
            && !matches!(op, opcode::CATCH_PAD | opcode::CLEANUP_PAD | opcode::CATCH_SWITCH)
        {
            data.traits |= traits::TOKENS;
        }
        let ty_id = self.type_id(ty);
        Inst {
            opcode: op,
            ty: ty_id,
            state: self.state_id(s),
            ops: start..data.operands.len() as u32,
        }
    }

    fn lower_operand(
        &mut self,
        v: Value<'m>,
        role: ConstRole,
        cx: &LocalIds<'_, 'm>,
        data: &mut FuncData,
    ) -> Operand {
        if let Some(b) = v.as_block() {
            return match cx.block_index.get(&b) {
                Some(&k) => Operand::Block(k),
                None => Operand::Opaque(self.unique_opaque()),
            };
        }
        if let Some(&k) = cx.inst_index.get(&v) {
            return Operand::Inst(k);
        }
        if let Some(&k) = cx.param_index.get(&v) {
            return Operand::Arg(k);
        }
        if v == cx.f.as_value() {
            return Operand::SelfRef;
        }
        if v.is_metadata() || v.is_inline_asm() {
            let stable = || StableHasher::with_seed(0x6f706171).str(&v.print()).finish();
            return Operand::Opaque(self.opaque_id(v.identity(), stable));
        }
        if v.is_constant() {
            if v.is_block_address() {
                data.traits |= traits::BLOCK_ADDRESS;
            }
            if contains_function(v, cx.f) {
                data.traits |= traits::SELF_ADDRESS;
            }
            let role = if v.ty().kind() == TypeKind::Token || v.is_block_address() {
                ConstRole::Fixed
            } else {
                role
            };
            return Operand::Const { id: self.const_id(v), role };
        }
        // Anything else (a value of another function) cannot be compared: make it unique.
        Operand::Opaque(self.opaque_id(v.identity(), || 0x6f_7468_6572))
    }
}

/// What lowering needs to know about a call site.
struct CallShape {
    args: u32,
    callee_index: u32,
    intrinsic: u32,
    asm: bool,
}

fn operand_role(
    op: u32,
    k: u32,
    call: Option<&CallShape>,
    gep_fixed: &[bool],
    i: Instruction<'_>,
) -> ConstRole {
    match op {
        opcode::CALL | opcode::INVOKE | opcode::CALL_BR => {
            let c = call.expect("call shape for calls");
            if c.asm {
                return ConstRole::Fixed;
            }
            if k == c.callee_index {
                return if c.intrinsic != 0 { ConstRole::Fixed } else { ConstRole::Param };
            }
            if k >= c.args {
                // Operand bundle arguments and invoke destinations.
                return ConstRole::Fixed;
            }
            if i.call_arg_is_immarg(k) {
                return ConstRole::Fixed;
            }
            // An intrinsic's non-immediate pointer argument (a table, a memcpy source) is an
            // address like any other; its other arguments are left to similar merging. The
            // merged body is verified, which catches intrinsics that insist on a global.
            let pointer = i.operand(k).is_some_and(|v| v.ty().kind() == TypeKind::Pointer);
            if c.intrinsic == 0 || pointer { ConstRole::Param } else { ConstRole::Value }
        }
        opcode::LOAD | opcode::STORE => ConstRole::Param,
        // A constant base address (a global) is an address like a load's: pass it in.
        opcode::GEP if k == 0 => ConstRole::Param,
        opcode::GEP => {
            if gep_fixed.get(k as usize).copied().unwrap_or(false) {
                ConstRole::Fixed
            } else {
                ConstRole::Value
            }
        }
        opcode::ALLOCA | opcode::LANDING_PAD => ConstRole::Fixed,
        _ => ConstRole::Value,
    }
}

/// For each GEP operand, whether it indexes into a struct (and so must stay a constant).
fn gep_struct_indices(i: Instruction<'_>) -> Vec<bool> {
    let n = i.num_operands() as usize;
    let mut fixed = vec![false; n];
    // Operand 0 is the base, operand 1 steps over the pointer; from operand 2 on each index
    // selects inside the type reached so far.
    let mut cur = Some(i.gep_source_type());
    for (k, slot) in fixed.iter_mut().enumerate().skip(2) {
        let Some(t) = cur else { break };
        match t.kind() {
            TypeKind::Struct => {
                *slot = true;
                let idx = i.operand(k as u32).and_then(|v| v.const_int_value());
                cur = idx.and_then(|x| t.element_types().get(x as usize).copied());
            }
            TypeKind::Array | TypeKind::Vector => cur = t.element_types().first().copied(),
            _ => cur = None,
        }
    }
    fixed
}

/// Does constant `v` mention function `f` (e.g. `ptrtoint (ptr @f to i64)`)?
fn contains_function(v: Value<'_>, f: Function<'_>) -> bool {
    if v == f.as_value() {
        return true;
    }
    if v.is_global_value() {
        return false;
    }
    (0..v.num_operands()).filter_map(|k| v.operand(k)).any(|o| contains_function(o, f))
}

struct LocalIds<'a, 'm> {
    f: Function<'m>,
    inst_index: &'a HashMap<Value<'m>, u32>,
    block_index: &'a HashMap<Block<'m>, u32>,
    param_index: &'a HashMap<Value<'m>, u32>,
}

/// The exact words of a state, and a stable hash built alongside from stable parts only.
struct StateWords {
    exact: Vec<u64>,
    stable: StableHasher,
}

impl StateWords {
    fn new(seed: u64) -> Self {
        StateWords { exact: vec![seed], stable: StableHasher::with_seed(seed) }
    }
    /// A word that is its own stable form.
    fn same(&mut self, w: u64) -> &mut Self {
        self.word(w, w)
    }
    fn word(&mut self, exact: u64, stable: u64) -> &mut Self {
        self.exact.push(exact);
        self.stable.word(stable);
        self
    }
    fn ty<'m>(&mut self, l: &mut Lowerer<'m>, t: Type<'m>) -> &mut Self {
        let id = l.type_id(t);
        let h = l.tables.types[id.0 as usize].stable_hash;
        self.word(u64::from(id.0) | 1 << 41, h)
    }
}

/// Stable structural hash of a type: kind, widths, element types; struct names are hashed by
/// name (with the `.N` suffix LLVM adds on name clashes removed) plus their body.
pub fn type_hash(t: Type<'_>) -> u64 {
    let mut h = StableHasher::with_seed(0x74797065);
    hash_type_into(t, &mut h, 0);
    h.finish()
}

fn hash_type_into(t: Type<'_>, h: &mut StableHasher, depth: u32) {
    h.word(u64::from(t.raw_kind()));
    match t.kind() {
        TypeKind::Int => {
            h.word(u64::from(t.int_width()));
        }
        TypeKind::Pointer => {
            h.word(u64::from(t.pointer_address_space()));
        }
        TypeKind::Array | TypeKind::Vector => {
            h.word(t.length());
            if let Some(e) = t.element_types().first() {
                hash_type_into(*e, h, depth + 1);
            }
        }
        TypeKind::Struct => {
            if let Some(name) = t.struct_name() {
                h.str(strip_numeric_suffix(&name));
            }
            h.word(u64::from(t.is_packed_struct())).word(u64::from(t.is_opaque_struct()));
            // Opaque pointers make struct types non-recursive; the depth cap is a backstop.
            if depth < 16 {
                let elts = t.element_types();
                h.word(elts.len() as u64);
                for e in elts {
                    hash_type_into(e, h, depth + 1);
                }
            }
        }
        TypeKind::Function => {
            hash_type_into(t.return_type(), h, depth + 1);
            let ps = t.param_types();
            h.word(ps.len() as u64).word(u64::from(t.is_vararg()));
            for p in ps {
                hash_type_into(p, h, depth + 1);
            }
        }
        _ => {}
    }
}

/// `struct.Foo.12` → `struct.Foo` (LLVM renames clashing struct types when linking).
fn strip_numeric_suffix(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, suffix))
            if !suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit()) =>
        {
            base
        }
        _ => name,
    }
}

/// Every function definition of a module that may take part in merging (not
/// `available_externally`), lowered, with its handles, and the lowerer holding the tables.
pub struct LoweredModule<'m> {
    pub funcs: Vec<FuncData>,
    pub handles: Vec<FuncHandles<'m>>,
    pub lowerer: Lowerer<'m>,
}

impl<'m> LoweredModule<'m> {
    pub fn tables(&self) -> &ModuleTables {
        self.lowerer.tables()
    }
}

pub fn lower_module<'m>(module: &'m Module<'_>, hashes: Hashes) -> LoweredModule<'m> {
    lower_functions(module, &mergeable_functions(module), hashes)
}

/// [`lower_module`] without instruction and block handles: each function's
/// [`FuncHandles`] holds the function only ([`FuncHandles::of`] makes the rest when it is
/// needed). A lowering that builds code from few of its functions saves 8 bytes per
/// instruction and block of the module for as long as it lives.
pub fn lower_module_lean<'m>(module: &'m Module<'_>, hashes: Hashes) -> LoweredModule<'m> {
    lower_lean(module, mergeable_functions(module), hashes)
}

/// [`lower_module_lean`] of the given function definitions only (in the order given).
pub fn lower_lean<'m>(
    module: &'m Module<'_>,
    fns: Vec<Function<'m>>,
    hashes: Hashes,
) -> LoweredModule<'m> {
    let mut lowerer = Lowerer::new(module, hashes);
    let mut funcs = Vec::with_capacity(fns.len());
    let mut handles = Vec::with_capacity(fns.len());
    for &f in &fns {
        let (d, h) = lowerer.lower(f);
        funcs.push(d);
        handles.push(h.lean());
    }
    LoweredModule { funcs, handles, lowerer }
}

/// Function definitions that may take part in merging, in module order (not
/// `available_externally`: another module's copy decides what they are).
pub fn mergeable_functions<'m>(module: &'m Module<'_>) -> Vec<Function<'m>> {
    module
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration() && f.linkage() != Linkage::AvailableExternally)
        .collect()
}

/// Only the definitions that share LLVM's coarse structural hash with another one: the only
/// candidates for being equal, exactly or up to constants (module order is kept).
pub fn structural_twins<'m>(module: &'m Module<'_>) -> Vec<Function<'m>> {
    structural_twins_of(module, |_| true)
}

/// [`structural_twins`] that share their structural hash with at least one function `of`
/// says yes to (module order is kept).
pub fn structural_twins_of<'m>(
    module: &'m Module<'_>,
    of: impl Fn(Function<'m>) -> bool,
) -> Vec<Function<'m>> {
    let fns = mergeable_functions(module);
    let hashes = structural_hashes(&fns);
    let mut count: HashMap<u64, usize> = HashMap::default();
    let mut wanted: std::collections::HashSet<u64> = std::collections::HashSet::default();
    for (&f, &h) in fns.iter().zip(&hashes) {
        *count.entry(h).or_default() += 1;
        if of(f) {
            wanted.insert(h);
        }
    }
    let twins = fns.into_iter().zip(hashes);
    twins.filter(|(_, h)| count[h] > 1 && wanted.contains(h)).map(|(f, _)| f).collect()
}

/// [`Function::structural_hash`] of every function (definitions), on every core: the hash
/// only reads the IR, and each is the same whichever thread computes it.
fn structural_hashes(fns: &[Function<'_>]) -> Vec<u64> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if threads < 2 || fns.len() < 256 {
        return fns.iter().map(|f| f.structural_hash()).collect();
    }
    for f in fns {
        assert!(!f.is_declaration());
    }
    // Handles stay on this thread; the workers get the addresses.
    let raw: Vec<usize> = fns.iter().map(|f| f.raw() as usize).collect();
    let mut out = vec![0u64; fns.len()];
    let chunk = raw.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (fs, hs) in raw.chunks(chunk).zip(out.chunks_mut(chunk)) {
            s.spawn(move || {
                for (&f, h) in fs.iter().zip(hs) {
                    // SAFETY: live function definitions (checked above) of a module nothing
                    // changes while this scope runs (its caller waits for it); LLVM's
                    // StructuralHash only reads the function, its blocks and their types.
                    *h = unsafe {
                        crate::ffi::fm_structural_hash(f as llvm_sys::prelude::LLVMValueRef)
                    };
                }
            });
        }
    });
    out
}

/// Lowers the given function definitions.
pub fn lower_functions<'m>(
    module: &'m Module<'_>,
    fns: &[Function<'m>],
    hashes: Hashes,
) -> LoweredModule<'m> {
    let mut lowerer = Lowerer::new(module, hashes);
    let mut funcs = Vec::with_capacity(fns.len());
    let mut handles = Vec::with_capacity(fns.len());
    for &f in fns {
        let (d, h) = lowerer.lower(f);
        funcs.push(d);
        handles.push(h);
    }
    LoweredModule { funcs, handles, lowerer }
}

/// The name a ThinLTO-promoted local had before promotion (`table.llvm.123` → `table`).
fn promoted_local(name: &str) -> Option<&str> {
    let (base, digits) = name.rsplit_once(".llvm.")?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_suffixes_are_stripped_only_when_numeric() {
        assert_eq!(strip_numeric_suffix("struct.Foo.12"), "struct.Foo");
        assert_eq!(strip_numeric_suffix("struct.Foo"), "struct.Foo");
        assert_eq!(strip_numeric_suffix("class.std::vector.base"), "class.std::vector.base");
    }

    #[test]
    fn thin_lto_promotion_suffixes_are_recognized() {
        assert_eq!(promoted_local("table.llvm.11707350706950437789"), Some("table"));
        assert_eq!(promoted_local(".str.2.llvm.42"), Some(".str.2"));
        assert_eq!(promoted_local("table.llvm."), None);
        assert_eq!(promoted_local("llvm.memcpy.p0.p0.i64"), None);
        assert_eq!(promoted_local("f.llvm.x1"), None);
    }
}
