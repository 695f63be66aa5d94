//! Random functions and the mutations that turn one function into a family of similar ones.

use crate::ast::*;
use crate::rng::Rng;

/// Helpers and globals every module has (see `module.rs`).
pub const PURE_HELPERS: usize = 3;
pub const TABLES: usize = 3;
pub const CELLS: usize = 4;

/// What a generated function may contain.
#[derive(Clone, Copy, Debug)]
pub struct Features<'a> {
    /// `invoke` + `landingpad` (needs a C++ runtime at execution time).
    pub eh: bool,
    /// Generated functions (of earlier families) that may be called.
    pub callees: &'a [Callee],
}

#[derive(Clone, Copy, Debug)]
struct Ctx<'a> {
    vars: usize,
    loops: usize,
    eh: bool,
    callees: &'a [Callee],
}

fn leaf(rng: &mut Rng, c: Ctx<'_>) -> Expr {
    match rng.below(10) {
        0..=3 => Expr::Var(rng.below(c.vars)),
        4 if c.loops > 0 => Expr::LoopIdx(rng.below(c.loops)),
        _ => Expr::Const(rng.constant()),
    }
}

fn expr(rng: &mut Rng, c: Ctx<'_>, depth: u32) -> Expr {
    if depth == 0 || rng.chance(25) {
        return leaf(rng, c);
    }
    let d = depth - 1;
    let sub = |rng: &mut Rng| Box::new(expr(rng, c, d));
    match rng.below(20) {
        0..=4 => Expr::Bin(*rng.pick(&BINOPS), sub(rng), sub(rng)),
        5 => Expr::SafeAdd { nsw: rng.chance(50), nuw: rng.chance(50), a: sub(rng), b: sub(rng) },
        6 => Expr::SafeMul { nsw: rng.chance(50), nuw: rng.chance(50), a: sub(rng), b: sub(rng) },
        7 => Expr::Shift(
            *rng.pick(&[ShiftOp::Shl, ShiftOp::LShr, ShiftOp::AShr]),
            sub(rng),
            sub(rng),
        ),
        8 => Expr::Div(
            *rng.pick(&[DivOp::UDiv, DivOp::URem, DivOp::SDiv, DivOp::SRem]),
            sub(rng),
            sub(rng),
        ),
        9 => Expr::Cmp(*rng.pick(&PREDS), sub(rng), sub(rng)),
        10 => {
            Expr::Select(*rng.pick(&PREDS), Box::new([*sub(rng), *sub(rng), *sub(rng), *sub(rng)]))
        }
        11 | 12 => Expr::Pure(rng.below(PURE_HELPERS), sub(rng), sub(rng)),
        13 => Expr::LogRet(rng.range(0, 99), sub(rng)),
        14 => Expr::Table(rng.below(TABLES), sub(rng)),
        15 => Expr::Arr(sub(rng)),
        16 => Expr::Intr2(*rng.pick(&INTR2), sub(rng), sub(rng)),
        17 => Expr::Intr1(*rng.pick(&[Intr1::Ctpop, Intr1::Bswap, Intr1::Abs]), sub(rng)),
        18 => Expr::Narrow { to16: rng.chance(50), signed: rng.chance(50), a: sub(rng) },
        19 if c.loops == 0 && !c.callees.is_empty() => {
            let callee = rng.pick(c.callees).clone();
            let args = callee.params.iter().map(|_| expr(rng, c, d.min(1))).collect();
            Expr::Call(Box::new(callee), args)
        }
        _ => leaf(rng, c),
    }
}

fn cond(rng: &mut Rng, c: Ctx<'_>) -> Cond {
    let pred = *rng.pick(&PREDS);
    if matches!(pred, Pred::Eq | Pred::Ne) {
        // Equality of two random values is almost never true: compare two low bits instead.
        let a = Expr::Bin(BinOp::And, Box::new(expr(rng, c, 2)), Box::new(Expr::Const(3)));
        return Cond { pred, a, b: Expr::Const(rng.range(0, 3)) };
    }
    Cond { pred, a: expr(rng, c, 2), b: expr(rng, c, 1) }
}

