// The package's answers are the Go engine's, byte for byte, on every
// public conformance case, every JSON parsing case and every example:
// checkRaw against the HTTP execute route, checkAllRaw and explainRaw
// against `citecheck run --all` and `--explain` (the Go answers are made
// anew by internal/goldens on each run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goldens, needWasm } from './helpers.js';
import { init, checkRaw, checkAllRaw, explainRaw, check } from '../node.js';

needWasm();
const cases = goldens();
await init();

const utf8 = new TextDecoder('utf-8', { fatal: true });
const bytesOf = (s) => Buffer.from(s, 'utf8');

function same(got, want, what) {
  if (!got.equals(want)) {
    assert.fail(`${what}:\n  wasm: ${got.toString('utf8').slice(0, 400)}\n  go:   ${want.toString('utf8').slice(0, 400)}`);
  }
}

test('the Go answers cover the suites', () => {
  assert.ok(cases.filter((c) => c.name.startsWith('conformance/')).length >= 100, 'conformance cases');
  assert.ok(cases.filter((c) => c.name.startsWith('test_parsing/')).length >= 300, 'JSON parsing cases');
  assert.ok(cases.some((c) => c.name.startsWith('examples/')), 'examples');
});

test('checkRaw on bytes is the execute route byte for byte', () => {
  for (const c of cases) same(bytesOf(checkRaw(new Uint8Array(c.body))), c.execute, c.name);
});

test('checkRaw on a string is the route answer for its UTF-8 bytes', () => {
  let n = 0;
  for (const c of cases) {
    let s;
    try { s = utf8.decode(c.body); } catch { continue; } // not UTF-8: only bytes say it
    if (!Buffer.from(s, 'utf8').equals(c.body)) continue; // a BOM the decoder took
    same(bytesOf(checkRaw(s)), c.execute, c.name);
    n++;
  }
  assert.ok(n > 300, `only ${n} UTF-8 bodies`);
});

test('checkAllRaw is run --all byte for byte', () => {
  for (const c of cases) same(bytesOf(checkAllRaw(c.body) + '\n'), c.all, c.name);
});

test('explainRaw is run --explain byte for byte', () => {
  for (const c of cases) same(bytesOf(explainRaw(c.body) + '\n'), c.explain, c.name);
});

test('check is checkRaw parsed', () => {
  for (const c of cases.slice(0, 50)) assert.deepEqual(check(c.body), JSON.parse(c.execute.toString('utf8')), c.name);
});
