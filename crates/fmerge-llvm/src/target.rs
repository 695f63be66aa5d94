//! Targets, code generation and the size ruler.
//!
//! Every size fmerge reports is measured here: the module is compiled in-process to an object
//! file in memory with the same defaults as `llc-22 -filetype=obj` (opt level O2, the target's
//! default relocation and code model, the CPU and features the functions carry), and the object
//! is read back with the `object` crate. `.text` bytes are the sum of executable sections (what
//! `llvm-size-22 -A` lists as `.text*`); per-function bytes are the ELF symbol sizes.
//!
//! WebAssembly objects have no `.text`: code is the code section, one entry per function, and
//! each function also costs a type index in the function section and, if its signature is new,
//! a type in the type section (a merged body with an extra parameter may add one). For wasm the
//! ruler's `.text` bytes are therefore the code, function and type sections together (the
//! payload bytes, as `llvm-objdump -h` lists them); per-function bytes are the code section
//! entries' body sizes. Relocatable wasm pads every relocated index to five bytes (`wasm-ld`
//! keeps the padding, `wasm-opt` removes it), so absolute numbers are larger than a linked and
//! optimized module's, but every merge is priced with the same padding before and after.

use crate::error::{LlvmError, Result};
use crate::module::{Embedding, Llvm, Module, ModuleBytes};
use inkwell::OptimizationLevel;
use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target as InkTarget, TargetMachine, TargetTriple,
};
use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SectionKind, SymbolKind};
use std::collections::BTreeMap;
use std::sync::Once;

static INIT: Once = Once::new();

fn init_targets() {
    INIT.call_once(|| {
        let cfg = InitializationConfig::default();
        InkTarget::initialize_x86(&cfg);
        InkTarget::initialize_aarch64(&cfg);
        InkTarget::initialize_arm(&cfg);
        InkTarget::initialize_riscv(&cfg);
        InkTarget::initialize_webassembly(&cfg);
    });
}

/// How the machine outliner runs in this process's code generation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Outlining {
    /// Within each module, as `llc-22 -enable-machine-outliner`.
    #[default]
    Local,
    /// Also record what was outlined, as codegen data in the object's `__llvm_outline`
    /// section (`-codegen-data-generate`): the first round of global outlining.
    Record,
    /// Outline with the sequences recorded in every module (merged codegen data, `llvm-cgdata
    /// --merge`), naming outlined functions by their contents so that the linker's identical
    /// code folding keeps one copy of those that several modules emit
    /// (`-codegen-data-use-path`, `-append-content-hash-outlined-name`): the second round.
    Global(std::path::PathBuf),
}

/// The switches of this process's code generation that LLVM keeps in process-wide options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeGenSwitches {
    /// Run LLVM's machine outliner on every function (whatever the target's default), in this
    /// way.
    pub outlining: Option<Outlining>,
    /// AArch64 frame helpers (`-homogeneous-prolog-epilog`): the callee-saved register saves
    /// and restores of a function's prologue and epilogue become calls of shared helper
    /// functions (`OUTLINED_FUNCTION_PROLOG_*`, `OUTLINED_FUNCTION_EPILOG_*`, linkonce_odr, so
    /// the linker keeps one of each). LLVM applies them only to `minsize` functions (clang
    /// -Oz), only on AArch64, and not with Windows unwinding, SVE stack or variable-sized
    /// frames; elsewhere the switch changes nothing.
    pub frame_helpers: bool,
    /// Check the machine code after every code generation pass (`-verify-machineinstrs`):
    /// what the outliner and the frame helpers make included. A failed check prints "Bad
    /// machine code" and is a fatal error of LLVM's (in fmerge: exit 8, nothing written).
    pub verify_machine_code: bool,
}

