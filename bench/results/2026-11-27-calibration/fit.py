#!/usr/bin/env python3
"""Fits the estimate of what a merge of similar functions saves
(fmerge_core::profit::estimated_similar_saving) to compiled candidates, and checks it by
leaving each program out of the fit in turn.

Data: one prices-exact-PROGRAM.jsonl.gz per corpus program, written by
  FMERGE_DEBUG_PRICES=prices-exact-PROGRAM.jsonl fmerge opt build/corpus/P/P.bc \
      --whole-program --profit exact -o /dev/null
(every candidate compiled: x86-64, llc's code). This data was recorded with an earlier layout of
the records (member_insts, body_shape/member_shapes = [blocks, phis, selects, branches,
switches, calls]); fit.py reads that layout. Pure Python, no dependencies.

Usage: python3 fit.py
"""
import glob, gzip, json, os

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ['units_before', 'units_body', 'units_glue', 'insts_before', 'insts_body',
        'added_blocks', 'added_selects', 'added_switches']


def load():
    rows = []
    for f in sorted(glob.glob(os.path.join(HERE, 'prices-exact-*.jsonl.gz'))):
        prog = os.path.basename(f)[len('prices-exact-'):-len('.jsonl.gz')]
        for line in gzip.open(f, 'rt'):
            d = json.loads(line)
            if d['measured'] is None or None in d['orig_bytes']:
                continue
            d['prog'] = prog
            rows.append(d)
    return rows


def features(d):
    body = d['body_shape']
    members = [sum(x) for x in zip(*d['member_shapes'])]
    return [d['before_units'], d['body_units'], d['after_units'] - d['body_units'],
            sum(d['member_insts']), d['body_insts'],
            body[0] - members[0], body[2] - members[2], body[4] - members[4]]


def lstsq(X, y):
    """Least squares by the normal equations (Gauss-Jordan with partial pivoting)."""
    n = len(X[0])
    A = [[sum(r[i] * r[j] for r in X) for j in range(n)] + [sum(r[i] * t for r, t in zip(X, y))]
         for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(A[r][c]))
        A[c], A[p] = A[p], A[c]
        for r in range(n):
            if r != c:
                f = A[r][c] / A[c][c]
                A[r] = [a - f * b for a, b in zip(A[r], A[c])]
    return [A[i][n] / A[i][i] for i in range(n)]


def wrong(rows, predict):
    """Candidates whose sign the prediction gets wrong, and the bytes they are worth."""
    bad = [d for d in rows if (predict(d) > 0) != (d['measured'] > 0)]
    return len(bad), sum(abs(d['measured']) for d in bad)


def main():
    rows = load()
    progs = sorted({d['prog'] for d in rows})
    w = lstsq([features(d) for d in rows], [d['measured'] for d in rows])
    print(f'{len(rows)} candidates from {len(progs)} programs')
    for k, c in zip(KEYS, w):
        print(f'  {k:15s} {c:8.3f}')
    dot = lambda w, d: sum(a * b for a, b in zip(w, features(d)))
    print('TTI units alone (the earlier estimate): wrong %d, %d bytes' % wrong(rows, lambda d: d['est']))
    print('this fit:                               wrong %d, %d bytes' % wrong(rows, lambda d: dot(w, d)))
    print('each program left out of the fit:')
    total = [0, 0]
    for p in progs:
        train = [d for d in rows if d['prog'] != p]
        test = [d for d in rows if d['prog'] == p]
        wp = lstsq([features(d) for d in train], [d['measured'] for d in train])
        n, b = wrong(test, lambda d: dot(wp, d))
        n0, b0 = wrong(test, lambda d: d['est'])
        total = [total[0] + n, total[1] + b]
        print(f'  {p:8s} {len(test):4d} candidates: wrong {n:3d} ({b:6d} bytes), TTI alone {n0:3d} ({b0:6d} bytes)')
    print(f'  total wrong {total[0]} ({total[1]} bytes)')


if __name__ == '__main__':
    main()
