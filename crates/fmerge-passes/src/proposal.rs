//! A merge waiting for its verdict, shared by every stage that builds a new body: which
//! functions it replaces, how each stays callable, what it costs, and committing it.
//!
//! Each member either becomes a thunk (`tail call body(args...)`) or — when it is local, only
//! ever called directly, and the extra arguments at its call sites cost less than a thunk —
//! disappears, its call sites calling the body with the same arguments.

use crate::fold::{self, Arg, Visibility};
use crate::measure::Sizes;
use crate::report::{Disposal, Member};
use fmerge_core::profit;
use fmerge_llvm::{Module, Target, Value, cost};

#[derive(Clone)]
pub struct Proposal<'m> {
    pub members: Vec<Value<'m>>,
    pub body: Value<'m>,
    /// For each member, the arguments the body needs from it (`Arg::Param(k)`: its own
    /// parameter `k`, or a call site's argument `k` when call sites are rewritten).
    pub args: Vec<Vec<Arg<'m>>>,
    /// For each member, whether its call sites are rewritten (else it becomes a thunk).
    pub rewrite: Vec<bool>,
    /// TTI units of the originals, and of the body plus thunks and extra call-site arguments.
    pub before_units: i64,
    pub after_units: i64,
    /// TTI units that no compiled function contains (extra arguments at rewritten call sites).
    pub unmeasured_units: i64,
}

impl<'m> Proposal<'m> {
    /// Prices a body for `members` and decides, member by member, thunk or rewritten calls.
    /// `None` if TTI cannot price something.
    pub fn plan(
        target: &Target,
        vis: &Visibility<'m>,
        members: Vec<Value<'m>>,
        body: Value<'m>,
        args: Vec<Vec<Arg<'m>>>,
    ) -> Option<Proposal<'m>> {
        let before: i64 =
            members.iter().map(|&m| cost::function_cost(target, m)).sum::<Option<i64>>()?;
        let mut after = cost::function_cost(target, body)?;
        let mut unmeasured = 0;
        let mut rewrite = Vec::with_capacity(members.len());
        for (&m, a) in members.iter().zip(&args) {
            let thunk = profit::thunk_units(a.len());
            // A rewritten call passes the arguments that are not its own.
            let extra = a.iter().filter(|x| matches!(x, Arg::Value(_))).count();
            let sites = fold::rewritable_call_sites(vis, m).map(|n| (n * extra) as i64);
            match sites {
                Some(units) if units < thunk => {
                    rewrite.push(true);
                    after += units;
                    unmeasured += units;
                }
                _ => {
                    rewrite.push(false);
                    after += thunk;
                }
            }
        }
        Some(Proposal {
            members,
            body,
            args,
            rewrite,
            before_units: before,
            after_units: after,
            unmeasured_units: unmeasured,
        })
    }

    /// Makes the merge real: thunks and rewritten call sites. Members whose call sites can no
    /// longer be rewritten (an earlier commit changed their users) become thunks instead.
    pub fn commit(&self, module: &'m Module<'_>, vis: &Visibility<'m>) -> Vec<Member> {
        let mut out = Vec::new();
        for ((&m, args), &rewrite) in self.members.iter().zip(&self.args).zip(&self.rewrite) {
            let disposal = if rewrite && fold::rewritable_call_sites(vis, m).is_some() {
                fold::rewrite_call_sites(module, m, self.body, args);
                module.defer_erase(m);
                Disposal::CallSitesRewritten
            } else {
                fold::make_thunk(module, m, self.body, args);
                Disposal::Thunk
            };
            out.push(Member { name: m.name(), disposal });
        }
        out
    }
}

