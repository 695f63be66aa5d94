//! Arbitrary bytes through the whole pipeline: read (bitcode or text) as `fmerge opt` does,
//! merge with every stage, and check that whatever fmerge accepts comes out as a module that
//! verifies and reads back. A panic, an abort or a crash here is a finding.
#![no_main]

use fmerge_llvm::{Llvm, Target};
use fmerge_passes::pipeline::Measure;
use fmerge_passes::{Options, ProfitMode};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let llvm = Llvm::new();
    // Errors are fine (fmerge maps them to exit codes 4, 5 and 6); crashes are not.
    let Ok(mut module) = llvm.parse(Path::new("input.bc"), data) else { return };
    let Ok(target) = Target::for_module(&module, None) else { return };
    // Estimates only and one thread: generating code for every close call would make each
    // input take seconds.
    let opts = Options { profit: ProfitMode::Estimate, jobs: 1, ..Options::default() };
    if fmerge_passes::optimize(&mut module, &target, &opts, Measure::Nothing, &|_| {}).is_err() {
        return;
    }
    module.verify().expect("fmerge accepted the input, so its output must verify");
    // Module-level inline asm that does not assemble is an error here, as in the CLI.
    let Ok(bytes) = module.to_bitcode() else { return };
    let again = Llvm::new();
    again.parse(Path::new("output.bc"), &bytes).expect("fmerge's output must read back");
});
