//! What the user asked for: built once, by one builder, then only read.
//!
//! The command line (`fmerge opt`) and the pass plugin (`-fmerge-*` options and
//! FMERGE_PLUGIN_OPTIONS) take the same merging options. Both build [`Options`] through
//! [`OptionsBuilder`], which owns the defaults (the `DEFAULT_*` constants and
//! [`Options::default`]), the names each option takes and the checks of its values:
//! [`OptionsBuilder::set`] reads an option given as text (`merge`, `profit`, `search`,
//! `max-slowdown`, `max-slowdown-per-kb`, `hot-percentile`), and [`percent`] is also the
//! command line's parser of percentages, so a value means the same and fails the same way in
//! both. A run never changes its options: what a run learns (the profile, the slowdown budget,
//! the size guard's vetoes) lives in its [`crate::session::Session`].

use serde::Serialize;

/// Which merging stages run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Stages {
    /// Fold functions that are exactly equal (LLVM MergeFunctions' job).
    pub identical: bool,
    /// Merge functions equal up to constants that can become parameters.
    pub constants: bool,
    /// Merge similar functions (alignment + SSA code generation).
    pub similar: bool,
}

impl Stages {
    pub const ALL: Stages = Stages { identical: true, constants: true, similar: true };
    pub const NONE: Stages = Stages { identical: false, constants: false, similar: false };

    /// The merge kinds, by the names options give them, and their flags.
    fn kinds(&mut self) -> [(&'static str, &mut bool); 3] {
        [
            ("identical", &mut self.identical),
            ("constants", &mut self.constants),
            ("similar", &mut self.similar),
        ]
    }

    /// The stages of a comma-separated list of merge kinds (`identical,constants,similar`;
    /// empty items are ignored).
    pub fn parse(list: &str) -> Result<Stages, OptionError> {
        let mut stages = Stages::NONE;
        for kind in list.split(',').map(str::trim).filter(|k| !k.is_empty()) {
            let mut kinds = stages.kinds();
            let Some((_, on)) = kinds.iter_mut().find(|(name, _)| *name == kind) else {
                return Err(OptionError::UnknownKind(kind.to_string()));
            };
            **on = true;
        }
        Ok(stages)
    }

    /// The names of the merge kinds these stages run, in the order they run.
    pub fn names(mut self) -> Vec<&'static str> {
        self.kinds().into_iter().filter(|(_, on)| **on).map(|(name, _)| name).collect()
    }
}

/// How merge decisions are priced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ProfitMode {
    /// TTI code-size estimates only (fastest).
    Estimate,
    /// Generate code for every candidate and its originals; keep it only if bytes drop.
    Exact,
    /// Estimates for clear cases, generated code for close ones (the default).
    Hybrid,
}

impl ProfitMode {
    pub const fn name(self) -> &'static str {
        match self {
            ProfitMode::Estimate => "estimate",
            ProfitMode::Exact => "exact",
            ProfitMode::Hybrid => "hybrid",
        }
    }

    pub fn parse(name: &str) -> Result<ProfitMode, OptionError> {
        [ProfitMode::Estimate, ProfitMode::Hybrid, ProfitMode::Exact]
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or(OptionError::Expected("estimate, hybrid or exact"))
    }
}

/// How similar-function merging finds partners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SearchMode {
    /// MinHash signatures in an LSH index (F3M): near-linear in the number of functions.
    Lsh,
    /// LSH's partners, then every pair scored by opcode/type-frequency fingerprints:
    /// quadratic, a wider search.
    Exhaustive,
}

impl SearchMode {
    pub const fn name(self) -> &'static str {
        match self {
            SearchMode::Lsh => "lsh",
            SearchMode::Exhaustive => "exhaustive",
        }
    }

    pub fn parse(name: &str) -> Result<SearchMode, OptionError> {
        [SearchMode::Lsh, SearchMode::Exhaustive]
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or(OptionError::Expected("lsh or exhaustive"))
    }
}

/// The default merge kinds (`--merge`).
pub const DEFAULT_STAGES: Stages = Stages::ALL;

/// The default pricing (`--profit`).
pub const DEFAULT_PROFIT: ProfitMode = ProfitMode::Hybrid;

/// The default partner search (`--search`).
pub const DEFAULT_SEARCH: SearchMode = SearchMode::Lsh;

/// The default [`Options::measure_budget`] (`--measure-budget`).
pub const DEFAULT_MEASURE_BUDGET: f64 = 0.06;

