// core language features and built-ins (deterministic output only)
const out = (...a) => console.log(...a);
class Shape {
  #id;
  static count = 0;
  constructor(name) { this.name = name; this.#id = ++Shape.count; }
  get id() { return this.#id; }
  area() { return 0; }
  toString() { return `${this.name}#${this.#id}(${this.area().toFixed(3)})`; }
  static compare(a, b) { return a.area() - b.area(); }
}
class Circle extends Shape { constructor(r) { super("circle"); this.r = r; } area() { return Math.PI * this.r ** 2; } }
class Rect extends Shape {
  constructor(w, h) { super("rect"); Object.assign(this, { w, h }); }
  area() { return this.w * this.h; }
  *[Symbol.iterator]() { yield this.w; yield this.h; }
}
const shapes = [new Circle(1), new Rect(2, 3), new Circle(0.5), new Rect(1, 1)];
out(shapes.sort(Shape.compare).map(String).join(" "), [...shapes[3]], Shape.count, shapes[0] instanceof Shape);
const { a, b: [, second, ...rest], c = "default", ...others } = { a: 1, b: [1, 2, 3, 4], d: 5, e: 6 };
out(a, second, rest, c, JSON.stringify(others));
function* fib() { let [x, y] = [0n, 1n]; for (;;) { yield x; [x, y] = [y, x + y]; } }
const fibs = [];
for (const v of fib()) { if (fibs.length >= 100) break; fibs.push(v); }
out(fibs[99].toString(), (2n ** 200n).toString(16), BigInt.asUintN(64, -1n), 7n / 2n, -7n % 3n);
const m = new Map([["x", 1], ["y", 2]]); m.set({}, 3); m.delete("x");
const s = new Set("mississippi");
out(m.size, [...m.keys()].filter(k => typeof k === "string"), [...s].join(""), s.has("s"));
const sym = Symbol("tag");
const obj = { [sym]: 1, regular: 2, get computed() { return this.regular * 10; }, set computed(v) { this.regular = v; } };
obj.computed = 7;
out(obj.computed, Object.keys(obj), Object.getOwnPropertySymbols(obj).length, sym.description);
const logged = [];
const proxy = new Proxy({ v: 1 }, {
  get(t, k, r) { logged.push(`get ${String(k)}`); return Reflect.get(t, k, r); },
  set(t, k, v) { logged.push(`set ${String(k)}=${v}`); t[k] = v * 2; return true; },
  has(t, k) { return k.startsWith("v"); },
});
proxy.w = 5;
out(proxy.v, proxy.w, "vx" in proxy, "x" in proxy, logged.join(","));
const tag = (strs, ...vals) => strs.raw.map((s, i) => s + (i < vals.length ? `[${vals[i]}]` : "")).join("");
out(tag`a${1}b${"two"}c\n`, `multi
line`, String.raw`\t${1 + 1}`);
out(obj?.missing?.deep, obj.missing ?? "nullish", 0 || "or", 0 ?? "zero kept", typeof undefined, typeof null);
let x = null; x ??= 5; x ||= 6; x &&= x + 1; out(x);
outer: for (let i = 0; i < 3; i++) { for (let j = 0; j < 3; j++) { if (j === 2) continue outer; if (i === 2) break outer; out("loop", i, j); } }
try { null.f(); } catch (e) { out(e instanceof TypeError, e.name); }
try { throw new RangeError("bad range", { cause: "why" }); } catch ({ name, message, cause }) { out(name, message, cause); }
try { JSON.parse("{bad"); } catch (e) { out(e.name); } finally { out("finally"); }
class MyErr extends Error { constructor(m) { super(m); this.name = "MyErr"; } }
try { throw new MyErr("custom"); } catch (e) { out(String(e), e instanceof Error, e.stack.split("\n")[0]); }
const ab = new ArrayBuffer(16), dv = new DataView(ab), u8 = new Uint8Array(ab), f32 = new Float32Array(ab, 4, 2);
dv.setUint32(0, 0xdeadbeef, true); f32[0] = 1.5; f32[1] = -2.25;
out([...u8].map(v => v.toString(16).padStart(2, "0")).join(""), dv.getInt16(0, false), f32.join(","));
const i32 = Int32Array.from({ length: 10 }, (_, i) => (i * 7919) % 101 - 50);
out(i32.sort().join(","), i32.subarray(2, 5).join(","), new BigInt64Array([5n, -3n]).join(","), Uint8ClampedArray.of(300, -5, 1.5).join(","));
out(JSON.stringify({ a: [1, { b: 2 }], c: "x\u2028y", d: undefined, e: () => 1, f: new Date(0) }, null, 1));
out(JSON.stringify(JSON.parse('{"n":1e300,"neg":-0,"s":"\\u00e9","arr":[true,false,null]}', (k, v) => typeof v === "number" ? v * 2 : v)));
const d = new Date(Date.UTC(2024, 1, 29, 13, 45, 30, 123));
out(d.toISOString(), d.getTime(), d.getUTCDay(), new Date("2020-01-01T00:00:00Z").valueOf(), Date.UTC(1970, 0, 1));
out((1234.5678).toFixed(2), (0.000123).toExponential(2), (123.456).toPrecision(4), (255).toString(2), (255).toString(36), Number("0x1f"), parseInt("08"), parseFloat("3.14abc"));
out(0.1 + 0.2, 1 / 3, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, Number.EPSILON > 0, -0 === 0, Object.is(-0, 0), NaN !== NaN, 1e21, 1e-7, 123e-20);
out(Math.max(1, 5, 3), Math.min(), Math.round(-2.5), Math.trunc(-4.7), Math.sign(-3), Math.hypot(3, 4), Math.cbrt(27), Math.clz32(1), Math.fround(5.5), Math.imul(3, 4));
out([3, 1, 2].toSorted(), [1, [2, [3, [4]]]].flat(Infinity), [1, 2, 3, 4].findLast(v => v % 2), [1, 2, 3].at(-1), Array.from("abc", c => c + c), [..."ab"].entries().next().value);
out([5, 1, 10, 2].sort(), [5, 1, 10, 2].sort((p, q) => p - q), [1, 2, 3, 4, 5].reduce((p, q) => p * q), [[1, "a"], [2, "b"]].map(([n, l]) => l.repeat(n)).join());
const people = [{ n: "z", g: 1 }, { n: "y", g: 2 }, { n: "x", g: 1 }, { n: "w", g: 2 }];
out(JSON.stringify(people.sort((p, q) => p.g - q.g)), JSON.stringify(Object.groupBy(people, p => p.g)));
out("Hello, World".replace(/o/g, "0"), "a-b_c d".split(/[-_ ]/), "abc".padEnd(6, "*"), "  trim  ".trim() + "|", "ß".toUpperCase(), "İ".toLowerCase().length, "abc".localeCompare("abd"), "x".codePointAt(0), String.fromCodePoint(128512).length);
out("2024-02-29".match(/(?<y>\d{4})-(?<m>\d\d)-(?<d>\d\d)/).groups.m, "price: $42, $7".match(/(?<=\$)\d+/g), /\p{L}+/u.exec("123 héllo")[0], "aaa".replaceAll("a", "b"), [..."a1b2c3".matchAll(/[a-z](\d)/g)].map(m => m[1]).join(""));
const sticky = /foo/y; sticky.lastIndex = 3; out(sticky.test("barfoo"), sticky.lastIndex, /a.c/s.test("a\nc"), /^b/m.test("a\nb"), RegExp("x+", "gi").flags, /(a)|(b)/.exec("b"));
out(encodeURIComponent("a b&c=d/é"), decodeURIComponent("%E2%82%AC"), escape ? "escape" : "", btoa ? "btoa" : "no btoa");
const wm = new WeakMap(); const key = {}; wm.set(key, "v"); out(wm.get(key), wm.has({}));
out(Object.entries({ b: 2, a: 1 }), Object.fromEntries([["k", "v"]]), Object.freeze([1]).length, Object.isFrozen(Object.freeze({})));
label: { out("in block"); break label; }
out([1, 2, 3].includes(NaN), [NaN].includes(NaN), [NaN].indexOf(NaN), Array.isArray([]), typeof Symbol.iterator, typeof 1n);
