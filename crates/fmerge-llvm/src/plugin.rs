//! fmerge as an LLVM pass plugin: the Rust half of the registration in `shim/plugin.cpp`.
//!
//! A pass-plugin library (the `fmerge-plugin` crate) exports `llvmGetPassPluginInfo` and
//! returns [`plugin_info`] with its [`Runner`]. LLVM then calls the runner with the module the
//! host (clang, opt, lld) owns. Everything here keeps the host alive and its module valid:
//! - the runner sees the host's module as an ordinary [`Module`]; if it ends with another
//!   module object (the size guard starts again from a copy), the result is moved into the
//!   host's module ([`Module::replace_contents`]);
//! - a panic in the runner is caught here and reported as one warning; the module must then be
//!   restored by the runner (it keeps a copy), which is why the runner gets `&mut Module`;
//! - the host's module is [`Embedding::Plugin`], and so is everything made from it (copies,
//!   targets, the contexts that measure code on other threads): fmerge's own fatal-error
//!   handler is never installed in a host, which decides what its fatal errors do, and
//!   code generation's process-wide options stay the host's.

#[cfg(doc)]
use crate::module::Embedding;
use crate::module::Module;
use llvm_sys::prelude::LLVMModuleRef;
use std::ffi::{CStr, c_char, c_void};
use std::sync::OnceLock;

/// The `-fmerge-*` options, as the shim read them (`-mllvm`, linker `-mllvm`/`--plugin-opt`,
/// opt's command line), plus the FMERGE_PLUGIN_OPTIONS environment variable. The merging
/// options are text, as given (`None`: not given; the runner parses them and knows the
/// defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginOptions {
    pub merge: Option<String>,
    pub profit: Option<String>,
    pub search: Option<String>,
    /// Empty: no report.
    pub report: String,
    /// Percentages.
    pub hot_percentile: Option<String>,
    pub max_slowdown: Option<String>,
    pub max_slowdown_per_kb: Option<String>,
    /// `true`/`false`: price merges by estimated counts without a profile.
    pub estimate: Option<String>,
    /// FMERGE_PLUGIN_OPTIONS, for tools that parse `-mllvm` before loading plugins.
    pub env: Option<String>,
    /// Global merging, round 1: where to write the module's summary (empty: nowhere).
    pub summary_dir: String,
    /// Global merging, round 2: the merge information to apply (empty: none).
    pub global_info: String,
    pub whole_program: bool,
    pub guard: bool,
    pub verbose: bool,
    pub timings: bool,
    pub place: Place,
    /// Whether the host's code generation puts every function in a section of its own (its
    /// target machine's `-ffunction-sections`), where the pass runs at the start of code
    /// generation (ThinLTO backends); `None` elsewhere.
    pub function_sections: Option<bool>,
}

/// Where in the host's pipeline the pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A pipeline named it (`opt -passes=fmerge`).
    Named,
    /// After the optimizer of a compile without LTO (`clang -fpass-plugin`).
    Compile,
    /// At the end of the full-LTO link pipeline: the whole linked program.
    FullLto,
    /// One ThinLTO backend module of an in-process link, when its code generation starts.
    ThinLtoBackend,
    /// The module of a distributed ThinLTO backend (`clang -fthinlto-index=...`), when its code
    /// generation starts.
    DistributedBackend,
}

impl Place {
    pub fn name(self) -> &'static str {
        match self {
            Place::Named => "pipeline",
            Place::Compile => "compile",
            Place::FullLto => "full LTO link",
            Place::ThinLtoBackend => "ThinLTO backend",
            Place::DistributedBackend => "distributed ThinLTO backend",
        }
    }
}

/// The C layout of the options (`FmPluginOptions` in `shim/plugin.cpp`).
#[repr(C)]
pub struct FmPluginOptions {
    merge: *const c_char,
    profit: *const c_char,
    search: *const c_char,
    report: *const c_char,
    hot_percentile: *const c_char,
    max_slowdown: *const c_char,
    max_slowdown_per_kb: *const c_char,
    estimate: *const c_char,
    env: *const c_char,
    summary_dir: *const c_char,
    global_info: *const c_char,
    whole_program: i32,
    guard: i32,
    verbose: i32,
    timings: i32,
    place: i32,
    function_sections: i32,
}

