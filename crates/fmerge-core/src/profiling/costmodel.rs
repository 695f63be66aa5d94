//! The cost model (seed 001, §3, where it is the work metric): the cost of a run is
//! `ΔW = ε + Σ_B w(B)·f(B)`, with `w(B) = Σ_i w_i·N_B(i)` the cost of block `B`'s
//! instructions, a modelled time. (The command line and the profile files call a run's cost
//! its *work*, after the seed: `--mode work`, "work per second".) The costs `w_i` are fitted
//! by linear regression of measured run times of unoptimised programs on
//! `X_i = Σ_B N_B(i)·f(B)` (instructions of kind `i` executed), with non-negative
//! coefficients (a cost is never negative).
//!
//! Instructions are grouped into classes ([`class_of`]) with one cost each: the training runs
//! fmerge has (a few programs, tens of inputs) cannot separate fifty-odd opcodes that always
//! occur together, and a class of opcodes that cost about the same is what a fit can find.
//! Costs are integers in picoseconds so that cost counters stay integers.
//!
//! [`compare_builds`] compares two builds by cost per second over their runs: a build that
//! gets through more modelled time per second of measured time is faster.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The classes, in table order.
pub const CLASSES: &[&str] = &[
    "load", "store", "call", "branch", "compare", "int-alu", "int-mul", "int-div", "fp-arith",
    "fp-div", "address", "alloca", "phi", "select", "cast", "return", "vector", "other",
];

/// The class of an LLVM opcode name.
pub fn class_of(opcode: &str) -> &'static str {
    match opcode {
        "load" => "load",
        "store" => "store",
        "call" | "invoke" | "callbr" => "call",
        "br" | "switch" | "indirectbr" | "resume" | "unreachable" => "branch",
        "icmp" | "fcmp" => "compare",
        "add" | "sub" | "and" | "or" | "xor" | "shl" | "lshr" | "ashr" | "freeze" => "int-alu",
        "mul" => "int-mul",
        "udiv" | "sdiv" | "urem" | "srem" => "int-div",
        "fadd" | "fsub" | "fmul" | "fneg" => "fp-arith",
        "fdiv" | "frem" => "fp-div",
        "getelementptr" => "address",
        "alloca" => "alloca",
        "phi" => "phi",
        "select" => "select",
        "trunc" | "zext" | "sext" | "fptrunc" | "fpext" | "fptoui" | "fptosi" | "uitofp"
        | "sitofp" | "ptrtoint" | "inttoptr" | "bitcast" | "addrspacecast" => "cast",
        "ret" => "return",
        "extractelement" | "insertelement" | "shufflevector" => "vector",
        _ => "other",
    }
}

/// Costs per class, in picoseconds, and how they were obtained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostTable {
    pub format: String,
    /// Where the costs come from ("unit": 1 per instruction; or the fit's description).
    pub source: String,
    /// Cost of one instruction of each class, picoseconds.
    pub ps: BTreeMap<String, u64>,
    /// The fit's intercept ε (seconds) and errors, when fitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<FitStats>,
}

/// How well a fit explains the training runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitStats {
    pub runs: usize,
    pub intercept_seconds: f64,
    /// Mean absolute error of the predicted run times, seconds.
    pub mae_seconds: f64,
    /// Mean absolute error relative to the run times.
    pub mean_relative_error: f64,
    pub r_squared: f64,
}

pub const COST_FORMAT: &str = "fmerge-cost-table-1";

impl CostTable {
    /// Every instruction costs 1 (a run's cost is then the number of IR instructions it
    /// executed: its work).
    pub fn unit() -> CostTable {
        CostTable {
            format: COST_FORMAT.into(),
            source: "unit: one per IR instruction".into(),
            ps: CLASSES.iter().map(|c| (c.to_string(), 1)).collect(),
            fit: None,
        }
    }

