// small programs: tokenizer + interpreter, sorting, string processing, JSON, ASCII fractal
function tokenize(src) {
  const re = /\s*(?:(\d+\.?\d*)|([A-Za-z_]\w*)|(\*\*|[-+*\/%()=,;<>]))/y;
  const toks = [];
  let m;
  while (re.lastIndex < src.length && (m = re.exec(src))) toks.push(m[1] !== undefined ? { t: "num", v: +m[1] } : m[2] !== undefined ? { t: "id", v: m[2] } : { t: "op", v: m[3] });
  return toks;
}
function evaluate(src, env) {
  const toks = tokenize(src); let i = 0;
  const peek = () => toks[i], next = () => toks[i++];
  const prec = { "<": 1, ">": 1, "+": 2, "-": 2, "*": 3, "/": 3, "%": 3, "**": 4 };
  function primary() {
    const t = next();
    if (t.t === "num") return t.v;
    if (t.v === "(") { const v = expr(0); next(); return v; }
    if (t.v === "-") return -primary();
    if (peek() && peek().v === "(") {
      next(); const args = [];
      while (peek().v !== ")") { args.push(expr(0)); if (peek().v === ",") next(); }
      next(); return env[t.v](...args);
    }
    return env[t.v];
  }
  function expr(minp) {
    let lhs = primary();
    while (peek() && prec[peek().v] > minp) {
      const op = next().v, rhs = expr(op === "**" ? prec[op] - 1 : prec[op]);
      lhs = { "+": lhs + rhs, "-": lhs - rhs, "*": lhs * rhs, "/": lhs / rhs, "%": lhs % rhs, "**": lhs ** rhs, "<": +(lhs < rhs), ">": +(lhs > rhs) }[op];
    }
    return lhs;
  }
  let last;
  while (i < toks.length) {
    if (toks[i + 1] && toks[i + 1].v === "=") { const name = next().v; next(); last = env[name] = expr(0); }
    else last = expr(0);
    if (peek() && peek().v === ";") next();
  }
  return last;
}
const env = { max: Math.max, sqrt: Math.sqrt };
console.log(evaluate("x = 3; y = 4; sqrt(x*x + y*y) * 2 ** 3 ** 0 + max(1, 7, 2) % 4 - -1", env), env.x, env.y);
console.log(evaluate("(1 + 2) * (3 + 4) / 7 > 2", env));

let seed = 12345;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const arr = Array.from({ length: 100000 }, () => Math.floor(rand() * 1e6));
const sorted = arr.slice().sort((a, b) => a - b);
let sum = 0; for (const v of sorted) sum = (sum * 31 + v) % 1000000007;
console.log("sorted", sorted[0], sorted[50000], sorted[99999], sum);
function mergesort(a) {
  if (a.length < 2) return a;
  const mid = a.length >> 1, l = mergesort(a.slice(0, mid)), r = mergesort(a.slice(mid)), res = [];
  let i = 0, j = 0;
  while (i < l.length && j < r.length) res.push(l[i] <= r[j] ? l[i++] : r[j++]);
  return res.concat(l.slice(i), r.slice(j));
}
console.log("mergesort agrees", mergesort(arr.slice(0, 20000)).join() === arr.slice(0, 20000).sort((a, b) => a - b).join());

const text = "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness".repeat(50);
const freq = {};
for (const w of text.toLowerCase().match(/[a-z]+/g)) freq[w] = (freq[w] || 0) + 1;
console.log(Object.entries(freq).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 5).map(e => e.join(":")).join(" "));
console.log(text.replace(/\b(\w)(\w*)\b/g, (m, f, r) => f.toUpperCase() + r).slice(0, 60));

const big = { list: [] };
for (let i = 0; i < 2000; i++) big.list.push({ id: i, name: "item" + i, tags: ["t" + (i % 7), "u" + (i % 3)], score: (i * 7919) % 1000 / 10 });
const js = JSON.stringify(big), back = JSON.parse(js);
console.log("json", js.length, back.list[1999].name, back.list.reduce((s, o) => s + o.score, 0).toFixed(1));

const rows = [];
for (let y = -1; y <= 1.0001; y += 0.1) {
  let line = "";
  for (let x = -2; x <= 0.6; x += 0.04) {
    let zr = 0, zi = 0, k = 0;
    while (k < 40 && zr * zr + zi * zi < 4) { [zr, zi] = [zr * zr - zi * zi + x, 2 * zr * zi + y]; k++; }
    line += " .:-=+*#%@"[Math.min(9, Math.floor(k / 4))];
  }
  rows.push(line.trimEnd());
}
console.log(rows.join("\n"));
const memo = new Map();
const ways = (n, k) => { if (n === 0) return 1n; if (n < 0 || k === 0) return 0n; const key = n * 1000 + k; if (!memo.has(key)) memo.set(key, ways(n - k, k) + ways(n, k - 1)); return memo.get(key); };
console.log("partitions(400) =", ways(400, 400).toString());
