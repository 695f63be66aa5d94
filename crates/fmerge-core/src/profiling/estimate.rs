//! Counts estimated from the code alone, for modules built without a profile.
//!
//! Most builds have no profile, and without one every merge looked free: merging zstd's
//! template-specialized match finders turned compile-time constants into run-time values in
//! its hottest loops (+24% instructions). This module estimates what a profile would say, so
//! that the same pricing (`work`, the slowdown budget) can keep merges out of code that is
//! probably hot. An estimate has two parts:
//!
//! - **per call**: how often each block runs per call of its function. That is LLVM's block
//!   frequency without a profile (loops, calls that do not return, cold paths), read through
//!   `fmerge_llvm`; here it is an input.
//! - **calls per run**: how often each function is entered, propagated over the call graph
//!   ([`entry_counts`]). Every function starts with the calls it may receive from outside the
//!   module's code ([`Node::outside`]: the program's entry, exported and address-taken
//!   functions), and each call site passes its caller's count times the frequency of its block
//!   to the callee. Indirect calls go through a node of their own per function type, which
//!   shares what it receives equally among the functions of that type whose address is taken
//!   (the caller builds that node: [`CallGraph::indirect`]). A C++ virtual call
//!   (`obj->vptr[slot]`) gets a narrower node, per type and slot: the functions at that slot
//!   of the module's virtual tables, and those whose address is also used anywhere else
//!   ([`VirtualCalls`]). Strongly connected components
//!   (recursion) are followed once around: each member gets what enters the component, then
//!   what its callers inside the component pass on with those counts, so recursion raises
//!   counts without running away.
//!
//! **Code that runs about once per run.** Counts alone cannot tell a module whose code is
//! all about equally cold from one with hot loops: a test program's functions each run
//! about once (every test once, each helper from a few places), its estimated profile is
//! flat, and a cut at the top 99.9% of counts then takes nearly every block. What an
//! estimate does know is where repetition comes from: a loop (a cycle of a function's
//! control flow graph, [`cyclic_blocks`]), recursion (a cycle of direct calls), or a call
//! from either, directly or through a function pointer ([`repeated`]). Code reached from none of
//! them runs at most as many times as there are call paths to it through straight-line
//! code: the instructions it executes are bounded by the size of the program, not by its
//! input, and are never a measurable share of a run that loops anywhere. The pricing
//! (`fmerge_passes`' `pricing`) therefore prices a block by its count only if it is repeated:
//! in a loop of its function, or in a function that is; the others as code that never runs.
//! Like the counts, this takes calls from outside the module as one per run: a function
//! called from a loop in another module, or by a library's loop through a pointer (a
//! `qsort` comparator), looks like code that runs once, unless a loop of its own, or one
//! in the module that reaches it, says otherwise.
//!
//! Counts are `f64` (frequencies multiply along call chains: a loop nest three deep in a
//! function called from another loop runs about 32⁴ times per outer call) and capped at
//! [`MAX_COUNT`], so that the `u64` counts the pricing uses never overflow.
//!
//! What the estimate cannot know: inputs (which branch a program takes), how many times a
//! loop really runs, and which function an indirect call reaches (beyond its type, and a
//! virtual call's slot). It orders code by how
//! likely it is to be hot; it does not say how hot it is. `fmerge_passes`' pricing therefore
//! uses it with its own default budget, calibrated on measured programs.

use std::collections::HashMap;

/// The largest count an estimate gives (far below `u64::MAX`, so that counts times block
/// sizes stay finite).
pub const MAX_COUNT: f64 = 1e15;

/// One function (or indirect-call node) of the call graph.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Node {
    /// Calls it receives per run from outside the code the graph describes.
    pub outside: f64,
}

