// fmerge speed benchmark, QuickJS TIMING workload (a different mix from qjs_train.js).
const N = Number(scriptArgs[1] || 1);
let seed = 777;
function rnd(m) { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % m; }
class Vec { constructor(x, y) { this.x = x; this.y = y; }
  add(o) { return new Vec(this.x + o.x, this.y + o.y); } norm() { return this.x * this.x + this.y * this.y; } }
const out = [];
for (let rep = 0; rep < N; rep++) {
  const recs = [];
  for (let i = 0; i < 6000; i++) recs.push({ name: "n" + rnd(500), age: rnd(90), id: i });
  recs.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : b.id - a.id);
  const vs = [];
  for (let i = 0; i < 4000; i++) vs.push(new Vec(rnd(1000) - 500, rnd(1000) - 500));
  vs.sort((a, b) => a.norm() - b.norm());
  const sum = vs.reduce((p, v) => p.add(v), new Vec(0, 0));
  const m = new Map(), st = new Set();
  for (let i = 0; i < 15000; i++) { const k = "k" + rnd(3000); m.set(k, (m.get(k) || 0) + 1); st.add(i % 1234); }
  let hs = 0; for (const [k, v] of m) hs += v * k.length;
  const js = JSON.stringify(recs.slice(0, 1500));
  const back = JSON.parse(js);
  const words = js.match(/"n\d+"/g).length;
  const parts = []; for (let i = 0; i < 4000; i++) parts.push(`${i}:${(i / 7).toFixed(2)}`);
  const joined = parts.join(";").split(";").map(p => p.split(":")[1]).filter(x => x.endsWith("1")).length;
  out.push([recs[0].name, sum.x, sum.y, hs, st.size, back.length, words, joined].join(" "));
}
console.log(out[0]); console.log(out.length);
