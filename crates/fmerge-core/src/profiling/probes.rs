//! Optimal placement of edge-profiling probes, and reconstruction of every count from them
//! (Knuth 1973; Ball & Larus 1994, "Optimally profiling and tracing programs"; seed 001 §4).
//!
//! **What.** Given a function's control-flow graph with static weight estimates, choose the
//! edges that carry a counter ("probes") so that the execution count of *every* edge and block
//! can be recovered from the counters alone, while the counters sit on edges that are expected
//! to be cold. After a run, [`reconstruct`] turns the probe counts back into all edge counts,
//! all block counts and the number of function entries.
//!
//! **Why.** The naive scheme ([`naive`]) puts a counter in every block. Counts obey *flow
//! conservation* (a block is entered as often as it is left), so most of them are redundant:
//! with `N` nodes and `E` edges only `E − (N − 1)` counters are needed, and Ball & Larus show a
//! set of edges is a minimal probe set if and only if its complement is a spanning tree. Taking a
//! *maximum*-weight spanning tree leaves the counters on the cheapest edges. A run's cost
//! ([`super::costmodel`]) is linear in block counts, so it needs exactly this information.
//!
//! **How.**
//! 1. *Close the flow.* A virtual node `EXIT` (index `cfg.blocks`) is added, with one virtual
//!    edge `x → EXIT` per exit block `x` (return, resume, unreachable, ...) and one virtual edge
//!    `EXIT → entry`. Every run enters at the entry and leaves through an exit, so with these
//!    edges the counts of *every* node, `EXIT` included, are conserved.
//!    Calls that may leave the function without running any more of its code (longjmp, an
//!    exception unwinding through a plain call, `exit()`) are *abnormal exits*
//!    ([`Cfg::abnormal_exits`]); they get their own virtual edge `x → EXIT`, parallel to a
//!    normal one if `x` also returns.
//! 2. *Drop dead code.* Blocks not reachable from the entry along real edges never execute:
//!    they and every edge leaving them are *dead* (neither tree nor probe, count 0), and so are
//!    the virtual edges of unreachable exits. The remaining graph is connected (every live block
//!    reaches back to `EXIT` through `EXIT → entry`).
//! 3. *Maximum spanning tree* of the live graph taken as undirected multigraph: Kruskal with
//!    union-find. Edges are taken in this order, which makes the result reproducible:
//!    - first the *forced* edges, which can carry no counter: `EXIT → entry` (not a program
//!      edge, as in Ball & Larus; the entry count is derived from the exits instead) and the
//!      abnormal-exit edges (no code runs on them). They form a star around `EXIT`, so all of
//!      them fit in the tree, except when the entry block is itself an abnormal exit: then
//!      `entry → EXIT` and `EXIT → entry` are parallel, the abnormal edge wins (it comes first)
//!      and `EXIT → entry` gets the probe, a counter at the very start of the function;
//!    - then the others by weight, heaviest first (`f64::total_cmp`, NaN read as 0), ties
//!      broken by the smaller index in the extended edge list (real edges in `cfg.edges`
//!      order, then normal exits in ascending block order, then abnormal exits, then the entry
//!      edge).
//!
//!    The weight of a normal exit edge `x → EXIT` is estimated from the real edges by flow:
//!    `max(in(x) − out(x), 0)`, where `in(entry)` also counts the estimated entry flow
//!    `max(out(entry) − in(entry), 0)`. A counter just before a return is a real,
//!    instrumentable point, so normal exits compete on their weight like any other edge.
//!    Every edge that does not join two components is a *chord* and gets a probe; a self-loop
//!    never joins two components, so it always gets one.
//! 4. *Reconstruction* ([`reconstruct`]): probed edges get their observed counts and dead
//!    edges 0; the tree edges are unknown. A node with exactly one unknown incident edge
//!    determines it (in = out); solving it may leave its other endpoint with one unknown, and
//!    so on, peeling the tree from its leaves (the seed's `populateEdgeFlows`, with a worklist
//!    instead of repeated sweeps: linear time). A solved count that is negative or does not fit
//!    in `u64` means the counts do not belong to this CFG (another build, or a run that left
//!    the function in a way the CFG does not model): that is an [`enum@Error`], never a panic.
//!    Block counts are the sums of incoming edge counts (`EXIT → entry` included for the entry),
//!    the number of entries is the count of `EXIT → entry`.
//!
//! **Where a probe goes** is the caller's business ([`Site`]): a counter on real edge `u → v`
//! sits at the end of `u` if `u` has one outgoing flow edge, at the start of `v` if `v` has one
//! incoming flow edge, and in a new block splitting the edge otherwise (parallel edges, e.g.
//! several switch cases to one block, must be split per case); a counter on a normal exit sits
//! in `x` just before the instruction that leaves the function (and after any call that may
//! leave abnormally); a counter on `EXIT → entry` sits at the very start of the function.
//!
//! **Limitations.** Reconstruction is exact for runs that enter at the entry and leave through
//! a modelled exit. A block containing a call that may not return must list that block in
//! [`Cfg::abnormal_exits`], and its probes (on out-edges or its normal exit) must be placed after
//! that call; its block count is then "times entered". The optimality is that of Ball & Larus
//! with respect to the *estimated* weights; for unstructured CFGs the placement is minimal in
//! number but may not minimise the counters' executions.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A function's control-flow graph with static weight estimates. Block 0 is the entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cfg {
    /// Number of blocks.
    pub blocks: usize,
    /// Directed edges `(from, to)`; parallel edges and self-loops are allowed.
    pub edges: Vec<(u32, u32)>,
    /// Static weight of each edge (same length as `edges`; larger = hotter), e.g. block
    /// frequency times branch probability.
    pub weights: Vec<f64>,
    /// Blocks that leave the function normally (return, resume, unreachable, ...). Duplicates
    /// are ignored.
    pub exits: Vec<u32>,
    /// Blocks that may leave the function without running any more of its code (a call that
    /// may longjmp, unwind or never return). Duplicates are ignored. A block may be in both
    /// lists.
    pub abnormal_exits: Vec<u32>,
    /// Real edges (indices into `edges`) that cannot carry a counter, e.g. edges out of an
    /// `indirectbr` into a block with several predecessors. They
    /// join the spanning tree right after the forced edges, before any weighed edge; only a
    /// cycle made of pinned and forced edges alone can leave one of them probed
    /// ([`Placement::probed_pinned`]).
    #[serde(default)]
    pub pinned: Vec<u32>,
}