fn block(rng: &mut Rng, c: Ctx<'_>, depth: u32, max: usize) -> Vec<Stmt> {
    let n = rng.range(1, max as i64) as usize;
    (0..n).map(|_| stmt(rng, c, depth)).collect()
}

fn stmt(rng: &mut Rng, c: Ctx<'_>, depth: u32) -> Stmt {
    let nested = depth > 0;
    let d = depth.saturating_sub(1);
    match rng.below(22) {
        0..=6 => Stmt::Assign(rng.below(c.vars), expr(rng, c, 3)),
        7 | 8 if nested => Stmt::If(cond(rng, c), block(rng, c, d, 3), {
            if rng.chance(50) { block(rng, c, d, 2) } else { vec![] }
        }),
        9 if nested => {
            let mut vals: Vec<i64> = (0..8).collect();
            let n = rng.range(1, 4) as usize;
            let cases = (0..n)
                .map(|_| {
                    let v = vals.remove(rng.below(vals.len()));
                    (v, block(rng, c, d, 2))
                })
                .collect();
            Stmt::Switch(expr(rng, c, 2), cases, block(rng, c, d, 2))
        }
        10 if nested && c.loops < 2 => {
            let inner = Ctx { loops: c.loops + 1, ..c };
            Stmt::Loop(rng.range(1, 8) as u8, block(rng, inner, d, 3))
        }
        11 if nested && c.loops < 2 => {
            let e = expr(rng, c, 2);
            let inner = Ctx { loops: c.loops + 1, ..c };
            Stmt::DynLoop(e, block(rng, inner, d, 3))
        }
        12 | 13 => Stmt::Log(rng.range(0, 99), expr(rng, c, 2)),
        14 => Stmt::StoreCell(rng.below(CELLS), expr(rng, c, 2)),
        15 => Stmt::StoreArr(expr(rng, c, 1), expr(rng, c, 2)),
        16 | 18 if c.eh => Stmt::Invoke(rng.below(c.vars), expr(rng, c, 2), rng.range(-50, 50)),
        17 => Stmt::Return(cond(rng, c), expr(rng, c, 2)),
        _ => Stmt::Assign(rng.below(c.vars), expr(rng, c, 2)),
    }
}

fn ty(rng: &mut Rng) -> Ty {
    *rng.pick(&[Ty::I8, Ty::I16, Ty::I32, Ty::I32, Ty::I64, Ty::I64])
}

/// A fresh random function.
pub fn function(rng: &mut Rng, name: String, feat: Features<'_>) -> Function {
    let work = if rng.chance(50) { Ty::I32 } else { Ty::I64 };
    let params: Vec<Param> =
        (0..rng.range(1, 4)).map(|_| Param { ty: ty(rng), signed: rng.chance(50) }).collect();
    let locals: Vec<i64> = (0..rng.range(0, 3)).map(|_| rng.constant()).collect();
    let c = Ctx { vars: params.len() + locals.len(), loops: 0, eh: feat.eh, callees: feat.callees };
    let body = block(rng, c, 2, 6);
    let result = expr(rng, c, 3);
    let mut arr = [0i64; 8];
    for a in &mut arr {
        *a = rng.constant();
    }
    Function {
        name,
        work,
        ret: if rng.chance(60) { work } else { *rng.pick(&[Ty::I32, Ty::I64, Ty::I8]) },
        params,
        locals,
        arr,
        body,
        result,
        linkage: *rng.pick(&[
            Linkage::Internal,
            Linkage::Internal,
            Linkage::External,
            Linkage::External,
            Linkage::LinkonceOdr,
            Linkage::WeakOdr,
            Linkage::Weak,
        ]),
        unnamed: *rng.pick(&[UnnamedAddr::None, UnnamedAddr::Local, UnnamedAddr::Global]),
        attrs: match rng.below(4) {
            0 => vec![],
            1 => vec!["nounwind"],
            2 => vec!["optsize"],
            _ => vec!["nounwind", "optsize"],
        },
        address_taken: rng.chance(25),
    }
}

