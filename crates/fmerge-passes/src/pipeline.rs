//! The whole job on one module: measure, run the enabled stages in order, verify, measure, and
//! undo what measured as a loss (the size guard, [`crate::guard`]).

use crate::guard::{self, GuardRecord, VetoedUnit};
use crate::measure::Sizes;
use crate::options::Options;
use crate::report::Report;
use crate::{constants, identical, similar};
use fmerge_llvm::{LlvmError, Module, Target};

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

/// How many times the size guard may run the stages again without the merges it vetoed.
const GUARD_RERUNS: usize = 2;

/// Runs fmerge on `module`. On success the module verifies; with [`Measure::Guard`] no merge
/// whose generated code measured larger than the functions it replaced is left (unless the
/// guard ran out of re-runs), and with [`Measure::Text`] the module's `.text` is also no
/// larger than the input's. On error it must not be written.
pub fn optimize(
    module: &mut Module<'_>,
    target: &Target,
    opts: &Options,
    measure: Measure,
    progress: &dyn Fn(&str),
) -> Result<Report, LlvmError> {
    if !opts.input_verified {
        progress("verifying the input");
        module.verify()?;
    }
    let functions_before = count_definitions(module);
    let mut opts = opts.clone();
    opts.profile = opts
        .use_profile
        .then(|| {
            crate::profiling::pricing::ModuleProfile::read(
                module,
                opts.hot_percentile,
                opts.max_slowdown,
                opts.max_slowdown_per_kb,
            )
        })
        .flatten()
        .map(std::sync::Arc::new);
    let opts = &opts;
    let finish = |mut report: Report, module: &Module<'_>| {
        report.target = target.triple().to_string();
        report.functions_before = functions_before;
        report.functions_after = count_definitions(module);
        if let Some(p) = &opts.profile {
            crate::profiling::pricing::annotate(&mut report, p);
        }
        report
    };
    if measure == Measure::Nothing {
        let report = run_stages(module, target, opts, progress)?;
        return Ok(finish(report, module));
    }
    let whole = measure == Measure::Text;
    let before = if whole {
        progress("measuring the input");
        Some(target.measure(module)?)
    } else {
        None
    };
    // The guard may have to start again from the input.
    let pristine = module.duplicate()?;
    let mut opts = opts.clone();
    let mut record = GuardRecord::default();
    let (mut input_sizes, mut output_sizes) = (GuardSizes::default(), GuardSizes::default());
    loop {
        let mut report = run_stages(module, target, &opts, progress)?;
        // Only the functions merges touched differ from the input: measuring them (in a
        // module subset) tells each merge's effect at a fraction of the whole module's cost.
        progress("measuring the merged functions");
        let names: std::collections::BTreeSet<&String> = report
            .merges
            .iter()
            .flat_map(|m| std::iter::once(&m.body).chain(m.members.iter().map(|x| &x.name)))
            .collect();
        let after = output_sizes.sizes(module, target, &names, opts.jobs)?;
        let input;
        let originals = match &before {
            Some(b) => &b.functions,
            // The input does not change between re-runs: each function is compiled once.
            None => {
                input = input_sizes.sizes(&pristine, target, &names, opts.jobs)?;
                &input
            }
        };
        let losers = guard::losing_units(&report, originals, &after);
        if !losers.is_empty() && record.reruns < GUARD_RERUNS {
            record.reruns += 1;
            for u in losers {
                opts.gate.veto.extend(u.keys.iter().cloned());
                record.vetoed.push(VetoedUnit {
                    originals: u.keys,
                    bytes_before: u.bytes_before,
                    bytes_after: u.bytes_after,
                });
            }
            progress("merging again without the merges that measured larger");
            *module = pristine.duplicate()?;
            continue;
        }
        record.losing_in_output = losers.len();
        let Some(before) = before else {
            report.guard = Some(record);
            return Ok(finish(report, module));
        };
        progress("measuring the output");
        let mut after = target.measure(module)?;
        if after.text_bytes > before.text_bytes {
            // Larger in total although no merge (or none left to veto) measured as a loss:
            // callers' extra arguments or layout. The input is the smaller module.
            *module = pristine;
            report = Report { stages: report.stages, ..Report::default() };
            record.kept_input = true;
            record.losing_in_output = 0;
            after = before.clone();
        }
        report.text_bytes_before = Some(before.text_bytes);
        report.text_bytes_after = Some(after.text_bytes);
        report.guard = Some(record);
        return Ok(finish(report, module));
    }
}

