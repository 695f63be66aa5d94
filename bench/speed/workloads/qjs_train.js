// fmerge speed benchmark, QuickJS TRAINING workload (PGO profile only).
const N = Number(scriptArgs[1] || 1);
let acc = 0, seed = 12345;
function rnd(m) { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % m; }
for (let rep = 0; rep < N; rep++) {
  const a = [];
  for (let i = 0; i < 20000; i++) a.push(rnd(1000000));
  a.sort((x, y) => x - y);
  acc += a[0] + a[a.length - 1];
  let s = "";
  for (let i = 0; i < 5000; i++) s += i.toString(16) + ",";
  acc += s.replace(/[a-f]+/g, "#").length;
  const o = {};
  for (let i = 0; i < 10000; i++) o["k" + (i % 777)] = (o["k" + (i % 777)] || 0) + i;
  for (const k in o) acc += o[k] % 13;
  const f = (n) => n < 2 ? n : f(n - 1) + f(n - 2);
  acc += f(18);
}
console.log("train", acc);
