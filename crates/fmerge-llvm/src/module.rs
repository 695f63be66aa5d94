//! Contexts and modules: reading, linking, verifying, cloning, writing; and whose process the
//! work runs in ([`Embedding`]).
//!
//! **Soundness rule of this crate.** IR handles ([`Value`], [`Function`], [`Instruction`],
//! [`Block`](crate::Block), [`Type`] and the others of [`crate::ir`]) borrow the [`Module`]
//! they came from (`'m`). LLVM objects are only *destroyed* by methods that take `&mut Module`
//! ([`Module::sweep`], [`Module::run_passes`], [`Module::link`]), which the borrow checker
//! forbids while any handle is alive. Everything that takes `&Module` only adds or rewires
//! IR, so no handle can dangle. Functions that a transformation wants gone are queued with
//! [`Module::defer_erase`] and erased at the next sweep.

use crate::error::{LlvmError, Result};
use crate::ir::{Function, Global, GlobalVar, Instruction, Linkage, Type, Value};
use fmerge_core::bitcode;
use inkwell::context::{AsContextRef, Context};
use inkwell::memory_buffer::MemoryBuffer;
use llvm_sys::core as c;
use llvm_sys::prelude::LLVMValueRef;
use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Major version of the LLVM this crate is built against (and the newest bitcode it reads).
pub const LLVM_MAJOR: u32 = 22;

/// Whose process fmerge's LLVM work runs in. LLVM keeps some state for the whole process:
/// the handler of fatal errors, and the options code generation reads (the machine outliner,
/// frame helpers, the machine verifier). fmerge's own commands set them; inside someone
/// else's process they are the host's, and fmerge leaves them alone.
///
/// Every [`Llvm`], [`Module`] and [`crate::Target`] knows its embedding: a context is made
/// with one, a module has its context's (a pass plugin's host module is
/// [`Embedding::Plugin`]), copies of a module keep it, and a target made for a module takes
/// it, so that the contexts it makes to measure code on other threads do too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Embedding {
    /// fmerge's own process (the command-line tool, tests): it owns LLVM's process-wide state.
    Standalone,
    /// A compiler or linker (clang, opt, lld) that loaded fmerge's pass plugin: fmerge never
    /// installs its fatal-error handler there and never changes code generation's options.
    Plugin,
}

/// One LLVM context. Contexts are not thread-safe: use one per thread.
pub struct Llvm {
    ctx: Context,
    embedding: Embedding,
}

/// The exit code when LLVM stops the process with a fatal error (the same code as any other
/// code generation failure, see the CLI's exit-code table).
pub const FATAL_ERROR_EXIT_CODE: i32 = 8;

/// LLVM ends the process on a fatal error ("LLVM ERROR: ..." and exit code 1) in places where
/// the C API offers no error return, mostly code generation on input it cannot compile. This
/// handler makes that a clear message and a documented exit code instead. Nothing half-written
/// is left behind: outputs are produced in memory and renamed into place only when complete.
fn install_fatal_error_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    extern "C" fn on_fatal_error(reason: *const std::ffi::c_char) {
        let reason = if reason.is_null() {
            String::from("(no reason given)")
        } else {
            // SAFETY: LLVM passes a NUL-terminated message that lives for this call.
            unsafe { std::ffi::CStr::from_ptr(reason) }.to_string_lossy().into_owned()
        };
        // The machine verifier (`--verify-machine-code`) ends with "Found N machine code
        // errors." after printing what it found.
        let why = if reason.contains("machine code errors") {
            "LLVM's machine verifier rejected the code LLVM generated (reported above)"
        } else {
            "the input uses something LLVM 22 cannot compile for this target"
        };
        eprintln!(
            "fmerge: error: LLVM stopped with a fatal error: {reason}\n\
             fmerge: {why}; no output was written"
        );
        // `_exit`, not `exit`: other threads may be inside LLVM, and running its static
        // destructors under them could turn this clean exit into a crash.
        // SAFETY: ends the process; nothing runs afterwards.
        unsafe { crate::ffi::_exit(FATAL_ERROR_EXIT_CODE) }
    }
    // SAFETY: installs a plain function pointer, once, before any LLVM work in this process
    // (fmerge's own: `Llvm::with_embedding` calls this for `Embedding::Standalone` only).
    ONCE.call_once(|| unsafe {
        llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(on_fatal_error))
    });
}

impl Default for Llvm {
    fn default() -> Self {
        Self::new()
    }
}

impl Llvm {
    /// A context of fmerge's own process ([`Embedding::Standalone`]): the first one installs
    /// fmerge's fatal-error handler.
    pub fn new() -> Llvm {
        Llvm::with_embedding(Embedding::Standalone)
    }

    /// A context of a process embedded as `embedding` says; only a standalone one installs
    /// fmerge's fatal-error handler (inside a compiler or linker the host's handler stays).
    pub fn with_embedding(embedding: Embedding) -> Llvm {
        if embedding == Embedding::Standalone {
            install_fatal_error_handler();
        }
        Llvm { ctx: Context::create(), embedding }
    }

    /// Whose process this context belongs to.
    pub fn embedding(&self) -> Embedding {
        self.embedding
    }