/// One edge of the extended graph (real edges plus the virtual ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowEdge {
    /// `cfg.edges[i]`.
    Real(u32),
    /// The function returns (resumes, ...) from this block: `block → EXIT`.
    Exit(u32),
    /// The function leaves this block abnormally: `block → EXIT`. Never probed.
    AbnormalExit(u32),
    /// `EXIT → entry`: one per call of the function. Probed only when the entry block is an
    /// abnormal exit (module header, step 3).
    Entry,
}

/// Where a probe sits: a real edge, a normal exit or (rarely) the function entry.
pub type Site = FlowEdge;

/// What placement decided for an edge of the extended graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// In the spanning tree: its count is derived.
    Tree,
    /// A chord: carries a counter.
    Probe,
    /// Leaves a block unreachable from the entry: never executes.
    Dead,
}

/// The result of [`place`]: which edges carry probes, and what [`reconstruct`] needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    blocks: usize,
    /// Endpoints of every extended edge; node `blocks` is `EXIT`.
    graph: Vec<(u32, u32)>,
    /// What each extended edge is, in `graph` order.
    kinds: Vec<FlowEdge>,
    /// Weight used for each extended edge (`INFINITY` for forced edges).
    weights: Vec<f64>,
    roles: Vec<Role>,
    /// Indices into `graph` of the probed edges, ascending; [`reconstruct`] expects one count
    /// per probe, in this order.
    probes: Vec<u32>,
}

impl Placement {
    /// The probe sites, in the order [`reconstruct`] expects their counts.
    pub fn sites(&self) -> impl ExactSizeIterator<Item = Site> + '_ {
        self.probes.iter().map(|&g| self.kinds[g as usize])
    }

    /// The estimated weight of each probe's edge, in [`Placement::sites`] order.
    pub fn site_weights(&self) -> impl ExactSizeIterator<Item = f64> + '_ {
        self.probes.iter().map(|&g| self.weights[g as usize])
    }

    /// Number of probes.
    pub fn probe_count(&self) -> usize {
        self.probes.len()
    }

    /// Role of real edge `cfg.edges[i]`.
    pub fn role(&self, edge: usize) -> Role {
        self.roles[edge]
    }

    /// Every extended edge with its role, in the tie-breaking order of the module header.
    pub fn flow_edges(&self) -> impl Iterator<Item = (FlowEdge, Role)> + '_ {
        self.kinds.iter().copied().zip(self.roles.iter().copied())
    }

    /// Pinned real edges ([`Cfg::pinned`]) that still got a probe: nonempty only when pinned
    /// edges alone close a cycle. Such a placement cannot be instrumented as it is.
    pub fn probed_pinned<'a>(&'a self, cfg: &'a Cfg) -> impl Iterator<Item = u32> + 'a {
        cfg.pinned.iter().copied().filter(|&e| self.roles[e as usize] == Role::Probe)
    }

    /// Estimated counter executions: the sum of the weights of the probed edges.
    pub fn estimated_executions(&self) -> f64 {
        self.probes.iter().map(|&g| self.weights[g as usize]).sum()
    }
}

/// Every count of a function, recovered by [`reconstruct`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowCounts {
    /// Count of each real edge, in `cfg.edges` order.
    pub edges: Vec<u64>,
    /// Count of each block (times it was entered).
    pub blocks: Vec<u64>,
    /// Number of calls of the function.
    pub entries: u64,
}

/// Why a CFG or a set of counts was rejected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    #[error("malformed CFG: {0}")]
    Malformed(String),
    #[error("the CFG is not the one the probes were placed on")]
    CfgMismatch,
    #[error("expected {expected} probe counts, got {found}")]
    ProbeCount { expected: usize, found: usize },
    #[error(
        "inconsistent profile: {edge:?} would have run {count} times \
         (the counts belong to another build, or a run left the function in an unmodelled way)"
    )]
    Inconsistent { edge: FlowEdge, count: i128 },
    #[error("inconsistent profile: a block count does not fit in 64 bits")]
    Overflow,
}