impl Llvm {
    /// Sets the switches of every code generation of this process from now on: measurements
    /// then price with them, and object files are made with them. LLVM keeps them in
    /// process-wide options, parsed once: the first call decides (fmerge runs one command per
    /// process), later calls return false. For fmerge's own process only: a context of a
    /// compiler or linker that loaded the plugin ([`Embedding::Plugin`]) does nothing and
    /// returns false.
    pub fn set_code_generation(&self, switches: &CodeGenSwitches) -> bool {
        match self.embedding() {
            Embedding::Standalone => parse_code_generation_options(switches),
            Embedding::Plugin => false,
        }
    }
}

/// [`Llvm::set_code_generation`] in fmerge's own process.
fn parse_code_generation_options(switches: &CodeGenSwitches) -> bool {
    static ONCE: Once = Once::new();
    let mut first = false;
    ONCE.call_once(|| {
        first = true;
        let mut args = vec!["fmerge".to_string()];
        if let Some(how) = &switches.outlining {
            args.push("-enable-machine-outliner".into());
            match how {
                Outlining::Local => {}
                Outlining::Record => args.push("-codegen-data-generate".into()),
                Outlining::Global(path) => {
                    args.push(format!("-codegen-data-use-path={}", path.display()));
                    args.push("-append-content-hash-outlined-name".into());
                }
            }
        }
        if switches.frame_helpers {
            args.push("-homogeneous-prolog-epilog".into());
        }
        if switches.verify_machine_code {
            args.push("-verify-machineinstrs".into());
        }
        if args.len() == 1 {
            return;
        }
        let args: Vec<std::ffi::CString> =
            args.into_iter().map(|a| crate::module::c_string(&a)).collect();
        let ptrs: Vec<*const std::ffi::c_char> = args.iter().map(|a| a.as_ptr()).collect();
        // SAFETY: NUL-terminated strings that outlive the call; LLVM copies what it keeps.
        // Called once, before any code generation of this process reads the options.
        unsafe {
            llvm_sys::support::LLVMParseCommandLineOptions(
                ptrs.len() as i32,
                ptrs.as_ptr(),
                std::ptr::null(),
            )
        }
    });
    first
}

/// The triple code is generated for when neither the module nor the user names one.
pub fn host_triple() -> String {
    TargetMachine::get_default_triple().as_str().to_string_lossy().into_owned()
}

/// A target machine for one triple.
pub struct Target {
    triple: String,
    machine: TargetMachine,
    /// The relocation model code is generated with (copies for other threads use it too).
    reloc: RelocMode,
    /// Whose process this is: the contexts that measure code on other threads are made with
    /// it ([`measure_bitcode_as_made`]).
    embedding: Embedding,
    /// Every function in a section of its own ([`Target::set_function_sections`]; copies
    /// for other threads too).
    function_sections: bool,
}

impl Target {
    /// Creates a target machine for `triple` with `llc`'s defaults, in fmerge's own process
    /// ([`Embedding::Standalone`]; a target for a module, [`Target::for_module`], takes the
    /// module's embedding).
    pub fn new(triple: &str) -> Result<Target> {
        Target::with_reloc(triple, RelocMode::Default, Embedding::Standalone)
    }

    /// A target machine for writing `module` as an object file users link: position
    /// independent when the module asks for it (as clang would compile it), else as `llc`.
    pub fn for_object_file(module: &Module<'_>, explicit: Option<&str>) -> Result<Target> {
        let t = Target::for_module(module, explicit)?;
        if module.wants_pic() {
            Target::with_reloc(&t.triple, RelocMode::PIC, t.embedding)
        } else {
            Ok(t)
        }
    }

    fn with_reloc(triple: &str, reloc: RelocMode, embedding: Embedding) -> Result<Target> {
        init_targets();
        let t = TargetTriple::create(triple);
        let unknown =
            |message: String| LlvmError::UnknownTarget { triple: triple.to_string(), message };
        let target = InkTarget::from_triple(&t).map_err(|e| unknown(e.to_string()))?;
        let machine = target
            .create_target_machine(
                &t,
                "",
                "",
                OptimizationLevel::Default,
                reloc,
                CodeModel::Default,
            )
            .ok_or_else(|| unknown("LLVM could not create a target machine".into()))?;
        Ok(Target {
            triple: triple.to_string(),
            machine,
            reloc,
            embedding,
            function_sections: false,
        })
    }

