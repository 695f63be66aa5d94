//! `fmerge`: the command-line tool. See `fmerge --help`.

mod bisect;
mod cli;
mod exit;
mod explain;
mod global;
mod input;
mod opt;
mod profiling;
mod progress;
mod size;
mod supervise;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    // The process the user started only supervises; a worker does the job (see `supervise`).
    if !supervise::is_worker()
        && let Some(outputs) = cli.command.worker_outputs()
    {
        std::process::exit(supervise::run_worker(&outputs));
    }
    let result = match cli.command {
        cli::Command::Opt(args) => opt::run(args),
        cli::Command::Size(args) => size::run(args),
        cli::Command::Explain(args) => explain::run(args),
        cli::Command::Summarize(args) => global::summarize(args),
        cli::Command::Combine(args) => global::combine_cmd(args),
        cli::Command::Apply(args) => global::apply(args),
        cli::Command::Bisect(args) => bisect::run(args),
        cli::Command::Instrument(args) => profiling::instrument(args),
        cli::Command::Profile(cli::ProfileCommand::Merge(args)) => profiling::profile_merge(args),
        cli::Command::Profile(cli::ProfileCommand::Show(args)) => profiling::profile_show(args),
        cli::Command::Profile(cli::ProfileCommand::Compare(args)) => {
            profiling::profile_compare(args)
        }
        cli::Command::Profile(cli::ProfileCommand::Fit(args)) => profiling::profile_fit(args),
    };
    if let Err(e) = result {
        // A closed pipe (`fmerge size x.bc | head`) is the reader's choice, not an error.
        if e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        {
            std::process::exit(0);
        }
        eprintln!("fmerge: error: {e:#}");
        std::process::exit(exit::code_for(&e));
    }
}