    /// Reads a bitcode (`.bc`) or textual (`.ll`) module.
    pub fn load(&self, path: &Path) -> Result<Module<'_>> {
        self.parse(path, &read(path)?)
    }

    /// [`Llvm::load`], the module keeping what it was read from (if bitcode) until it
    /// changes, so that a lazy copy of it reads that again instead of writing the module out.
    /// For callers that copy the module before changing it through handles, or that call
    /// [`Module::forget_source`] when they do. A regular file is kept as its path, length and
    /// digest, not its bytes (a large module's bitcode is several percent of the memory
    /// merging it takes): it is read again when needed, and must hold the same bytes then.
    pub fn load_keeping_source(&self, path: &Path) -> Result<Module<'_>> {
        let bytes = read(path)?;
        let module = self.parse(path, &bytes)?;
        if bitcode::looks_like_bitcode(&bytes) {
            let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
            *module.source.borrow_mut() = Some(if regular {
                Source::File { path: path.to_path_buf(), len: bytes.len(), digest: digest(&bytes) }
            } else {
                Source::Bytes(Rc::new(ModuleBytes::from(bytes)))
            });
        }
        Ok(module)
    }

    /// Parses a module from memory; `path` only names it in messages.
    pub fn parse(&self, path: &Path, bytes: &[u8]) -> Result<Module<'_>> {
        let unreadable =
            |message: String| LlvmError::Unreadable { path: path.to_path_buf(), message };
        let producer = if bitcode::looks_like_bitcode(bytes) {
            match bitcode::read_producer(bytes) {
                Ok(p) => p,
                Err(e) => return Err(unreadable(e.to_string())),
            }
        } else {
            None
        };
        if let Some(p) = &producer
            && p.llvm_major().is_some_and(|m| m > LLVM_MAJOR)
        {
            return Err(LlvmError::NewerProducer {
                path: path.to_path_buf(),
                producer: p.name.clone(),
            });
        }
        // An empty text file is an empty module; empty "bitcode" is not bitcode.
        if bytes.is_empty() && path.extension().is_some_and(|e| e == "bc") {
            return Err(unreadable("the file is empty".into()));
        }
        let name = path.display().to_string();
        let module = parse_ir(&self.ctx, bytes, &name).map_err(|msg| match &producer {
            Some(p) => unreadable(format!("{msg} (producer: {})", p.name)),
            None => unreadable(msg),
        })?;
        let module = Module::from_inner(module, self.embedding);
        module.bitcode_hint.set(bytes.len());
        Ok(module)
    }

    /// Reads every input and links them into the first (in-process `llvm-link`).
    pub fn load_and_link(&self, paths: &[PathBuf]) -> Result<Module<'_>> {
        let (first, rest) = paths.split_first().ok_or_else(|| LlvmError::Unreadable {
            path: PathBuf::new(),
            message: "no input files".into(),
        })?;
        let mut module = self.load(first)?;
        for p in rest {
            let other = self.load(p)?;
            module.link(other, p)?;
        }
        Ok(module)
    }
}

/// The bytes of the file at `path`.
/// What a module was read from, kept until it changes ([`Llvm::load_keeping_source`]).
pub(crate) enum Source {
    /// The bitcode itself (shared with the plugin's backup: [`Module::keep_bitcode`]).
    Bytes(Rc<ModuleBytes>),
    /// A regular file of `len` bytes with this [`digest`], read again when needed.
    File { path: std::path::PathBuf, len: usize, digest: u64 },
}

impl Source {
    /// The bitcode: read again from its file, which must not have changed.
    pub(crate) fn into_bytes(self) -> Result<Rc<ModuleBytes>> {
        match self {
            Source::Bytes(b) => Ok(b),
            Source::File { path, len, digest: d } => {
                let bytes = read(&path)?;
                if bytes.len() != len || digest(&bytes) != d {
                    let e = std::io::Error::other(
                        "the file changed while fmerge was working on it; nothing was written",
                    );
                    return Err(LlvmError::Io { path, source: e });
                }
                Ok(Rc::new(ModuleBytes::from(bytes)))
            }
        }
    }
}

/// A digest of `bytes` that tells a file changed while it was being worked on (not a defence
/// against someone forging a file with the same digest).
fn digest(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    h.write(bytes);
    h.finish()
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => LlvmError::NotFound { path: path.to_path_buf() },
        _ => LlvmError::Io { path: path.to_path_buf(), source: e },
    })
}

/// Parses bitcode or textual IR into a module of `ctx`; the error is LLVM's message. LLVM 22's
/// parser reads the buffer without taking it (inkwell hands it over and never frees it: 16 MB
/// lost per 16 MB module, and every measured subset's bitcode with it), so the buffer is made
/// and freed here. Bitcode is read in place; text is copied, LLVM's lexer needs a terminating
/// NUL.
fn parse_ir<'ctx>(
    ctx: impl AsContextRef<'ctx>,
    bytes: &[u8],
    name: &str,
) -> std::result::Result<inkwell::module::Module<'ctx>, String> {
    let buf = if bitcode::looks_like_bitcode(bytes) {
        MemoryBuffer::create_from_memory_range(bytes, name)
    } else {
        MemoryBuffer::create_from_memory_range_copy(bytes, name)
    };
    let mut module = std::ptr::null_mut();
    let mut err = std::ptr::null_mut();
    // SAFETY: a live context and buffer; the parser only reads the buffer (which outlives the
    // call: `bytes` is borrowed, `buf` dropped below) and leaves a fresh module that nothing
    // else owns, or a malloc'ed message, in the out-parameters.
    let failed = unsafe {
        llvm_sys::ir_reader::LLVMParseIRInContext2(
            ctx.as_ctx_ref(),
            buf.as_mut_ptr(),
            &mut module,
            &mut err,
        )
    } != 0;
    drop(buf);
    if failed {
        if err.is_null() {
            return Err("not LLVM IR".to_string());
        }
        // SAFETY: a message LLVM allocated for the caller to free.
        return Err(unsafe { crate::ffi::take_message(err) });
    }
    // SAFETY: as above, the module is fresh and owned by the result.
    Ok(unsafe { inkwell::module::Module::new(module) })
}

/// Fails unless LLVM's reader accepts `bytes` (bitcode LLVM's writer produced), read lazily:
/// everything but function bodies. A corrupt input can hold values LLVM's reader accepted but
/// whose written form it rejects; fmerge then reports the input as unreadable instead of
/// writing a file no tool can read.
pub fn check_bitcode(bytes: &[u8]) -> Result<()> {
    let mut err = std::ptr::null_mut();
    // SAFETY: a valid byte slice; the shim reads it in a context of its own and returns a
    // malloc'ed message on failure, copied and freed here.
    unsafe {
        if crate::ffi::fm_check_bitcode(bytes.as_ptr().cast(), bytes.len(), &mut err) == 0 {
            let message = crate::ffi::take_message(err);
            return Err(LlvmError::Unreadable {
                path: PathBuf::from("(the input)"),
                message: format!(
                    "LLVM's reader accepted it, but rejects the bitcode LLVM writes from it \
                     ({message}): the input is corrupt; nothing was written"
                ),
            });
        }
    }
    Ok(())
}