    /// The table fitted for x86-64 shipped with fmerge (`bench/fmbench profiling costmodel`).
    pub fn builtin() -> CostTable {
        serde_json::from_str(include_str!("costs_x86_64.json"))
            .expect("the built-in cost table parses")
    }

    pub fn from_json(text: &str) -> Result<CostTable, String> {
        let t: CostTable = serde_json::from_str(text).map_err(|e| format!("cost table: {e}"))?;
        if t.format != COST_FORMAT {
            return Err(format!("not a cost table ({:?}, expected {COST_FORMAT:?})", t.format));
        }
        if let Some(c) = CLASSES.iter().find(|c| !t.ps.contains_key(**c)) {
            return Err(format!("cost table: no cost for class {c:?}"));
        }
        Ok(t)
    }

    /// The cost of one instruction with this opcode name.
    pub fn cost(&self, opcode: &str) -> u64 {
        self.ps.get(class_of(opcode)).copied().unwrap_or(0)
    }

    /// The cost of a block from its opcode counts.
    pub fn block_cost<'a>(&self, ops: impl IntoIterator<Item = (&'a str, u32)>) -> u64 {
        ops.into_iter().map(|(op, n)| self.cost(op).saturating_mul(u64::from(n))).sum()
    }
}

/// One training run: instructions executed per class and the measured time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingRun {
    pub label: String,
    pub executed: BTreeMap<String, u64>,
    pub seconds: f64,
}

/// Fits the costs to the runs: non-negative least squares with an intercept, on *relative*
/// errors (each run's equation divided by its time: runs range from milliseconds to seconds,
/// and a fit on absolute errors would ignore the short ones), with a ridge pulling each cost
/// towards the mean cost of an instruction (`ridge` = how much a cost twice the mean weighs
/// against a 100% error on one run; 0 = plain NNLS). Without the ridge, classes that always
/// occur together trade their costs arbitrarily and rare classes absorb the noise; the ridge
/// keeps costs that the data cannot tell apart near the mean, which generalises better to
/// programs the fit has not seen (bench/fmbench profiling costmodel picks `ridge` by
/// leave-one-program-out validation).
pub fn fit(runs: &[TrainingRun], source: &str, ridge: f64) -> Result<CostTable, String> {
    let runs: Vec<&TrainingRun> = runs.iter().filter(|r| r.seconds > 0.0).collect();
    if runs.len() < 2 {
        return Err(format!("{} timed runs cannot fit a cost table", runs.len()));
    }
    if !(ridge >= 0.0 && ridge.is_finite()) {
        return Err(format!("ridge {ridge} is not a non-negative number"));
    }
    let count = |r: &TrainingRun, c: &str| r.executed.get(c).copied().unwrap_or(0) as f64;
    let total_instr: f64 =
        runs.iter().map(|r| CLASSES.iter().map(|c| count(r, c)).sum::<f64>()).sum();
    let total_time: f64 = runs.iter().map(|r| r.seconds).sum();
    if total_instr <= 0.0 {
        return Err("the runs executed no instructions".into());
    }
    let mean_cost = total_time / total_instr;
    // Columns: intercept, then the classes; each scaled to a maximum of 1.
    let cols = CLASSES.len() + 1;
    let mut a: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| {
            let mut row = vec![1.0 / r.seconds];
            row.extend(CLASSES.iter().map(|c| count(r, c) / r.seconds));
            row
        })
        .collect();
    let mut y: Vec<f64> = vec![1.0; runs.len()];
    let scale: Vec<f64> = (0..cols)
        .map(|j| a.iter().map(|r| r[j]).fold(0.0, f64::max))
        .map(|m| if m > 0.0 { m } else { 1.0 })
        .collect();
    for r in &mut a {
        for (x, s) in r.iter_mut().zip(&scale) {
            *x /= s;
        }
    }
    if ridge > 0.0 {
        // sqrt(ridge) · (w_j / mean − 1), with w_j = x_j / scale_j.
        for j in 1..cols {
            let mut row = vec![0.0; cols];
            row[j] = ridge.sqrt() / (scale[j] * mean_cost);
            a.push(row);
            y.push(ridge.sqrt());
        }
    }
    let x = nnls(&a, &y);
    let coef: Vec<f64> = x.iter().zip(&scale).map(|(v, s)| v / s).collect();
    let predict = |r: &TrainingRun| {
        coef[0] + CLASSES.iter().enumerate().map(|(k, c)| coef[k + 1] * count(r, c)).sum::<f64>()
    };
    let n = runs.len() as f64;
    let mean = total_time / n;
    let (mut abs, mut rel, mut ss_res, mut ss_tot) = (0.0, 0.0, 0.0, 0.0);
    for r in &runs {
        let e = predict(r) - r.seconds;
        abs += e.abs();
        rel += e.abs() / r.seconds;
        ss_res += e * e;
        ss_tot += (r.seconds - mean).powi(2);
    }
    Ok(CostTable {
        format: COST_FORMAT.into(),
        source: source.into(),
        ps: CLASSES
            .iter()
            .enumerate()
            .map(|(k, c)| (c.to_string(), (coef[k + 1] * 1e12).round() as u64))
            .collect(),
        fit: Some(FitStats {
            runs: runs.len(),
            intercept_seconds: coef[0],
            mae_seconds: abs / n,
            mean_relative_error: rel / n,
            r_squared: if ss_tot > 0.0 { 1.0 - ss_res / ss_tot } else { 1.0 },
        }),
    })
}