impl Cfg {
    /// Checks the indices and lengths; [`place`] requires this to hold.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |s: String| Err(Error::Malformed(s));
        if self.blocks == 0 {
            return bad("no blocks (block 0 must be the entry)".into());
        }
        if self.blocks >= u32::MAX as usize {
            return bad(format!("{} blocks", self.blocks));
        }
        if self.weights.len() != self.edges.len() {
            return bad(format!("{} edges but {} weights", self.edges.len(), self.weights.len()));
        }
        let n = self.blocks as u32;
        if let Some((i, e)) = self.edges.iter().enumerate().find(|(_, e)| e.0 >= n || e.1 >= n) {
            return bad(format!("edge {i} {e:?} names a block >= {n}"));
        }
        if self.edges.len() >= u32::MAX as usize - 2 * self.blocks {
            return bad(format!("{} edges", self.edges.len()));
        }
        if let Some(x) = self.exits.iter().chain(&self.abnormal_exits).find(|&&x| x >= n) {
            return bad(format!("exit block {x} >= {n}"));
        }
        if let Some(e) = self.pinned.iter().find(|&&e| e as usize >= self.edges.len()) {
            return bad(format!("pinned edge {e} >= {}", self.edges.len()));
        }
        Ok(())
    }

    /// Blocks reachable from the entry along real edges.
    pub fn reachable(&self) -> Vec<bool> {
        let mut succ = vec![Vec::new(); self.blocks];
        for &(a, b) in &self.edges {
            succ[a as usize].push(b);
        }
        let mut seen = vec![false; self.blocks];
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(b) = stack.pop() {
            for &s in &succ[b as usize] {
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    stack.push(s);
                }
            }
        }
        seen
    }

    /// Estimated frequency flowing into / out of each block along live real edges, plus the
    /// estimated entry flow (see the module header).
    fn flow_estimates(&self, live: &[bool]) -> (Vec<f64>, Vec<f64>) {
        let (mut fin, mut fout) = (vec![0.0; self.blocks], vec![0.0; self.blocks]);
        for (&(a, b), &w) in self.edges.iter().zip(&self.weights) {
            if live[a as usize] {
                let w = sanitize(w);
                fout[a as usize] += w;
                fin[b as usize] += w;
            }
        }
        fin[0] += (fout[0] - fin[0]).max(0.0);
        (fin, fout)
    }
}

fn sanitize(w: f64) -> f64 {
    if w.is_nan() { 0.0 } else { w }
}

/// Union-find with path halving and union by size.
struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind { parent: (0..n as u32).collect(), size: vec![1; n] }
    }
    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = p;
            x = p;
        }
        x
    }
    /// Joins the sets of `a` and `b`; false if they were already one.
    fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
        true
    }
}

fn sorted_unique(v: &[u32]) -> Vec<u32> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Places the probes: a maximum-weight spanning tree of the extended graph, probes on the
/// chords (module header, steps 1–3). Deterministic.
///
/// # Panics
/// If `cfg` is malformed ([`Cfg::validate`]); that is a bug of whoever built it.
pub fn place(cfg: &Cfg) -> Placement {
    if let Err(e) = cfg.validate() {
        panic!("probes::place: {e}");
    }
    let exit_node = cfg.blocks as u32;
    let live = cfg.reachable();
    let (fin, fout) = cfg.flow_estimates(&live);

    let mut graph = cfg.edges.clone();
    let mut kinds: Vec<FlowEdge> = (0..cfg.edges.len() as u32).map(FlowEdge::Real).collect();
    let mut weights: Vec<f64> = cfg.weights.iter().map(|&w| sanitize(w)).collect();
    let mut forced = vec![false; cfg.edges.len()];
    let mut pinned = vec![false; cfg.edges.len()];
    for &e in &cfg.pinned {
        pinned[e as usize] = true;
    }
    let mut alive: Vec<bool> = cfg.edges.iter().map(|e| live[e.0 as usize]).collect();
    for x in sorted_unique(&cfg.exits) {
        graph.push((x, exit_node));
        kinds.push(FlowEdge::Exit(x));
        weights.push((fin[x as usize] - fout[x as usize]).max(0.0));
        forced.push(false);
        pinned.push(false);
        alive.push(live[x as usize]);
    }
    for x in sorted_unique(&cfg.abnormal_exits) {
        graph.push((x, exit_node));
        kinds.push(FlowEdge::AbnormalExit(x));
        weights.push(f64::INFINITY);
        forced.push(true);
        pinned.push(false);
        alive.push(live[x as usize]);
    }
    graph.push((exit_node, 0));
    kinds.push(FlowEdge::Entry);
    weights.push(f64::INFINITY);
    forced.push(true);
    pinned.push(false);
    alive.push(true);

    // Kruskal: forced edges first, then pinned ones, then heaviest first, ties by index (a
    // stable sort keeps index order among equal keys).
    let mut order: Vec<u32> = (0..graph.len() as u32).filter(|&g| alive[g as usize]).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        forced[b]
            .cmp(&forced[a])
            .then(pinned[b].cmp(&pinned[a]))
            .then(weights[b].total_cmp(&weights[a]))
    });
    let mut uf = UnionFind::new(cfg.blocks + 1);
    let mut roles: Vec<Role> =
        alive.iter().map(|&a| if a { Role::Probe } else { Role::Dead }).collect();
    for &g in &order {
        let (a, b) = graph[g as usize];
        if uf.union(a, b) {
            roles[g as usize] = Role::Tree;
        }
    }
    debug_assert!(
        kinds
            .iter()
            .zip(&roles)
            .all(|(k, &r)| { !matches!(k, FlowEdge::AbnormalExit(_)) || r != Role::Probe })
    );
    let probes = (0..graph.len() as u32).filter(|&g| roles[g as usize] == Role::Probe).collect();
    Placement { blocks: cfg.blocks, graph, kinds, weights, roles, probes }
}

