// promises, async functions, async generators, microtask ordering
const log = [];
const p = (v, ms) => new Promise(res => Promise.resolve().then(() => res(v)));
async function worker(name, n) {
  let total = 0;
  for (let i = 0; i < n; i++) { total += await p(i); log.push(`${name}${i}`); }
  return `${name}=${total}`;
}
async function* countdown(n) { while (n > 0) { yield await p(n); n--; } }
(async () => {
  log.push("start");
  const results = await Promise.all([worker("a", 3), worker("b", 2)]);
  log.push(...results);
  const settled = await Promise.allSettled([p(1), Promise.reject(new Error("nope")), p(3)]);
  log.push(settled.map(s => s.status + ":" + (s.value ?? s.reason.message)).join(","));
  log.push(await Promise.race([p("race1"), new Promise(() => {})]));
  log.push(await Promise.any([Promise.reject(1), p("any2")]));
  try { await Promise.any([Promise.reject(1), Promise.reject(2)]); } catch (e) { log.push(e.constructor.name + ":" + e.errors.join("+")); }
  const seq = [];
  for await (const v of countdown(4)) seq.push(v);
  log.push("countdown " + seq.join(""));
  try { await (async () => { throw new TypeError("async throw"); })(); } catch (e) { log.push("caught " + e.message); }
  const { promise, resolve } = Promise.withResolvers();
  Promise.resolve().then(() => resolve("resolved later"));
  log.push(await promise);
  console.log(log.join("\n"));
})();
Promise.resolve().then(() => log.push("micro1")).then(() => log.push("micro3"));
queueMicrotask(() => log.push("micro2"));
log.push("sync end");
