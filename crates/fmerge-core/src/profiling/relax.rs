//! Relaxed cost instrumentation (seed 001, §4.3 and §4.4): drop the probes that add little
//! cost, with a bound on the error.
//!
//! **What.** A function's probes each add `c_p` cost per execution (cost mode, `--mode work`:
//! [`super::probes::block_coefficients`]). Dropping probe `p` loses `|c_p|` each time it runs.
//! The function is cut into *regions*: each natural loop, and the outer region. A region seen
//! as a DAG has the region's own blocks, the headers of its directly nested loops as single
//! nodes standing for the whole nested loop, and no back edges. Each probe belongs to the
//! innermost region where its edge is a DAG edge (probes on back edges belong to none and are
//! kept). In a region with minimum path cost `m` (the least cost any pass through the DAG
//! has, nested loops counted as nothing), one pass runs each of its probes at most once, so
//! dropping probes whose `|c_p|` add up to at most `M·m` loses at most a fraction `M` of the
//! cost of that pass; summed over all passes, at most `M` of the whole run's cost: a bound that
//! holds for every input ([`relax_regions`]).
//!
//! **Which.** A 0-1 knapsack per region: value = the probe's estimated frequency (static
//! weights: the executions saved), weight = `|c_p| / m`, capacity `M`. Solved exactly by
//! trying every subset up to [`EXACT_LIMIT`] probes, greedily by value per weight (Dantzig)
//! above.
//!
//! **Limits.** Irreducible control flow (a cycle with no header dominating it) has no natural
//! loops to cut along: such functions keep every probe.
//!
//! **Whole program.** [`relax_whole`] drops probes over the whole program instead, within a
//! fraction of the cost of training runs: a bound for runs like those only.

use super::probes::{Cfg, FlowEdge};

/// Up to this many probes in a region, the knapsack is solved exactly.
pub const EXACT_LIMIT: usize = 14;

/// One probe of a function for relaxation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    pub site: FlowEdge,
    /// Cost it adds per execution.
    pub increment: i64,
    /// Estimated executions (static weight).
    pub frequency: f64,
}

/// Dominator sets of the blocks reachable from the entry (iterative; `None` for unreachable).
fn dominators(cfg: &Cfg, live: &[bool]) -> Vec<Option<Vec<bool>>> {
    let n = cfg.blocks;
    let mut preds = vec![Vec::new(); n];
    for &(a, b) in &cfg.edges {
        if live[a as usize] {
            preds[b as usize].push(a as usize);
        }
    }
    let mut dom: Vec<Option<Vec<bool>>> = (0..n)
        .map(|b| {
            live[b].then(|| if b == 0 { (0..n).map(|x| x == 0).collect() } else { vec![true; n] })
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            if !live[b] {
                continue;
            }
            let mut new = vec![true; n];
            for &p in &preds[b] {
                if let Some(d) = &dom[p] {
                    for (x, y) in new.iter_mut().zip(d) {
                        *x &= *y;
                    }
                }
            }
            new[b] = true;
            if dom[b].as_ref() != Some(&new) {
                dom[b] = Some(new);
                changed = true;
            }
        }
    }
    dom
}