/// A call graph with the frequency of each call site: `per_call` calls of `callee` per call of
/// `caller` (the frequency of the call's block; several sites of one pair add up).
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    pub nodes: Vec<Node>,
    /// (caller, callee, calls per call of the caller).
    pub edges: Vec<(u32, u32, f64)>,
    /// (caller, callee) of the calls made from a block inside a loop of the caller
    /// ([`CallGraph::call_in_loop`]); each is in `edges` too.
    pub loop_calls: Vec<(u32, u32)>,
    /// The indirect-call nodes ([`CallGraph::indirect`]).
    pub indirect_nodes: Vec<u32>,
}

impl CallGraph {
    /// Adds a node and returns its index.
    pub fn add(&mut self, outside: f64) -> u32 {
        self.nodes.push(Node { outside });
        (self.nodes.len() - 1) as u32
    }

    /// Adds `per_call` calls of `callee` per call of `caller` (ignored unless positive and
    /// finite).
    pub fn call(&mut self, caller: u32, callee: u32, per_call: f64) {
        if per_call.is_finite() && per_call > 0.0 {
            self.edges.push((caller, callee, per_call));
        }
    }

    /// [`CallGraph::call`] from a block inside a loop of `caller` (a cycle of its control flow
    /// graph): the callee runs repeatedly whenever the caller runs ([`repeated`]).
    pub fn call_in_loop(&mut self, caller: u32, callee: u32, per_call: f64) {
        if per_call.is_finite() && per_call > 0.0 {
            self.edges.push((caller, callee, per_call));
            self.loop_calls.push((caller, callee));
        }
    }

    /// Adds the node through which indirect calls reach `targets` (each receives an equal share
    /// of the calls the node receives) and returns it; callers then [`CallGraph::call`] it.
    pub fn indirect(&mut self, targets: &[u32]) -> u32 {
        let node = self.add(0.0);
        self.indirect_nodes.push(node);
        let share = 1.0 / targets.len().max(1) as f64;
        for &t in targets {
            self.call(node, t, share);
        }
        node
    }
}

/// A C++ virtual table (Itanium ABI: `_ZTV*`, and `_ZTC*` construction tables) as the
/// estimate reads it: the functions in its initializer and where pointers into it point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VirtualTable {
    /// (byte offset in the table, function node) of each function in its initializer.
    pub entries: Vec<(u64, u32)>,
    /// Byte offsets at which pointers into the table may point (its address points): every
    /// offset at which the module uses it (the constant `getelementptr`s constructors store
    /// into objects and VTTs hold) and, since other modules may construct objects with it,
    /// each of its vtables' first function entry (the Itanium layout puts the address point
    /// just before it).
    pub address_points: Vec<u64>,
}

/// The targets of virtual calls: a call of the function loaded at byte offset `slot` from a
/// pointer loaded from an object (`obj->vptr[slot]`) reaches the functions at `slot` past
/// an address point of some table, not every address-taken function of its type.
///
/// Sound where the caller cannot be sure: the narrowed set keeps every candidate (the
/// address-taken functions of the call's type, what an indirect call reaches without this)
/// that is not *confined* to tables, that is whose address is used anywhere but as an entry
/// of a table the caller could read (stored at run time, passed on, in another global's
/// initializer, in a table whose uses it could not read): the loaded pointer may have come
/// from any of those places. A confined function is reached only from its own slots. So the
/// narrowed set is always a subset of the candidates, and equal to them when nothing is
/// confined (a C program: its tables of function pointers are not C++ virtual tables).
#[derive(Clone, Debug, Default)]
pub struct VirtualCalls {
    /// slot → the functions at that byte offset past an address point of some table.
    at_slot: HashMap<u64, Vec<u32>>,
    /// Function nodes whose address is used only as entries of the readable tables.
    confined: Vec<bool>,
}

impl VirtualCalls {
    /// `tables`: the module's readable virtual tables; `confined[f]`: whether every use of
    /// function node `f`'s address is an entry of one of them (nodes past its end are not).
    pub fn new(tables: &[VirtualTable], confined: Vec<bool>) -> VirtualCalls {
        let mut at_slot: HashMap<u64, Vec<u32>> = HashMap::new();
        for table in tables {
            for &(offset, f) in &table.entries {
                for &point in &table.address_points {
                    if let Some(slot) = offset.checked_sub(point) {
                        at_slot.entry(slot).or_default().push(f);
                    }
                }
            }
        }
        for fs in at_slot.values_mut() {
            fs.sort_unstable();
            fs.dedup();
        }
        VirtualCalls { at_slot, confined }
    }