    /// The target for a module: `explicit` if given, else the module's triple, else the host.
    pub fn for_module(module: &Module<'_>, explicit: Option<&str>) -> Result<Target> {
        let from_module = module.triple();
        let triple = match explicit {
            Some(t) => t.to_string(),
            None if !from_module.is_empty() => from_module,
            None => host_triple(),
        };
        let target = Target::with_reloc(&triple, RelocMode::Default, module.embedding())?;
        target.check_cpus(module)?;
        Ok(target)
    }

    /// Rejects a module whose functions ask for a processor this target does not know: LLVM
    /// would only warn and then, for some names, stop the process with a fatal error while
    /// generating code (an x86-64 function for an unknown CPU loses its 64-bit mode).
    fn check_cpus(&self, module: &Module<'_>) -> Result<()> {
        let (mut func, mut cpu) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: live target machine and module; the shim returns malloc'ed strings that are
        // copied and freed here.
        unsafe {
            if crate::ffi::fm_find_unknown_cpu(self.raw(), module.raw(), &mut func, &mut cpu) == 0 {
                return Ok(());
            }
            let take = |p: *mut std::ffi::c_char| {
                let s = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
                crate::ffi::free(p.cast());
                s
            };
            let (func, cpu) = (take(func), take(cpu));
            Err(LlvmError::InvalidIr {
                message: format!(
                    "function '{func}' asks for processor {cpu:?}, which target {} does not know",
                    self.triple
                ),
            })
        }
    }

    /// Puts every function in a section of its own (`-ffunction-sections`): the linker's
    /// identical code folding works on sections, and lld generates the code of an LTO link
    /// so. A function's size then does not depend on what else the object holds: a branch
    /// or tail call to another function is never relaxed to a short jump because its target
    /// happened to be laid out nearby.
    pub fn set_function_sections(&mut self, on: bool) {
        self.function_sections = on;
        // SAFETY: a live target machine owned by `self` (exclusive borrow).
        unsafe { crate::ffi::fm_set_function_sections(self.raw(), i32::from(on)) }
    }

    /// A copy of this target that puts every function in a section of its own (itself when it
    /// already does): for measuring functions whose sizes must not depend on what else is
    /// compiled with them.
    pub fn with_function_sections(&self) -> Result<Target> {
        let mut t = Target::with_reloc(&self.triple, self.reloc, self.embedding)?;
        t.set_function_sections(true);
        Ok(t)
    }

    /// Whether every function gets a section of its own ([`Target::set_function_sections`]):
    /// then each function's measured size is the same whichever functions it is compiled
    /// with.
    pub fn function_sections(&self) -> bool {
        self.function_sections
    }

    pub fn triple(&self) -> &str {
        &self.triple
    }

    /// Whose process this target generates code in (see [`Embedding`]).
    pub fn embedding(&self) -> Embedding {
        self.embedding
    }

    pub(crate) fn machine(&self) -> &TargetMachine {
        &self.machine
    }

    pub(crate) fn raw(&self) -> llvm_sys::target_machine::LLVMTargetMachineRef {
        self.machine.as_mut_ptr()
    }

    /// Makes `module` target this machine (triple and data layout), as `llc -mtriple` would.
    pub fn retarget(&self, module: &Module<'_>) {
        module.set_triple(&self.triple);
        let dl = self.machine.get_target_data().get_data_layout();
        module.set_data_layout(&dl.as_str().to_string_lossy());
    }

