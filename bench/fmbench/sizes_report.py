"""The side-by-side benchmark's configurations and its outputs: results.csv, results.md, charts.

CONFIGS is what `fmbench sizes run` measures (one row per target x program x configuration);
the functions below write and read results.csv and turn it into results.md and one SVG chart
per target (`fmbench sizes render DIR`), and copy a run to bench/RESULTS.md (`publish`).
"""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from . import programs
from .common import BENCH, log, rel
from .modes import MODES

PROGRAMS = programs.names()
TARGETS = ["x86_64", "aarch64"]
TARGET_LABEL = {"x86_64": "x86-64", "aarch64": "AArch64"}


@dataclass
class Config:
    name: str
    kind: str  # "module": a module measured with `fmerge size`; "llc": codegen flag; "linked": executable
    desc: str
    base: str | None = None  # for llc/linked: the module config whose output is compiled
    llc_flags: list[str] = field(default_factory=list)
    icf: bool = False
    rust_only: bool = False
    mode: str | None = None  # module rows made by `fmerge opt`: the merge mode (modes.py)


CONFIGS = [
    Config("baseline", "module", "the `default<Oz>` module as is (reference of the object-file rows)"),
    Config("mergefunc", "module", "`opt-22 -passes=mergefunc`"),
    Config("gmf", "module", "`opt-22 -passes=global-merge-func` (LLVM's GlobalMergeFunc, monolithic: "
           "no codegen data, merges within the module)"),
    Config("fmerge-id", "module", "`fmerge opt --merge identical`", mode="identical"),
    Config("fmerge-idc", "module", "`fmerge opt --merge identical,constants`", mode="constants"),
    Config("fmerge", "module", "`fmerge opt` (default: identical, constants, similar)", mode="default"),
    Config("fmerge-wp", "module", "`fmerge opt --whole-program` (Rust programs only: their modules are "
           "internalized, only `main` is called from outside)", rust_only=MODES["whole-program"].rust_only,
           mode="whole-program"),
    Config("outliner", "llc", "baseline compiled with `llc-22 -enable-machine-outliner`", base="baseline",
           llc_flags=["-enable-machine-outliner"]),
    Config("fmerge+outliner", "llc", "fmerge's output compiled with `llc-22 -enable-machine-outliner`",
           base="fmerge", llc_flags=["-enable-machine-outliner"]),
    Config("lld", "linked", "baseline linked with ld.lld-22 without ICF (reference of the linked rows)",
           base="baseline"),
    Config("icf", "linked", "baseline linked with `ld.lld-22 --icf=all`", base="baseline", icf=True),
    Config("gmf+icf", "linked", "gmf's output linked with `ld.lld-22 --icf=all`", base="gmf", icf=True),
    Config("fmerge+icf", "linked", "fmerge's output linked with `ld.lld-22 --icf=all`", base="fmerge", icf=True),
]
CONFIG = {c.name: c for c in CONFIGS}
# llc flags of the linked rows (on top of the corpus link recipe's -O2 -relocation-model=pic)
LINK_LLC_FLAGS = ["-function-sections"]

FIELDS = ["target", "program", "config", "kind", "status", "text_bytes", "reference", "reference_bytes",
          "delta_bytes", "delta_pct", "merge_s", "oz_s", "time_ratio", "process_s", "verify", "smoke",
          "error", "command"]


# ---------------------------------------------------------------------------
# outputs


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ok(r: dict) -> bool:
    return r["status"] == "ok" and r["text_bytes"] != ""


def correct(r: dict) -> bool:
    return r["verify"] in ("ok", "n/a") and (r["smoke"].startswith("pass") or r["smoke"] in ("skipped", "n/a"))