/// Bytes each proposal saves, measured by compiling all the originals in one module subset
/// and all the bodies with probe thunks in another. `None` where something could not be
/// measured (the caller must then not take the merge).
pub fn measured_savings(
    module: &Module<'_>,
    target: &Target,
    proposals: &[&Proposal<'_>],
) -> Vec<Option<i64>> {
    if proposals.is_empty() {
        return Vec::new();
    }
    let mut originals = Vec::new();
    let mut new_fns = Vec::new();
    let mut probes: Vec<Vec<Value<'_>>> = Vec::new();
    for p in proposals {
        originals.extend(p.members.iter().copied());
        new_fns.push(p.body);
        let mut ps = Vec::new();
        for ((&m, args), &rewrite) in p.members.iter().zip(&p.args).zip(&p.rewrite) {
            if rewrite {
                continue;
            }
            let name = format!("{}.fmerge.probe", m.name());
            let probe = module.add_function(&name, m.global_value_type());
            probe.copy_function_attrs_from(m);
            probe.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            fold::write_forwarding_body(module, probe, p.body, args);
            new_fns.push(probe);
            ps.push(probe);
        }
        probes.push(ps);
    }
    let t0 = std::time::Instant::now();
    let before = Sizes::of(module, target, &originals);
    let t1 = std::time::Instant::now();
    let after = Sizes::of(module, target, &new_fns);
    if std::env::var_os("FMERGE_DEBUG_MEASURE").is_some() {
        eprintln!(
            "measure: {} originals {:.2}s, {} new {:.2}s",
            originals.len(),
            (t1 - t0).as_secs_f64(),
            new_fns.len(),
            t1.elapsed().as_secs_f64()
        );
    }
    if std::env::var_os("FMERGE_DEBUG_MEASURE").is_some() {
        if let Err(e) = &before {
            eprintln!("measure: originals failed: {e}");
        }
        if let Err(e) = &after {
            eprintln!("measure: new failed: {e}");
        }
    }
    let sizes = before.and_then(|b| after.map(|a| (b, a)));
    let result = proposals
        .iter()
        .zip(&probes)
        .map(|(p, ps)| {
            let (before, after) = sizes.as_ref().ok()?;
            let names: Vec<String> = p.members.iter().map(|m| m.name()).collect();
            let b = before.total(names.iter().map(String::as_str))?;
            let mut a = after.get(&p.body.name())?;
            for probe in ps {
                a += after.get(&probe.name())?;
            }
            Some(b as i64 - a as i64 - profit::units_to_bytes(p.unmeasured_units))
        })
        .collect();
    for probe in probes.into_iter().flatten() {
        module.defer_erase(probe);
    }
    result
}

/// The decision on one proposal.
#[derive(Clone, Copy, Debug)]
pub struct Verdict {
    pub keep: bool,
    pub measured_saving: Option<i64>,
}

/// Decides every proposal: clear estimates are trusted (within `margin`, see
/// `fmerge_core::profit::judge`); close ones are compiled, all in one batch.
pub fn settle(
    module: &Module<'_>,
    target: &Target,
    proposals: &[Proposal<'_>],
    margin: f64,
    stats: &mut crate::report::StageStats,
) -> Vec<Verdict> {
    use profit::Verdict as V;
    let judged: Vec<V> =
        proposals.iter().map(|p| profit::judge(p.before_units, p.after_units, margin)).collect();
    let pending: Vec<&Proposal<'_>> =
        proposals.iter().zip(&judged).filter(|(_, v)| **v == V::Measure).map(|(p, _)| p).collect();
    let mut measured = measured_savings(module, target, &pending).into_iter();
    proposals
        .iter()
        .zip(judged)
        .map(|(p, v)| match v {
            V::Keep => Verdict { keep: true, measured_saving: None },
            V::Reject => Verdict { keep: false, measured_saving: None },
            V::Measure => {
                stats.measured_decisions += 1;
                let saving = measured.next().flatten();
                let estimate_keeps = p.before_units > p.after_units;
                if saving.is_some_and(|s| (s > 0) != estimate_keeps) {
                    stats.estimate_disagreed += 1;
                }
                // Unmeasurable: do not take the risk.
                Verdict { keep: saving.is_some_and(|s| s > 0), measured_saving: saving }
            }
        })
        .collect()
}

/// The margin for `settle` that a profit mode implies.
pub fn margin(mode: crate::options::ProfitMode, close_margin: f64) -> f64 {
    match mode {
        crate::options::ProfitMode::Estimate => 0.0,
        crate::options::ProfitMode::Exact => f64::INFINITY,
        crate::options::ProfitMode::Hybrid => close_margin,
    }
}
