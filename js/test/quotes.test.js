// quotes beside `citecheck quotes` (the Go CLI built from this checkout)
// on the repository's examples and on refusals; the Anthropic TypeScript
// SDK's Message objects, made by the real SDK from a recorded response
// and from a recorded stream (citations_delta events) served by a custom
// fetch; verbatimQuote in Zod 4 and Zod 3 schemas; and the JavaScript
// sections of docs/frameworks.md, run as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { jsDir, repoDir, goCLI, needWasm } from './helpers.js';

needWasm();
const cc = await import(join(jsDir, 'node.js'));
await cc.init();

const ex = (f) => join(repoDir, 'examples', 'quotes', f);
const scratch = mkdtempSync(join(tmpdir(), 'citecheck-quotes-'));

// goQuotes is `citecheck quotes ARGS` on input: its standard output,
// standard error and exit status.
function goQuotes(args, input) {
  const r = spawnSync(goCLI(), ['quotes', ...args, '-'], { input, maxBuffer: 1 << 28 });
  return { stdout: r.stdout.toString(), stderr: r.stderr.toString(), status: r.status };
}

// sourceArgs writes sources ({id: text}) to files and returns the
// command line that gives them.
function sourceArgs(sources) {
  return Object.entries(sources).flatMap(([id, text], i) => {
    const f = join(scratch, `source-${i}.txt`);
    writeFileSync(f, text);
    return ['--source', `${id}=${f}`];
  });
}

