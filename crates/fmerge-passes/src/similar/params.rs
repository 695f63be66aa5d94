//! The parameter list of a merged function.
//!
//! The merged body takes the first function's parameters, then those of the second that no
//! parameter of the first can carry, then the function identifier (`i1`: false = first, true =
//! second), last, so thunks pass their own arguments in place without shuffling registers.
//!
//! A parameter of the second function shares a parameter of the first of the same type when:
//! 1. the alignment matches instructions that use the two at the same operand position (most
//!    such uses first: every one saves a `select`), else
//! 2. it sits at the same position (the thunk then passes it in the register it arrived in), else
//! 3. it is the first free one of that type.

use crate::fold::Arg;
use fmerge_core::align::{AlignEntry, BlockAlignment, FunctionAlignment};
use fmerge_core::ir::{FuncData, Operand, TypeId};
use fmerge_llvm::Value;
use std::collections::BTreeMap;

/// Which merged parameter carries which original parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamMap {
    /// Types of the merged parameters, without the function identifier.
    pub types: Vec<TypeId>,
    /// `of[s][k]`: the merged parameter carrying parameter `k` of side `s`.
    pub of: [Vec<u32>; 2],
}

impl ParamMap {
    pub fn new(f: &FuncData, g: &FuncData, align: &FunctionAlignment) -> ParamMap {
        let mut types = f.arg_types.clone();
        let mut taken = vec![false; f.arg_types.len()];
        let mut of_g: Vec<Option<u32>> = vec![None; g.arg_types.len()];

        // 1. Shared uses in matched instructions.
        let mut votes: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        for b in &align.blocks {
            let BlockAlignment::Paired { insts, .. } = b else { continue };
            for e in insts {
                let AlignEntry::Match(i, j) = *e else { continue };
                for (&x, &y) in f.ops(i).iter().zip(g.ops(j)) {
                    if let (Operand::Arg(a), Operand::Arg(b)) = (x, y) {
                        *votes.entry((a, b)).or_default() += 1;
                    }
                }
            }
        }
        let mut ranked: Vec<((u32, u32), usize)> = votes.into_iter().collect();
        ranked.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        let same_type = |a: u32, b: u32| f.arg_types[a as usize] == g.arg_types[b as usize];
        for ((a, b), _) in ranked {
            if !taken[a as usize] && of_g[b as usize].is_none() && same_type(a, b) {
                taken[a as usize] = true;
                of_g[b as usize] = Some(a);
            }
        }
        // 2. Same position, 3. first free of the type, else a new parameter.
        for b in 0..g.arg_types.len() as u32 {
            if of_g[b as usize].is_some() {
                continue;
            }
            let slot = (b < f.arg_types.len() as u32 && !taken[b as usize] && same_type(b, b))
                .then_some(b)
                .or_else(|| {
                    (0..f.arg_types.len() as u32).find(|&a| !taken[a as usize] && same_type(a, b))
                });
            let k = match slot {
                Some(a) => {
                    taken[a as usize] = true;
                    a
                }
                None => {
                    types.push(g.arg_types[b as usize]);
                    (types.len() - 1) as u32
                }
            };
            of_g[b as usize] = Some(k);
        }
        let of_f = (0..f.arg_types.len() as u32).collect();
        ParamMap {
            types,
            of: [of_f, of_g.into_iter().map(|k| k.expect("assigned above")).collect()],
        }
    }

    /// `back[s][k]`: the parameter of side `s` that merged parameter `k` carries, if any.
    pub fn back(&self, s: usize) -> Vec<Option<u32>> {
        let mut out = vec![None; self.types.len()];
        for (orig, &m) in self.of[s].iter().enumerate() {
            out[m as usize] = Some(orig as u32);
        }
        out
    }

    /// The arguments side `s`'s thunk passes: its parameters where the merged body takes them,
    /// `poison` elsewhere (the body never reads those on this side), then its identifier.
    pub fn thunk_args<'m>(&self, s: usize, poison: &[Value<'m>], id: Value<'m>) -> Vec<Arg<'m>> {
        self.back(s)
            .into_iter()
            .zip(poison)
            .map(|(orig, &p)| orig.map_or(Arg::Value(p), Arg::Param))
            .chain(std::iter::once(Arg::Value(id)))
            .collect()
    }
}