/// What a plugin does with the host's module. Returns whether the module changed. It must leave
/// the module valid whatever happens (a panic is caught, but only the runner can restore the
/// module it was given).
pub type Runner = fn(&mut Module<'_>, &PluginOptions) -> bool;

/// LLVM's `PassPluginLibraryInfo` (llvm/Plugins/PassPlugin.h, LLVM 22): what
/// `llvmGetPassPluginInfo` returns. The shim checks the layout at compile time and
/// [`plugin_info`] the size at run time.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
    pre_codegen_callback: Option<unsafe extern "C" fn()>,
}

static RUNNER: OnceLock<Runner> = OnceLock::new();

/// The plugin description to return from `llvmGetPassPluginInfo`; `runner` does the work.
pub fn plugin_info(runner: Runner) -> PassPluginLibraryInfo {
    let _ = RUNNER.set(runner);
    // SAFETY: plain functions of the shim; the runner is a function with the C signature the
    // shim calls, which never unwinds (it catches panics).
    let (api_version, size) = unsafe {
        crate::ffi::fm_plugin_set_runner(Some(run_on_host_module));
        (crate::ffi::fm_plugin_api_version(), crate::ffi::fm_plugin_info_size())
    };
    assert_eq!(size, std::mem::size_of::<PassPluginLibraryInfo>(), "PassPluginLibraryInfo layout");
    PassPluginLibraryInfo {
        api_version,
        plugin_name: c"fmerge".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_pass_builder_callbacks: Some(register_callbacks),
        pre_codegen_callback: None,
    }
}

unsafe extern "C" fn register_callbacks(pass_builder: *mut c_void) {
    // SAFETY: LLVM passes its live PassBuilder, which the shim takes as such.
    unsafe { crate::ffi::fm_plugin_register_callbacks(pass_builder) }
}

/// The text at `p` (`None` for a null pointer).
fn c_str(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the shim passes NUL-terminated strings that live for the call.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

unsafe extern "C" fn run_on_host_module(raw: LLVMModuleRef, opts: *const FmPluginOptions) -> i32 {
    let Some(runner) = RUNNER.get().copied() else { return 0 };
    // SAFETY: the shim passes a live options struct for the duration of the call.
    let o = unsafe { &*opts };
    let options = PluginOptions {
        merge: c_str(o.merge),
        profit: c_str(o.profit),
        search: c_str(o.search),
        report: c_str(o.report).unwrap_or_default(),
        hot_percentile: c_str(o.hot_percentile),
        max_slowdown: c_str(o.max_slowdown),
        max_slowdown_per_kb: c_str(o.max_slowdown_per_kb),
        estimate: c_str(o.estimate),
        env: c_str(o.env),
        summary_dir: c_str(o.summary_dir).unwrap_or_default(),
        global_info: c_str(o.global_info).unwrap_or_default(),
        whole_program: o.whole_program != 0,
        guard: o.guard != 0,
        verbose: o.verbose != 0,
        timings: o.timings != 0,
        place: match o.place {
            1 => Place::Compile,
            2 => Place::FullLto,
            3 => Place::ThinLtoBackend,
            4 => Place::DistributedBackend,
            _ => Place::Named,
        },
        function_sections: (o.function_sections >= 0).then_some(o.function_sections != 0),
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the pass manager hands us the host's live module for the duration of this
        // call and touches it only after we return. `borrowed` makes it `Embedding::Plugin`.
        let mut module = unsafe { Module::borrowed(raw) };
        let changed = runner(&mut module, &options);
        if module.raw() != raw {
            // The runner ended with another module object: move its contents into the host's.
            // SAFETY: as above.
            let mut host = unsafe { Module::borrowed(raw) };
            host.replace_contents(module);
        }
        changed
    }));
    match outcome {
        Ok(changed) => i32::from(changed),
        Err(_) => {
            eprintln!(
                "fmerge: warning: internal error (a bug: please report it); the module may have \
                 been left partly merged"
            );
            1
        }
    }
}