def cell_pct(r: dict | None) -> str:
    if r is None:
        return ""
    if r["status"] == "n/a":
        return "n/a"
    if not ok(r):
        return "**error**"
    s = f"{float(r['delta_pct']):+.2f}%" if r["delta_pct"] != "" else ""
    if r["config"] in ("baseline", "lld"):
        s = f"{int(r['text_bytes']):,}"
    if r["verify"].startswith("FAIL"):
        s += " **verifier FAIL**"
    if r["smoke"].startswith("FAIL"):
        s += " **smoke FAIL**"
    return s


def md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_md(rows: list[dict], meta: dict, outdir: Path, chart_prefix: str = "") -> str:
    targets = [t for t in TARGETS if any(r["target"] == t for r in rows)]
    configs = [c.name for c in CONFIGS if any(r["config"] == c.name for r in rows)]
    programs = [p for p in PROGRAMS if any(r["program"] == p for r in rows)]
    idx = {(r["target"], r["program"], r["config"]): r for r in rows}
    L = []
    quick = " (quick subset)" if meta.get("quick") else ""
    L.append(f"# fmerge benchmark results{quick}")
    L.append("")
    L.append(f"- Date: {meta.get('date', '')}; harness wall time {meta.get('wall_min', '?')} min.")
    dirty = " (working tree with uncommitted fmerge changes: " + ", ".join(
        f.strip() for f in meta.get("fmerge_dirty_files", [])) + ")" if meta.get("fmerge_sources_dirty") else ""
    L.append(f"- fmerge commit: `{meta.get('commit', '')}`{dirty}; `{meta.get('fmerge_version', '')}`, "
             "`target/release/fmerge` built by `cargo build --release -p fmerge` just before the run.")
    L.append(f"- Machine: {meta.get('machine', '')}. Shared with another engineer's builds: times vary by "
             "tens of percent between runs; ratios within one row are measured back to back.")
    L.append(f"- Tools: {meta.get('llvm', '')} (`opt-22`, `llc-22`, `clang-22`, `ld.lld-22`, `llvm-size-22`); "
             f"{meta.get('rustc', '')}; {meta.get('qemu', '')} for the AArch64 smoke runs.")
    L.append(f"- Command: `{meta.get('command', '')}`. Raw data: `results.csv` (one row per target × program × "
             "configuration, with the exact command of each row).")
    L.append("")
    L.append("## How to read this")
    L.append("")
    L.append(
        "Every program's whole-program module is first optimised with `opt-22 -passes='default<Oz>'`; that "
        "module is the **baseline** of every configuration. **Object rows** (`baseline`, `mergefunc`, `gmf`, "
        "`fmerge*`, `outliner`, `fmerge+outliner`) give the `.text*` bytes of `llc-22 -filetype=obj` for the "
        "module (`fmerge size`; the outliner rows add `-enable-machine-outliner`), and their change is against "
        "`baseline`. **Linked rows** (`lld`, `icf`, `gmf+icf`, `fmerge+icf`) give the `.text` bytes of the "
        "executable linked by `ld.lld-22` from `llc-22 -O2 -relocation-model=pic -function-sections` objects "
        "(the corpus link recipe, crt files and libc stubs included), and their change is against `lld`, the "
        "baseline linked the same way without ICF. Negative is smaller. "
        "**merge s** is the merging step alone: fmerge's stage times (`stages[].seconds` of its report), the "
        "`MergeFunctionsPass`/`GlobalMergeFuncPass` line of `opt-22 -time-passes`, the `Machine Outliner` line "
        "of `llc-22 -time-passes`, lld's `ICF` phase (`--time-trace`); combinations add their parts. "
        "**ratio** is merge s / the wall time of `opt-22 -passes='default<Oz>'` on the same module in the same "
        "run (lower is cheaper). `opt default<Oz>`, `mergefunc`, `gmf` and the fmerge modes run "
        f"{meta.get('timing_runs', 1)} time(s) each and keep their fastest run (both sides of the ratio alike; "
        "`FMERGE_BENCH_TIMING_RUNS`). **process s** is the wall time of the whole tool process (parsing, writing, "
        "code generation for the llc/linked rows). **verify** is `opt-22 -passes=verify` on the produced "
        "module (llc/linked rows inherit their module's). **smoke** is the program's smoke workload "
        "(`fmbench corpus smoke`, outputs compared byte for byte with the reference build; AArch64 under qemu-user). "
        "A failed configuration is a row with its error, never a missing row.")
    L.append("")
    for t in targets:
        lab = TARGET_LABEL[t]
        L.append(f"## {lab}: `.text` change")
        L.append("")
        L.append(f"![.text reduction, {lab}]({chart_prefix}chart-{t}.svg)")
        L.append("")
        L.append("`baseline` and `lld` columns are bytes; the others are the change against `baseline` "
                 "(object columns) or `lld` (linked columns, right of `lld`).")
        L.append("")
        L.append("| program | " + " | ".join(f"`{c}`" for c in configs) + " |")
        L.append("|---|" + "---:|" * len(configs))
        for p in programs:
            L.append(f"| {p} | " + " | ".join(cell_pct(idx.get((t, p, c))) for c in configs) + " |")
        L.append("")
        L.append(f"## {lab}: merging time / `opt default<Oz>` time")
        L.append("")
        tc = [c for c in configs if c not in ("baseline", "lld")]
        L.append("| program | Oz s | " + " | ".join(f"`{c}`" for c in tc) + " |")
        L.append("|---|---:|" + "---:|" * len(tc))
        for p in programs:
            base = idx.get((t, p, "baseline"))
            cells = []
            for c in tc:
                r = idx.get((t, p, c))
                cells.append(f"{float(r['time_ratio']):.3f}" if r and r["time_ratio"] else
                             ("n/a" if r and r["status"] == "n/a" else ("**error**" if r and r["status"] == "error" else "")))
            L.append(f"| {p} | {float(base['oz_s']):.2f} | " if base and base["oz_s"] else f"| {p} | | ")
            L[-1] += " | ".join(cells) + " |"
        L.append("")
        L.append(f"## {lab}: details")
        L.append("")
        L.append("| program | config | .text bytes | Δ bytes | Δ % | merge s | ratio | process s | verify | smoke |")
        L.append("|---|---|---:|---:|---:|---:|---:|---:|---|---|")
        for p in programs:
            for c in configs:
                r = idx.get((t, p, c))
                if not r:
                    continue
                if r["status"] != "ok":
                    msg = "n/a" if r["status"] == "n/a" else "**error**"
                    L.append(f"| {p} | `{c}` | {msg} | | | | | | {r['verify']} | "
                             f"{'n/a: ' if r['status'] == 'n/a' else ''}{md_escape(r['error'])[:300]} |")
                    continue
                pct = f"{float(r['delta_pct']):+.3f}" if r["delta_pct"] != "" else ""
                smoke = r["smoke"] if not r["smoke"].startswith("FAIL") else "**" + r["smoke"].split(";")[0] + ")**"
                ver = r["verify"] if r["verify"] in ("ok", "n/a") else "**" + md_escape(r["verify"])[:120] + "**"
                db = f"{int(r['delta_bytes']):+,}" if r["delta_bytes"] != "" else ""
                L.append(f"| {p} | `{c}` | {int(r['text_bytes']):,} | {db} | {pct} | "
                         f"{float(r['merge_s']):.3f} | " if r["merge_s"] else
                         f"| {p} | `{c}` | {int(r['text_bytes']):,} | {db} | {pct} | | ")
                L[-1] += (f"{float(r['time_ratio']):.3f} | " if r["time_ratio"] else " | ")
                L[-1] += f"{float(r['process_s']):.2f} | {ver} | {md_escape(smoke)} |" if r["process_s"] else \
                    f" | {ver} | {md_escape(smoke)} |"
        L.append("")
    bad = [r for r in rows if r["status"] == "error" or not correct(r) or
           (r["config"] == "baseline" and r["error"])]
    L.append("## Failures")
    L.append("")
    if not bad:
        L.append("None: every configuration ran, verified and passed its smoke workload.")
    for r in bad:
        what = r["error"] if r["status"] == "error" else "; ".join(
            x for x in (r["verify"] if r["verify"].startswith("FAIL") else "",
                        r["smoke"] if r["smoke"].startswith("FAIL") else "", r["error"]) if x)
        L.append(f"- {TARGET_LABEL[r['target']]} {r['program']} `{r['config']}`: {md_escape(what)}  ")
        L.append(f"  reproduce: `{r['command']}`" if r["command"] else "")
    L.append("")
    L.append("## Configurations and exact commands")
    L.append("")
    L.append("`IN` = `build/corpus/<p>/<p>.bc` (x86-64) or `build/corpus-aarch64/<p>/<p>.bc` (AArch64), built by "
             "`python3 bench/fmbench corpus [--target aarch64] build <p>`; `W` = `build/bench/<target>/<p>`; "
             "`T` = the module's target triple.")
    L.append("")
    L.append("| config | what | command |")
    L.append("|---|---|---|")
    cmds = {
        "baseline": "`opt-22 -passes='default<Oz>' IN -o W/baseline.bc` (timed: the ratio's denominator)",
        "mergefunc": "`opt-22 -passes=mergefunc -time-passes W/baseline.bc -o W/mergefunc.bc`",
        "gmf": "`opt-22 -passes=global-merge-func -time-passes W/baseline.bc -o W/gmf.bc`",
        "fmerge-id": "`fmerge opt W/baseline.bc -o W/fmerge-id.bc --no-measure --timings --report R.json -q --merge identical`",
        "fmerge-idc": "`fmerge opt W/baseline.bc -o W/fmerge-idc.bc --no-measure --timings --report R.json -q --merge identical,constants`",
        "fmerge": "`fmerge opt W/baseline.bc -o W/fmerge.bc --no-measure --timings --report R.json -q`",
        "fmerge-wp": "`fmerge opt W/baseline.bc -o W/fmerge-wp.bc --no-measure --timings --report R.json -q --whole-program`",
        "outliner": "`llc-22 -mtriple=T -filetype=obj -enable-machine-outliner -time-passes W/baseline.bc -o W/outliner.o`",
        "fmerge+outliner": "`llc-22 -mtriple=T -filetype=obj -enable-machine-outliner -time-passes W/fmerge.bc -o W/fmerge+outliner.o`",
        "lld": "`fmbench corpus --target <t> link <p> W/baseline.bc -o W/lld.exe --llc-flag=-function-sections --link-flag=--ld-path=/usr/bin/ld.lld-22 --link-flag=-Wl,--icf=none`",
        "icf": "the same as `lld` with `-Wl,--icf=all`",
        "gmf+icf": "the same as `icf` on `W/gmf.bc`",
        "fmerge+icf": "the same as `icf` on `W/fmerge.bc`",
    }
    for c in configs:
        L.append(f"| `{c}` | {md_escape(CONFIG[c].desc)} | {md_escape(cmds[c])} |")
    L.append("")
    L.append("Sizes of object rows: `fmerge size M.bc --json --target T` (checked against `llc-22 -mtriple=T "
             "-filetype=obj` + `llvm-size-22 -A` on every baseline); outliner rows: `llvm-size-22 -A` of the "
             "object, sum of `.text*`; linked rows: `llvm-size-22 -A` of the executable, `.text`. Verifier: "
             "`opt-22 -passes=verify -disable-output M.bc`. Smoke: `fmbench corpus --target <t> smoke <p> --bc M.bc` "
             "(outliner rows add `--llc-flag=-enable-machine-outliner`; linked rows: `--exe W/<config>.exe`).")
    L.append("")
    return "\n".join(L)