    /// The targets among `candidates` of a virtual call through byte offset `slot`: those
    /// not confined to tables, and those at `slot` past an address point (in `candidates`'
    /// order).
    pub fn targets(&self, slot: u64, candidates: &[u32]) -> Vec<u32> {
        let here = self.at_slot.get(&slot).map(Vec::as_slice).unwrap_or(&[]);
        candidates
            .iter()
            .copied()
            .filter(|&f| {
                !self.confined.get(f as usize).copied().unwrap_or(false)
                    || here.binary_search(&f).is_ok()
            })
            .collect()
    }
}

/// Each node's estimated calls per run (see the module documentation), in node order.
pub fn entry_counts(graph: &CallGraph) -> Vec<f64> {
    let out_edges = out_edges(graph);
    let targets: Vec<Vec<u32>> =
        out_edges.iter().map(|e| e.iter().map(|&(w, _)| w).collect()).collect();
    let (comp, comps) = components(&targets);
    // Tarjan numbers components so that a component's callees come first: go backwards.
    let mut counts: Vec<f64> = graph.nodes.iter().map(|v| clamp(v.outside)).collect();
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); comps];
    for (v, &c) in comp.iter().enumerate() {
        members[c as usize].push(v as u32);
    }
    for c in (0..comps).rev() {
        let nodes = &members[c];
        // `counts` of these nodes now hold what enters the component (outside calls and
        // callers in components already done). Once around the component's own calls:
        let entering: HashMap<u32, f64> = nodes.iter().map(|&v| (v, counts[v as usize])).collect();
        for &v in nodes {
            for &(w, per_call) in &out_edges[v as usize] {
                if comp[w as usize] as usize == c {
                    counts[w as usize] = clamp(counts[w as usize] + entering[&v] * per_call);
                }
            }
        }
        // ... then pass the final counts on to callees in later components.
        for &v in nodes {
            let here = counts[v as usize];
            for &(w, per_call) in &out_edges[v as usize] {
                if comp[w as usize] as usize != c {
                    counts[w as usize] = clamp(counts[w as usize] + here * per_call);
                }
            }
        }
    }
    counts
}

/// Each node's calls: (callee, calls per call), edges to nodes that do not exist left out.
fn out_edges(graph: &CallGraph) -> Vec<Vec<(u32, f64)>> {
    let n = graph.nodes.len();
    let mut out: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    for &(a, b, w) in &graph.edges {
        if (a as usize) < n && (b as usize) < n {
            out[a as usize].push((b, w));
        }
    }
    out
}

