//! `fmerge`: the command-line tool. See `fmerge --help`.

mod cli;
mod exit;
mod explain;
mod global;
mod input;
mod opt;
mod progress;
mod size;

use clap::Parser;

fn main() {
    // The child of `input::load`: parse one file, write it back as bitcode to stdout, and
    // report by exit status (or by crashing).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 3 && args[1] == input::READ_CHECK {
        std::process::exit(input::read_check_main(std::path::Path::new(&args[2])));
    }
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Opt(args) => opt::run(args),
        cli::Command::Size(args) => size::run(args),
        cli::Command::Explain(args) => explain::run(args),
        cli::Command::Summarize(args) => global::summarize(args),
        cli::Command::Combine(args) => global::combine_cmd(args),
        cli::Command::Apply(args) => global::apply(args),
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