/// Recovers every edge count, block count and the entry count from the probe counts (one per
/// [`Placement::sites`] entry, in that order). Never panics; see [`enum@Error`].
pub fn reconstruct(cfg: &Cfg, p: &Placement, probe_counts: &[u64]) -> Result<FlowCounts, Error> {
    cfg.validate()?;
    if cfg.blocks != p.blocks || p.graph.get(..cfg.edges.len()) != Some(&cfg.edges[..]) {
        return Err(Error::CfgMismatch);
    }
    if probe_counts.len() != p.probes.len() {
        return Err(Error::ProbeCount { expected: p.probes.len(), found: probe_counts.len() });
    }
    let nodes = p.blocks + 1;
    let mut count: Vec<Option<u64>> = p
        .roles
        .iter()
        .map(|r| match r {
            Role::Dead => Some(0),
            Role::Probe | Role::Tree => None,
        })
        .collect();
    for (&g, &c) in p.probes.iter().zip(probe_counts) {
        count[g as usize] = Some(c);
    }
    // balance = known in − known out; unknown = number of unknown incident edges.
    let mut balance = vec![0i128; nodes];
    let mut unknown = vec![0u32; nodes];
    let mut tree_adj: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    for (g, &(a, b)) in p.graph.iter().enumerate() {
        match count[g] {
            Some(c) => {
                balance[b as usize] += i128::from(c);
                balance[a as usize] -= i128::from(c);
            }
            None => {
                for v in [a, b] {
                    unknown[v as usize] += 1;
                    tree_adj[v as usize].push(g as u32);
                }
            }
        }
    }
    let mut ready: Vec<u32> = (0..nodes as u32).filter(|&v| unknown[v as usize] == 1).collect();
    while let Some(v) = ready.pop() {
        if unknown[v as usize] != 1 {
            continue;
        }
        let Some(&g) = tree_adj[v as usize].iter().find(|&&g| count[g as usize].is_none()) else {
            continue;
        };
        let (a, b) = p.graph[g as usize];
        // Conservation at v: in = out.
        let x = if b == v { -balance[v as usize] } else { balance[v as usize] };
        let c = u64::try_from(x)
            .map_err(|_| Error::Inconsistent { edge: p.kinds[g as usize], count: x })?;
        count[g as usize] = Some(c);
        balance[b as usize] += x;
        balance[a as usize] -= x;
        for u in [a, b] {
            unknown[u as usize] -= 1;
            if unknown[u as usize] == 1 {
                ready.push(u);
            }
        }
    }
    let count: Vec<u64> = count.into_iter().collect::<Option<_>>().ok_or(Error::CfgMismatch)?;
    if balance.iter().any(|&b| b != 0) {
        // Cannot happen when the tree spans the live graph; kept as a guard.
        return Err(Error::CfgMismatch);
    }
    let mut blocks = vec![0u128; p.blocks];
    for (g, &(_, b)) in p.graph.iter().enumerate() {
        if (b as usize) < p.blocks {
            blocks[b as usize] += u128::from(count[g]);
        }
    }
    let blocks = blocks
        .into_iter()
        .map(u64::try_from)
        .collect::<Result<_, _>>()
        .map_err(|_| Error::Overflow)?;
    let entries = *count.last().expect("the entry edge is always present");
    Ok(FlowCounts { edges: count[..cfg.edges.len()].to_vec(), blocks, entries })
}

/// Every block count as a linear combination of the probe counts: `blocks[b]` lists
/// `(probe, coefficient)` pairs (probe = position in [`Placement::sites`]) such that, for any
/// run that [`reconstruct`] accepts, block `b` ran `Σ coefficient × count(probe)` times. This
/// is [`reconstruct`] done symbolically (the same peeling of the spanning tree, on sums of
/// probe counts instead of numbers), so that cost instrumentation can add, at each probe, the
/// cost of every block its count stands for (seed 001, §4.2): `Σ_b w(b)·f(b) =
/// Σ_p (Σ_b w(b)·coef(b, p))·count(p)`. Coefficients may be negative. Deterministic.
///
/// # Panics
/// If `cfg` is malformed or not the CFG `p` was placed on (bugs of the caller).
pub fn block_coefficients(cfg: &Cfg, p: &Placement) -> Vec<Vec<(u32, i64)>> {
    cfg.validate().expect("block_coefficients: malformed CFG");
    assert_eq!(p.graph.get(..cfg.edges.len()), Some(&cfg.edges[..]), "CFG mismatch");
    type Lin = std::collections::BTreeMap<u32, i64>;
    fn add(a: &mut Lin, b: &Lin, k: i64) {
        for (&v, &c) in b {
            let e = a.entry(v).or_insert(0);
            *e += k * c;
            if *e == 0 {
                a.remove(&v);
            }
        }
    }
    let nodes = p.blocks + 1;
    let mut value: Vec<Option<Lin>> = p
        .roles
        .iter()
        .map(|r| match r {
            Role::Dead => Some(Lin::new()),
            Role::Probe | Role::Tree => None,
        })
        .collect();
    for (k, &g) in p.probes.iter().enumerate() {
        value[g as usize] = Some(Lin::from([(k as u32, 1)]));
    }
    let mut balance: Vec<Lin> = vec![Lin::new(); nodes];
    let mut unknown = vec![0u32; nodes];
    let mut tree_adj: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    for (g, &(a, b)) in p.graph.iter().enumerate() {
        match &value[g] {
            Some(v) => {
                let v = v.clone();
                add(&mut balance[b as usize], &v, 1);
                add(&mut balance[a as usize], &v, -1);
            }
            None => {
                for x in [a, b] {
                    unknown[x as usize] += 1;
                    tree_adj[x as usize].push(g as u32);
                }
            }
        }
    }
    let mut ready: Vec<u32> = (0..nodes as u32).filter(|&v| unknown[v as usize] == 1).collect();
    while let Some(v) = ready.pop() {
        if unknown[v as usize] != 1 {
            continue;
        }
        let Some(&g) = tree_adj[v as usize].iter().find(|&&g| value[g as usize].is_none()) else {
            continue;
        };
        let (a, b) = p.graph[g as usize];
        let mut x = Lin::new();
        add(&mut x, &balance[v as usize], if b == v { -1 } else { 1 });
        add(&mut balance[b as usize], &x, 1);
        add(&mut balance[a as usize], &x, -1);
        value[g as usize] = Some(x);
        for u in [a, b] {
            unknown[u as usize] -= 1;
            if unknown[u as usize] == 1 {
                ready.push(u);
            }
        }
    }
    let mut blocks: Vec<Lin> = vec![Lin::new(); p.blocks];
    for (g, &(_, b)) in p.graph.iter().enumerate() {
        if (b as usize) < p.blocks {
            let v = value[g].as_ref().expect("a spanning tree determines every edge");
            add(&mut blocks[b as usize], v, 1);
        }
    }
    blocks.into_iter().map(|l| l.into_iter().collect()).collect()
}