/// Modules of at most this many instructions are priced as with `--profit exact` (every
/// candidate compiled) when pricing is hybrid (the default) and the size guard measures
/// merges: there compiling every candidate costs about what the guard spends anyway and finds
/// more. Corpus, CPU seconds exact against hybrid (loaded machine): LevelDB (40,000
/// instructions) 1.65 against 1.59, 353 bytes more saved; Lua 0.76 against 0.96, 23 bytes;
/// xz 0.43 against 0.54, the same bytes.
pub const SMALL_MODULE: usize = 60_000;

/// The default share of the module's work merges may add, in percent (`--max-slowdown`).
pub const DEFAULT_MAX_SLOWDOWN_PERCENT: f64 = 0.5;

/// The default share of the module's work one merge may add per KB it saves, in percent
/// (`--max-slowdown-per-kb`).
pub const DEFAULT_MAX_SLOWDOWN_PER_KB_PERCENT: f64 = 0.1;

/// The default [`Options::close_margin`].
pub const DEFAULT_CLOSE_MARGIN: f64 = 0.2;

#[derive(Clone, Debug, Serialize)]
pub struct Options {
    pub stages: Stages,
    /// The module is the whole program: externally visible functions other than `main` may
    /// be removed when nothing references them.
    pub whole_program: bool,
    pub profit: ProfitMode,
    pub search: SearchMode,
    /// Threads that may generate code at once to settle close calls (results never depend on
    /// it).
    pub jobs: usize,
    /// Decisions whose estimated gain is within this fraction of the functions' size are
    /// confirmed by generating code (Hybrid mode).
    pub close_margin: f64,
    /// How much code generation a stage may spend on close calls (Hybrid mode), as a fraction
    /// of the module's instructions: a close call whose functions would push the stage past it
    /// is decided on its estimate. Code generation costs about as much per instruction as
    /// `opt -Oz`, so this bounds the time measuring adds to about this fraction of `-Oz`.
    pub measure_budget: f64,
    /// Hybrid pricing compiles every candidate of a module of at most [`SMALL_MODULE`]
    /// instructions, as `--profit exact` does, when the size guard measures merges (`fmerge
    /// opt`: there it costs about what the guard spends anyway and finds more). The plugin
    /// turns it off: inside a link or a compile, that code generation comes on top of the
    /// host's own, and adds more to a small module's link than the bytes it finds are worth.
    pub exact_when_small: bool,
    /// The caller has just verified the input module (the CLI does, while it reads the input:
    /// a verifier crash on a corrupt file is then reported as that file being corrupt), so
    /// [`crate::optimize`] does not verify it a second time.
    pub input_verified: bool,
    /// The caller verifies the merged module as it writes it (the CLI does, on a second
    /// thread while it writes bitcode: `Module::to_verified_bitcode`), so [`crate::optimize`]
    /// leaves its last verification to it, unless it compiles the whole merged module itself
    /// (`Measure::Text`), which needs valid IR first.
    pub output_verified_by_caller: bool,
    /// Commit only merges 1..=limit (`fmerge opt --bisect-limit`, like LLVM's
    /// `-opt-bisect-limit`): what `fmerge bisect` searches over (see [`crate::guard::Gate`]).
    pub bisect_limit: Option<usize>,
    /// Read the module's profile, if it has one, and price merges by the work they add
    /// (`crate::profiling::pricing`); false merges as if there were no profile
    /// (`--ignore-profile`).
    pub use_profile: bool,
    /// Without a profile (or with `use_profile` false), price merges by counts estimated from
    /// the code (`crate::profiling::pricing::ModuleProfile::estimate`) within the same
    /// budgets; false merges code without a profile as if no merge cost time
    /// (`--no-estimate`).
    pub estimate: bool,
    /// The share of the module's work (by its profile) that merges with constants and of
    /// similar functions may add together (`--max-slowdown`, a fraction: 0.005 is 0.5%).
    pub max_slowdown: f64,
    /// The share of the module's work one such merge may add per KB it saves
    /// (`--max-slowdown-per-kb`, a fraction: 0.001 is 0.1%).
    pub max_slowdown_per_kb: f64,
    /// Functions hot by the profile at this percentile (millionths) are not merged with
    /// constants or as similar functions whatever a merge would cost (`--hot-percentile`);
    /// `None`: no such cut, merges are priced.
    pub hot_percentile: Option<u32>,
    /// Similar merging pairs functions whose inlining attributes differ (a merged body, which
    /// is `noinline`, with a function that is not: groups of three or more). Off in `fmerge
    /// combine`'s merging across modules, where a group made that way was not applied in the
    /// plugin's second round, and in the plugin, where zstd's full-LTO link came out 1.6 KB
    /// larger with it (neither understood yet).
    pub pair_across_inlining: bool,
}