# one colour per configuration: LLVM's mergers blue/orange, fmerge greens, outliner purples, ICF rows
# grey/red/brown
COLOURS = {"mergefunc": "#4e79a7", "gmf": "#f28e2b", "fmerge-id": "#a6d96a", "fmerge-idc": "#66bd63",
           "fmerge": "#1a9850", "fmerge-wp": "#006837", "outliner": "#c2a5cf", "fmerge+outliner": "#762a83",
           "icf": "#9e9e9e", "gmf+icf": "#e15759", "fmerge+icf": "#8c564b"}


def esc(s: str) -> str:
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_svg(rows: list[dict], target: str) -> str:
    rows = [r for r in rows if r["target"] == target]
    configs = [c.name for c in CONFIGS if c.name not in ("baseline", "lld") and any(r["config"] == c.name for r in rows)]
    programs = [p for p in PROGRAMS if any(r["program"] == p for r in rows)]
    idx = {(r["program"], r["config"]): r for r in rows}
    vals = {}
    for k, r in idx.items():
        if ok(r) and r["delta_pct"] != "" and k[1] in configs:
            vals[k] = -float(r["delta_pct"])  # reduction: positive = smaller
    hi = max([0.5, *vals.values()])
    lo = min([0.0, *vals.values()])
    step = next(s for s in (0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50) if (hi - lo) / s <= 10)
    hi = step * -(-hi // step)
    lo = step * (lo // step)
    bw, gap = 9, 16
    gw = bw * len(configs) + gap
    left, top, ph = 64, 70, 300
    legend_rows = -(-len(configs) // 5)
    width = max(left + gw * max(1, len(programs)) + 20, 980)
    height = top + ph + 40 + 20 * legend_rows + 16

    def y(v: float) -> float:
        return top + ph * (hi - v) / (hi - lo)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
         f'<rect width="{width}" height="{height}" fill="white"/>',
         f'<text x="{left}" y="20" font-size="14" font-weight="bold">{esc(TARGET_LABEL[target])}: .text reduction '
         f'per program and configuration (%, higher is smaller code)</text>',
         f'<text x="{left}" y="36" fill="#555">object-file configurations against the default&lt;Oz&gt; baseline; '
         f'icf configurations: linked executables against the baseline linked by ld.lld without ICF</text>',
         f'<text x="{left}" y="50" fill="#555">× = error, verifier or smoke failure (see RESULTS.md); '
         f'no bar and no × = not applicable</text>']
    v = lo
    while v <= hi + 1e-9:
        yy = y(v)
        o.append(f'<line x1="{left}" x2="{width - 20}" y1="{yy:.1f}" y2="{yy:.1f}" '
                 f'stroke="{"#333" if abs(v) < 1e-9 else "#ddd"}" stroke-width="1"/>')
        o.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{v:g}%</text>')
        v += step
    for i, p in enumerate(programs):
        x0 = left + i * gw + gap / 2
        for j, c in enumerate(configs):
            x = x0 + j * bw
            r = idx.get((p, c))
            if (p, c) in vals:
                val = vals[(p, c)]
                y1, y2 = sorted((y(0), y(val)))
                o.append(f'<rect x="{x:.1f}" y="{y1:.1f}" width="{bw - 1}" height="{max(y2 - y1, 0.5):.1f}" '
                         f'fill="{COLOURS.get(c, "#333")}"><title>{esc(p)} {esc(c)}: {-val:+.3f}% '
                         f'({esc(r["text_bytes"])} bytes)</title></rect>')
                if not correct(r):
                    o.append(f'<text x="{x + bw / 2 - 0.5:.1f}" y="{min(y1, y(0)) - 3:.1f}" text-anchor="middle" '
                             f'fill="#c00" font-weight="bold">×</text>')
            elif r is not None and r["status"] == "error":
                o.append(f'<text x="{x + bw / 2 - 0.5:.1f}" y="{y(0) - 3:.1f}" text-anchor="middle" fill="#c00" '
                         f'font-weight="bold"><title>{esc(p)} {esc(c)}: {esc(r["error"][:200])}</title>×</text>')
        o.append(f'<text x="{x0 + (gw - gap) / 2:.1f}" y="{top + ph + 16}" text-anchor="middle">{esc(p)}</text>')
    ly = top + ph + 36
    for j, c in enumerate(configs):
        lx = left + (j % 5) * 150
        yy = ly + (j // 5) * 20
        o.append(f'<rect x="{lx}" y="{yy - 9}" width="10" height="10" fill="{COLOURS.get(c, "#333")}"/>')
        o.append(f'<text x="{lx + 14}" y="{yy}">{esc(c)}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


def complete(rows: list[dict], meta: dict) -> list[dict]:
    """Rows for every planned target x program x configuration: a run stopped before the end
    leaves rows that say so instead of missing rows."""
    have = {(r["target"], r["program"], r["config"]) for r in rows}
    out = list(rows)
    for t in meta.get("targets", []):
        for p in meta.get("programs", []):
            for c in meta.get("configs", []):
                if (t, p, c) not in have:
                    r = {f: "" for f in FIELDS}
                    r.update(target=t, program=p, config=c, kind=CONFIG[c].kind, status="error", verify="n/a",
                             smoke="n/a", error=meta.get("stopped_reason") or "not run (the run did not reach it)")
                    out.append(r)
    return out


def load(outdir: Path, meta: dict | None = None) -> tuple[list[dict], dict]:
    meta = meta or json.loads((outdir / "meta.json").read_text())
    return complete(read_csv(outdir / "results.csv"), meta), meta


def render(outdir: Path, meta: dict | None = None, chart_prefix: str = "") -> None:
    rows, meta = load(outdir, meta)
    for t in TARGETS:
        if any(r["target"] == t for r in rows):
            (outdir / f"chart-{t}.svg").write_text(render_svg(rows, t))
    (outdir / "results.md").write_text(render_md(rows, meta, outdir, chart_prefix))


APPENDIX = "## Appendix: the side-by-side benchmark, every row"


def with_appendix(results: str, md: str, outdir: Path) -> str:
    """bench/RESULTS.md with its appendix (from APPENDIX to the end) replaced by the tables of
    one run, their headings one level down; everything above the appendix is written by people
    and kept as it is."""
    head = results.split("\n" + APPENDIX + "\n", 1)[0] if APPENDIX in results else results.rstrip() + "\n"
    lines = md.splitlines()
    if lines and lines[0].startswith("# "):  # the run's own title: the appendix heading stands for it
        lines = lines[1:]
    demoted = "\n".join("#" + line if line.startswith("#") else line for line in lines)
    intro = (f"\n{APPENDIX}\n\nThe output of `python3 bench/fmbench sizes publish {rel(outdir)}` (the last full\n"
             f"`make bench`; `{rel(outdir)}/results.md` holds the same tables, `results.csv` the raw\n"
             f"data with the exact command of each row). A new full run replaces this appendix.\n\n")
    return head.rstrip("\n") + "\n" + intro + demoted.strip("\n") + "\n"


def publish(outdir: Path) -> None:
    rows, meta = load(outdir)
    md = render_md(rows, meta, outdir)
    notes = outdir / "notes.md"
    if notes.exists():  # observations written by a person about this run, published with it
        md = md.replace("\n## How to read this\n", "\n" + notes.read_text().strip() + "\n\n## How to read this\n", 1)
    (BENCH / "RESULTS.md").write_text(with_appendix((BENCH / "RESULTS.md").read_text(), md, outdir))
    for t in TARGETS:
        f = outdir / f"chart-{t}.svg"
        if f.exists():
            shutil.copy2(f, BENCH / f"chart-{t}.svg")
    log(f"published {rel(outdir)} to bench/RESULTS.md")