/// An LLVM module plus the functions queued for erasure.
pub struct Module<'c> {
    /// Freed on drop when `owned`; a host's module (a pass plugin's) is only borrowed.
    pub(crate) inner: ManuallyDrop<inkwell::module::Module<'c>>,
    owned: bool,
    /// Whose process the module lives in (its context's embedding).
    embedding: Embedding,
    doomed: RefCell<Vec<LLVMValueRef>>,
    doomed_insts: RefCell<Vec<LLVMValueRef>>,
    /// Instructions taken out of their functions by [`Module::detach_instruction`], freed at
    /// the next sweep (a module dropped unswept leaks these few husks; they refer to nothing).
    detached: RefCell<Vec<LLVMValueRef>>,
    /// The bitcode the module was read from, while nothing has changed it: a lazy copy reads
    /// it again instead of writing the module out ([`Module::lazy_copy`]). Every change made
    /// through `&mut self` or to the module's target forgets it; callers that change the
    /// module through handles before copying it call [`Module::forget_source`].
    source: RefCell<Option<Source>>,
    /// Bytes of what the module was read from (of all modules linked into it), kept when it
    /// changes: about the size of its bitcode ([`Module::write_bitcode`] reserves that much);
    /// 0 for a module made in memory.
    bitcode_hint: std::cell::Cell<usize>,
}

/// A module written out: bitcode LLVM wrote into a buffer of its own, handed over without a
/// copy (a large program's is tens of MB), or other bytes (read from a file, an object file,
/// text).
pub struct ModuleBytes(Storage);

enum Storage {
    /// A buffer `fm_write_bitcode` returned: `len` bytes at `data`, released through `owner`.
    Llvm {
        owner: *mut std::ffi::c_void,
        data: *const u8,
        len: usize,
    },
    Bytes(Vec<u8>),
}

// SAFETY: the buffer belongs to this value alone (nothing else in the process points to it
// once the writer returned), and it is only read through `&self`.
unsafe impl Send for ModuleBytes {}
// SAFETY: as above; reading the same bytes from several threads is fine.
unsafe impl Sync for ModuleBytes {}

impl ModuleBytes {
    /// The bytes, as a vector of their own (copied if LLVM wrote them).
    pub fn into_vec(mut self) -> Vec<u8> {
        match &mut self.0 {
            Storage::Bytes(b) => std::mem::take(b),
            Storage::Llvm { .. } => self.to_vec(),
        }
    }
}

impl From<Vec<u8>> for ModuleBytes {
    fn from(bytes: Vec<u8>) -> ModuleBytes {
        ModuleBytes(Storage::Bytes(bytes))
    }
}

impl std::ops::Deref for ModuleBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            // SAFETY: `len` initialised bytes at `data`, alive until `self` is dropped.
            Storage::Llvm { data, len, .. } => unsafe { std::slice::from_raw_parts(*data, *len) },
            Storage::Bytes(b) => b,
        }
    }
}

impl AsRef<[u8]> for ModuleBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Drop for ModuleBytes {
    fn drop(&mut self) {
        if let Storage::Llvm { owner, .. } = self.0 {
            // SAFETY: the owner `fm_write_bitcode` returned, released once, here.
            unsafe { crate::ffi::fm_free_bitcode(owner) };
        }
    }
}

impl std::fmt::Debug for ModuleBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModuleBytes({} bytes)", self.len())
    }
}

impl<'c> Module<'c> {
    pub(crate) fn raw(&self) -> llvm_sys::prelude::LLVMModuleRef {
        self.inner.as_mut_ptr()
    }