/// Which nodes may run repeatedly per call from outside: those called from a loop
/// ([`CallGraph::loop_calls`]), those on a cycle of direct calls (recursion), and everything
/// they call, directly or through indirect-call nodes. The others run at most once per call
/// path from outside through straight-line code (see the module documentation).
///
/// A cycle that closes only through an indirect-call node is not taken for recursion: such a
/// node reaches every address-taken function of its type, and with opaque pointers every
/// C++ virtual `void(ptr)` call reaches every other one (a destructor, any test's body), so
/// nearly every function of a C++ test program sat on one such cycle (Ninja's tests: 464 of
/// `build_test.cc`'s 603 functions likely hot). Recursion through pointers alone that no loop
/// reaches is what this misses.
pub fn repeated(graph: &CallGraph) -> Vec<bool> {
    let n = graph.nodes.len();
    let out = out_edges(graph);
    let targets: Vec<Vec<u32>> = out.iter().map(|e| e.iter().map(|&(w, _)| w).collect()).collect();
    let mut indirect = vec![false; n];
    for &v in &graph.indirect_nodes {
        if (v as usize) < n {
            indirect[v as usize] = true;
        }
    }
    let direct: Vec<Vec<u32>> = targets
        .iter()
        .enumerate()
        .map(|(v, t)| {
            if indirect[v] {
                return Vec::new();
            }
            t.iter().copied().filter(|&w| !indirect[w as usize]).collect()
        })
        .collect();
    let (comp, comps) = components(&direct);
    let mut size = vec![0usize; comps];
    for &c in &comp {
        size[c as usize] += 1;
    }
    let mut seen = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let seed = |v: u32, seen: &mut Vec<bool>, stack: &mut Vec<u32>| {
        if (v as usize) < n && !seen[v as usize] {
            seen[v as usize] = true;
            stack.push(v);
        }
    };
    for &(_, callee) in &graph.loop_calls {
        seed(callee, &mut seen, &mut stack);
    }
    for (v, t) in direct.iter().enumerate() {
        if size[comp[v] as usize] > 1 || t.contains(&(v as u32)) {
            seed(v as u32, &mut seen, &mut stack);
        }
    }
    while let Some(v) = stack.pop() {
        for &w in &targets[v as usize] {
            seed(w, &mut seen, &mut stack);
        }
    }
    seen
}

/// Which blocks of a function lie on a cycle of its control flow graph (`successors[b]`:
/// the blocks `b` may branch to), that is inside a loop, reducible or not.
pub fn cyclic_blocks(successors: &[Vec<u32>]) -> Vec<bool> {
    let n = successors.len();
    let targets: Vec<Vec<u32>> = successors
        .iter()
        .map(|s| s.iter().copied().filter(|&t| (t as usize) < n).collect())
        .collect();
    let (comp, comps) = components(&targets);
    let mut size = vec![0usize; comps];
    for &c in &comp {
        size[c as usize] += 1;
    }
    (0..n).map(|b| size[comp[b] as usize] > 1 || targets[b].contains(&(b as u32))).collect()
}

fn clamp(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, MAX_COUNT) }
}

/// Strongly connected components (Tarjan, iterative): each node's component, numbered so that
/// every edge goes to a component with the same or a smaller number, and how many there are.
fn components(out_edges: &[Vec<u32>]) -> (Vec<u32>, usize) {
    const NONE: u32 = u32::MAX;
    let n = out_edges.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut next = 0u32;
    let mut comps = 0u32;
    // (node, position in its edge list)
    let mut work: Vec<(u32, usize)> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        work.push((root, 0));
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            let vi = v as usize;
            if *pos == 0 && index[vi] == NONE {
                index[vi] = next;
                low[vi] = next;
                next += 1;
                stack.push(v);
                on_stack[vi] = true;
            }
            if let Some(&w) = out_edges[vi].get(*pos) {
                *pos += 1;
                let wi = w as usize;
                if index[wi] == NONE {
                    work.push((w, 0));
                } else if on_stack[wi] {
                    low[vi] = low[vi].min(index[wi]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent as usize] = low[parent as usize].min(low[vi]);
            }
            if low[vi] == index[vi] {
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp[w as usize] = comps;
                    if w == v {
                        break;
                    }
                }
                comps += 1;
            }
        }
    }
    (comp, comps as usize)
}