/// Non-negative least squares, min ‖Ax − b‖ subject to x ≥ 0 (Lawson and Hanson's active-set
/// method). Small dense problems only.
pub fn nnls(a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = a.first().map_or(0, Vec::len);
    let mut x = vec![0.0; n];
    let mut passive = vec![false; n];
    let grad = |x: &[f64]| -> Vec<f64> {
        // w = Aᵀ(b − Ax)
        let r: Vec<f64> = a
            .iter()
            .zip(b)
            .map(|(row, bi)| bi - row.iter().zip(x).map(|(p, q)| p * q).sum::<f64>())
            .collect();
        (0..n).map(|j| a.iter().zip(&r).map(|(row, ri)| row[j] * ri).sum()).collect()
    };
    let tol = 1e-12;
    for _ in 0..(3 * n + 10) {
        let w = grad(&x);
        let Some(j) =
            (0..n).filter(|&j| !passive[j] && w[j] > tol).max_by(|&p, &q| w[p].total_cmp(&w[q]))
        else {
            break;
        };
        passive[j] = true;
        loop {
            let z = least_squares_on(a, b, &passive);
            if (0..n).all(|k| !passive[k] || z[k] > tol) {
                x = z;
                break;
            }
            // Step towards z until a passive variable hits 0; drop those.
            let mut alpha = f64::INFINITY;
            for k in 0..n {
                if passive[k] && z[k] <= tol {
                    alpha = alpha.min(x[k] / (x[k] - z[k]));
                }
            }
            for k in 0..n {
                x[k] += alpha * (z[k] - x[k]);
                if passive[k] && x[k] <= tol {
                    passive[k] = false;
                    x[k] = 0.0;
                }
            }
        }
    }
    x
}