    pub(crate) fn from_inner(
        inner: inkwell::module::Module<'c>,
        embedding: Embedding,
    ) -> Module<'c> {
        Module {
            inner: ManuallyDrop::new(inner),
            owned: true,
            embedding,
            doomed: RefCell::new(Vec::new()),
            doomed_insts: RefCell::new(Vec::new()),
            detached: RefCell::new(Vec::new()),
            source: RefCell::new(None),
            bitcode_hint: std::cell::Cell::new(0),
        }
    }

    /// Forgets the bitcode the module was read from: the module is about to change (or has
    /// changed) through handles.
    pub fn forget_source(&self) {
        self.source.borrow_mut().take();
    }

    /// Whose process the module lives in.
    pub fn embedding(&self) -> Embedding {
        self.embedding
    }

    /// Functions (definitions and declarations) in module order.
    pub fn functions(&self) -> Vec<Function<'_>> {
        let mut out = Vec::new();
        // SAFETY: the module is alive for the borrow of `self`; iteration does not mutate.
        let mut f = unsafe { c::LLVMGetFirstFunction(self.raw()) };
        while let Some(v) = Function::from_raw(f) {
            out.push(v);
            // SAFETY: a live function of this module.
            f = unsafe { c::LLVMGetNextFunction(f) };
        }
        out
    }

    /// Global variables in module order.
    pub fn globals(&self) -> Vec<GlobalVar<'_>> {
        let mut out = Vec::new();
        // SAFETY: as in `functions`.
        let mut g = unsafe { c::LLVMGetFirstGlobal(self.raw()) };
        while let Some(v) = GlobalVar::from_raw(g) {
            out.push(v);
            // SAFETY: a live global variable of this module.
            g = unsafe { c::LLVMGetNextGlobal(g) };
        }
        out
    }

    /// Aliases in module order.
    pub fn aliases(&self) -> Vec<Global<'_>> {
        let mut out = Vec::new();
        // SAFETY: as in `functions`.
        let mut g = unsafe { c::LLVMGetFirstGlobalAlias(self.raw()) };
        while let Some(v) = Global::from_raw(g) {
            out.push(v);
            // SAFETY: a live alias of this module.
            g = unsafe { c::LLVMGetNextGlobalAlias(g) };
        }
        out
    }

    pub fn function(&self, name: &str) -> Option<Function<'_>> {
        let name = CString::new(name).ok()?;
        // SAFETY: valid module and NUL-terminated name.
        Function::from_raw(unsafe { c::LLVMGetNamedFunction(self.raw(), name.as_ptr()) })
    }

    /// The global variable `name`.
    pub fn global(&self, name: &str) -> Option<GlobalVar<'_>> {
        let name = CString::new(name).ok()?;
        // SAFETY: valid module and NUL-terminated name.
        GlobalVar::from_raw(unsafe { c::LLVMGetNamedGlobal(self.raw(), name.as_ptr()) })
    }

    /// The function, variable or alias `name`, as a value.
    pub fn global_value(&self, name: &str) -> Option<Value<'_>> {
        if let Some(f) = self.function(name) {
            return Some(f.as_value());
        }
        if let Some(g) = self.global(name) {
            return Some(g.as_value());
        }
        let n = CString::new(name).ok()?;
        // SAFETY: valid module and NUL-terminated name.
        Value::from_raw(unsafe { c::LLVMGetNamedGlobalAlias(self.raw(), n.as_ptr(), name.len()) })
    }

    /// The name of the source file the module was compiled from (`source_filename`).
    pub fn source_file_name(&self) -> String {
        let mut len = 0usize;
        // SAFETY: live module; LLVM returns a pointer to `len` bytes it owns, copied at once.
        unsafe {
            let p = c::LLVMGetSourceFileName(self.raw(), &mut len);
            if p.is_null() {
                return String::new();
            }
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
        }
    }

    /// The module's identifier: the file it was read from, as its reader named it (an LTO
    /// link's input object, `lib.a(member.o at 120)` for an archive's).
    pub fn identifier(&self) -> String {
        let mut len = 0usize;
        // SAFETY: live module; LLVM returns a pointer to `len` bytes it owns, copied at once.
        unsafe {
            let p = c::LLVMGetModuleIdentifier(self.raw(), &mut len);
            if p.is_null() {
                return String::new();
            }
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
        }
    }

    /// The module's target triple (may be empty).
    pub fn triple(&self) -> String {
        // SAFETY: returns a pointer into the module's own string, copied at once.
        unsafe { CStr::from_ptr(c::LLVMGetTarget(self.raw())) }.to_string_lossy().into_owned()
    }

    pub fn set_triple(&self, triple: &str) {
        self.forget_source();
        let t = c_string(triple);
        // SAFETY: valid module; LLVM copies the string.
        unsafe { c::LLVMSetTarget(self.raw(), t.as_ptr()) }
    }

    pub fn data_layout(&self) -> String {
        // SAFETY: as in `triple`.
        unsafe { CStr::from_ptr(c::LLVMGetDataLayoutStr(self.raw())) }
            .to_string_lossy()
            .into_owned()
    }

    pub fn set_data_layout(&self, dl: &str) {
        self.forget_source();
        let t = c_string(dl);
        // SAFETY: valid module; LLVM copies the string.
        unsafe { c::LLVMSetDataLayout(self.raw(), t.as_ptr()) }
    }

    /// Whether the module asks for position-independent code (clang's "PIC Level" flag, set for
    /// `-fPIC`/`-fPIE`, the default of Debian's clang).
    pub fn wants_pic(&self) -> bool {
        let key = "PIC Level";
        // SAFETY: live module; the key is passed with its length; a missing flag is null.
        unsafe { !c::LLVMGetModuleFlag(self.raw(), key.as_ptr() as *const _, key.len()).is_null() }
    }

    /// The opaque pointer type (address space 0) of this module's context.
    pub fn ptr_type(&self) -> Type<'_> {
        // SAFETY: the context outlives the module.
        Type::from_raw(unsafe {
            c::LLVMPointerTypeInContext(c::LLVMGetModuleContext(self.raw()), 0)
        })
        .expect("LLVM always returns the pointer type")
    }

    pub fn int_type(&self, bits: u32) -> Type<'_> {
        // SAFETY: the context outlives the module.
        Type::from_raw(unsafe {
            c::LLVMIntTypeInContext(c::LLVMGetModuleContext(self.raw()), bits)
        })
        .expect("LLVM always returns an integer type")
    }

    pub fn void_type(&self) -> Type<'_> {
        // SAFETY: the context outlives the module.
        Type::from_raw(unsafe { c::LLVMVoidTypeInContext(c::LLVMGetModuleContext(self.raw())) })
            .expect("LLVM always returns the void type")
    }

    /// A function type.
    pub fn function_type(&self, ret: Type<'_>, params: &[Type<'_>], varargs: bool) -> Type<'_> {
        let mut ps: Vec<_> = params.iter().map(|t| t.raw()).collect();
        // SAFETY: every type belongs to this module's context (handles borrow this module).
        Type::from_raw(unsafe {
            c::LLVMFunctionType(ret.raw(), ps.as_mut_ptr(), ps.len() as u32, i32::from(varargs))
        })
        .expect("LLVM always returns a function type")
    }

    /// Adds a function declaration (give it blocks to make it a definition).
    pub fn add_function(&self, name: &str, fn_type: Type<'_>) -> Function<'_> {
        let n = c_string(name);
        // SAFETY: valid module, function type of this context.
        Function::from_raw(unsafe { c::LLVMAddFunction(self.raw(), n.as_ptr(), fn_type.raw()) })
            .expect("LLVM always returns the new function")
    }

    /// Adds an alias `name` of type `value_type` pointing at `target`.
    pub fn add_alias(&self, name: &str, value_type: Type<'_>, target: Value<'_>) -> Global<'_> {
        let n = c_string(name);
        // SAFETY: valid module; target is a constant of this module (handle borrows it).
        Global::from_raw(unsafe {
            c::LLVMAddAlias2(self.raw(), value_type.raw(), 0, target.raw(), n.as_ptr())
        })
        .expect("LLVM always returns the new alias")
    }

    /// Queues a function for erasure at the next [`Module::sweep`]. The caller must already have
    /// redirected its uses (it is erased only if it then has none).
    pub fn defer_erase(&self, f: Function<'_>) {
        // Until the sweep it stays in the module, which must remain valid IR (it may be copied
        // or verified meanwhile): a body-less function has to be an external declaration.
        if f.is_declaration() {
            if f.linkage().is_local() {
                f.set_linkage(Linkage::External);
            }
            // A personality is meaningless on a declaration, and module copies do not remap it.
            f.set_personality(None);
        }
        self.doomed.borrow_mut().push(f.raw());
    }

    /// Queues an instruction (with no uses left) for erasure at the next [`Module::sweep`].
    pub fn defer_erase_instruction(&self, i: Instruction<'_>) {
        self.doomed_insts.borrow_mut().push(i.raw());
    }

    /// Takes an instruction that has no uses left out of its function *now* and drops its
    /// operands; its memory is freed at the next [`Module::sweep`], so handles to it stay valid
    /// (it has no parent and no operands). Unlike [`Module::defer_erase_instruction`], which
    /// leaves the instruction in place, nothing that copies the function before the sweep (a
    /// merged body built from it, a module copy for measuring) copies the instruction too: a
    /// replaced call left in place ran twice in a body cloned from its caller (googletest's
    /// printers printed nested containers twice; issue 13).
    pub fn detach_instruction(&self, i: Instruction<'_>) {
        assert!(!i.has_uses(), "detaching an instruction still in use");
        // SAFETY: a live instruction of this module without uses (checked); it is queued once
        // (the caller replaced it), and freed only by `sweep` or `drop`, which need `&mut self`.
        unsafe { crate::ffi::fm_detach_instruction(i.raw()) };
        self.detached.borrow_mut().push(i.raw());
    }

    /// Erases the instructions and functions queued by [`Module::defer_erase_instruction`] and
    /// [`Module::defer_erase`] that have no uses left; returns how many functions were erased.
    /// Anything that still has uses is kept (and stays correct).
    pub fn sweep(&mut self) -> usize {
        self.forget_source();
        let insts = std::mem::take(self.doomed_insts.get_mut());
        let mut seen_insts = std::collections::HashSet::new();
        for i in insts {
            // SAFETY: `&mut self`: no handle is alive. Each pointer is a live instruction of
            // this module queued once (set); erased only when unused.
            unsafe {
                if seen_insts.insert(i) && c::LLVMGetFirstUse(i).is_null() {
                    c::LLVMInstructionEraseFromParent(i);
                }
            }
        }
        for i in std::mem::take(self.detached.get_mut()) {
            // SAFETY: `&mut self`: no handle is alive; a parentless instruction without
            // operands or uses, queued once by `detach_instruction`.
            unsafe { c::LLVMDeleteInstruction(i) }
        }
        let doomed = std::mem::take(self.doomed.get_mut());
        let mut erased = 0;
        let mut seen = std::collections::HashSet::new();
        for f in doomed {
            if !seen.insert(f) {
                continue;
            }
            // SAFETY: `&mut self` guarantees no handle into this module is alive, and every
            // queued pointer is a function of this module that nothing erased before (set
            // above). A function with remaining uses is not erased.
            unsafe {
                if c::LLVMGetFirstUse(f).is_null() {
                    c::LLVMDeleteFunction(f);
                    erased += 1;
                }
            }
        }
        erased
    }

    /// Erases the functions `names` (those the module has) now, if every use of each is in
    /// the body of one of them; returns `false` and changes nothing otherwise.
    pub fn erase_functions(&mut self, names: &[&str]) -> bool {
        // Whatever is queued goes first, so that nothing queued can be inside them.
        self.sweep();
        let raws: Vec<LLVMValueRef> =
            names.iter().filter_map(|n| self.function(n)).map(|f| f.raw()).collect();
        // SAFETY: `&mut self`: no handle into the module is alive; live functions of this
        // module, each named once. The shim erases all or none.
        unsafe { crate::ffi::fm_erase_functions(raws.as_ptr(), raws.len()) != 0 }
    }

    /// Runs the IR verifier over the whole module.
    pub fn verify(&self) -> Result<()> {
        self.inner.verify().map_err(|e| LlvmError::InvalidIr { message: e.to_string() })
    }

    /// Serialises to bitcode, keeping the use-list order (so `llc` on the result generates the
    /// very code fmerge measured). Fails (`LlvmError::Codegen`) when module-level inline
    /// assembly does not assemble: the writer's symbol table parses it.
    pub fn to_bitcode(&self) -> Result<ModuleBytes> {
        self.write_bitcode(true)
    }

    /// [`Module::verify`] and [`Module::to_bitcode`] at once: the verifier runs on a second
    /// thread while this one writes (on a 4,700-function module they take 0.4 and 0.5 s).
    /// The bytes are returned only if the module verifies.
    pub fn to_verified_bitcode(&self) -> Result<ModuleBytes> {
        struct Raw(llvm_sys::prelude::LLVMModuleRef);
        // SAFETY: the pointer is only used by the scoped thread below, while `self` is
        // borrowed (so the module lives and nothing here changes it).
        unsafe impl Send for Raw {}
        let raw = Raw(self.raw());
        let embedding = self.embedding;
        let (verified, bytes) = std::thread::scope(|s| {
            let verifier = s.spawn(move || {
                let raw = raw;
                let mut message = std::ptr::null_mut();
                // SAFETY: live module (see `Raw`). Both threads only read the module: the
                // verifier and the bitcode writer change no IR, no use list and no value
                // handle (unlike analyses such as BranchProbabilityInfo, which register
                // handles in the context); the types the verifier may create for intrinsic
                // signatures go to context tables the writer does not read. The message is
                // malloc'ed by LLVM, copied and freed here.
                let verified = unsafe {
                    let broken = llvm_sys::analysis::LLVMVerifyModule(
                        raw.0,
                        llvm_sys::analysis::LLVMVerifierFailureAction::LLVMReturnStatusAction,
                        &mut message,
                    ) != 0;
                    let text = if message.is_null() {
                        String::new()
                    } else {
                        crate::ffi::take_message(message)
                    };
                    if broken { Err(LlvmError::InvalidIr { message: text }) } else { Ok(()) }
                };
                // The verifier is usually done before the writer: its heap, in this thread's
                // arena of glibc's allocator, would otherwise stay resident beside the writer's
                // peak at its end (8 MB more at the end of fd's run).
                crate::memory::release_freed_memory(embedding);
                verified
            });
            let bytes = self.to_bitcode();
            (verifier.join().expect("the verifier does not panic"), bytes)
        });
        verified?;
        bytes
    }

    /// Serialises to bitcode, with the use-list order or (faster, for a copy only read back)
    /// without it. Written straight into the buffer returned, with room reserved for about
    /// the size the module was read from ([`Module::bitcode_hint`]), so that a large module's
    /// bitcode is never copied or regrown.
    fn write_bitcode(&self, use_list_order: bool) -> Result<ModuleBytes> {
        let (mut owner, mut data, mut len) = (std::ptr::null_mut(), std::ptr::null(), 0usize);
        let mut err = std::ptr::null_mut();
        let order = i32::from(use_list_order);
        let hint = self.bitcode_hint.get();
        let reserve = hint + hint / 2;
        // SAFETY: live module; on success the shim hands over a buffer (`owner`, holding
        // `len` bytes at `data`) that `ModuleBytes` releases, on failure a malloc'ed message.
        unsafe {
            let ok = crate::ffi::fm_write_bitcode(
                self.raw(),
                order,
                reserve,
                &mut owner,
                &mut data,
                &mut len,
                &mut err,
            );
            if ok == 0 {
                return Err(LlvmError::Codegen { message: crate::ffi::take_message(err) });
            }
            Ok(ModuleBytes(Storage::Llvm { owner, data, len }))
        }
    }

    /// Prints as textual IR.
    pub fn to_text(&self) -> String {
        self.inner.print_to_string().to_string()
    }

    /// An exact deep copy, use-list order included (code generation mutates the module it runs
    /// on, so sizes are measured on a copy; a copy that lost the use-list order could compile
    /// to slightly different code than `llc` produces from the written file). The copy goes
    /// through the bitcode writer, so it fails as [`Module::to_bitcode`] does
    /// (`LlvmError::Codegen`: module-level inline assembly that does not assemble).
    pub fn duplicate(&self) -> Result<Module<'c>> {
        let mut err = std::ptr::null_mut();
        // SAFETY: live module; on success the shim returns a fresh module owned by the new
        // wrapper, on failure a malloc'ed message that is copied and freed.
        unsafe {
            let raw = crate::ffi::fm_clone_module_exact(self.raw(), &mut err);
            if raw.is_null() {
                let message = crate::ffi::take_message(err);
                return Err(LlvmError::Codegen {
                    message: format!("copying the module: {message}"),
                });
            }
            Ok(Module::from_inner(inkwell::module::Module::new(raw), self.embedding))
        }
    }

    /// A copy made by LLVM's cloner, to put back with [`Module::replace_contents`] if a
    /// transformation fails: unlike [`Module::duplicate`] it keeps the module's named struct
    /// types (a restored module prints exactly as before) but not the use-list order, and it
    /// cannot fail.
    pub fn backup(&self) -> Module<'c> {
        // SAFETY: live module; the shim returns a fresh module in the same context that nothing
        // else owns.
        Module::from_inner(
            unsafe {
                inkwell::module::Module::new(crate::ffi::fm_clone_module_sharing_types(self.raw()))
            },
            self.embedding,
        )
    }

    /// The module as bitcode, also kept as what the module was read from until it changes, so
    /// that the next [`Module::lazy_copy`] (the size guard's copy of its input) reads it
    /// instead of writing the module again. Written as [`Module::lazy_copy`] writes it: without
    /// the use-list order (as LLVM's cloner's copy, [`Module::backup`], has none). With
    /// [`Module::restore_bitcode`], a backup that costs one write of the module instead of a
    /// copy of it (the pass plugin's, in case a run fails).
    pub fn keep_bitcode(&self) -> Result<Rc<ModuleBytes>> {
        let bitcode = Rc::new(self.write_bitcode(false)?);
        *self.source.borrow_mut() = Some(Source::Bytes(Rc::clone(&bitcode)));
        Ok(bitcode)
    }

    /// Replaces everything in the module with the module `bitcode` holds, written by
    /// [`Module::keep_bitcode`] from this module: the module is as it was then, its named
    /// struct types named as they were (`shim/restore.cpp`, `fm_reclaim_struct_names`). Fails,
    /// changing nothing, if the bitcode cannot be read.
    pub fn restore_bitcode(&mut self, bitcode: &[u8]) -> Result<()> {
        let copy = self.parse_sibling("backup", bitcode)?;
        // SAFETY: a live module this function owns, just read; renaming types frees nothing.
        unsafe { crate::ffi::fm_reclaim_struct_names(copy.raw()) };
        self.replace_contents(copy);
        Ok(())
    }

    /// A copy that keeps the bodies of `keep` only; everything else becomes a declaration.
    /// Fails only when a body of a lazily read module cannot be read.
    pub fn subset(&self, keep: &[Function<'_>]) -> Result<Module<'c>> {
        let raws: Vec<_> = keep.iter().map(|v| v.raw()).collect();
        // SAFETY: live module; every pointer is a function of this module (handles borrow it).
        // Reading a lazy body adds to the module and frees nothing, so no handle dangles.
        let raw =
            unsafe { crate::ffi::fm_clone_module_subset(self.raw(), raws.as_ptr(), raws.len()) };
        if raw.is_null() {
            return Err(LlvmError::InvalidIr {
                message: "a function body of the input could not be read again".to_string(),
            });
        }
        // SAFETY: `raw` is a fresh module that nothing else owns.
        Ok(Module::from_inner(unsafe { inkwell::module::Module::new(raw) }, self.embedding))
    }

    /// A copy whose function bodies are read from bitcode only when first needed (by
    /// [`Module::subset`], [`crate::Snapshot::restore`]...): cheap to make and small while
    /// few bodies are needed. Its named struct types are other types than this module's,
    /// named like them with a numeric suffix.
    pub fn lazy_copy(&self) -> Result<Module<'c>> {
        let kept = self.source.borrow_mut().take();
        let Some(source) = kept else { return self.lazy_copy_from(None) };
        let bytes = source.into_bytes()?;
        let copy = self.lazy_copy_from(Some(&bytes));
        *self.source.borrow_mut() = Some(Source::Bytes(bytes));
        copy
    }

    /// The bitcode of the module as it is now, for a lazy copy later
    /// ([`Module::lazy_copy_of_bitcode`]): what it was read from if nothing has changed it
    /// (taken, not copied: the module is about to change), else the module written out.
    pub(crate) fn take_bitcode(&self) -> Result<Source> {
        if let Some(source) = self.source.borrow_mut().take() {
            return Ok(source);
        }
        self.write_bitcode(false).map(|b| Source::Bytes(Rc::new(b)))
    }

    /// A lazy copy (as [`Module::lazy_copy`]) of the module `bitcode` holds, in this module's
    /// context: `bitcode` is what [`Module::take_bitcode`] gave for this module.
    pub(crate) fn lazy_copy_of_bitcode(&self, bitcode: &[u8]) -> Result<Module<'c>> {
        self.lazy_copy_from(Some(bitcode))
    }

    fn lazy_copy_from(&self, source: Option<&[u8]>) -> Result<Module<'c>> {
        let mut err = std::ptr::null_mut();
        let (ptr, len) = source.map_or((std::ptr::null(), 0), |b| (b.as_ptr(), b.len()));
        // SAFETY: live module; `source` (null, or `len` bytes it borrows for the call) is
        // bitcode of this module (as it was read, unchanged since, or as it was when taken);
        // a fresh module (owning a copy of the bitcode) or a malloc'ed message.
        unsafe {
            let raw = crate::ffi::fm_clone_module_lazy(self.raw(), ptr.cast(), len, &mut err);
            if raw.is_null() {
                return Err(LlvmError::Codegen {
                    message: format!("copying the module: {}", crate::ffi::take_message(err)),
                });
            }
            Ok(Module::from_inner(inkwell::module::Module::new(raw), self.embedding))
        }
    }

    /// Reads every body of a lazily read module ([`Module::lazy_copy`]); nothing to do for
    /// any other module.
    pub fn materialize_all(&self) -> Result<()> {
        let mut err = std::ptr::null_mut();
        // SAFETY: live module; reading bodies adds to it and frees nothing, so no handle
        // dangles; on failure a malloc'ed message.
        unsafe {
            if crate::ffi::fm_materialize_all(self.raw(), &mut err) == 0 {
                return Err(LlvmError::InvalidIr { message: crate::ffi::take_message(err) });
            }
        }
        Ok(())
    }

    /// Parses bitcode (or text) into a new module of this module's context, ready to be linked
    /// into it; `name` only names it in messages.
    pub fn parse_sibling(&self, name: &str, bytes: &[u8]) -> Result<Module<'c>> {
        let m = parse_ir(self.inner.get_context(), bytes, name)
            .map_err(|message| LlvmError::Unreadable { path: PathBuf::from(name), message })?;
        Ok(Module::from_inner(m, self.embedding))
    }

    /// A new module with the bodies of `keep` (external linkage) and declarations of what they
    /// reference, nothing else; `None` if they reference a symbol whose name may mean another
    /// definition in another module (see [`Function::parameterize_locals`]).
    pub fn extract(&self, keep: &[Function<'_>]) -> Option<Module<'c>> {
        let raws: Vec<_> = keep.iter().map(|v| v.raw()).collect();
        // SAFETY: live module; every pointer is a function of this module (handles borrow it).
        let raw =
            unsafe { crate::ffi::fm_extract_functions(self.raw(), raws.as_ptr(), raws.len()) };
        if raw.is_null() {
            return None;
        }
        // SAFETY: `raw` is a fresh module that nothing else owns.
        Some(Module::from_inner(unsafe { inkwell::module::Module::new(raw) }, self.embedding))
    }

    /// Puts the global `g` of this module in a comdat of its own name (`any` selection), so
    /// that the linker keeps one of the copies several objects define.
    pub fn give_own_comdat(&self, g: Global<'_>) {
        let name = c_string(&g.name());
        // SAFETY: live module and a live global of it; LLVM copies the name.
        unsafe {
            let cd = llvm_sys::comdat::LLVMGetOrInsertComdat(self.raw(), name.as_ptr());
            llvm_sys::comdat::LLVMSetComdat(g.raw(), cd);
        }
    }

    /// Links `other` into this module (it is consumed).
    pub fn link(&mut self, mut other: Module<'c>, path: &Path) -> Result<()> {
        self.forget_source();
        self.bitcode_hint.set(self.bitcode_hint.get() + other.bitcode_hint.get());
        assert!(other.owned, "a host's module cannot be linked away");
        other.owned = false;
        // SAFETY: `other` no longer owns its module (its drop will not free it), so the module
        // is taken exactly once, by the shim's linker, which frees it; both modules are live
        // and share this context. On failure, a malloc'ed message. (Not inkwell's linker: it
        // replaces the context's diagnostic handler and never puts the host's back.)
        unsafe {
            let inner = ManuallyDrop::take(&mut other.inner);
            let src = inner.as_mut_ptr();
            std::mem::forget(inner);
            let mut err = std::ptr::null_mut();
            if crate::ffi::fm_link_modules(self.raw(), src, &mut err) == 0 {
                let message = crate::ffi::take_message(err);
                return Err(LlvmError::Link { path: path.to_path_buf(), message });
            }
        }
        Ok(())
    }

    /// Makes this module hold exactly what `other` holds (moved, not copied; both in the same
    /// context), keeping this module's identity: a pass plugin must hand its result back in
    /// the module object the host (clang, opt, lld) owns.
    pub fn replace_contents(&mut self, other: Module<'c>) {
        self.forget_source();
        // SAFETY: `&mut self`: no handle into this module is alive, so the globals the shim
        // erases here dangle nowhere; `other` is consumed, so no handle into it is alive
        // either, and it is freed (empty) when dropped below. Both modules are live and of
        // one context (`'c`).
        unsafe { crate::ffi::fm_move_module_contents(self.raw(), other.raw()) };
        self.doomed.get_mut().clear();
        self.doomed_insts.get_mut().clear();
        // Detached instructions are parentless husks of this module's old contents: free them.
        for i in std::mem::take(self.detached.get_mut()) {
            // SAFETY: as in `sweep`: a parentless instruction without operands or uses.
            unsafe { c::LLVMDeleteInstruction(i) }
        }
        drop(other);
    }

    /// A module the caller owns elsewhere (a pass plugin's host, [`Embedding::Plugin`]): never
    /// freed by the wrapper.
    ///
    /// # Safety
    /// `raw` must be a live module that outlives the returned wrapper, and nothing else may
    /// touch it while the wrapper lives.
    pub(crate) unsafe fn borrowed(raw: llvm_sys::prelude::LLVMModuleRef) -> Module<'c> {
        // SAFETY: the caller's contract; `owned: false` keeps the wrapper from freeing it.
        let mut m =
            Module::from_inner(unsafe { inkwell::module::Module::new(raw) }, Embedding::Plugin);
        m.owned = false;
        m
    }

    /// Runs a new-pass-manager pipeline (e.g. `default<Oz>`, `mergefunc`) on the module.
    pub fn run_passes(&mut self, pipeline: &str, target: &crate::target::Target) -> Result<()> {
        self.forget_source();
        self.verify()?;
        let opts = inkwell::passes::PassBuilderOptions::create();
        self.inner
            .run_passes(pipeline, target.machine(), opts)
            .map_err(|e| LlvmError::InvalidIr { message: format!("pipeline '{pipeline}': {e}") })
    }

    /// The count at which a function or block is hot by the module's profile (clang
    /// `-fprofile-use`, LLVM's PGO): the smallest of the largest counts that together make up
    /// `percentile` millionths of the profile's total (LLVM's `-profile-summary-cutoff-hot` is
    /// 990000). `None` without a profile summary.
    pub fn profile_hot_threshold(&self, percentile: u32) -> Option<u64> {
        // SAFETY: live module; the shim only reads its profile summary metadata.
        let t = unsafe { crate::ffi::fm_profile_hot_threshold(self.raw(), u64::from(percentile)) };
        u64::try_from(t).ok()
    }

    /// All functions named in `llvm.used` or `llvm.compiler.used`: they may be referenced from
    /// places LLVM cannot see (inline asm, the linker), so they must keep their identity.
    pub fn used_functions(&self) -> std::collections::HashSet<Function<'_>> {
        let mut out = std::collections::HashSet::new();
        for name in ["llvm.used", "llvm.compiler.used"] {
            let Some(g) = self.global(name) else { continue };
            let Some(init) = g.initializer() else {
                continue;
            };
            for k in 0..init.num_operands() {
                if let Some(f) = init.operand(k).and_then(|v| v.strip_pointer_casts().as_function())
                {
                    out.insert(f);
                }
            }
        }
        out
    }
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        // Unswept detached instructions leak (a few husks that refer to nothing) rather than
        // being freed here: their functions may already be gone with the module.
        if self.owned {
            // SAFETY: an owned module is freed exactly once, here; the field is never used
            // again.
            unsafe { ManuallyDrop::drop(&mut self.inner) }
        }
    }
}