const manifest = readFileSync(ex('sources.tsv'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
const sources = Object.fromEntries(manifest.map((l) => l.split('\t')).map(([id, f]) => [id, readFileSync(ex(f), 'utf8')]));
const request = JSON.parse(readFileSync(ex('anthropic-request.json'), 'utf8'));
const requestFile = ex('anthropic-request.json');

test('quotes writes the lines of citecheck quotes for a report, a structured answer and an Anthropic response', () => {
  const report = readFileSync(ex('report.md'));
  for (const explain of [false, true]) {
    const flag = explain ? ['--explain'] : [];
    const go = goQuotes(['--sources', ex('sources.tsv'), ...flag], report);
    assert.equal(go.status, 1);
    assert.equal(cc.quotes(report.toString(), { sources, explain }), go.stdout);
    assert.equal(cc.quotes(report, { sources: new Map(Object.entries(sources)), explain }), go.stdout);
    const answer = readFileSync(ex('answer.json'));
    assert.equal(cc.quotes(JSON.parse(answer), { sources, explain }), goQuotes(['--sources', ex('sources.tsv'), ...flag], JSON.stringify(JSON.parse(answer))).stdout);
    const response = readFileSync(ex('anthropic-response.json'));
    const want = goQuotes(['--request', requestFile, ...flag], response).stdout;
    assert.match(want, /"outcome":"moved"/);
    assert.equal(cc.quotes(response.toString(), { request, explain }), want);
    assert.equal(cc.quotes(JSON.parse(response), { request: readFileSync(requestFile), explain }), goQuotes(['--request', requestFile, ...flag], JSON.stringify(JSON.parse(response))).stdout);
  }
});

// A quote one character off is refused and a verbatim one accepted, by
// the outcome the command gives.
test('quotes refuses a quote one character off and accepts a verbatim one', () => {
  const src = { 1: 'The quick brown fox jumps over the lazy dog.' };
  for (const [quote, outcome] of [['quick brown fox', 'verbatim'], ['quick brown fix', 'not_found'], ['quick  brown fox', 'near']]) {
    const answer = JSON.stringify({ citations: [{ source_id: '1', quote }] });
    const lines = cc.quotes(answer, { sources: src, explain: true });
    assert.equal(lines, goQuotes(['--explain', ...sourceArgs(src)], answer).stdout);
    assert.equal(JSON.parse(lines).outcome, outcome, quote);
  }
});

test('quotes refuses what the command refuses, with its message and code', () => {
  for (const [input, opts, args] of [
    ['{"citations": [}', { sources: { 1: 'x' } }, sourceArgs({ 1: 'x' })],
    ['[1]', { sources: { 1: 'x' } }, sourceArgs({ 1: 'x' })],
    ['{"citations": [{"source_id": 1.5, "quote": "x"}]}', { sources: { 1: 'x' } }, sourceArgs({ 1: 'x' })],
    ['{"type": "message", "content": [{"type": "text", "text": "t", "citations": [{"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 9007199254740992, "end_char_index": 1}]}]}', { request }, ['--request', requestFile]],
    ['{"type": "message", "content": []}', { request: '{}' }, ['--request', join(scratch, 'empty.json')]],
  ]) {
    writeFileSync(join(scratch, 'empty.json'), '{}');
    const go = goQuotes(args, input);
    assert.equal(go.status, 2, input);
    const goMessage = go.stderr.split('\n')[0].replace('citecheck: standard input: ', 'citecheck: text: ').replace(/citecheck: --request [^:]*: /, 'citecheck: request: ');
    assert.throws(() => cc.quotes(input, opts), (e) => e instanceof cc.CitecheckError && e.message === goMessage && e.code === 'invalid_input' && e.lines === '', input);
  }
  // A request for a report: the command's misuse, in the Python package's words.
  assert.throws(() => cc.quotes('“x” [1]', { request, sources: { 1: 'x' } }),
    (e) => e.message === 'citecheck: request is the request an Anthropic response answered; the text is a report' && e.code === 'invalid_input');
  // A lone surrogate is the bytes it stands for, which are not UTF-8: as
  // the command says of a source file holding them.
  writeFileSync(join(scratch, 'bad.txt'), Buffer.from([0x61, 0xed, 0xa0, 0x80, 0x62]));
  const go = goQuotes(['--source', `1=${join(scratch, 'bad.txt')}`], '“a” [1]');
  assert.throws(() => cc.quotes('“a” [1]', { sources: { 1: 'a\ud800b' } }),
    (e) => e.message === go.stderr.split('\n')[0].replace(`${join(scratch, 'bad.txt')}: `, '') && e.code === 'invalid_input');
  assert.throws(() => cc.quotes('“a” [1]', { sources: { 'a\ud800': 'a' } }), (e) => e instanceof cc.CitecheckError && e.code === 'invalid_input');
});

test('quotes reads a source as the command reads a file: a byte order mark at its start is not text', () => {
  const src = { 1: '\ufeffThe quick brown fox.' };
  const lines = cc.quotes('“quick brown” [1]', { sources: src });
  assert.equal(lines, goQuotes(sourceArgs(src), '“quick brown” [1]').stdout);
  assert.deepEqual(JSON.parse(lines).span, { start: 4, end: 15 });
});

test('quotes: arguments of the wrong type are TypeErrors naming them', () => {
  for (const [f, words] of [
    [() => cc.quotes('x'), /needs sources/],
    [() => cc.quotes('x', { sources: [] }), /sources is an object/],
    [() => cc.quotes('x', { sources: { 1: 42 } }), /source "1": its text is a string, not a number/],
    [() => cc.quotes(42, { sources: { 1: 'x' } }), /the text is a string/],
    [() => cc.quotes('x', { sources: { 1: 'x' }, explain: 'yes' }), /explain is a boolean/],
    [() => cc.quotes('x', { request: 7 }), /the request is a string/],
  ]) {
    assert.throws(f, (e) => e instanceof TypeError && e.code === 'invalid_input' && words.test(e.message));
  }
});

// The lines leave the module a batch at a time: 2,000 quotations give
// the command's lines whole.
test('quotes streams its lines: many batches give the command lines', () => {
  const src = { 1: 'The quick brown fox jumps over the lazy dog.' };
  const report = Array.from({ length: 2000 }, (_, i) => `“${i % 3 ? 'quick brown' : 'lazy cat'}” [1]\n`).join('');
  assert.equal(cc.quotes(report, { sources: src }), goQuotes(sourceArgs(src), report).stdout);
});

// ---- The Anthropic TypeScript SDK ----------------------------------------

const recordedResponse = readFileSync(ex('anthropic-response.json'));
const recordedStream = readFileSync(join(jsDir, 'test', 'testdata', 'anthropic-stream.sse'));

// recordedFetch answers the SDK as the API did: the recorded message, or
// for a streamed request the recorded events. It counts the calls.
function recordedFetch() {
  const f = async (url, init) => {
    f.calls++;
    const streamed = JSON.parse(init.body).stream === true;
    return new Response(streamed ? recordedStream : recordedResponse, {
      status: 200, headers: { 'content-type': streamed ? 'text/event-stream' : 'application/json', 'request-id': 'req_recorded' },
    });
  };
  f.calls = 0;
  return f;
}

test('quotes takes the SDK\'s Message, created and streamed (citations_delta), as the command takes the response', async () => {
  const fetch = recordedFetch();
  const client = new Anthropic({ apiKey: 'offline', fetch, maxRetries: 0 });
  const message = await client.messages.create(request);
  const stream = client.messages.stream(request);
  const citations = [];
  stream.on('citation', (c) => citations.push(c));
  const final = await stream.finalMessage();
  assert.equal(fetch.calls, 2);
  assert.equal(citations.length, 5);
  for (const explain of [false, true]) {
    const flag = explain ? ['--explain'] : [];
    const want = goQuotes(['--request', requestFile, ...flag], recordedResponse).stdout;
    assert.equal(cc.quotes(message, { request, explain }), goQuotes(['--request', requestFile, ...flag], JSON.stringify(message)).stdout);
    assert.equal(cc.quotes(message, { request, explain }), want);
    assert.equal(cc.quotes(final, { request, explain }), goQuotes(['--request', requestFile, ...flag], JSON.stringify(final)).stdout);
    assert.equal(cc.quotes(final, { request, explain }), want);
  }
  // One character off in a cited_text: not verbatim, as the command says.
  const off = structuredClone(message);
  off.content[1].citations[0].cited_text = off.content[1].citations[0].cited_text.replace('семьи', 'семъи');
  const lines = cc.quotes(off, { request });
  assert.equal(lines, goQuotes(['--request', requestFile], JSON.stringify(off)).stdout);
  assert.notEqual(JSON.parse(lines.split('\n')[0]).outcome, 'verbatim');
  assert.equal(JSON.parse(cc.quotes(message, { request }).split('\n')[0]).outcome, 'verbatim');
});

// ---- Zod -------------------------------------------------------------------

const austen = { austen: 'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.', memo: 'The committee’s report called the bridge “structurally sound” in 2019.' };

for (const [name, zz] of [['Zod 4', z], ['Zod 3 (zod/v3)', z3]]) {
  test(`verbatimQuote in ${name}: a verbatim quote passes, one off fails with the finding and the fix`, () => {
    const Quote = zz.string().superRefine(cc.verbatimQuote(austen, { source: 'austen' }));
    assert.equal(Quote.safeParse('a single man in possession of a good fortune').success, true);
    const off = Quote.safeParse('a single man in possession of a good fortume');
    assert.equal(off.success, false);
    assert.equal(off.error.issues.length, 1);
    assert.equal(off.error.issues[0].message,
      'quote "a single man in possession of a good fortume" is not in source "austen", exactly or under a fold, nor verbatim in another source; only its first 42 characters are in source "austen" ("a single man in possession of a good fortu"), where the source goes on "ne, must be in want of a wife." and the quote "me"; quote the source\'s words exactly, or leave the quote out');

    const Answer = zz.object({
      answer: zz.string(),
      citations: zz.array(zz.object({ source_id: zz.string(), quote: zz.string() })),
    }).superRefine(cc.verbatimQuote(austen));
    const value = {
      answer: 'The bridge was declared sound.',
      citations: [
        { source_id: 'memo', quote: 'The committee\'s report called the bridge "structurally sound"' },
        { source_id: 'memo', quote: 'called the bridge “structurally sound” in 2019' },
        { source_id: 'austen', quote: 'called the bridge “structurally sound”' },
        { source_id: 'wiki', quote: 'in 2019' },
      ],
    };
    const r = Answer.safeParse(value);
    assert.equal(r.success, false);
    assert.deepEqual(r.error.issues.map((i) => [i.path, i.message]), [
      [['citations', 0, 'quote'], 'quote "The committee\'s report called the bridge \\"structurally sound\\"" is not verbatim: source "memo" has it only with different quotation marks, apostrophes, dashes, ellipses or invisible characters (curly against straight); copy the source\'s exact words: "The committee’s report called the bridge “structurally sound”"'],
      [['citations', 2, 'quote'], 'quote "called the bridge “structurally sound”" is not in source "austen" but is verbatim in source "memo": cite source "memo"'],
      [['citations', 3, 'quote'], 'quote "in 2019" cites source "wiki", which is not given; cite one of the sources given: "austen", "memo"'],
    ]);
    // The issues are the outcomes of citecheck quotes on the same answer.
    const lines = goQuotes(['--explain', ...sourceArgs(austen)], JSON.stringify({ citations: value.citations })).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l, i) => l.outcome === 'verbatim' ? null : [['citations', i, 'quote'], l.message]).filter(Boolean),
      r.error.issues.map((i) => [i.path, i.message]));
    // A quote is never rewritten nor dropped: what passes is the value.
    const ok = Answer.parse({ answer: 'x', citations: [value.citations[1]] });
    assert.deepEqual(ok.citations, [value.citations[1]]);
  });
}