/// Unconstrained least squares over the passive columns (others 0), by the normal equations
/// with a tiny ridge for rank-deficient columns.
fn least_squares_on(a: &[Vec<f64>], b: &[f64], passive: &[bool]) -> Vec<f64> {
    let idx: Vec<usize> = (0..passive.len()).filter(|&j| passive[j]).collect();
    let k = idx.len();
    let mut m = vec![vec![0.0; k + 1]; k];
    for (p, &i) in idx.iter().enumerate() {
        for (q, &j) in idx.iter().enumerate() {
            m[p][q] = a.iter().map(|r| r[i] * r[j]).sum();
        }
        m[p][p] += 1e-12;
        m[p][k] = a.iter().zip(b).map(|(r, bi)| r[i] * bi).sum();
    }
    // Gaussian elimination with partial pivoting.
    for c in 0..k {
        let piv = (c..k).max_by(|&p, &q| m[p][c].abs().total_cmp(&m[q][c].abs())).unwrap_or(c);
        m.swap(c, piv);
        let d = m[c][c];
        if d.abs() < 1e-300 {
            continue;
        }
        let pivot_row = m[c].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / d;
                for (x, p) in row[c..=k].iter_mut().zip(&pivot_row[c..=k]) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut x = vec![0.0; passive.len()];
    for (p, &i) in idx.iter().enumerate() {
        x[i] = if m[p][p].abs() < 1e-300 { 0.0 } else { m[p][k] / m[p][p] };
    }
    x
}

/// Two builds compared by cost per second (seed 001's P = ΔW/Δt) over runs on different
/// inputs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BuildComparison {
    pub runs_a: usize,
    pub runs_b: usize,
    /// Mean cost per second of each build's runs.
    pub mean_a: f64,
    pub mean_b: f64,
    /// mean_b / mean_a: above 1, B gets through more cost per second (is faster).
    pub ratio: f64,
    /// 95% bootstrap confidence interval of the ratio (runs resampled within each build).
    pub ci: (f64, f64),
}