/// `s` as a C string for LLVM's C API. Names read from bitcode may contain NUL bytes (LLVM
/// allows them; corrupt files have them), which a C string cannot carry: they become `_`.
pub(crate) fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "_")).expect("no NUL left")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = r#"
@table = private constant [3 x i32] [i32 1, i32 2, i32 3]
declare void @g(i32)

define i32 @f(i32 %x) {
entry:
  %p = getelementptr [3 x i32], ptr @table, i32 0, i32 %x
  %v = load i32, ptr %p
  call void @g(i32 %v)
  %w = add i32 %v, %x
  ret i32 %w
}
"#;

    /// `fm_write_bitcode` drives LLVM's `BitcodeWriter` itself, into the buffer it hands over:
    /// the bytes must be those of LLVM's `WriteBitcodeToFile` (what `LLVMWriteBitcodeToMemoryBuffer`
    /// calls, without the use-list order), on the Darwin path (wrapper header) too.
    #[test]
    fn bitcode_written_in_place_is_the_bitcode_llvm_writes() {
        for triple in
            ["x86_64-unknown-linux-gnu", "arm64-apple-macosx14.0.0", "wasm32-unknown-wasi"]
        {
            let llvm = Llvm::new();
            let ir = format!("target triple = \"{triple}\"\n{BODY}");
            let m = llvm.parse(Path::new("t.ll"), ir.as_bytes()).unwrap();
            assert!(m.bitcode_hint.get() > 0, "a parsed module reserves room for its bitcode");
            let ours = m.write_bitcode(false).unwrap();
            let llvms = m.inner.write_bitcode_to_memory();
            assert_eq!(&*ours, llvms.as_slice(), "{triple}");
            // A module made in memory reserves nothing and still writes the same bytes.
            m.bitcode_hint.set(0);
            assert_eq!(&*m.write_bitcode(false).unwrap(), llvms.as_slice(), "{triple}");
        }
    }
}