test('verbatimQuote refuses sources it cannot use when it is made', () => {
  assert.throws(() => cc.verbatimQuote({}), (e) => e instanceof TypeError && /needs the sources/.test(e.message));
  assert.throws(() => cc.verbatimQuote({ a: 1 }), (e) => e instanceof TypeError && /its text is a string/.test(e.message));
  assert.throws(() => cc.verbatimQuote(austen, { source: 3 }), (e) => e instanceof TypeError && /source is a source's id/.test(e.message));
});

// What verbatimQuote cannot read as a quote is never passed: each gets an
// issue at its path, and safeParse never throws for the model's value.
test('verbatimQuote refuses what it cannot check, never passing it unchecked', () => {
  const Citation = z.object({ source_id: z.any(), quote: z.any() });
  const loose = z.any().superRefine(cc.verbatimQuote(austen));
  const shapes = 'verbatimQuote checks a quote (a string), a citation {source_id, quote}, an array of citations or an answer {citations: [...]}';
  for (const [value, want] of [
    [{ source_id: 1.5, quote: 'fabricated' }, [[['source_id'], 'source_id is 1.5, which is not an integer; a source_id is a string or an integer']]],
    [{ source_id: 2 ** 60, quote: 'fabricated' }, [[['source_id'], 'source_id is 1152921504606847000, which is outside ±(2^53−1); a source_id is a string or an integer']]],
    [{ source_id: Infinity, quote: 'fabricated' }, [[['source_id'], 'source_id is Infinity, which is not a finite number; a source_id is a string or an integer']]],
    [{ source_id: NaN, quote: 'fabricated' }, [[['source_id'], 'source_id is NaN, which is not a finite number; a source_id is a string or an integer']]],
    [{ source_id: true, quote: 'fabricated' }, [[['source_id'], 'a source_id is a string or an integer, not a boolean']]],
    [{ source_id: 'memo', quote: 42 }, [[['quote'], 'a quote is a string, not a number']]],
    [{ answer: { citations: [{ source_id: 'memo', quote: 'fabricated' }] } }, [[[], `${shapes}, not an object without a quote or citations`]]],
    [{ citations: 'fabricated' }, [[['citations'], 'citations is an array of citations {source_id, quote}, not a string']]],
    [{ citations: [null, ['x'], { source: 'memo' }] }, [
      [['citations', 0], 'a citation is an object {source_id, quote}, not null'],
      [['citations', 1], 'a citation is an object {source_id, quote}, not an array'],
      [['citations', 2], 'a citation is an object {source_id, quote}, not an object without a quote'],
    ]],
    [42, [[[], `${shapes}, not a number`]]],
    [null, [[[], `${shapes}, not null`]]],
    // A lone surrogate is what JSON.parse makes of a model's "\ud800".
    [JSON.parse('"in 2019\\ud800"'), [[[], 'quote "in 2019\\ud800" holds a lone surrogate (half of a character written alone), which no source holds: quote the source\'s words exactly']]],
    [{ source_id: JSON.parse('"memo\\udc00"'), quote: 'in 2019' }, [[['source_id'], 'source_id "memo\\udc00" holds a lone surrogate (half of a character written alone), which no source\'s id holds']]],
    [{ source_id: 'memo', quote: 'in 2019' }, []],
    [{ source_id: null, quote: 'in 2019' }, []],
  ]) {
    const r = loose.safeParse(value);
    assert.deepEqual(r.success ? [] : r.error.issues.map((i) => [i.path, i.message]), want, JSON.stringify(value));
  }
  // An array of citations is checked, each at its index.
  const List = z.array(Citation).superRefine(cc.verbatimQuote(austen));
  const r = List.safeParse([{ source_id: 'memo', quote: 'in 2019' }, { source_id: 'memo', quote: 'fabricated' }]);
  assert.deepEqual(r.error.issues.map((i) => i.path), [[1, 'quote']]);
  assert.match(r.error.issues[0].message, /^quote "fabricated" is not in source "memo"/);
});

test('verbatimQuote checks its sources when it is made and keeps a copy', () => {
  assert.throws(() => cc.verbatimQuote({ a: 'x\ud800' }), (e) => e instanceof cc.CitecheckError && e.code === 'invalid_input' && /source "a": its text is not UTF-8: a lone surrogate/.test(e.message));
  assert.throws(() => cc.verbatimQuote({ 'a\udc00': 'x' }), (e) => e instanceof cc.CitecheckError && e.code === 'invalid_input' && /its id is not UTF-8/.test(e.message));
  assert.throws(() => cc.verbatimQuote({ '': 'x' }), (e) => e instanceof cc.CitecheckError && /a source's id is empty/.test(e.message));
  const src = { memo: austen.memo };
  const map = new Map([['memo', austen.memo]]);
  const fromObject = z.string().superRefine(cc.verbatimQuote(src, { source: 'memo' }));
  const fromMap = z.string().superRefine(cc.verbatimQuote(map, { source: 'memo' }));
  src.memo = 'fabricated';
  map.set('memo', 'fabricated');
  for (const schema of [fromObject, fromMap]) {
    assert.equal(schema.safeParse('in 2019').success, true);
    assert.equal(schema.safeParse('fabricated').success, false);
  }
});

// ---- docs/frameworks.md ----------------------------------------------------

// section is the js block and the text block after it in a ## section of
// docs/frameworks.md.
function section(title) {
  const doc = readFileSync(join(repoDir, 'docs', 'frameworks.md'), 'utf8');
  const at = doc.indexOf(`\n## ${title}\n`);
  assert.ok(at >= 0, title);
  const body = doc.slice(at + 1).split(/\n## /)[0];
  const js = body.match(/```js\n([\s\S]*?)```/);
  const out = body.match(/```js\n[\s\S]*?```\n[\s\S]*?```text\n([\s\S]*?)```/);
  assert.ok(js && out, `${title}: a js block and its output`);
  return { code: js[1], output: out[1] };
}

for (const title of ['JavaScript: Zod', 'JavaScript: the Anthropic TypeScript SDK']) {
  test(`docs/frameworks.md "${title}" runs as written and prints what it shows`, () => {
    const { code, output } = section(title);
    // Inside js/, so that 'citecheck' is this package (by its own name)
    // and the devDependencies resolve; paths are relative to js/.
    const file = join(jsDir, 'test', `.frameworks-example-${process.pid}.mjs`);
    writeFileSync(file, code);
    try {
      const r = spawnSync(process.execPath, [file], { cwd: jsDir, encoding: 'utf8' });
      assert.equal(r.stderr, '');
      assert.equal(r.stdout, output);
    } finally {
      rmSync(file);
    }
  });
}

test.after(() => rmSync(scratch, { recursive: true, force: true }));