/// Compares the runs `(cost, ns)` of two builds. `None` if a build has no run with both
/// cost and time.
pub fn compare_builds(a: &[(u64, u64)], b: &[(u64, u64)]) -> Option<BuildComparison> {
    let perf = |runs: &[(u64, u64)]| -> Vec<f64> {
        runs.iter()
            .filter(|r| r.0 > 0 && r.1 > 0)
            .map(|&(c, t)| c as f64 / (t as f64 * 1e-9))
            .collect()
    };
    let (pa, pb) = (perf(a), perf(b));
    if pa.is_empty() || pb.is_empty() {
        return None;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mean_a, mean_b) = (mean(&pa), mean(&pb));
    // Bootstrap with a fixed seed: the same inputs always give the same interval.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut below = |n: usize| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        (crate::hash::mix64(state) % n as u64) as usize
    };
    let mut ratios: Vec<f64> = (0..2000)
        .map(|_| {
            let ra: f64 = (0..pa.len()).map(|_| pa[below(pa.len())]).sum::<f64>() / pa.len() as f64;
            let rb: f64 = (0..pb.len()).map(|_| pb[below(pb.len())]).sum::<f64>() / pb.len() as f64;
            rb / ra
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    Some(BuildComparison {
        runs_a: pa.len(),
        runs_b: pb.len(),
        mean_a,
        mean_b,
        ratio: mean_b / mean_a,
        ci: (ratios[50], ratios[1949]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_opcode_has_a_class_in_the_table() {
        for op in
            ["add", "load", "store", "call", "br", "icmp", "getelementptr", "phi", "ret", "foo"]
        {
            assert!(CLASSES.contains(&class_of(op)), "{op}");
        }
        let t = CostTable::unit();
        assert_eq!(t.block_cost([("add", 3), ("load", 2)]), 5);
        assert_eq!(CostTable::from_json(&serde_json::to_string(&t).unwrap()).unwrap(), t);
        assert!(CostTable::from_json("{}").is_err());
        let b = CostTable::builtin();
        assert!(CostTable::from_json(&serde_json::to_string(&b).unwrap()).is_ok());
    }

    #[test]
    fn nnls_matches_a_known_solution_and_clamps_negatives() {
        // y = 2·x0 + 3·x1 exactly.
        let a = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 1.0], vec![2.0, 1.0]];
        let b = vec![2.0, 3.0, 5.0, 7.0];
        let x = nnls(&a, &b);
        assert!((x[0] - 2.0).abs() < 1e-9 && (x[1] - 3.0).abs() < 1e-9, "{x:?}");
        // The unconstrained optimum has x1 < 0: NNLS puts it at 0.
        let b = vec![1.0, -1.0, 0.0, 1.0];
        let x = nnls(&a, &b);
        assert_eq!(x[1], 0.0);
        assert!(x[0] > 0.0);
    }

    #[test]
    fn a_strong_ridge_pulls_every_cost_to_the_mean() {
        let runs: Vec<TrainingRun> = (1..30)
            .map(|k| TrainingRun {
                label: k.to_string(),
                executed: [
                    ("load".to_string(), 1000 * k),
                    ("int-alu".to_string(), 3000 * (k % 7 + 1)),
                ]
                .into(),
                seconds: 1e-6 * k as f64 + 3e-7 * (k % 7 + 1) as f64,
            })
            .collect();
        let free = fit(&runs, "t", 0.0).unwrap();
        // load costs 1 ns, int-alu 0.1 ns: the unregularised fit finds them.
        assert!((free.ps["load"] as i64 - 1000).abs() < 20, "{:?}", free.ps);
        assert!((free.ps["int-alu"] as i64 - 100).abs() < 10, "{:?}", free.ps);
        let pulled = fit(&runs, "t", 1e6).unwrap();
        let (l, i) = (pulled.ps["load"] as f64, pulled.ps["int-alu"] as f64);
        assert!((l - i).abs() / l < 0.05, "{:?}", pulled.ps);
        assert!(fit(&runs, "t", -1.0).is_err());
        assert!(fit(&runs[..1], "t", 0.0).is_err());
    }

    #[test]
    fn build_comparison_finds_the_faster_build_whatever_the_inputs() {
        // Build B gets through 10% more cost per second; inputs (cost) vary 100x between runs.
        let a: Vec<(u64, u64)> =
            (1..=20).map(|k| (k * k * 1000, k * k * 1000 * (100 + k % 3))).collect();
        let b: Vec<(u64, u64)> =
            (1..=20).map(|k| (k * 7919, k * 7919 * (100 + k % 3) * 10 / 11)).collect();
        let c = compare_builds(&a, &b).unwrap();
        assert!(c.ratio > 1.05 && c.ci.0 > 1.0, "{c:?}");
        let c = compare_builds(&b, &a).unwrap();
        assert!(c.ci.1 < 1.0, "{c:?}");
        let same = compare_builds(&a, &a).unwrap();
        assert!(same.ci.0 <= 1.0 && same.ci.1 >= 1.0, "{same:?}");
        assert!(compare_builds(&[], &a).is_none());
        assert!(compare_builds(&[(0, 5)], &a).is_none());
    }

    proptest! {
        #[test]
        fn fit_recovers_the_costs_that_generated_the_times(
            costs in prop::collection::vec(0u64..2000, CLASSES.len()),
            runs in prop::collection::vec(prop::collection::vec(0u64..1_000_000, CLASSES.len()), CLASSES.len() + 5..CLASSES.len() + 30),
        ) {
            let training: Vec<TrainingRun> = runs
                .iter()
                .enumerate()
                .map(|(i, ex)| TrainingRun {
                    label: i.to_string(),
                    executed: CLASSES.iter().zip(ex).map(|(c, &n)| (c.to_string(), n)).collect(),
                    seconds: 0.01 + ex.iter().zip(&costs).map(|(&n, &w)| n as f64 * w as f64 * 1e-12).sum::<f64>(),
                })
                .collect();
            let t = fit(&training, "test", 0.0).unwrap();
            let s = t.fit.as_ref().unwrap();
            // The predicted times fit the generated ones (costs themselves may trade off when
            // the random columns are nearly collinear).
            prop_assert!(s.mean_relative_error < 1e-3, "{:?}", s);
        }
    }
}
