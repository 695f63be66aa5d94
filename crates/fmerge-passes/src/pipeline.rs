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
    /// Generate code before and after, report real `.text` bytes, and undo merges whose
    /// generated code is larger than what they replaced (the size guard).
    Text,
    /// Skip code generation (faster; the report carries estimates only).
    Nothing,
}

/// How many times the size guard may run the stages again without the merges it vetoed.
const GUARD_RERUNS: usize = 2;

/// Runs fmerge on `module`. On success the module verifies and, when `measure` is
/// [`Measure::Text`], its `.text` is no larger than the input's; on error it must not be
/// written.
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
    let finish = |mut report: Report, module: &Module<'_>| {
        report.target = target.triple().to_string();
        report.functions_before = functions_before;
        report.functions_after = count_definitions(module);
        report
    };
    if measure == Measure::Nothing {
        let report = run_stages(module, target, opts, progress)?;
        return Ok(finish(report, module));
    }
    progress("measuring the input");
    let before = target.measure(module)?;
    // The guard may have to start again from the input.
    let pristine = module.duplicate()?;
    let mut opts = opts.clone();
    let mut record = GuardRecord::default();
    loop {
        let mut report = run_stages(module, target, &opts, progress)?;
        // Only the functions merges touched differ from the input: measuring them (in a
        // module subset) tells each merge's effect at a fraction of the whole module's cost.
        progress("measuring the merged functions");
        let touched: Vec<_> = report
            .merges
            .iter()
            .flat_map(|m| std::iter::once(&m.body).chain(m.members.iter().map(|x| &x.name)))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter_map(|n| module.function(n))
            .filter(|f| !f.is_declaration())
            .collect();
        let sizes = Sizes::of(module, target, &touched)?;
        let losers = guard::losing_units(&report, &before.functions, sizes.by_symbol());
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

/// The stages on `module`, then a sweep and the verifier.
fn run_stages(
    module: &mut Module<'_>,
    target: &Target,
    opts: &Options,
    progress: &dyn Fn(&str),
) -> Result<Report, LlvmError> {
    let mut report = Report::default();
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