/// The smallest count among the largest counts that together make up `percentile` millionths
/// of all counts (each count weighted by itself, as LLVM's profile summary defines its hot
/// threshold); 0 when there are no counts.
pub fn hot_threshold(counts: impl IntoIterator<Item = u64>, percentile: u32) -> u64 {
    let mut all: Vec<u64> = counts.into_iter().filter(|&c| c > 0).collect();
    all.sort_unstable_by(|a, b| b.cmp(a));
    let total: u128 = all.iter().map(|&c| u128::from(c)).sum();
    let goal = total * u128::from(percentile.min(1_000_000)) / 1_000_000;
    let mut sum = 0u128;
    for &c in &all {
        sum += u128::from(c);
        if sum >= goal {
            return c;
        }
    }
    all.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn calls_multiply_down_a_chain_and_add_up_over_callers() {
        // main -> a (from a loop: 32 per call) -> b (once); main -> b (once).
        let mut g = CallGraph::default();
        let main = g.add(1.0);
        let a = g.add(0.0);
        let b = g.add(0.0);
        g.call(main, a, 32.0);
        g.call(a, b, 1.0);
        g.call(main, b, 1.0);
        let c = entry_counts(&g);
        assert_eq!(c, vec![1.0, 32.0, 33.0]);
    }

    #[test]
    fn indirect_calls_are_shared_among_the_functions_of_their_type() {
        let mut g = CallGraph::default();
        let main = g.add(1.0);
        let (f, h) = (g.add(0.0), g.add(0.0));
        let node = g.indirect(&[f, h]);
        g.call(main, node, 100.0);
        let c = entry_counts(&g);
        assert_eq!((c[f as usize], c[h as usize]), (50.0, 50.0));
    }

    #[test]
    fn recursion_goes_once_around() {
        // main -> r once; r calls itself twice per call (a tree walk): r gets 1 + 2.
        let mut g = CallGraph::default();
        let main = g.add(1.0);
        let r = g.add(0.0);
        let leaf = g.add(0.0);
        g.call(main, r, 1.0);
        g.call(r, r, 2.0);
        g.call(r, leaf, 1.0);
        let c = entry_counts(&g);
        assert_eq!(c, vec![1.0, 3.0, 3.0]);
        // Mutual recursion: each member receives what the other passes on once.
        let mut g = CallGraph::default();
        let main = g.add(1.0);
        let (p, q) = (g.add(0.0), g.add(0.0));
        g.call(main, p, 1.0);
        g.call(p, q, 1.0);
        g.call(q, p, 1.0);
        assert_eq!(entry_counts(&g), vec![1.0, 1.0, 1.0]);
    }

    #[test]
    fn counts_are_capped_and_bad_frequencies_ignored() {
        let mut g = CallGraph::default();
        let mut prev = g.add(1.0);
        for _ in 0..20 {
            let next = g.add(0.0);
            g.call(prev, next, 1e6);
            prev = next;
        }
        g.call(0, 1, f64::NAN);
        g.call(0, 1, -5.0);
        let c = entry_counts(&g);
        assert_eq!(c[20], MAX_COUNT);
        assert_eq!(c[1], 1e6);
    }

    #[test]
    fn only_loops_recursion_and_what_they_call_repeat() {
        // main calls setup and report once, and step from a loop; step calls helper; report
        // calls through a pointer (a node of its own) to cb; walk recurses.
        let mut g = CallGraph::default();
        let main = g.add(1.0);
        let (setup, report, step, helper, cb, walk, leaf) =
            (g.add(0.0), g.add(0.0), g.add(0.0), g.add(0.0), g.add(1.0), g.add(0.0), g.add(0.0));
        g.call(main, setup, 1.0);
        g.call(main, report, 1.0);
        g.call_in_loop(main, step, 32.0);
        g.call(step, helper, 1.0);
        let node = g.indirect(&[cb]);
        g.call(report, node, 1.0);
        g.call(setup, walk, 1.0);
        g.call(walk, walk, 2.0);
        g.call(walk, leaf, 1.0);
        let r = repeated(&g);
        let names = ["main", "setup", "report", "step", "helper", "cb", "walk", "leaf", "node"];
        let got: Vec<&str> = names.iter().zip(&r).filter(|(_, r)| **r).map(|(n, _)| *n).collect();
        assert_eq!(got, ["step", "helper", "walk", "leaf"]);
        // The same call through a pointer from a loop repeats every function of the node.
        g.call_in_loop(setup, node, 4.0);
        assert!(repeated(&g)[cb as usize]);
        // A loop call of frequency 0 (never runs) is no call.
        let mut g = CallGraph::default();
        let (a, b) = (g.add(1.0), g.add(0.0));
        g.call_in_loop(a, b, 0.0);
        assert_eq!(repeated(&g), vec![false, false]);
        assert!(g.edges.is_empty() && g.loop_calls.is_empty());
    }

    #[test]
    fn a_cycle_only_through_an_indirect_call_is_not_recursion() {
        // Two C++ test bodies and a destructor, all `void(ptr)` and address-taken (vtables):
        // each test deletes an object through a virtual call, whose node reaches all three.
        let mut g = CallGraph::default();
        let (test_a, test_b, dtor, helper) = (g.add(1.0), g.add(1.0), g.add(1.0), g.add(0.0));
        let node = g.indirect(&[test_a, test_b, dtor]);
        g.call(test_a, node, 1.0);
        g.call(test_b, node, 1.0);
        g.call(test_a, helper, 1.0);
        assert_eq!(repeated(&g), vec![false; 5], "no loop and no recursion of direct calls");
        // Recursion of direct calls still repeats, and what it calls through the pointer too.
        g.call(helper, test_a, 1.0);
        let r = repeated(&g);
        assert!(r[test_a as usize] && r[helper as usize]);
        assert!(r[node as usize] && r[test_b as usize] && r[dtor as usize]);
        // So does a call through the pointer from a loop.
        let mut g = CallGraph::default();
        let (runner, test) = (g.add(1.0), g.add(1.0));
        let node = g.indirect(&[test]);
        g.call_in_loop(runner, node, 32.0);
        assert!(repeated(&g)[test as usize]);
    }

    #[test]
    fn virtual_calls_reach_their_slot_and_what_escapes() {
        // Two classes: Base { D1 (node 0), D0 (1), run (2) } and Test : Base, which keeps
        // Base's D1 and has a D0 (3) and body (6) of its own, each table [offset-to-top, RTTI,
        // D1, D0, run/body] with its address point at 16. Node 4 is
        // a `void(ptr)` function whose address escapes (a callback), node 5 one confined to a
        // table that nothing points into.
        let base =
            VirtualTable { entries: vec![(16, 0), (24, 1), (32, 2)], address_points: vec![16] };
        let test =
            VirtualTable { entries: vec![(16, 0), (24, 3), (32, 6)], address_points: vec![16] };
        let dead = VirtualTable { entries: vec![(16, 5)], address_points: vec![] };
        let confined = vec![true, true, true, true, false, true, true];
        let calls = VirtualCalls::new(&[base, test, dead], confined);
        let all = [0, 1, 2, 3, 4, 5, 6];
        // The deleting destructors' slot (+8): Base's and Test's D0, and the escaping callback.
        assert_eq!(calls.targets(8, &all), vec![1, 3, 4]);
        // The body's slot (+16): `run` and `body` (and the callback), no destructor.
        assert_eq!(calls.targets(16, &all), vec![2, 4, 6]);
        // A slot no table has: only what escapes.
        assert_eq!(calls.targets(800, &all), vec![4]);
        // Only candidates (the call's type) are targets, in their order.
        assert_eq!(calls.targets(8, &[3, 2]), vec![3]);
        // Nothing confined (no tables read): every candidate, as without narrowing.
        let none = VirtualCalls::new(&[], vec![false; 7]);
        assert_eq!(none.targets(8, &all), all.to_vec());
        // A second address point (a secondary vtable at 40) moves the slots with it.
        let two = VirtualTable { entries: vec![(16, 0), (48, 1)], address_points: vec![16, 40] };
        let calls = VirtualCalls::new(&[two], vec![true; 2]);
        assert_eq!(calls.targets(8, &[0, 1]), vec![1]);
        assert_eq!(calls.targets(0, &[0, 1]), vec![0]);
        assert_eq!(calls.targets(32, &[0, 1]), vec![1]);
    }

    proptest! {
        /// Narrowing never adds a target, keeps every function not confined to a table, and
        /// keeps every function found at the slot past an address point.
        #[test]
        fn virtual_targets_are_a_subset_that_keeps_every_possible_target(
            entries in proptest::collection::vec((0u64..12, 0u32..10), 0..20),
            points in proptest::collection::vec(0u64..6, 0..3),
            confined in proptest::collection::vec(any::<bool>(), 10),
            candidates in proptest::collection::btree_set(0u32..12, 0..12),
            slot in 0u64..8,
        ) {
            let entries: Vec<(u64, u32)> = entries.iter().map(|&(o, f)| (o * 8, f)).collect();
            let points: Vec<u64> = points.iter().map(|&p| p * 8).collect();
            let table = VirtualTable { entries: entries.clone(), address_points: points.clone() };
            let calls = VirtualCalls::new(&[table], confined.clone());
            let candidates: Vec<u32> = candidates.into_iter().collect();
            let got = calls.targets(slot * 8, &candidates);
            prop_assert!(got.iter().all(|f| candidates.contains(f)));
            for &f in &candidates {
                let escapes = !confined.get(f as usize).copied().unwrap_or(false);
                let at_slot = entries
                    .iter()
                    .any(|&(o, g)| g == f && points.iter().any(|&p| o == p + slot * 8));
                prop_assert_eq!(got.contains(&f), escapes || at_slot);
            }
        }
    }

    #[test]
    fn blocks_on_a_cycle_of_the_flow_graph_are_in_a_loop() {
        // 0 -> 1 -> 2 -> 1 (a loop of 1 and 2), 2 -> 3, 3 -> 3 (a block looping on itself),
        // 3 -> 4; a successor out of range is ignored.
        let succ = vec![vec![1], vec![2], vec![1, 3], vec![3, 4, 99], vec![]];
        assert_eq!(cyclic_blocks(&succ), vec![false, true, true, true, false]);
        assert_eq!(cyclic_blocks(&[vec![], vec![]]), vec![false, false]);
        assert!(cyclic_blocks(&[]).is_empty());
    }

    #[test]
    fn the_hot_threshold_is_the_smallest_count_of_the_top_share() {
        // 90 + 9 + 1 = 100: the top 90% is the 90 alone, the top 99% needs the 9.
        assert_eq!(hot_threshold([1, 90, 9, 0], 900_000), 90);
        assert_eq!(hot_threshold([1, 90, 9], 990_000), 9);
        assert_eq!(hot_threshold([1, 90, 9], 1_000_000), 1);
        assert_eq!(hot_threshold([], 990_000), 0);
    }

    proptest! {
        /// Counts are finite, never negative, at least what a node receives from outside,
        /// and in a graph without cycles exactly what flows in.
        #[test]
        fn counts_are_the_flow_into_each_node(
            outside in proptest::collection::vec(0.0f64..10.0, 1..30),
            edges in proptest::collection::vec((0u32..30, 0u32..30, 0.0f64..40.0), 0..80),
        ) {
            let mut g = CallGraph::default();
            for &o in &outside {
                g.add(o);
            }
            let n = outside.len() as u32;
            for &(a, b, w) in &edges {
                g.call(a % n, b % n, w);
            }
            let c = entry_counts(&g);
            for (v, &x) in c.iter().enumerate() {
                prop_assert!(x.is_finite() && x >= outside[v] && x <= MAX_COUNT);
            }
            // Keep only edges that go forward: a DAG, where counts are the exact flow.
            let mut dag = CallGraph { nodes: g.nodes.clone(), ..CallGraph::default() };
            for &(a, b, w) in &g.edges {
                if a < b {
                    dag.call(a, b, w);
                }
            }
            let c = entry_counts(&dag);
            for v in 0..n {
                let inflow: f64 = dag
                    .edges
                    .iter()
                    .filter(|e| e.1 == v)
                    .map(|&(a, _, w)| c[a as usize] * w)
                    .sum();
                let want = (outside[v as usize] + inflow).min(MAX_COUNT);
                prop_assert!((c[v as usize] - want).abs() <= 1e-9 * want.max(1.0));
            }
        }
    }
}