/// How far a family member may drift from its base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drift {
    /// An exact copy (identical merging).
    Identical,
    /// Only constants, callees and globals change (constant merging).
    Constants,
    /// Anything: operators, operands, statements, blocks, loops, switches, types.
    Similar,
}

/// Visits every expression (pre-order) with the number of enclosing loops.
fn each_expr(stmts: &mut [Stmt], loops: usize, f: &mut dyn FnMut(&mut Expr, usize)) {
    fn ex(e: &mut Expr, loops: usize, f: &mut dyn FnMut(&mut Expr, usize)) {
        f(e, loops);
        for c in children_mut(e) {
            ex(c, loops, f);
        }
    }
    for s in stmts {
        match s {
            Stmt::Assign(_, e)
            | Stmt::Log(_, e)
            | Stmt::StoreCell(_, e)
            | Stmt::Invoke(_, e, _) => ex(e, loops, f),
            Stmt::StoreArr(a, b) => {
                ex(a, loops, f);
                ex(b, loops, f);
            }
            Stmt::If(c, a, b) => {
                ex(&mut c.a, loops, f);
                ex(&mut c.b, loops, f);
                each_expr(a, loops, f);
                each_expr(b, loops, f);
            }
            Stmt::Return(c, e) => {
                ex(&mut c.a, loops, f);
                ex(&mut c.b, loops, f);
                ex(e, loops, f);
            }
            Stmt::Switch(e, cs, d) => {
                ex(e, loops, f);
                for (_, b) in cs {
                    each_expr(b, loops, f);
                }
                each_expr(d, loops, f);
            }
            Stmt::Loop(_, b) => each_expr(b, loops + 1, f),
            Stmt::DynLoop(e, b) => {
                ex(e, loops, f);
                each_expr(b, loops + 1, f);
            }
        }
    }
}

/// Visits every statement list with the number of enclosing loops.
fn each_block(stmts: &mut Vec<Stmt>, loops: usize, f: &mut dyn FnMut(&mut Vec<Stmt>, usize)) {
    f(stmts, loops);
    for s in stmts.iter_mut() {
        match s {
            Stmt::If(_, a, b) => {
                each_block(a, loops, f);
                each_block(b, loops, f);
            }
            Stmt::Switch(_, cs, d) => {
                for (_, b) in cs {
                    each_block(b, loops, f);
                }
                each_block(d, loops, f);
            }
            Stmt::Loop(_, b) | Stmt::DynLoop(_, b) => each_block(b, loops + 1, f),
            _ => {}
        }
    }
}

/// Applies `f` to the `k`-th expression (of those where `want` holds), counting in pre-order
/// over the body and then the result. Returns whether there was one.
fn at_expr(
    func: &mut Function,
    rng: &mut Rng,
    want: &dyn Fn(&Expr) -> bool,
    f: &mut dyn FnMut(&mut Expr, usize, &mut Rng),
) -> bool {
    let mut n = 0;
    each_expr(&mut func.body, 0, &mut |e, _| n += usize::from(want(e)));
    let mut rs = [Stmt::Assign(0, func.result.clone())];
    each_expr(&mut rs, 0, &mut |e, _| n += usize::from(want(e)));
    if n == 0 {
        return false;
    }
    let mut k = rng.below(n) as isize;
    each_expr(&mut func.body, 0, &mut |e, l| {
        if want(e) {
            if k == 0 {
                f(e, l, rng);
            }
            k -= 1;
        }
    });
    if k >= 0 {
        each_expr(&mut rs, 0, &mut |e, l| {
            if want(e) {
                if k == 0 {
                    f(e, l, rng);
                }
                k -= 1;
            }
        });
        let [Stmt::Assign(_, e)] = rs else { unreachable!() };
        func.result = e;
    }
    true
}

