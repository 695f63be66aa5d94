//! The whole job on one module: measure, run the enabled stages in order, verify, measure.

use crate::options::Options;
use crate::report::Report;
use crate::{constants, identical, similar};
use fmerge_llvm::{LlvmError, Module, Target};

/// What to measure around the stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Generate code before and after and report real `.text` bytes.
    Text,
    /// Skip code generation (faster; the report carries estimates only).
    Nothing,
}

/// Runs fmerge on `module`. On success the module verifies; on error it must not be written.
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
    let mut report = Report { target: target.triple().to_string(), ..Default::default() };
    report.functions_before = count_definitions(module);
    if measure == Measure::Text {
        progress("measuring the input");
        report.text_bytes_before = Some(target.measure(module)?.text_bytes);
    }
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
    report.functions_after = count_definitions(module);
    if measure == Measure::Text {
        progress("measuring the output");
        report.text_bytes_after = Some(target.measure(module)?.text_bytes);
    }
    Ok(report)
}

fn count_definitions(module: &Module<'_>) -> usize {
    module.functions().iter().filter(|f| !f.is_declaration()).count()
}
