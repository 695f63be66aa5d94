//! Progress on stderr for people watching a long run (silent when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

pub struct Progress {
    bar: Option<ProgressBar>,
    /// Each step's message and when it began (for `--timings`).
    steps: RefCell<Vec<(String, Instant)>>,
}

/// What fmerge's stages report: steps (timed) and how far the current one got (shown only).
impl fmerge_passes::Progress for Progress {
    fn step(&self, what: &str) {
        Progress::step(self, what)
    }

    fn detail(&self, what: &str) {
        if let Some(b) = &self.bar {
            let step = self.steps.borrow().last().map(|s| s.0.clone()).unwrap_or_default();
            b.set_message(format!("{step}: {what}"));
        }
    }
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None, steps: RefCell::default() };
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed:>4} {msg}").expect("valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar: Some(bar), steps: RefCell::default() }
    }

    pub fn step(&self, msg: &str) {
        self.steps.borrow_mut().push((msg.to_string(), Instant::now()));
        if let Some(b) = &self.bar {
            b.set_message(msg.to_string());
        }
    }

    /// Wall time of each step so far, in order (the last one ends now).
    pub fn step_times(&self) -> Vec<(String, Duration)> {
        let steps = self.steps.borrow();
        let now = Instant::now();
        steps
            .iter()
            .enumerate()
            .map(|(k, (m, t))| {
                let end = steps.get(k + 1).map_or(now, |s| s.1);
                (m.clone(), end - *t)
            })
            .collect()
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