/// The size guard's measurements, kept across its re-runs: a function is compiled again only
/// if something code generation reads from it changed (`Function::codegen_hash`). Most merges
/// come out the same in every re-run, so re-runs compile little.
#[derive(Default)]
struct GuardSizes {
    /// The symbol and bytes of each (name, codegen hash) compiled so far (`None`: no symbol
    /// came out, e.g. a function code generation dropped).
    known: std::collections::HashMap<(String, u64), Option<(String, u64)>>,
}

impl GuardSizes {
    /// Machine-code bytes of the functions of `module` named in `names` (those it defines),
    /// by symbol; what is not known yet is compiled in module subsets on up to `jobs` threads.
    fn sizes(
        &mut self,
        module: &Module<'_>,
        target: &Target,
        names: &std::collections::BTreeSet<&String>,
        jobs: usize,
    ) -> Result<std::collections::BTreeMap<String, u64>, LlvmError> {
        let fns: Vec<_> = names
            .iter()
            .filter_map(|n| module.function(n))
            .filter(|f| !f.is_declaration())
            .map(|f| (f, (f.name(), f.codegen_hash())))
            .collect();
        let missing: Vec<_> =
            fns.iter().filter(|(_, k)| !self.known.contains_key(k)).cloned().collect();
        if !missing.is_empty() {
            // Code generation is per function: the split into subsets changes no size.
            let values: Vec<_> = missing.iter().map(|(f, _)| *f).collect();
            let jobs = jobs.clamp(1, values.len());
            let groups: Vec<&[_]> = values.chunks(values.len().div_ceil(jobs)).collect();
            let mut measured = std::collections::BTreeMap::new();
            for sizes in Sizes::of_groups(module, target, &groups, jobs) {
                measured.extend(sizes?.by_symbol().iter().map(|(k, v)| (k.clone(), *v)));
            }
            for (_, key) in missing {
                // Mach-O symbols carry a leading underscore.
                let symbol = [key.0.clone(), format!("_{}", key.0)]
                    .into_iter()
                    .find_map(|s| measured.get(&s).map(|&b| (s, b)));
                self.known.insert(key, symbol);
            }
        }
        Ok(fns.into_iter().filter_map(|(_, k)| self.known[&k].clone()).collect())
    }
}

/// The stages on `module`, then a sweep and the verifier.
fn run_stages(
    module: &mut Module<'_>,
    target: &Target,
    opts: &Options,
    progress: &dyn Fn(&str),
) -> Result<Report, LlvmError> {
    let mut report = Report {
        ledger: crate::profiling::pricing::Ledger::new(opts.profile.as_deref()),
        ..Report::default()
    };
    if opts.stages.identical {
        progress("merging identical functions");
        identical::run(module, target, opts, &mut report);
    }
    if opts.stages.constants {
        progress("merging functions that differ in constants");
        constants::run(module, target, opts, &mut report);
    }
    if opts.stages.similar {
        progress("merging similar functions");
        similar::run(module, target, opts, &mut report);
    }
    module.sweep();
    progress("verifying");
    module.verify().map_err(|e| match e {
        LlvmError::InvalidIr { message } => LlvmError::InvalidIr {
            message: format!("fmerge produced invalid IR (a bug: please report it): {message}"),
        },
        other => other,
    })?;
    Ok(report)
}

fn count_definitions(module: &Module<'_>) -> usize {
    module.functions().iter().filter(|f| !f.is_declaration()).count()
}