    /// Compiles `module` to an object file in memory. Code generation changes the module it
    /// runs on, so this works on a copy; the module must verify first (LLVM is built without
    /// assertions and would crash on invalid IR).
    pub fn emit_object(&self, module: &Module<'_>) -> Result<Vec<u8>> {
        module.verify()?;
        let copy = module.duplicate()?;
        self.emit_object_consuming(copy)
    }

    /// As [`Target::emit_object`], for a module the caller no longer needs.
    pub fn emit_object_consuming(&self, module: Module<'_>) -> Result<Vec<u8>> {
        module.verify()?;
        let (mut out, mut len, mut err) = (std::ptr::null_mut(), 0usize, std::ptr::null_mut());
        // SAFETY: live target machine and module (owned here, so codegen's changes to it are
        // nobody else's concern); the shim hands back malloc'ed buffers that are copied and
        // freed below.
        unsafe {
            let ok =
                crate::ffi::fm_emit_object(self.raw(), module.raw(), &mut out, &mut len, &mut err);
            if ok == 0 {
                return Err(LlvmError::Codegen { message: crate::ffi::take_message(err) });
            }
            Ok(crate::ffi::take_bytes(out, len))
        }
    }

    /// Generates code for `module` and measures it.
    pub fn measure(&self, module: &Module<'_>) -> Result<SizeReport> {
        let obj = self.emit_object(module)?;
        measure_object(&obj)
    }
}

/// Sizes read from one object file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SizeReport {
    /// Sum of all executable sections.
    pub text_bytes: u64,
    /// Bytes per function symbol (ELF `st_size`; from address gaps on formats without sizes).
    pub functions: BTreeMap<String, u64>,
}

/// Reads `.text` and per-function sizes from an object file (ELF, Mach-O, COFF or WebAssembly).
pub fn measure_object(obj: &[u8]) -> Result<SizeReport> {
    let file = object::File::parse(obj)
        .map_err(|e| LlvmError::Codegen { message: format!("cannot read the object: {e}") })?;
    let wasm = file.format() == object::BinaryFormat::Wasm;
    let mut report = SizeReport::default();
    for s in file.sections() {
        if is_executable(&s) || (wasm && is_wasm_code_shape(&s)) {
            report.text_bytes += s.size();
        }
    }
    let mut syms: Vec<_> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.is_definition())
        .filter_map(|s| {
            Some((s.name().ok()?.to_string(), s.section_index(), s.address(), s.size()))
        })
        .collect();
    let sized = syms.iter().any(|s| s.3 > 0);
    if !sized {
        // Mach-O and COFF carry no symbol sizes: use the distance to the next symbol.
        syms.sort_by_key(|s| (s.1.map(|i| i.0), s.2));
        for k in 0..syms.len() {
            let end = match syms.get(k + 1) {
                Some(n) if n.1 == syms[k].1 => n.2,
                _ => syms[k]
                    .1
                    .and_then(|i| file.section_by_index(i).ok())
                    .map_or(syms[k].2, |s| s.address() + s.size()),
            };
            syms[k].3 = end.saturating_sub(syms[k].2);
        }
    }
    for (name, _, _, size) in syms {
        *report.functions.entry(name).or_default() += size;
    }
    Ok(report)
}

/// The wasm sections that grow and shrink with functions besides the code section: the
/// function section (a type index per function) and the type section (signatures).
fn is_wasm_code_shape(s: &object::Section<'_, '_>) -> bool {
    matches!(s.name(), Ok("<function>" | "<type>"))
}

fn is_executable(s: &object::Section<'_, '_>) -> bool {
    match s.flags() {
        SectionFlags::Elf { sh_flags, .. } => sh_flags.0 & object::elf::SHF_EXECINSTR.0 != 0,
        _ => s.kind() == SectionKind::Text,
    }
}