/// Applies `f` to a random statement list (with its loop depth).
fn at_block(
    func: &mut Function,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Vec<Stmt>, usize, &mut Rng),
) {
    let mut n = 0;
    each_block(&mut func.body, 0, &mut |_, _| n += 1);
    let mut k = rng.below(n) as isize;
    each_block(&mut func.body, 0, &mut |b, l| {
        if k == 0 {
            f(b, l, rng);
        }
        k -= 1;
    });
}

/// Changes `func` a little, within what `drift` allows. Returns a short description.
pub fn mutate(
    rng: &mut Rng,
    func: &mut Function,
    drift: Drift,
    feat: Features<'_>,
) -> &'static str {
    let vars = func.num_vars();
    let eh = feat.eh;
    let callees = feat.callees;
    for _ in 0..20 {
        let kind = match drift {
            Drift::Identical => return "none",
            Drift::Constants => rng.below(3),
            Drift::Similar => rng.below(16),
        };
        let done = match kind {
            0 => at_expr(func, rng, &|e| matches!(e, Expr::Const(_)), &mut |e, _, rng| {
                let Expr::Const(v) = e else { unreachable!() };
                *v = if rng.chance(50) { v.wrapping_add(rng.range(1, 9)) } else { rng.constant() };
            }),
            1 => at_expr(
                func,
                rng,
                &|e| {
                    matches!(
                        e,
                        Expr::Pure(..) | Expr::Table(..) | Expr::LogRet(..) | Expr::Call(..)
                    )
                },
                &mut |e, _, rng| match e {
                    Expr::Pure(k, ..) | Expr::Table(k, _) => *k = (*k + 1 + rng.below(2)) % 3,
                    Expr::LogRet(t, _) => *t = rng.range(0, 99),
                    Expr::Call(c, _) => {
                        // Another callee with the same signature, if there is one.
                        let same: Vec<&Callee> = callees
                            .iter()
                            .filter(|o| o.params == c.params && o.ret == c.ret && o.name != c.name)
                            .collect();
                        if !same.is_empty() {
                            **c = (*rng.pick(&same)).clone();
                        }
                    }
                    _ => unreachable!(),
                },
            ),
            2 => {
                let mut hit = false;
                at_block(func, rng, &mut |b, _, rng| {
                    for s in b.iter_mut() {
                        match s {
                            Stmt::StoreCell(k, _) => *k = (*k + 1 + rng.below(3)) % CELLS,
                            Stmt::Log(t, _) | Stmt::Invoke(_, _, t) => *t = rng.range(0, 99),
                            _ => continue,
                        }
                        hit = true;
                        break;
                    }
                });
                hit
            }
            3 => at_expr(
                func,
                rng,
                &|e| matches!(e, Expr::Bin(..) | Expr::Cmp(..) | Expr::Intr2(..) | Expr::Div(..)),
                &mut |e, _, rng| match e {
                    Expr::Bin(op, ..) => *op = *rng.pick(&BINOPS),
                    Expr::Cmp(p, ..) => *p = *rng.pick(&PREDS),
                    Expr::Intr2(i, ..) => *i = *rng.pick(&INTR2),
                    Expr::Div(d, ..) => {
                        *d = *rng.pick(&[DivOp::UDiv, DivOp::URem, DivOp::SDiv, DivOp::SRem])
                    }
                    _ => unreachable!(),
                },
            ),
            4 => at_expr(
                func,
                rng,
                &|e| matches!(e, Expr::Bin(..) | Expr::Cmp(..) | Expr::Shift(..)),
                &mut |e, _, _| match e {
                    Expr::Bin(_, a, b) | Expr::Cmp(_, a, b) | Expr::Shift(_, a, b) => {
                        std::mem::swap(a, b)
                    }
                    _ => unreachable!(),
                },
            ),
            5 => at_expr(func, rng, &|_| true, &mut |e, loops, rng| {
                *e = expr(rng, Ctx { vars, loops, eh, callees }, 2);
            }),
            6 => {
                at_block(func, rng, &mut |b, loops, rng| {
                    let s = stmt(rng, Ctx { vars, loops, eh, callees }, 1);
                    b.insert(rng.below(b.len() + 1), s);
                });
                true
            }
            7 => {
                let mut hit = false;
                at_block(func, rng, &mut |b, _, rng| {
                    if !b.is_empty() {
                        b.remove(rng.below(b.len()));
                        hit = true;
                    }
                });
                hit
            }
            8 => {
                let mut hit = false;
                at_block(func, rng, &mut |b, loops, rng| {
                    if !b.is_empty() {
                        let k = rng.below(b.len());
                        let s = b.remove(k);
                        let c = cond(rng, Ctx { vars, loops, eh, callees });
                        b.insert(k, Stmt::If(c, vec![s], vec![]));
                        hit = true;
                    }
                });
                hit
            }
            9 => {
                let mut hit = false;
                at_block(func, rng, &mut |b, _, rng| {
                    for s in b.iter_mut() {
                        match s {
                            Stmt::Loop(n, _) => *n = rng.range(1, 8) as u8,
                            Stmt::Switch(_, cs, _) => {
                                if cs.len() > 1 && rng.chance(50) {
                                    cs.remove(rng.below(cs.len()));
                                } else {
                                    let used: Vec<i64> = cs.iter().map(|c| c.0).collect();
                                    if let Some(v) = (0..8).find(|v| !used.contains(v)) {
                                        cs.push((v, vec![]));
                                    }
                                }
                            }
                            Stmt::If(_, a, e) => std::mem::swap(a, e),
                            _ => continue,
                        }
                        hit = true;
                        break;
                    }
                });
                hit
            }
            10 => at_expr(
                func,
                rng,
                &|e| matches!(e, Expr::SafeAdd { .. } | Expr::SafeMul { .. }),
                &mut |e, _, rng| match e {
                    Expr::SafeAdd { nsw, nuw, .. } | Expr::SafeMul { nsw, nuw, .. } => {
                        if rng.chance(50) { *nsw = !*nsw } else { *nuw = !*nuw }
                    }
                    _ => unreachable!(),
                },
            ),
            11 => {
                let k = rng.below(func.params.len());
                let p = &mut func.params[k];
                p.ty = ty(rng);
                p.signed = rng.chance(50);
                true
            }
            12 if rng.chance(30) => {
                func.work = if func.work == Ty::I32 { Ty::I64 } else { Ty::I32 };
                true
            }
            13 => {
                func.linkage = *rng.pick(&[
                    Linkage::Internal,
                    Linkage::External,
                    Linkage::LinkonceOdr,
                    Linkage::Weak,
                ]);
                func.unnamed =
                    *rng.pick(&[UnnamedAddr::None, UnnamedAddr::Local, UnnamedAddr::Global]);
                true
            }
            14 => {
                let c = Ctx { vars, loops: 0, eh, callees };
                func.body.insert(
                    0,
                    Stmt::Loop(rng.range(1, 5) as u8, block(rng, Ctx { loops: 1, ..c }, 0, 2)),
                );
                true
            }
            15 if func.locals.len() < 4 => {
                // One more local: shifts nothing (locals come after the parameters).
                func.locals.push(rng.constant());
                true
            }
            _ => false,
        };
        if done {
            return [
                "constant",
                "callee/global",
                "cell/tag",
                "operator",
                "operand order",
                "subexpression",
                "insert statement",
                "delete statement",
                "wrap in if",
                "loop/switch/if arms",
                "poison flags",
                "parameter type",
                "work type",
                "linkage",
                "add loop",
                "add local",
            ][kind];
        }
    }
    "none"
}
