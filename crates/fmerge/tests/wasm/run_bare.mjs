// Calls the exports of a freestanding module (bare.c) and prints what they return.
import { readFile } from 'node:fs/promises';
const { instance } = await WebAssembly.instantiate(await readFile(process.argv[2]), {});
const e = instance.exports;
const out = [];
for (let w = 0; w < 3; w++) for (let x = 1; x < 40; x += 7) out.push(e.mix(w, x, x * 3));
for (let w = 0; w < 3; w++) for (let n = 0; n < 70; n += 9) out.push(e.reduce(w, n));
out.push(e.same_address());
console.log(out.join(' '));