/// Compiles modules for `target` and measures each, while they are being made: `modules`
/// yields each module's bitcode (or why it could not be made) on this thread, which may be
/// using its own LLVM context to make them, and `jobs - 1` other threads compile what it has
/// yielded so far; once it is done, this thread compiles too. Every thread compiles in an LLVM
/// context and target machine of its own (contexts are not thread safe). One result per item,
/// in order, an item's error passed through; results do not depend on `jobs`.
pub fn measure_bitcode_as_made(
    target: &Target,
    jobs: usize,
    modules: impl IntoIterator<Item = Result<ModuleBytes>>,
) -> Vec<Result<SizeReport>> {
    let recipe = Recipe::of(target);
    let shared = std::sync::Arc::new(Shared::default());
    let threads = shared.start(&recipe, jobs.saturating_sub(1));
    // Made before the first module: should making one panic, dropping it stops the threads.
    let mut measuring = Measuring { shared, threads, recipe, count: 0 };
    for (k, item) in modules.into_iter().enumerate() {
        measuring.count = k + 1;
        measuring.shared.add(k, item);
    }
    measuring.wait()
}

/// How a thread other than the target's makes a compiler like it: the same triple, relocation
/// model and function sections (position-independent code is measurably larger around global
/// addresses, and a function's size can depend on its neighbours without sections), in a
/// context of its own in the same process (`embedding`: inside a plugin's host, no context
/// installs fmerge's fatal-error handler).
#[derive(Clone)]
struct Recipe {
    triple: String,
    reloc: RelocMode,
    embedding: Embedding,
    sections: bool,
}

impl Recipe {
    fn of(target: &Target) -> Recipe {
        Recipe {
            triple: target.triple.clone(),
            reloc: target.reloc,
            embedding: target.embedding,
            sections: target.function_sections,
        }
    }

    fn compiler(&self) -> (Llvm, Result<Target>) {
        let mut target = Target::with_reloc(&self.triple, self.reloc, self.embedding);
        // Only ever turned on: some targets have sections by default, and WebAssembly cannot
        // generate code without them (LLVM stops: "section already has a defining function").
        if let Ok(t) = &mut target
            && self.sections
        {
            t.set_function_sections(true);
        }
        (Llvm::with_embedding(self.embedding), target)
    }
}

/// Modules being compiled and measured while the caller goes on
/// ([`measure_bitcode_in_background`]). [`Measuring::wait`] hands back one result per module,
/// in order; they never depend on how many threads compiled them. Dropped without waiting, it
/// still waits for its threads.
pub struct Measuring {
    shared: std::sync::Arc<Shared>,
    threads: Vec<std::thread::JoinHandle<()>>,
    recipe: Recipe,
    /// How many modules there are.
    count: usize,
}

/// What the compiling threads and the caller share: modules not taken yet (and whether more
/// may come), and the results.
#[derive(Default)]
struct Shared {
    queue: std::sync::Mutex<Queue>,
    ready: std::sync::Condvar,
    results: std::sync::Mutex<Vec<Option<Result<SizeReport>>>>,
}

#[derive(Default)]
struct Queue {
    waiting: std::collections::VecDeque<(usize, ModuleBytes)>,
    /// No more modules will come.
    closed: bool,
}

impl Shared {
    /// Starts `threads` threads compiling what comes (each with its own compiler).
    fn start(
        self: &std::sync::Arc<Self>,
        recipe: &Recipe,
        threads: usize,
    ) -> Vec<std::thread::JoinHandle<()>> {
        (0..threads)
            .map(|_| {
                let (shared, recipe) = (self.clone(), recipe.clone());
                std::thread::spawn(move || shared.compile_waiting(&recipe))
            })
            .collect()
    }

    /// Module `k`'s bitcode to compile, or why it could not be made.
    fn add(&self, k: usize, item: Result<ModuleBytes>) {
        match item {
            Ok(bitcode) => {
                self.queue
                    .lock()
                    .expect("no panics while holding the lock")
                    .waiting
                    .push_back((k, bitcode));
                self.ready.notify_one();
            }
            Err(e) => self.store(k, Err(e)),
        }
    }

