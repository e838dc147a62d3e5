// Run by test/runtimes.test.js under Deno and Bun, in a folder where the
// packed package is installed: every golden (one JSON object a line, the
// file named by the argument) through checkRaw, checkAllRaw and explainRaw.
import { init, checkRaw, checkAllRaw, explainRaw } from 'citecheck';
import { readFileSync } from 'node:fs';
await init();
const enc = new TextEncoder();
const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
const b = (s) => Uint8Array.from(atob(s ?? ''), (c) => c.charCodeAt(0));
const eq = (x, y) => x.length === y.length && x.every((v, i) => v === y[i]);
let differ = [];
for (const l of lines) {
  const g = JSON.parse(l);
  const body = b(g.body);
  if (!eq(enc.encode(checkRaw(body)), b(g.execute))) differ.push('execute ' + g.name);
  if (!eq(enc.encode(checkAllRaw(body) + '\n'), b(g.all))) differ.push('all ' + g.name);
  if (!eq(enc.encode(explainRaw(body) + '\n'), b(g.explain))) differ.push('explain ' + g.name);
}
console.log(JSON.stringify({ checked: lines.length, differ }));