impl Default for Options {
    fn default() -> Self {
        OptionsBuilder::default().build()
    }
}

impl Options {
    /// A builder that starts from the defaults.
    pub fn builder() -> OptionsBuilder {
        OptionsBuilder::default()
    }
}

/// Why an option's value was refused. `Display` gives the command line's wording; the plugin
/// words its warnings with [`OptionError::expected`].
#[derive(Clone, Debug, PartialEq)]
pub enum OptionError {
    /// A merge kind the list option `merge` does not know.
    UnknownKind(String),
    /// The value is none of the names the option takes; what it takes.
    Expected(&'static str),
    /// A percentage that is not a number.
    NotANumber(String),
    /// A number outside 0 to 100.
    NotAPercentage(f64),
    /// An option name [`OptionsBuilder::set`] does not know.
    UnknownOption(String),
}

impl OptionError {
    /// What the option takes, as in "expected a percentage".
    pub fn expected(&self) -> &'static str {
        match self {
            OptionError::Expected(what) => what,
            OptionError::NotANumber(_) | OptionError::NotAPercentage(_) => "a percentage",
            OptionError::UnknownKind(_) => "identical, constants or similar",
            OptionError::UnknownOption(_) => "a known option",
        }
    }
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionError::UnknownKind(kind) => write!(f, "unknown merge kind '{kind}'"),
            OptionError::Expected(what) => write!(f, "expected {what}"),
            OptionError::NotANumber(s) => write!(f, "'{s}' is not a number"),
            OptionError::NotAPercentage(v) => {
                write!(f, "{v} is not a percentage between 0 and 100")
            }
            OptionError::UnknownOption(name) => write!(f, "unknown option {name}"),
        }
    }
}

impl std::error::Error for OptionError {}

/// A percentage from 0 to 100, as text (`--max-slowdown`, `-fmerge-hot-percentile=99`).
pub fn percent(s: &str) -> Result<f64, OptionError> {
    let v: f64 = s.parse().map_err(|_| OptionError::NotANumber(s.to_string()))?;
    if (0.0..=100.0).contains(&v) { Ok(v) } else { Err(OptionError::NotAPercentage(v)) }
}

/// `true`/`1` or `false`/`0`, as text (`-fmerge-estimate=false`).
pub fn boolean(s: &str) -> Result<bool, OptionError> {
    match s {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(OptionError::Expected("true or false")),
    }
}

/// Builds [`Options`]: the defaults, then what the caller sets. The setters of percentages
/// take what [`percent`] returns.
#[derive(Clone, Debug)]
pub struct OptionsBuilder {
    opts: Options,
}

impl Default for OptionsBuilder {
    fn default() -> Self {
        let mut b = OptionsBuilder {
            opts: Options {
                stages: DEFAULT_STAGES,
                whole_program: false,
                profit: DEFAULT_PROFIT,
                search: DEFAULT_SEARCH,
                jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
                close_margin: DEFAULT_CLOSE_MARGIN,
                measure_budget: DEFAULT_MEASURE_BUDGET,
                exact_when_small: true,
                input_verified: false,
                output_verified_by_caller: false,
                bisect_limit: None,
                use_profile: true,
                estimate: true,
                max_slowdown: 0.0,
                max_slowdown_per_kb: 0.0,
                hot_percentile: None,
                pair_across_inlining: true,
            },
        };
        b.max_slowdown(DEFAULT_MAX_SLOWDOWN_PERCENT)
            .max_slowdown_per_kb(DEFAULT_MAX_SLOWDOWN_PER_KB_PERCENT);
        b
    }
}

/// Setters of fields the builder takes as they are.
macro_rules! plain_setters {
    ($($field:ident: $ty:ty),* $(,)?) => {
        $(
            #[doc = concat!("Sets [`Options::", stringify!($field), "`].")]
            pub fn $field(&mut self, value: $ty) -> &mut Self {
                self.opts.$field = value;
                self
            }
        )*
    };
}

impl OptionsBuilder {
    plain_setters!(
        stages: Stages,
        whole_program: bool,
        profit: ProfitMode,
        search: SearchMode,
        measure_budget: f64,
        exact_when_small: bool,
        input_verified: bool,
        output_verified_by_caller: bool,
        bisect_limit: Option<usize>,
        use_profile: bool,
        estimate: bool,
    );