/// Which probes to drop (parallel to `probes`) so that each region loses at most
/// `max_error` of its minimum path cost per pass. `block_cost[b]` = w(b).
pub fn relax_regions(cfg: &Cfg, block_cost: &[u64], probes: &[Probe], max_error: f64) -> Vec<bool> {
    let n = cfg.blocks;
    let mut drop = vec![false; probes.len()];
    if max_error <= 0.0 || n == 0 {
        return drop;
    }
    let live = cfg.reachable();
    let dom = dominators(cfg, &live);
    let dominates = |h: usize, b: usize| dom[b].as_ref().is_some_and(|d| d[h]);
    // Back edges and natural loops (one per header).
    let mut back = vec![false; cfg.edges.len()];
    let mut preds = vec![Vec::new(); n];
    for (i, &(a, b)) in cfg.edges.iter().enumerate() {
        if !live[a as usize] {
            continue;
        }
        preds[b as usize].push(a as usize);
        if dominates(b as usize, a as usize) {
            back[i] = true;
        }
    }
    // Irreducible: a cycle left after removing back edges.
    {
        let mut indeg = vec![0usize; n];
        for (i, &(a, b)) in cfg.edges.iter().enumerate() {
            if live[a as usize] && !back[i] {
                indeg[b as usize] += 1;
            }
        }
        let mut stack: Vec<usize> = (0..n).filter(|&b| live[b] && indeg[b] == 0).collect();
        let mut seen = 0;
        while let Some(b) = stack.pop() {
            seen += 1;
            for (i, &(a, t)) in cfg.edges.iter().enumerate() {
                if a as usize == b && !back[i] {
                    indeg[t as usize] -= 1;
                    if indeg[t as usize] == 0 {
                        stack.push(t as usize);
                    }
                }
            }
        }
        if seen != live.iter().filter(|&&l| l).count() {
            return drop;
        }
    }
    let mut body: Vec<Option<Vec<bool>>> = vec![None; n]; // loop body of each header
    for (i, &(a, h)) in cfg.edges.iter().enumerate() {
        if !back[i] {
            continue;
        }
        let set = body[h as usize].get_or_insert_with(|| {
            let mut s = vec![false; n];
            s[h as usize] = true;
            s
        });
        let mut stack = vec![a as usize];
        while let Some(x) = stack.pop() {
            if !set[x] {
                set[x] = true;
                stack.extend(preds[x].iter().copied());
            }
        }
    }
    // Innermost loop of each block: the smallest body containing it.
    let size = |h: usize| body[h].as_ref().map_or(usize::MAX, |s| s.iter().filter(|&&x| x).count());
    let region_of = |b: usize| -> Option<usize> {
        (0..n).filter(|&h| body[h].as_ref().is_some_and(|s| s[b])).min_by_key(|&h| size(h))
    };
    let inner: Vec<Option<usize>> = (0..n).map(region_of).collect();
    // The node a block stands as in region `r` (None = outer): itself if its innermost loop is
    // r, the header of the loop directly nested in r that contains it, or None if outside r.
    let node_in = |r: Option<usize>, b: usize| -> Option<usize> {
        if let Some(h) = r
            && !body[h].as_ref().is_some_and(|s| s[b])
        {
            return None;
        }
        let mut cur = inner[b];
        let mut node = b;
        while cur != r {
            let h = cur?;
            node = h;
            // the loop enclosing h's loop: innermost loop containing h other than h itself
            cur = (0..n)
                .filter(|&g| g != h && body[g].as_ref().is_some_and(|s| s[h]) && size(g) > size(h))
                .min_by_key(|&g| size(g));
        }
        Some(node)
    };
    let regions: Vec<Option<usize>> =
        std::iter::once(None).chain((0..n).filter(|&h| body[h].is_some()).map(Some)).collect();
    for r in regions {
        // Nodes and DAG edges of the region.
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut is_node = vec![false; n];
        for (b, _) in live.iter().enumerate().filter(|(_, l)| **l) {
            if let Some(x) = node_in(r, b) {
                is_node[x] = true;
            }
        }
        let mut edge_region: Vec<bool> = vec![false; cfg.edges.len()];
        // A pass through the region may end at a node with a way out: a back edge, an edge
        // leaving the region, a return or a call that does not come back.
        let mut can_end = vec![false; n];
        for &x in cfg.exits.iter().chain(&cfg.abnormal_exits) {
            if let Some(y) = node_in(r, x as usize) {
                can_end[y] = true;
            }
        }
        for (i, &(a, b)) in cfg.edges.iter().enumerate() {
            if !live[a as usize] {
                continue;
            }
            let (x, y) = (node_in(r, a as usize), node_in(r, b as usize));
            if let Some(x) = x
                && ((back[i] && Some(b as usize) == r) || y.is_none())
            {
                can_end[x] = true;
            }
            if back[i] {
                continue;
            }
            if let (Some(x), Some(y)) = (x, y)
                && x != y
            {
                succ[x].push(y);
                // the probe on this edge belongs here if the edge joins two of r's own nodes
                // as they are (not inside a nested loop)
                edge_region[i] = x == a as usize && (y == b as usize);
            }
        }
        // Minimum path cost from the region's start: own blocks count, nested headers 0.
        let own = |x: usize| if inner[x] == r { block_cost[x] } else { 0 };
        let start = r.unwrap_or(0);
        let mut memo: Vec<Option<u64>> = vec![None; n];
        fn min_cost(
            x: usize,
            succ: &[Vec<usize>],
            can_end: &[bool],
            own: &dyn Fn(usize) -> u64,
            memo: &mut Vec<Option<u64>>,
        ) -> u64 {
            if let Some(v) = memo[x] {
                return v;
            }
            let rest = if can_end[x] {
                0
            } else {
                succ[x].iter().map(|&y| min_cost(y, succ, can_end, own, memo)).min().unwrap_or(0)
            };
            let v = own(x).saturating_add(rest);
            memo[x] = Some(v);
            v
        }
        if !is_node[start] {
            continue;
        }
        let m = min_cost(start, &succ, &can_end, &own, &mut memo);
        if m == 0 {
            continue;
        }
        // The region's probes.
        let mine: Vec<usize> = (0..probes.len())
            .filter(|&k| match probes[k].site {
                FlowEdge::Real(i) => edge_region[i as usize],
                FlowEdge::Exit(x) => inner[x as usize] == r,
                FlowEdge::Entry => r.is_none(),
                FlowEdge::AbnormalExit(_) => false,
            })
            .collect();
        let weight = |k: usize| probes[k].increment.unsigned_abs() as f64 / m as f64;
        let value = |k: usize| probes[k].frequency.max(0.0);
        let chosen: Vec<usize> = if mine.len() <= EXACT_LIMIT {
            let mut best = (0.0, 0u32);
            for mask in 0u32..(1 << mine.len()) {
                let (mut v, mut w) = (0.0, 0.0);
                for (j, &k) in mine.iter().enumerate() {
                    if mask >> j & 1 == 1 {
                        v += value(k);
                        w += weight(k);
                    }
                }
                if w <= max_error
                    && (v > best.0 || (v == best.0 && mask.count_ones() > best.1.count_ones()))
                {
                    best = (v, mask);
                }
            }
            mine.iter().enumerate().filter(|(j, _)| best.1 >> j & 1 == 1).map(|(_, &k)| k).collect()
        } else {
            let mut order = mine.clone();
            order.sort_by(|&a, &b| {
                let ra = value(a) / weight(a).max(1e-300);
                let rb = value(b) / weight(b).max(1e-300);
                rb.total_cmp(&ra).then(a.cmp(&b))
            });
            let mut left = max_error;
            order
                .into_iter()
                .filter(|&k| {
                    let w = weight(k);
                    if w <= left {
                        left -= w;
                        true
                    } else {
                        false
                    }
                })
                .collect()
        };
        for k in chosen {
            drop[k] = true;
        }
    }
    drop
}