    fn store(&self, k: usize, r: Result<SizeReport>) {
        let mut results = self.results.lock().expect("no panics while holding the lock");
        if results.len() <= k {
            results.resize_with(k + 1, || None);
        }
        results[k] = Some(r);
    }

    /// No more modules will come: the threads stop once none is waiting.
    fn close(&self) {
        self.queue.lock().expect("no panics while holding the lock").closed = true;
        self.ready.notify_all();
    }

    /// Compiles modules as they come until none is waiting and none will come (one context
    /// and target machine for all).
    fn compile_waiting(&self, recipe: &Recipe) {
        let mut compiler = None;
        loop {
            let (k, bitcode) = {
                let mut q = self.queue.lock().expect("no panics while holding the lock");
                loop {
                    if let Some(item) = q.waiting.pop_front() {
                        break item;
                    }
                    if q.closed {
                        return;
                    }
                    q = self.ready.wait(q).expect("no panics while holding the lock");
                }
            };
            let (llvm, target) = compiler.get_or_insert_with(|| recipe.compiler());
            self.store(k, measure_bitcode_in(llvm, target, &bitcode));
        }
    }
}

/// Starts compiling `modules` for `target` on `jobs - 1` threads of their own (each with its
/// own context and target machine), and returns at once; [`Measuring::wait`] compiles what
/// they have not taken on the caller's thread. So at most `jobs` threads compile at once, and
/// with one job everything is compiled when the caller waits.
pub fn measure_bitcode_in_background(
    target: &Target,
    jobs: usize,
    modules: Vec<Result<ModuleBytes>>,
) -> Measuring {
    let recipe = Recipe::of(target);
    let count = modules.len();
    let shared = std::sync::Arc::new(Shared::default());
    // Largest first: the last module taken is a small one, and no thread waits long on it.
    let mut items: Vec<(usize, Result<ModuleBytes>)> = modules.into_iter().enumerate().collect();
    items.sort_by_key(|(k, m)| (std::cmp::Reverse(m.as_ref().map_or(0, |b| b.len())), *k));
    let compiled = items.iter().filter(|(_, m)| m.is_ok()).count();
    for (k, item) in items {
        shared.add(k, item);
    }
    shared.close();
    let threads = shared.start(&recipe, jobs.saturating_sub(1).min(compiled));
    Measuring { shared, threads, recipe, count }
}

impl Measuring {
    /// Compiles what no thread has taken yet, waits for the threads, and hands back one
    /// result per module.
    pub fn wait(mut self) -> Vec<Result<SizeReport>> {
        self.shared.close();
        self.shared.compile_waiting(&self.recipe);
        for t in std::mem::take(&mut self.threads) {
            if let Err(panic) = t.join() {
                std::panic::resume_unwind(panic);
            }
        }
        let mut results = std::mem::take(
            &mut *self.shared.results.lock().expect("no panics while holding the lock"),
        );
        results.resize_with(self.count, || None);
        results.into_iter().map(|r| r.expect("every module compiled")).collect()
    }
}

impl Drop for Measuring {
    fn drop(&mut self) {
        self.shared.close();
        for t in std::mem::take(&mut self.threads) {
            let _ = t.join();
        }
    }
}

/// Compiles one module's bitcode with `target` in `llvm`'s context and measures the object.
fn measure_bitcode_in(llvm: &Llvm, target: &Result<Target>, bitcode: &[u8]) -> Result<SizeReport> {
    let t = target.as_ref().map_err(clone_error)?;
    let m = llvm.parse(std::path::Path::new("measurement"), bitcode)?;
    measure_object(&t.emit_object_consuming(m)?)
}

fn clone_error(e: &LlvmError) -> LlvmError {
    LlvmError::Codegen { message: e.to_string() }
}