/// The naive scheme: one counter in every block (block indices).
pub fn naive(cfg: &Cfg) -> Vec<u32> {
    (0..cfg.blocks as u32).collect()
}

/// Number of counters and their estimated executions under one scheme.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SchemeCounters {
    pub probes: usize,
    /// Estimated counter executions: sum of the weights of the probed edges (optimal) or of the
    /// estimated block frequencies (naive).
    pub estimated_executions: f64,
}

/// The naive and the optimal scheme side by side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    pub naive: SchemeCounters,
    pub optimal: SchemeCounters,
}

/// Counts the probes of both schemes for `cfg` (see [`place`] for the panics).
pub fn compare(cfg: &Cfg) -> Comparison {
    let p = place(cfg);
    let (fin, fout) = cfg.flow_estimates(&cfg.reachable());
    let naive_executions = fin.iter().zip(&fout).map(|(i, o)| i.max(*o)).sum();
    Comparison {
        naive: SchemeCounters { probes: naive(cfg).len(), estimated_executions: naive_executions },
        optimal: SchemeCounters {
            probes: p.probe_count(),
            estimated_executions: p.estimated_executions(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cfg(blocks: usize, edges: &[(u32, u32, f64)], exits: &[u32]) -> Cfg {
        Cfg {
            blocks,
            edges: edges.iter().map(|e| (e.0, e.1)).collect(),
            weights: edges.iter().map(|e| e.2).collect(),
            exits: exits.to_vec(),
            abnormal_exits: Vec::new(),
            pinned: Vec::new(),
        }
    }

    /// Ground truth of a set of runs.
    #[derive(Debug)]
    struct Truth {
        edges: Vec<u64>,
        blocks: Vec<u64>,
        exits: Vec<u64>,
        entries: u64,
    }

    impl Truth {
        /// The probe counts a profiled binary would report.
        fn probe_counts(&self, p: &Placement) -> Vec<u64> {
            p.sites()
                .map(|s| match s {
                    FlowEdge::Real(i) => self.edges[i as usize],
                    FlowEdge::Exit(b) => self.exits[b as usize],
                    FlowEdge::Entry => self.entries,
                    FlowEdge::AbnormalExit(_) => unreachable!("never probed"),
                })
                .collect()
        }
        fn check(&self, c: &FlowCounts) {
            assert_eq!(c.edges, self.edges);
            assert_eq!(c.blocks, self.blocks);
            assert_eq!(c.entries, self.entries);
        }
    }

    /// splitmix64: a tiny deterministic generator for the random walks.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) % n as u64) as usize
        }
    }

    /// Where a walk may go from a block.
    #[derive(Clone, Copy)]
    enum Step {
        Edge(usize),
        Exit,
        Abnormal,
    }

    /// `runs` random walks from the entry, each ending at an exit. Walks stay inside the blocks
    /// that can still reach an exit; after 64 steps they head for the nearest exit.
    fn simulate(cfg: &Cfg, runs: usize, seed: u64) -> Truth {
        let n = cfg.blocks;
        let mut t = Truth {
            edges: vec![0; cfg.edges.len()],
            blocks: vec![0; n],
            exits: vec![0; n],
            entries: 0,
        };
        let is_exit: Vec<bool> = (0..n as u32).map(|b| cfg.exits.contains(&b)).collect();
        let is_abn: Vec<bool> = (0..n as u32).map(|b| cfg.abnormal_exits.contains(&b)).collect();
        // Distance to the nearest exit (backwards BFS), usize::MAX if none.
        let mut dist = vec![usize::MAX; n];
        let mut queue: std::collections::VecDeque<usize> =
            (0..n).filter(|&b| is_exit[b] || is_abn[b]).collect();
        for &b in &queue {
            dist[b] = 0;
        }
        while let Some(b) = queue.pop_front() {
            for &(a, to) in &cfg.edges {
                if to as usize == b && dist[a as usize] == usize::MAX {
                    dist[a as usize] = dist[b] + 1;
                    queue.push_back(a as usize);
                }
            }
        }
        if dist[0] == usize::MAX {
            return t;
        }
        let mut rng = Rng(seed);
        for _ in 0..runs {
            t.entries += 1;
            let mut b = 0usize;
            for step in 0.. {
                t.blocks[b] += 1;
                let mut options: Vec<Step> = Vec::new();
                for (i, &(from, to)) in cfg.edges.iter().enumerate() {
                    let d = dist[to as usize];
                    if from as usize == b && d != usize::MAX && (step < 64 || d < dist[b]) {
                        options.push(Step::Edge(i));
                    }
                }
                if is_exit[b] {
                    options.push(Step::Exit);
                }
                if is_abn[b] {
                    options.push(Step::Abnormal);
                }
                match options[rng.below(options.len())] {
                    Step::Edge(i) => {
                        t.edges[i] += 1;
                        b = cfg.edges[i].1 as usize;
                    }
                    Step::Exit => {
                        t.exits[b] += 1;
                        break;
                    }
                    Step::Abnormal => break,
                }
            }
        }
        t
    }

    /// Live extended edges minus (live nodes − 1): the size of a minimal probe set.
    fn expected_probes(cfg: &Cfg) -> usize {
        let live = cfg.reachable();
        let real = cfg.edges.iter().filter(|e| live[e.0 as usize]).count();
        let ex = sorted_unique(&cfg.exits).into_iter().filter(|&x| live[x as usize]).count();
        let ab = sorted_unique(&cfg.abnormal_exits).into_iter().filter(|&x| live[x as usize]);
        let e = real + ex + ab.count() + 1;
        let nodes = live.iter().filter(|&&l| l).count() + 1;
        e - (nodes - 1)
    }

    fn roundtrip(cfg: &Cfg, runs: usize, seed: u64) -> (Placement, FlowCounts) {
        let p = place(cfg);
        assert_eq!(p.probe_count(), expected_probes(cfg));
        let t = simulate(cfg, runs, seed);
        let c = reconstruct(cfg, &p, &t.probe_counts(&p)).unwrap();
        t.check(&c);
        (p, c)
    }

    fn probed_real_edges(p: &Placement) -> Vec<u32> {
        p.sites()
            .filter_map(|s| match s {
                FlowEdge::Real(i) => Some(i),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn straight_line_needs_one_probe_at_the_exit() {
        let g = cfg(3, &[(0, 1, 10.0), (1, 2, 10.0)], &[2]);
        let (p, c) = roundtrip(&g, 5, 1);
        assert_eq!(p.sites().collect::<Vec<_>>(), vec![FlowEdge::Exit(2)]);
        assert_eq!(c.blocks, vec![5, 5, 5]);
        assert_eq!(c.entries, 5);
        assert_eq!(compare(&g).naive.probes, 3);
        assert_eq!(compare(&g).optimal.probes, 1);
    }

    #[test]
    fn single_block_function() {
        let g = cfg(1, &[], &[0]);
        let (p, c) = roundtrip(&g, 3, 2);
        assert_eq!(p.sites().collect::<Vec<_>>(), vec![FlowEdge::Exit(0)]);
        assert_eq!(c.blocks, vec![3]);
    }

    #[test]
    fn diamond_probes_one_edge_per_arm() {
        // 0 → {1 hot, 2 cold} → 3 → return.
        let g = cfg(4, &[(0, 1, 90.0), (0, 2, 10.0), (1, 3, 90.0), (2, 3, 10.0)], &[3]);
        let (p, _) = roundtrip(&g, 20, 3);
        // The cycle EXIT → 0 → 1 → 3 → EXIT needs a chord: the cheapest of its edges is a hot
        // arm edge (90 < exit 100), the later of the tie. The cold arm carries the other probe,
        // again the later edge of the tie.
        assert_eq!(p.sites().collect::<Vec<_>>(), vec![FlowEdge::Real(2), FlowEdge::Real(3)]);
        assert_eq!(p.estimated_executions(), 100.0);
        assert_eq!(compare(&g).naive.estimated_executions, 300.0);
    }

    #[test]
    fn loop_probes_one_hot_and_one_cold_edge() {
        // 0 → 1 (header) ⇄ 2 (body), 1 → 3 → return.
        let g = cfg(4, &[(0, 1, 1.0), (1, 2, 100.0), (2, 1, 100.0), (1, 3, 1.0)], &[3]);
        let (p, c) = roundtrip(&g, 10, 4);
        assert_eq!(p.probe_count(), 2);
        // One of the two hot loop edges must be a chord (they form a cycle), the other is
        // cold: a minimal set is {one loop edge, one cold edge}.
        let hot = [1, 2].iter().filter(|&&e| p.role(e) == Role::Probe).count();
        assert_eq!(hot, 1);
        assert_eq!(c.blocks[1], c.blocks[2] + c.entries);
    }

    #[test]
    fn self_loop_always_gets_a_probe() {
        let g = cfg(2, &[(0, 1, 1.0), (1, 1, 1e9), (1, 1, 1e9)], &[1]);
        let (p, _) = roundtrip(&g, 10, 5);
        assert_eq!(p.role(1), Role::Probe);
        assert_eq!(p.role(2), Role::Probe);
    }

    #[test]
    fn irreducible_loop_with_two_entries() {
        // 0 → 1 and 0 → 2; 1 ⇄ 2 form a cycle entered at both; 1 → 3, 2 → 3; 3 returns.
        let g = cfg(
            4,
            &[(0, 1, 5.0), (0, 2, 5.0), (1, 2, 50.0), (2, 1, 50.0), (1, 3, 5.0), (2, 3, 5.0)],
            &[3],
        );
        for seed in 0..20 {
            roundtrip(&g, 15, seed);
        }
        assert_eq!(place(&g).probe_count(), 6 + 2 - 4);
    }

    #[test]
    fn switch_with_parallel_edges() {
        // A switch in block 0 with 6 cases, 4 of which go to block 1, 2 to block 2.
        let mut e = vec![(0, 1, 10.0); 4];
        e.extend([(0, 2, 10.0), (0, 2, 10.0), (1, 3, 40.0), (2, 3, 20.0)]);
        let g = cfg(4, &e, &[3]);
        let (p, _) = roundtrip(&g, 50, 6);
        // 8 real + exit + entry = 10 edges, 5 nodes: 6 probes, all on switch cases (every
        // other edge is hotter than a case).
        assert_eq!(p.probe_count(), 6);
        assert_eq!(probed_real_edges(&p), vec![0, 1, 2, 3, 4, 5]);
        assert!(compare(&g).optimal.probes > compare(&g).naive.probes);
    }

    #[test]
    fn block_ending_in_unreachable_is_an_exit() {
        // 0 → 1 (returns) or 0 → 2 (calls abort, then `unreachable`).
        let g = cfg(3, &[(0, 1, 99.0), (0, 2, 1.0)], &[1, 2]);
        let (p, c) = roundtrip(&g, 30, 7);
        // 2 real + 2 exits + entry = 5 edges, 4 nodes: 2 probes.
        assert_eq!(p.probe_count(), 2);
        assert_eq!(c.blocks[0], c.blocks[1] + c.blocks[2]);
    }

    #[test]
    fn abnormal_exits_are_never_probed() {
        // Block 1 calls something that may longjmp, then returns; block 0 may branch to 2.
        let mut g = cfg(3, &[(0, 1, 10.0), (0, 2, 10.0), (2, 1, 10.0)], &[1]);
        g.abnormal_exits = vec![1, 2, 2];
        for seed in 0..10 {
            let (p, _) = roundtrip(&g, 20, seed);
            assert!(p.sites().all(|s| matches!(s, FlowEdge::Real(_) | FlowEdge::Exit(_))));
        }
    }

    #[test]
    fn unreachable_blocks_are_dead() {
        // Block 2 is unreachable but jumps into the live code; block 3 is an unreachable exit.
        let g = cfg(4, &[(0, 1, 1.0), (2, 1, 1.0), (2, 3, 1.0), (3, 0, 1.0)], &[1, 3]);
        let (p, c) = roundtrip(&g, 4, 8);
        assert_eq!((p.role(1), p.role(2), p.role(3)), (Role::Dead, Role::Dead, Role::Dead));
        assert_eq!(p.probe_count(), 1);
        assert_eq!(c.blocks, vec![4, 4, 0, 0]);
        assert_eq!(c.edges, vec![4, 0, 0, 0]);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let g = cfg(4, &[(0, 1, 90.0), (0, 2, 10.0), (1, 3, 90.0), (2, 3, 10.0)], &[3]);
        let p = place(&g);
        assert_eq!(reconstruct(&g, &p, &[1]), Err(Error::ProbeCount { expected: 2, found: 1 }));
        // A diamond whose join loops back to the entry and sometimes returns: the back edge is
        // (arms − exits), negative when more returns are reported than arm traversals.
        let lp =
            cfg(4, &[(0, 1, 90.0), (0, 2, 10.0), (1, 3, 90.0), (2, 3, 10.0), (3, 0, 99.0)], &[3]);
        let pl = place(&lp);
        let sites: Vec<_> = pl.sites().collect();
        assert_eq!(sites, vec![FlowEdge::Real(2), FlowEdge::Real(3), FlowEdge::Exit(3)]);
        assert_eq!(reconstruct(&lp, &pl, &[5, 5, 4]).unwrap().edges, vec![5, 5, 5, 5, 6]);
        assert!(matches!(reconstruct(&lp, &pl, &[5, 5, 100]), Err(Error::Inconsistent { .. })));
        let mut other = g.clone();
        other.edges[0] = (0, 2);
        assert_eq!(reconstruct(&other, &p, &[0, 0]), Err(Error::CfgMismatch));
        let mut broken = g.clone();
        broken.weights.pop();
        assert!(matches!(reconstruct(&broken, &p, &[0, 0]), Err(Error::Malformed(_))));
        assert!(Cfg::default().validate().is_err());
        assert!(cfg(2, &[(0, 2, 1.0)], &[1]).validate().is_err());
        assert!(cfg(2, &[(0, 1, 1.0)], &[5]).validate().is_err());
        // Huge counts overflow the block sum, not the arithmetic.
        let join = cfg(3, &[(0, 2, 1.0), (1, 2, 1.0), (0, 1, 1.0), (0, 2, 1.0)], &[2]);
        let pj = place(&join);
        let r = reconstruct(&join, &pj, &vec![u64::MAX; pj.probe_count()]);
        assert!(r.is_err());
    }

    /// A random CFG: a random tree from the entry (some blocks left unreachable), extra random
    /// edges (loops, self-loops, parallel edges), exits and abnormal exits, small integer
    /// weights (so ties are common and sums are exact).
    fn arb_cfg(max_blocks: usize, max_extra: usize) -> impl Strategy<Value = Cfg> {
        (1..=max_blocks)
            .prop_flat_map(move |n| {
                let n32 = n as u32;
                (
                    Just(n),
                    prop::collection::vec((0..n32, 0u8..8), n - 1),
                    prop::collection::vec((0..n32, 0..n32), 0..=max_extra),
                    prop::collection::vec(0..n32, 1..=3),
                    prop::collection::vec(0..n32, 0..=1),
                    prop::collection::vec(0u8..6, n + max_extra),
                )
            })
            .prop_map(|(n, parents, extra, exits, abnormal, w)| {
                let mut edges = Vec::new();
                for (b, (parent, coin)) in parents.into_iter().enumerate() {
                    let b = b as u32 + 1;
                    // One block in eight gets no tree parent (it may still be reached).
                    if coin != 0 {
                        edges.push((parent % b, b));
                    }
                }
                edges.extend(extra);
                let weights = edges.iter().zip(&w).map(|(_, &w)| f64::from(w)).collect();
                Cfg {
                    blocks: n,
                    edges,
                    weights,
                    exits,
                    abnormal_exits: abnormal,
                    pinned: Vec::new(),
                }
            })
    }

    /// (number of forced edges, weight of the others) of the placement's tree.
    fn tree_weight(p: &Placement) -> (usize, f64) {
        let tree: Vec<usize> = (0..p.graph.len()).filter(|&g| p.roles[g] == Role::Tree).collect();
        let forced = tree.iter().filter(|&&g| p.weights[g].is_infinite()).count();
        (forced, tree.iter().map(|&g| p.weights[g]).filter(|w| w.is_finite()).sum())
    }

    /// The best (number of forced edges, weight of the others) over every spanning tree of the
    /// live graph, by trying every subset of the live edges.
    fn brute_force_tree_weight(p: &Placement) -> (usize, f64) {
        let live: Vec<usize> = (0..p.graph.len()).filter(|&g| p.roles[g] != Role::Dead).collect();
        let mut nodes: Vec<u32> = live.iter().flat_map(|&g| [p.graph[g].0, p.graph[g].1]).collect();
        nodes.sort_unstable();
        nodes.dedup();
        let mut best = (0, f64::NEG_INFINITY);
        for mask in 0u32..(1 << live.len()) {
            if mask.count_ones() as usize != nodes.len() - 1 {
                continue;
            }
            let mut uf = UnionFind::new(p.blocks + 1);
            let (mut ok, mut forced, mut w) = (true, 0, 0.0);
            for (_, &g) in live.iter().enumerate().filter(|(k, _)| mask >> k & 1 == 1) {
                ok &= uf.union(p.graph[g].0, p.graph[g].1);
                if p.weights[g].is_infinite() {
                    forced += 1;
                } else {
                    w += p.weights[g];
                }
            }
            if ok && (forced, w) > best {
                best = (forced, w);
            }
        }
        best
    }

    proptest! {
        #[test]
        fn probe_counts_reconstruct_every_count(g in arb_cfg(9, 14), runs in 0usize..12, seed: u64) {
            let p = place(&g);
            prop_assert_eq!(p.probe_count(), expected_probes(&g));
            let t = simulate(&g, runs, seed);
            let c = reconstruct(&g, &p, &t.probe_counts(&p));
            prop_assert!(c.is_ok(), "{:?}", c);
            let c = c.unwrap();
            prop_assert_eq!(&c.edges, &t.edges);
            prop_assert_eq!(&c.blocks, &t.blocks);
            prop_assert_eq!(c.entries, t.entries);
        }

        #[test]
        fn pinned_edges_stay_unprobed_unless_they_close_a_cycle(
            g in arb_cfg(9, 14),
            pins in prop::collection::vec(any::<bool>(), 14 + 9),
            runs in 0usize..8,
            seed: u64,
        ) {
            let mut g = g;
            g.pinned = (0..g.edges.len() as u32).filter(|&e| pins[e as usize]).collect();
            let p = place(&g);
            prop_assert_eq!(p.probe_count(), expected_probes(&g));
            // Pinned edges get probes only when live pinned and forced edges alone hold a
            // cycle.
            let live = g.reachable();
            let mut uf = UnionFind::new(g.blocks + 1);
            let mut cyclic = false;
            for x in sorted_unique(&g.abnormal_exits).into_iter().filter(|&x| live[x as usize]) {
                cyclic |= !uf.union(x, g.blocks as u32);
            }
            cyclic |= !uf.union(g.blocks as u32, 0);
            for &e in &g.pinned {
                let (a, b) = g.edges[e as usize];
                if live[a as usize] {
                    cyclic |= !uf.union(a, b);
                }
            }
            prop_assert!(cyclic || p.probed_pinned(&g).next().is_none());
            let t = simulate(&g, runs, seed);
            let c = reconstruct(&g, &p, &t.probe_counts(&p)).unwrap();
            prop_assert_eq!(&c.blocks, &t.blocks);
        }

        #[test]
        fn block_coefficients_give_the_block_counts(g in arb_cfg(9, 14), runs in 0usize..12, seed: u64) {
            let p = place(&g);
            let coef = block_coefficients(&g, &p);
            let t = simulate(&g, runs, seed);
            let counts = t.probe_counts(&p);
            for (b, terms) in coef.iter().enumerate() {
                let v: i128 = terms.iter().map(|&(k, c)| i128::from(c) * i128::from(counts[k as usize])).sum();
                prop_assert_eq!(v, i128::from(t.blocks[b]), "block {}", b);
            }
        }

        #[test]
        fn placement_is_deterministic_and_forced_edges_are_never_probed(g in arb_cfg(9, 14)) {
            let p = place(&g);
            prop_assert_eq!(&p, &place(&g.clone()));
            let entry_abnormal = g.abnormal_exits.contains(&0);
            for s in p.sites() {
                match s {
                    FlowEdge::Real(_) | FlowEdge::Exit(_) => {}
                    FlowEdge::Entry => prop_assert!(entry_abnormal),
                    FlowEdge::AbnormalExit(_) => prop_assert!(false, "abnormal exit probed"),
                }
            }
            // Every self-loop from a live block is probed.
            let live = g.reachable();
            for (i, &(a, b)) in g.edges.iter().enumerate() {
                if a == b && live[a as usize] {
                    prop_assert_eq!(p.role(i), Role::Probe);
                }
                if !live[a as usize] {
                    prop_assert_eq!(p.role(i), Role::Dead);
                }
            }
        }

        #[test]
        fn tree_has_maximum_weight(g in arb_cfg(4, 5)) {
            let p = place(&g);
            prop_assert_eq!(tree_weight(&p), brute_force_tree_weight(&p));
        }

        #[test]
        fn arbitrary_counts_never_panic_and_success_means_conservation(
            g in arb_cfg(8, 12),
            counts in prop::collection::vec(prop_oneof![0u64..20, Just(u64::MAX), any::<u64>()], 0..30),
        ) {
            let p = place(&g);
            let mut counts = counts;
            counts.resize(p.probe_count(), 3);
            if let Ok(c) = reconstruct(&g, &p, &counts) {
                let live = g.reachable();
                let mut inflow = vec![0u128; g.blocks];
                let mut outflow = vec![0u128; g.blocks];
                inflow[0] += u128::from(c.entries);
                for (i, &(a, b)) in g.edges.iter().enumerate() {
                    inflow[b as usize] += u128::from(c.edges[i]);
                    outflow[a as usize] += u128::from(c.edges[i]);
                    if !live[a as usize] {
                        prop_assert_eq!(c.edges[i], 0);
                    }
                }
                for b in 0..g.blocks {
                    prop_assert_eq!(u128::from(c.blocks[b]), inflow[b]);
                    let exit = g.exits.contains(&(b as u32)) || g.abnormal_exits.contains(&(b as u32));
                    if exit {
                        prop_assert!(outflow[b] <= inflow[b]);
                    } else {
                        prop_assert_eq!(outflow[b], inflow[b]);
                    }
                }
            }
        }
    }
}
