// A call that fails leaves nothing in the module for the next call to
// see: every way an argument can fail to be sent (toJSON giving no JSON
// value, a getter that throws, a BigInt, a cycle, nesting past the stack,
// NaN and ±Infinity) is refused before anything is written, in plain
// words with code invalid_input, and the call after it answers exactly as
// it does alone (beside `citecheck quotes` and `citecheck annotations`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsDir, goCLI, needWasm } from './helpers.js';

needWasm();
const cc = await import(join(jsDir, 'node.js'));
await cc.init();
const scratch = mkdtempSync(join(tmpdir(), 'citecheck-isolation-'));

function go(args, input) {
  const r = spawnSync(goCLI(), [...args, '-'], { input });
  return r.stdout.toString();
}

const guilt = 'The defendant admitted guilt.';
const cycle = { citations: [] };
cycle.citations.push(cycle);
let deep = { citations: [] };
for (let i = 0; i < 1e5; i++) deep = { a: deep };

// Each failure kind: the value, and what its refusal says (null: the
// value's own error, which propagates as it is).
const failures = [
  ['toJSON giving undefined', { toJSON() {} }, /^citecheck: the text is not a JSON value: its toJSON gives no object/],
  ['toJSON giving a function', { toJSON() { return () => 1; } }, /^citecheck: the text is not a JSON value/],
  ['toJSON giving a symbol', { toJSON() { return Symbol('s'); } }, /^citecheck: the text is not a JSON value/],
  ['a BigInt', { citations: [{ source_id: 1n, quote: guilt }] }, /^citecheck: the text: \/citations\/0\/source_id is a BigInt, which JSON has no number for/],
  ['a cycle', cycle, /^citecheck: the text: \/citations\/0 holds itself \(a cycle\)/],
  ['nesting past the stack', deep, /^citecheck: the text is nested more than 1000 deep/],
  ['NaN', { citations: [{ source_id: NaN, quote: guilt }] }, /^citecheck: the text: \/citations\/0\/source_id is NaN, which is not a finite number/],
  ['Infinity', { citations: [{ source_id: 'a', quote: guilt, n: Infinity }] }, /^citecheck: the text: \/citations\/0\/n is Infinity, which is not a finite number/],
  ['-Infinity in a key with / and ~', { 'a/b~c': -Infinity }, /^citecheck: the text: \/a~1b~0c is -Infinity/],
  ['a throwing getter', { get citations() { throw new RangeError('the getter\'s own'); } }, null],
];

test('a call refused for its argument leaves nothing behind: the next call answers as if alone', () => {
  const alone = go(['quotes', '--source', `b=${writeTemp('b.txt', 'Nothing here.')}`], `“${guilt}” [a]`);
  assert.match(alone, /"outcome":"no_source"/);
  const annotation = `[{"id":"x","target":{"source":"a","selector":{"type":"TextQuoteSelector","exact":"guilt"}}}]`;
  const annotationAlone = go(['annotations', '--source', `b=${writeTemp('b.txt', 'Nothing here.')}`], annotation);
  for (const [name, bad, words] of failures) {
    for (const call of [
      () => cc.quotes(bad, { sources: { a: guilt } }),
      () => cc.quotes('“x” [a]', { sources: { a: guilt }, request: bad }),
      () => cc.annotations(bad, { sources: { a: guilt } }),
    ]) {
      assert.throws(call, (e) => words === null
        ? e instanceof RangeError && e.message === 'the getter\'s own'
        : e instanceof cc.CitecheckError && e.code === 'invalid_input' && words.test(e.message.replace('the request', 'the text').replace('the export', 'the text')), name);
      assert.equal(cc.quotes(`“${guilt}” [a]`, { sources: { b: 'Nothing here.' } }), alone, name);
      assert.equal(cc.annotations(annotation, { sources: { b: 'Nothing here.' } }), annotationAlone, name);
    }
    if (words !== null) {
      assert.throws(() => cc.check(bad), (e) => e instanceof cc.CitecheckError && e.code === 'invalid_input' && words.test(e.message.replace('the body', 'the text')), name);
    }
  }
});

test('an object body nested 1000 deep is sent; 1001 deep is refused', () => {
  const nest = (n) => { let d = 0; for (let i = 0; i < n; i++) d = [d]; return d; };
  assert.match(cc.checkRaw({ sources: nest(999) }), /^\{"error":\{"code":"invalid_input"/);
  assert.throws(() => cc.checkRaw({ sources: nest(1000) }), (e) => e instanceof cc.CitecheckError && e.code === 'invalid_input' && e.message === 'citecheck: the body is nested more than 1000 deep, which the package does not write as JSON');
});

test('a source id that is empty is refused, as the command cannot name one', () => {
  assert.throws(() => cc.quotes(`“${guilt}”`, { sources: { '': guilt } }),
    (e) => e instanceof cc.CitecheckError && e.code === 'invalid_input' && /a source's id is empty/.test(e.message));
  assert.throws(() => cc.verbatimQuote(new Map([['', guilt]])),
    (e) => e instanceof cc.CitecheckError && e.code === 'invalid_input' && /a source's id is empty/.test(e.message));
});

function writeTemp(name, content) {
  const f = join(scratch, name);
  writeFileSync(f, content);
  return f;
}

test.after(() => rmSync(scratch, { recursive: true, force: true }));