    /// Sets option `name` (spelt as `fmerge opt --NAME` spells it) from its text.
    pub fn set(&mut self, name: &str, value: &str) -> Result<&mut Self, OptionError> {
        match name {
            "merge" => Ok(self.stages(Stages::parse(value)?)),
            "profit" => Ok(self.profit(ProfitMode::parse(value)?)),
            "search" => Ok(self.search(SearchMode::parse(value)?)),
            "max-slowdown" => Ok(self.max_slowdown(percent(value)?)),
            "max-slowdown-per-kb" => Ok(self.max_slowdown_per_kb(percent(value)?)),
            "hot-percentile" => Ok(self.hot_percentile(percent(value)?)),
            "estimate" => Ok(self.estimate(boolean(value)?)),
            _ => Err(OptionError::UnknownOption(name.to_string())),
        }
    }

    /// Threads for code generation (at least one).
    pub fn jobs(&mut self, jobs: usize) -> &mut Self {
        self.opts.jobs = jobs.max(1);
        self
    }

    /// `--max-slowdown`, in percent.
    pub fn max_slowdown(&mut self, percent: f64) -> &mut Self {
        self.opts.max_slowdown = percent / 100.0;
        self
    }

    /// `--max-slowdown-per-kb`, in percent.
    pub fn max_slowdown_per_kb(&mut self, percent: f64) -> &mut Self {
        self.opts.max_slowdown_per_kb = percent / 100.0;
        self
    }

    /// `--hot-percentile`, in percent; 0 is no cut.
    pub fn hot_percentile(&mut self, percent: f64) -> &mut Self {
        // 0%: nothing is hot. LLVM counts percentiles in millionths.
        self.opts.hot_percentile = (percent > 0.0).then(|| (percent * 10_000.0).round() as u32);
        self
    }

    pub fn build(&self) -> Options {
        self.opts.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_ones() {
        let o = Options::default();
        assert_eq!(o.stages, Stages::ALL);
        assert_eq!((o.profit, o.search), (ProfitMode::Hybrid, SearchMode::Lsh));
        assert_eq!((o.max_slowdown, o.max_slowdown_per_kb), (0.005, 0.001));
        assert_eq!(o.hot_percentile, None);
        assert!(o.use_profile && !o.whole_program && o.bisect_limit.is_none() && o.jobs >= 1);
    }

    #[test]
    fn text_values_are_parsed_once_for_every_front_end() {
        let mut b = Options::builder();
        b.set("merge", "identical, similar,")
            .unwrap()
            .set("profit", "exact")
            .unwrap()
            .set("search", "exhaustive")
            .unwrap()
            .set("max-slowdown", "2")
            .unwrap()
            .set("max-slowdown-per-kb", "100")
            .unwrap()
            .set("hot-percentile", "99")
            .unwrap();
        let o = b.build();
        assert_eq!(o.stages, Stages { identical: true, constants: false, similar: true });
        assert_eq!(o.stages.names(), ["identical", "similar"]);
        assert_eq!(Stages::parse(&Stages::ALL.names().join(",")), Ok(Stages::ALL));
        assert_eq!((o.profit, o.search), (ProfitMode::Exact, SearchMode::Exhaustive));
        assert_eq!((o.max_slowdown, o.max_slowdown_per_kb), (0.02, 1.0));
        assert_eq!(o.hot_percentile, Some(990_000));
        assert_eq!(Options::builder().hot_percentile(0.0).build().hot_percentile, None);
        assert_eq!(Options::builder().jobs(0).build().jobs, 1);

        let err = |name: &str, value: &str| Options::builder().set(name, value).unwrap_err();
        assert_eq!(err("merge", "all"), OptionError::UnknownKind("all".into()));
        assert_eq!(err("profit", "fast").to_string(), "expected estimate, hybrid or exact");
        assert_eq!(err("search", "x").expected(), "lsh or exhaustive");
        assert_eq!(err("max-slowdown", "fast").to_string(), "'fast' is not a number");
        assert_eq!(
            err("hot-percentile", "120").to_string(),
            "120 is not a percentage between 0 and 100"
        );
        assert_eq!(err("max-slowdown-per-kb", "-1").expected(), "a percentage");
        assert!(percent("NaN").is_err());
        assert_eq!(err("jobs", "4"), OptionError::UnknownOption("jobs".into()));
    }
}