/// Whole-program relaxation of cost instrumentation (seed 001, §4.4): which probes to drop so
/// that the cost lost stays within `max_error` (a fraction) of the total cost of a training
/// profile, while dropping as many probe executions as possible. A 0-1 knapsack: item `p` has
/// value `count_p` (the executions saved) and weight `|c_p|·count_p` (the cost it would have
/// added); capacity `max_error · Σ c_p·count_p`. Dantzig's greedy order for it is by value per
/// weight, `1/|c_p|`: the probes that add the least cost per execution go first (ties: the
/// most executed first). Probes that never ran in training are kept (dropping them saves
/// nothing there and their error is unknown). `items[p] = (c_p, count_p)`; returns which to
/// drop. The bound holds for runs like the training ones only.
pub fn relax_whole(items: &[(i64, u64)], max_error: f64) -> Vec<bool> {
    let total: i128 = items.iter().map(|&(c, n)| i128::from(c) * i128::from(n)).sum();
    let mut room = (max_error.max(0.0) * total.max(0) as f64) as i128;
    let mut order: Vec<usize> = (0..items.len()).filter(|&p| items[p].1 > 0).collect();
    order.sort_by(|&a, &b| {
        items[a]
            .0
            .unsigned_abs()
            .cmp(&items[b].0.unsigned_abs())
            .then(items[b].1.cmp(&items[a].1))
            .then(a.cmp(&b))
    });
    let mut drop = vec![false; items.len()];
    for p in order {
        let lost = i128::from(items[p].0.unsigned_abs()) * i128::from(items[p].1);
        if lost <= room {
            room -= lost;
            drop[p] = true;
        }
    }
    drop
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiling::probes::{block_coefficients, place};

    /// entry 0 -> loop header 1 -> either arm 2 or 4 -> latch 5 (-> 1 back, or -> exit 3).
    fn looped() -> Cfg {
        Cfg {
            blocks: 6,
            edges: vec![(0, 1), (1, 2), (1, 4), (2, 5), (4, 5), (5, 1), (5, 3)],
            weights: vec![1.0, 60.0, 40.0, 60.0, 40.0, 99.0, 1.0],
            exits: vec![3],
            abnormal_exits: vec![],
            pinned: vec![],
        }
    }

    /// Simulates runs and returns (exact cost, cost with the dropped probes missing).
    fn cost_with_drops(cfg: &Cfg, w: &[u64], drop: &[bool], paths: &[Vec<usize>]) -> (i128, i128) {
        let p = place(cfg);
        let coef = block_coefficients(cfg, &p);
        let mut inc = vec![0i128; p.probe_count()];
        for (b, terms) in coef.iter().enumerate() {
            for &(k, c) in terms {
                inc[k as usize] += i128::from(w[b]) * i128::from(c);
            }
        }
        let sites: Vec<FlowEdge> = p.sites().collect();
        let (mut exact, mut relaxed) = (0i128, 0i128);
        for path in paths {
            for &b in path {
                exact += i128::from(w[b]);
            }
            // probe executions along the path
            for win in path.windows(2) {
                let i =
                    cfg.edges.iter().position(|&e| e == (win[0] as u32, win[1] as u32)).unwrap();
                if let Some(k) = sites.iter().position(|&s| s == FlowEdge::Real(i as u32)) {
                    relaxed += if drop[k] { 0 } else { inc[k] };
                }
            }
            let last = *path.last().unwrap() as u32;
            if let Some(k) = sites.iter().position(|&s| s == FlowEdge::Exit(last)) {
                relaxed += if drop[k] { 0 } else { inc[k] };
            }
        }
        (exact, relaxed)
    }

    #[test]
    fn relaxed_cost_stays_within_the_bound_on_every_path() {
        let g = looped();
        let w = [10, 3, 5, 1, 20, 50];
        let p = place(&g);
        let coef = block_coefficients(&g, &p);
        let probes: Vec<Probe> = p
            .sites()
            .enumerate()
            .map(|(k, site)| Probe {
                site,
                increment: coef
                    .iter()
                    .enumerate()
                    .map(|(b, t)| {
                        t.iter().filter(|x| x.0 == k as u32).map(|x| w[b] as i64 * x.1).sum::<i64>()
                    })
                    .sum(),
                frequency: match site {
                    FlowEdge::Real(i) => g.weights[i as usize],
                    _ => 1.0,
                },
            })
            .collect();
        let paths = vec![
            vec![0, 1, 2, 5, 3],
            vec![0, 1, 4, 5, 3],
            vec![0, 1, 2, 5, 1, 4, 5, 1, 2, 5, 3],
            vec![0, 1, 4, 5, 1, 4, 5, 1, 4, 5, 1, 4, 5, 3],
            vec![0, 1, 2, 5, 1, 2, 5, 1, 2, 5, 1, 2, 5, 1, 2, 5, 3],
        ];
        let (exact, none) = cost_with_drops(&g, &w, &vec![false; probes.len()], &paths);
        assert_eq!(exact, none, "without relaxation the cost is exact");
        for m in [0.05, 0.2, 0.5, 1.0] {
            let drop = relax_regions(&g, &w, &probes, m);
            for path in &paths {
                let (e, r) = cost_with_drops(&g, &w, &drop, std::slice::from_ref(path));
                assert!(
                    ((e - r).abs() as f64) <= m * e as f64 + 1e-9,
                    "M={m} path {path:?}: {r} vs {e}"
                );
            }
        }
        // A generous bound drops something; none drops nothing.
        assert!(relax_regions(&g, &w, &probes, 1.0).iter().any(|&d| d), "{probes:?}");
        assert!(!relax_regions(&g, &w, &probes, 0.0).iter().any(|&d| d));
    }

    #[test]
    fn irreducible_functions_keep_every_probe() {
        // 0 -> 1, 0 -> 2, 1 <-> 2, 2 -> 3: the 1/2 cycle has two entries.
        let g = Cfg {
            blocks: 4,
            edges: vec![(0, 1), (0, 2), (1, 2), (2, 1), (2, 3)],
            weights: vec![1.0; 5],
            exits: vec![3],
            abnormal_exits: vec![],
            pinned: vec![],
        };
        let probes: Vec<Probe> =
            place(&g).sites().map(|site| Probe { site, increment: 1, frequency: 1.0 }).collect();
        assert!(!relax_regions(&g, &[5, 5, 5, 5], &probes, 1.0).iter().any(|&d| d));
    }

    #[test]
    fn whole_program_relaxation_stays_within_its_error_bound() {
        // (cost per execution, executions)
        let items = [(100, 10), (1, 1000), (2, 500), (-3, 100), (50, 0), (0, 7)];
        let total: i64 = items.iter().map(|&(c, n)| c * n as i64).sum();
        for m in [0.0, 0.01, 0.1, 0.5, 1.0] {
            let d = relax_whole(&items, m);
            let lost: i64 = items
                .iter()
                .zip(&d)
                .filter(|(_, d)| **d)
                .map(|(&(c, n), _)| c.abs() * n as i64)
                .sum();
            assert!(lost as f64 <= m * total as f64 + 1e-9, "{m}: {lost} of {total}");
            assert!(!d[4], "a probe that never ran is kept");
        }
        // The total is 2,700. The cheapest per execution go first: with 10% (270) only the
        // zero-cost probe fits; with 75% (2,025) also the 1- and 2-per-execution ones (1,000
        // each), and then nothing else fits.
        let d = relax_whole(&items, 0.1);
        assert_eq!(d, vec![false, false, false, false, false, true]);
        let d = relax_whole(&items, 0.75);
        assert_eq!(d, vec![false, true, true, false, false, true]);
    }
}
