//! The whole job on one module: read the profile, run the enabled stages in order under the
//! size guard ([`crate::guard::run`]), verify, and assemble the report.
//!
//! Data flows one way. Each run of the stages is a [`Session`]: the stages record into its
//! report and spend its ledger; the guard judges what the run merged (measuring it) and may
//! start a new run without the merges that lost; the report of the run that is kept is then
//! completed here with the guard's record, the sizes and the profile's summary.

use crate::guard::{self, Gate};
use crate::options::{Options, ProfitMode, SMALL_MODULE};
use crate::profiling::pricing::{self, Ledger, ModuleProfile};
use crate::report::Report;
use crate::session::{Progress, Ran, Session};
use crate::stage::{self, Stage};
use crate::{constants, identical, similar};
use fmerge_llvm::{LlvmError, Module, Target};
use std::sync::Arc;

/// What to measure around the stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Generate code for the whole module before and after, report real `.text` bytes, undo
    /// merges whose generated code is larger than what they replaced (the size guard), and
    /// write the input if the whole output is larger (`fmerge opt --measure`).
    Text,
    /// The size guard alone: generate code only for the functions merges touched, in the
    /// input and in the output. It costs a fraction of the whole-module measurement (which
    /// took 20 of 24 seconds on a 1 MB Rust module), and the report carries no module total.
    Guard,
    /// Skip code generation (faster; the report carries estimates only).
    Nothing,
}

/// Runs fmerge on `module`. On success the module verifies (unless
/// `opts.output_verified_by_caller`: then the caller verifies it as it writes it); with
/// [`Measure::Guard`] no merge whose generated code measured larger than the functions it
/// replaced is left (unless the guard ran out of re-runs), and with [`Measure::Text`] the
/// module's `.text` is also no larger than the input's. On error it must not be written.
pub fn optimize(
    module: &mut Module<'_>,
    target: &Target,
    opts: &Options,
    measure: Measure,
    progress: &dyn Progress,
) -> Result<Report, LlvmError> {
    if !opts.input_verified {
        progress.step("verifying the input");
        module.verify()?;
    }
    let functions_before = count_definitions(module);
    let exact;
    let opts = if measure != Measure::Nothing && small_enough_for_exact(module, opts) {
        exact = Options { profit: ProfitMode::Exact, ..opts.clone() };
        &exact
    } else {
        opts
    };
    let profile = module_profile(module, opts, progress).map(Arc::new);
    let profile = profile.as_ref();
    let stages = |module: &mut Module<'_>, gate: &Gate, resume: Option<guard::Resume<Ran>>| {
        run_stages(module, target, opts, profile, gate, resume, progress)
    };
    let (ran, record, text_bytes) = if measure == Measure::Nothing {
        // No copy of the input is made: what it was read from is not needed.
        module.forget_source();
        let ran = stages(module, &Gate::limited(opts.bisect_limit), None)?;
        if !opts.output_verified_by_caller {
            guard::verify_merged(module, progress)?;
        }
        (ran, None, None)
    } else {
        let whole = measure == Measure::Text;
        let g = guard::run(module, target, whole, opts.bisect_limit, opts.jobs, progress, stages)?;
        if !whole && !opts.output_verified_by_caller {
            guard::verify_merged(module, progress)?;
        }
        (g.ran, Some(g.record), g.text_bytes)
    };
    let Ran { mut report, mut ledger } = ran;
    if record.as_ref().is_some_and(|r| r.kept_input) {
        // The input is written: of the run, only the stages' statistics are reported.
        report = Report { stages: report.stages, ..Report::default() };
        ledger = Ledger::default();
    }
    report.target = target.triple().to_string();
    report.functions_before = functions_before;
    report.functions_after = count_definitions(module);
    if let Some((before, after)) = text_bytes {
        report.text_bytes_before = Some(before);
        report.text_bytes_after = Some(after);
    }
    report.guard = record;
    if let Some(p) = profile {
        pricing::annotate(&mut report, p, &ledger);
    }
    Ok(report)
}

/// The counts merges on `module` are priced by, as `opts` asks: the profile the module was built
/// with (unless `opts.use_profile` is off), else counts estimated from the code (unless
/// `opts.estimate` is off), else none. Global merging's second round prices its merges by the
/// same counts (`crate::global::Pricing`).
pub fn module_profile(
    module: &Module<'_>,
    opts: &Options,
    progress: &dyn Progress,
) -> Option<ModuleProfile> {
    let read = opts
        .use_profile
        .then(|| {
            ModuleProfile::read(
                module,
                opts.hot_percentile,
                opts.max_slowdown,
                opts.max_slowdown_per_kb,
            )
        })
        .flatten();
    match read {
        Some(p) => Some(p),
        None if opts.estimate => {
            progress.step("estimating how often code runs");
            Some(ModuleProfile::estimate(
                module,
                opts.hot_percentile,
                opts.max_slowdown,
                opts.max_slowdown_per_kb,
            ))
        }
        None => None,
    }
}

/// Whether hybrid pricing is to compile every candidate on `module`: a small module (see
/// [`SMALL_MODULE`]) whose merges are measured anyway, with measuring to confirm close calls
/// on, when the caller wants that ([`Options::exact_when_small`]).
fn small_enough_for_exact(module: &Module<'_>, opts: &Options) -> bool {
    opts.profit == ProfitMode::Hybrid
        && opts.exact_when_small
        && opts.measure_budget > 0.0
        && module.functions().iter().map(|f| f.instruction_count()).sum::<usize>() <= SMALL_MODULE
}

/// The enabled stages, in the order they run.
fn stages(opts: &Options) -> Vec<Box<dyn Stage>> {
    let mut stages: Vec<Box<dyn Stage>> = Vec::new();
    if opts.stages.identical {
        stages.push(Box::<identical::Identical>::default());
    }
    if opts.stages.constants {
        stages.push(Box::<constants::Constants>::default());
    }
    if opts.stages.similar {
        stages.push(Box::<similar::Similar>::default());
    }
    stages
}

/// One run of the stages on `module`, then a sweep (the module is verified once, when the
/// guard is done with it: [`guard::verify_merged`]). With `resume`, the
/// similar stage alone goes on from that run, looking for partners for the functions given
/// (the size guard's second chance).
fn run_stages(
    module: &mut Module<'_>,
    target: &Target,
    opts: &Options,
    profile: Option<&Arc<ModuleProfile>>,
    gate: &Gate,
    resume: Option<guard::Resume<Ran>>,
    progress: &dyn Progress,
) -> Result<Ran, LlvmError> {
    let (mut session, stages) = match resume {
        None => (Session::new(module, target, opts, profile, gate, progress), stages(opts)),
        Some(guard::Resume { ran, functions }) => {
            let mut again: Vec<Box<dyn Stage>> = Vec::new();
            if opts.stages.similar {
                again.push(Box::new(similar::Similar::retrying(functions)));
            }
            (Session::resume(module, target, opts, profile, gate, ran, progress), again)
        }
    };
    for mut stage in stages {
        progress.step(stage.about().activity);
        stage::drive(stage.as_mut(), &mut session);
    }
    let ran = session.finish();
    module.sweep();
    Ok(ran)
}

fn count_definitions(module: &Module<'_>) -> usize {
    module.functions().iter().filter(|f| !f.is_declaration()).count()
}
