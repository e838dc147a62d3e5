// The API's own rules under Node: how init takes the module, what a body
// may be, the size refusal for every kind of body, annotations beside
// `citecheck annotations`, and the errors of misuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { spawnSync, execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goCLI, repoDir, jsDir, wasmFile, needWasm } from './helpers.js';

needWasm();
const example = readFileSync(join(repoDir, 'examples', 'version-mismatch.json'));
const goRun = (file) => spawnSync(goCLI(), ['run', 'citation-batch-check', '1.0.0', '--input', file]).stdout.toString().replace(/\n$/, '');
const scratch = mkdtempSync(join(tmpdir(), 'citecheck-api-'));

test('every function refuses to run before init', () => {
  // A fresh process: this one inits below.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { checkRaw, annotations, quotes, verbatimQuote } from ${JSON.stringify(join(jsDir, 'node.js'))};
    const refine = verbatimQuote({ 1: 'x' });
    for (const f of [() => checkRaw('{}'), () => annotations('[]'), () => quotes('x', { sources: { 1: 'x' } }), () => refine('x', {})]) {
      try { f(); console.log('ran'); } catch (e) { console.log(e.name + ': ' + e.message); }
    }`]);
  assert.equal(r.stdout.toString(), 'CitecheckError: citecheck: call and await init() first\n'.repeat(4));
});

test('init takes nothing, bytes, a path, a file URL, a Response or a WebAssembly.Module', async () => {
  const cc = await import('../node.js');
  const bytes = readFileSync(wasmFile);
  const want = goRun(join(repoDir, 'examples', 'version-mismatch.json'));
  for (const source of [undefined, bytes, new Uint8Array(bytes).buffer, wasmFile, new URL(`file://${wasmFile}`),
    new Response(bytes, { headers: { 'Content-Type': 'application/wasm' } }), new Response(bytes), await WebAssembly.compile(bytes)]) {
    await cc.init(source);
    assert.equal(cc.checkRaw(example), want, String(source?.constructor?.name));
  }
  await assert.rejects(cc.init(42), TypeError);
  await assert.rejects(cc.init(new Response('no', { status: 404 })), /404/);
});

test('a body is a string, bytes of any view, or an object', async () => {
  const cc = await import('../node.js');
  await cc.init();
  const want = goRun(join(repoDir, 'examples', 'version-mismatch.json'));
  const u8 = new Uint8Array(example);
  const padded = new Uint8Array(u8.length + 8);
  padded.set(u8, 4);
  for (const body of [example.toString('utf8'), u8, u8.buffer.slice(u8.byteOffset, u8.byteOffset + u8.byteLength),
    new DataView(padded.buffer, 4, u8.length), padded.subarray(4, 4 + u8.length)]) {
    assert.equal(cc.checkRaw(body), want);
  }
  // An object goes as JSON.stringify writes it, which is what the CLI
  // answers for those bytes.
  const obj = JSON.parse(example);
  const file = join(scratch, 'obj.json');
  writeFileSync(file, JSON.stringify(obj));
  assert.equal(cc.checkRaw(obj), goRun(file));
  for (const bad of [undefined, null, 42, true]) assert.throws(() => cc.checkRaw(bad), TypeError);
});

test('a body over max_input_bytes is refused as the CLI refuses it, whatever its kind', async () => {
  const cc = await import('../node.js');
  await cc.init();
  const file = join(scratch, 'big.json');
  writeFileSync(file, ' '.repeat(cc.MAX_INPUT_BYTES + 1));
  const refusal = goRun(file);
  assert.match(refusal, /"limit":"max_input_bytes"/);
  const over = cc.MAX_INPUT_BYTES + 1;
  for (const body of [' '.repeat(over), 'é'.repeat(over / 2 + 1), '𝒜'.repeat(over / 4 + 1), '\u20ac'.repeat(400000),
    new Uint8Array(over).fill(32), new Uint8Array(64 << 20).fill(32), { pad: 'x'.repeat(over) }]) {
    assert.equal(cc.checkRaw(body), refusal);
    assert.equal(cc.checkAllRaw(body), refusal);
    assert.equal(cc.explainRaw(body), refusal);
  }
  // At the limit, a body is read and judged for what it is.
  const at = ' '.repeat(cc.MAX_INPUT_BYTES - 2) + '{}';
  writeFileSync(file, at);
  assert.equal(cc.checkRaw(at), goRun(file));
  assert.doesNotMatch(cc.checkRaw(at), /max_input_bytes/);
});

test('check, checkAll and explain are the raw answers parsed', async () => {
  const cc = await import('../node.js');
  await cc.init();
  assert.deepEqual(cc.check(example), JSON.parse(cc.checkRaw(example)));
  assert.deepEqual(cc.checkAll(example), JSON.parse(cc.checkAllRaw(example)));
  assert.deepEqual(cc.explain(example), JSON.parse(cc.explainRaw(example)));
  assert.equal(cc.check(example).result.reason, 'version_mismatch');
});

// An export on real text, with selectors of every outcome: anchored,
// moved (a position counted in UTF-16 units, as Hypothesis counts),
// ambiguous, orphaned, and a source not supplied.
function realExport(iri, text) {
  const cps = Array.from(text);
  const at = (needle) => Array.from(text.slice(0, text.indexOf(needle))).length;
  const anns = [];
  const q = (exact, extra = {}) => ({ type: 'TextQuoteSelector', exact, ...extra });
  for (const exact of ['citation', 'checks citations against the sources they cite', 'Unicode code points', 'not in this text at all']) {
    anns.push({ id: `q:${exact}`, target: { source: iri, selector: q(exact) } });
  }
  const s = at('exactly: positions count');
  const exact = 'exactly: positions count';
  anns.push({ id: 'pos-right', target: { source: iri, selector: [q(exact), { type: 'TextPositionSelector', start: s, end: s + Array.from(exact).length }] } });
  anns.push({ id: 'pos-wrong', target: { source: iri, selector: [q(exact), { type: 'TextPositionSelector', start: s + 3, end: s + 3 + Array.from(exact).length }] } });
  const u16 = text.indexOf('“');
  if (u16 >= 0) anns.push({ id: 'utf16', target: { source: iri, selector: [q(text.slice(u16, u16 + 12)), { type: 'TextPositionSelector', start: u16, end: u16 + 12 }] } });
  anns.push({ id: 'elsewhere', target: { source: 'https://example.org/not-supplied', selector: q('x') } });
  anns.push({ id: 'nopos', target: { source: iri, selector: { type: 'TextPositionSelector', start: 0, end: Math.min(5, cps.length) } } });
  return { rows: anns, total: anns.length };
}

function goAnnotations(args, input) {
  const r = spawnSync(goCLI(), ['annotations', ...args], { input, maxBuffer: 1 << 28 });
  return { stdout: r.stdout.toString(), stderr: r.stderr.toString(), status: r.status };
}

test('annotations writes the lines of citecheck annotations, on real text and the W3C collection', async () => {
  const cc = await import('../node.js');
  await cc.init();
  const readme = join(repoDir, 'README.md');
  const text = readFileSync(readme, 'utf8');
  const iri = 'https://github.com/citecheck/citecheck/blob/main/README.md';
  const exp = JSON.stringify(realExport(iri, text), null, 1);
  const go = goAnnotations(['--source', `${iri}=${readme}`, '-'], exp);
  assert.equal(go.status, 1, go.stderr);
  assert.ok(go.stdout.split('\n').length > 8);
  assert.equal(cc.annotations(exp, { sources: { [iri]: text } }), go.stdout);
  assert.equal(cc.annotations(Buffer.from(exp), { sources: { [iri]: { text } } }), go.stdout);
  assert.equal(cc.annotations(JSON.parse(exp), { sources: { [iri]: text } }), goAnnotations(['--source', `${iri}=${readme}`, '-'], JSON.stringify(JSON.parse(exp))).stdout);
  // A version is reported with each target checked against it.
  const manifest = join(scratch, 'sources.tsv');
  writeFileSync(manifest, `${iri}\t${readme}\tv7\n`);
  assert.equal(cc.annotations(exp, { sources: { [iri]: { text, version: 'v7' } } }), goAnnotations(['--sources', manifest, '-'], exp).stdout);

  const w3c = readFileSync(join(repoDir, 'annotation', 'testdata', 'w3c-collection1.json'));
  const page = 'http://example.org/page1';
  assert.equal(cc.annotations(w3c, { sources: { [page]: text } }), goAnnotations(['--source', `${page}=${readme}`, '-'], w3c).stdout);
  assert.equal(cc.annotations(w3c), goAnnotations(['-'], w3c).stdout);
});

test('an export that is not JSON: the CLI\'s message, and the lines before it', async () => {
  const cc = await import('../node.js');
  await cc.init();
  // More than a batch of good items first, so that some lines were written.
  const items = Array.from({ length: 300 }, (_, i) => JSON.stringify({ id: `a${i}`, target: { source: 's', selector: { type: 'TextQuoteSelector', exact: 'x' } } }));
  const exp = items.join('\n') + '\n{"id": ';
  const go = goAnnotations(['-'], exp);
  assert.equal(go.status, 2);
  const goMessage = go.stderr.split('\n').filter(Boolean).at(-1);
  assert.throws(() => cc.annotations(exp), (e) => {
    assert.equal(e.name, 'CitecheckError');
    assert.equal(e.message, goMessage);
    assert.equal(e.lines, go.stdout);
    assert.equal(e.code, 'invalid_input');
    return true;
  });
  assert.throws(() => cc.annotations('[]', { sources: { a: 42 } }), TypeError);
  assert.throws(() => cc.annotations(42), TypeError);
  // A refused call leaves nothing behind: the next one has only its own sources.
  assert.equal(cc.annotations('[]', { sources: { a: 'x' } }), '');
});

test('warm refuses to run before init, holds on its own body, and changes no answer', async () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { warm } from ${JSON.stringify(join(jsDir, 'node.js'))};
    warm().then(() => console.log('ran'), (e) => console.log(e.name + ': ' + e.message));`]);
  assert.equal(r.stdout.toString(), 'CitecheckError: citecheck: call and await init() first\n');
  const cc = await import('../node.js');
  const { warmBody } = await import('../core.js');
  await cc.init();
  const body = warmBody();
  assert.equal(body, warmBody(), 'the warm-up body differs between two calls');
  assert.ok(body.length > 128 * 1024, `the warm-up body is ${body.length} bytes`);
  const file = join(scratch, 'warm.json');
  writeFileSync(file, body);
  const want = goRun(file);
  assert.match(want, /^\{"result":\{"valid":true/);
  assert.equal(await cc.warm(), undefined);
  assert.equal(cc.checkRaw(body), want);
  assert.equal(cc.checkRaw(example), goRun(join(repoDir, 'examples', 'version-mismatch.json')));
});

test('the types compile against a use of every function', () => {
  const file = join(scratch, 'use.mts');
  writeFileSync(file, `
import { init, warm, checkRaw, check, checkAll, explain, annotations, quotes, verbatimQuote, MAX_INPUT_BYTES, CitecheckError, type Request, type Reason, type Finding, type QuoteLine } from ${JSON.stringify(join(jsDir, 'index.js'))};
await init();
const warmed: Promise<void> = warm();
await warmed;
const req: Request = { sources: [{ source_id: 's', version: 'v', text: 't' }], citations: [{ citation_id: 'c', source_id: 's', version: 'v', selector: { type: 'TextQuoteSelector', exact: 't' } }] };
const raw: string = checkRaw(req);
const env = check(new Uint8Array(0));
const reason: Reason | null = env.result ? env.result.reason : null;
const all = checkAll(raw);
const n: number = all.all ? all.all.citations_failed : all.error.message.length;
const ex = explain(req);
const f: Finding[] = ex.all ? ex.all.citations.flatMap((c) => c.findings) : [];
const lines: string = annotations('[]', { sources: { 'https://e.org/': 'text', 'https://e.org/v': { text: 't', version: '1' } } });
const max: 1048576 = MAX_INPUT_BYTES;
try { annotations('{'); } catch (e) { if (e instanceof CitecheckError) console.log(e.lines, reason, n, f, lines, max); }
const ql: string = quotes('“x” [1]', { sources: { '1': 'x' }, request: { messages: [] }, explain: true });
const refine = verbatimQuote(new Map([['1', 'x']]), { source: '1' });
refine('x', { addIssue: (i) => console.log(i.message, i.path) });
const why: string | undefined = (JSON.parse(ql) as QuoteLine).message;
console.log(why);
`);
  writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], skipLibCheck: false }, files: ['use.mts'] }));
  const tsc = join(jsDir, 'node_modules', '.bin', 'tsc');
  const r = spawnSync(tsc, ['-p', scratch]);
  assert.equal(r.status, 0, r.stdout.toString() + r.stderr.toString());
});

// trappingModule is a module with the engine's exports whose check traps,
// as a bug in the engine would: memory, _initialize, citecheck_buffer
// (always address 16) and citecheck_check (unreachable).
function trappingModule() {
  const str = (s) => [s.length, ...Buffer.from(s)];
  const section = (id, body) => [id, body.length, ...body];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [2, 0x60, 0, 0, 0x60, 2, 0x7f, 0x7f, 1, 0x7f]), // () -> (), (i32, i32) -> i32
    ...section(3, [3, 0, 1, 1]),
    ...section(5, [1, 0, 1]), // one page
    ...section(7, [4, ...str('memory'), 2, 0, ...str('_initialize'), 0, 0, ...str('citecheck_buffer'), 0, 1, ...str('citecheck_check'), 0, 2]),
    ...section(10, [3, 2, 0, 0x0b, 4, 0, 0x41, 16, 0x0b, 3, 0, 0x00, 0x0b]),
  ];
  return new Uint8Array(bytes);
}

test('a module that traps is replaced: the call fails, and the next one runs on a new instance', async () => {
  const cc = await import('../node.js');
  await cc.init(trappingModule());
  for (let i = 0; i < 2; i++) {
    assert.throws(() => cc.checkRaw('{}'), (e) => {
      assert.equal(e.name, 'CitecheckError');
      assert.match(e.message, /the engine failed on this call and was reset \(RuntimeError: unreachable\)/);
      assert.equal(e.code, 'internal');
      assert.ok(e.cause instanceof WebAssembly.RuntimeError);
      return true;
    });
  }
  await cc.init();
  assert.match(cc.checkRaw('{}'), /^\{"error":\{"code":"invalid_input"/);
});

// nodeWith runs script (an ES module importing the package as cc, with
// init awaited) in a new Node whose WebAssembly memories may hold at most
// pages 64 KiB pages, and returns its standard output parsed as JSON.
function nodeWith(pages, script) {
  const r = spawnSync(process.execPath, [`--wasm-max-mem-pages=${pages}`, '--input-type=module', '-e', `
    const cc = await import(${JSON.stringify(join(jsDir, 'node.js'))});
    await cc.init();
    ${script}`], { maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr.toString());
  return JSON.parse(r.stdout.toString());
}

test('an instance survives a call that runs the module out of memory: every function answers after it', () => {
  // 32 MiB of memory at most: a source of 40 MiB cannot be held, and the
  // module traps as it would at 4 GiB without the flag.
  const ex = join(repoDir, 'examples', 'version-mismatch.json');
  const got = nodeWith(512, `
    const { readFileSync } = await import('node:fs');
    const out = {};
    try { cc.annotations('[]', { sources: { s: 'x'.repeat(40 << 20) } }); out.failed = 'no'; }
    catch (e) { out.failed = e.name + ' ' + e.cause?.name; out.code = e.code; out.message = e.message; }
    // quotes, its first source written before the second runs the module
    // out of memory: the next call sees neither.
    try { cc.quotes('“brown” [s]', { sources: { a: 'brown', s: 'x'.repeat(40 << 20) } }); out.quotes = 'no'; }
    catch (e) { out.quotes = e.code + ' ' + e.message; }
    out.after = cc.quotes('“brown” [b]', { sources: { b: 'the quick brown fox' } });
    const body = readFileSync(${JSON.stringify(ex)});
    out.execute = cc.checkRaw(body);
    out.all = cc.checkAllRaw(body);
    out.explain = cc.explainRaw(body.toString());
    out.lines = cc.annotations(${JSON.stringify(oneAnnotation)}, { sources: { s: 'the quick brown fox' } });
    console.log(JSON.stringify(out));`);
  assert.equal(got.failed, 'CitecheckError RuntimeError');
  const oom = 'citecheck: the engine ran out of memory on this call (the module\'s memory is at most 4 GiB, and the runtime may cap it lower) and was reset; later calls work';
  assert.equal(got.code, 'internal');
  assert.equal(got.message, oom);
  assert.equal(got.quotes, `internal ${oom}`);
  assert.equal(got.after, spawnSync(goCLI(), ['quotes', '--source', `b=${writeTemp('fox-b.txt', 'the quick brown fox')}`, '-'], { input: '“brown” [b]' }).stdout.toString());
  assert.match(got.after, /"source":"b","outcome":"verbatim"/);
  assert.equal(got.execute, goRun(ex));
  const cli = (flag) => spawnSync(goCLI(), ['run', 'citation-batch-check', '1.0.0', flag, '--input', ex]).stdout.toString().replace(/\n$/, '');
  assert.equal(got.all, cli('--all'));
  assert.equal(got.explain, cli('--explain'));
  assert.equal(got.lines, goAnnotations(['--source', `s=${writeTemp('fox.txt', 'the quick brown fox')}`, '-'], oneAnnotation).stdout);
});

const oneAnnotation = '[{"id":"a","target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"brown"}}}]';

function writeTemp(name, content) {
  const file = join(scratch, name);
  writeFileSync(file, content);
  return file;
}

test('annotations streams the export: a 12 MB export is checked in 16 MiB of module memory', () => {
  // The export is handed over in pieces and its lines taken as they come,
  // so the module holds a batch of annotations, not the export (which
  // alone would not fit) nor its lines; the lines are the CLI's.
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
  const script = `
    const item = (i) => JSON.stringify({ id: 'a' + i, target: [{ source: 'https://e.org/', selector: [
      { type: 'TextQuoteSelector', exact: 'quick brown fox jumps', prefix: 'The ', suffix: ' over' },
      { type: 'TextPositionSelector', start: 4 + 45 * (i % 100), end: 25 + 45 * (i % 100) }] }], text: 'x'.repeat(300) });
    const parts = [];
    for (let i = 0, n = 0; n < 12e6; i++) { const s = item(i); parts.push(s); n += s.length + 1; }
    const exp = parts.join('\\n');
    console.log(JSON.stringify({ exp, lines: cc.annotations(exp, { sources: { 'https://e.org/': ${JSON.stringify(text)} } }) }));`;
  const got = nodeWith(256, script);
  assert.ok(got.exp.length >= 12e6);
  const go = goAnnotations(['--source', `https://e.org/=${writeTemp('fox-long.txt', text)}`, '-'], got.exp);
  assert.equal(go.status, 0, go.stderr);
  assert.equal(got.lines, go.stdout);
});

test('a string with a lone surrogate is refused as invalid_input, in every function', async () => {
  const cc = await import('../node.js');
  await cc.init();
  const body = (text) => `{"sources":[{"source_id":"s","version":"v","text":"${text}"}],"citations":[{"citation_id":"c","source_id":"s","version":"v","selector":{"type":"TextQuoteSelector","exact":"a"}}]}`;
  // A string is the UTF-16 it holds: a lone surrogate is written as its
  // three bytes (ED A0 80–ED BF BF), and the answer is the Go CLI's for
  // those bytes; a pair is one character, and checks as one.
  const wtf8 = (c) => Buffer.from([0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]);
  for (const [name, lone, bytes] of [
    ['high', 'a\ud800b', Buffer.concat([Buffer.from('a'), wtf8(0xd800), Buffer.from('b')])],
    ['low', 'a\udfffb', Buffer.concat([Buffer.from('a'), wtf8(0xdfff), Buffer.from('b')])],
    ['high at the end of a pair', 'é\ud83d\ud83d\ude00', Buffer.concat([Buffer.from('é'), wtf8(0xd83d), Buffer.from('😀')])],
  ]) {
    const file = writeTemp('lone.json', Buffer.from(body(bytes.toString('latin1')), 'latin1'));
    const cli = (flag) => spawnSync(goCLI(), ['run', 'citation-batch-check', '1.0.0', ...flag, '--input', file]).stdout.toString().replace(/\n$/, '');
    const want = cli([]);
    assert.match(want, /^\{"error":\{"code":"invalid_input","message":"body: not I-JSON: invalid UTF-8 at byte \d+"/, name);
    assert.equal(cc.checkRaw(body(lone)), want, name);
    assert.equal(cc.checkAllRaw(body(lone)), cli(['--all']), name);
    assert.equal(cc.explainRaw(body(lone)), cli(['--explain']), name);
    // An object's string goes through JSON.stringify, which escapes it:
    // refused as the escape.
    assert.match(cc.checkRaw({ ...JSON.parse(body('x')), sources: [{ source_id: 's', version: 'v', text: lone }] }),
      /^\{"error":\{"code":"invalid_input","message":"sources\/0\/text: not I-JSON: string contains an unpaired surrogate escape/, name);
    // The export: the CLI's message for its bytes.
    const exp = `[{"id":"${lone}","target":"s"}]`;
    const go = goAnnotations(['-'], Buffer.from(`[{"id":"${bytes.toString('latin1')}","target":"s"}]`, 'latin1'));
    assert.equal(go.status, 2, name);
    const goMessage = go.stderr.split('\n').find((l) => l.startsWith('citecheck: reading the annotations'));
    assert.throws(() => cc.annotations(exp), (e) => e.message === goMessage && e.code === 'invalid_input' && e.lines === go.stdout, name);
    // A source's IRI, text or version.
    for (const sources of [{ [lone]: 'x' }, { s: lone }, { s: { text: 'x', version: lone } }]) {
      assert.throws(() => cc.annotations('[]', { sources }), (e) => {
        assert.equal(e.name, 'CitecheckError');
        assert.equal(e.code, 'invalid_input');
        assert.match(e.message, /is not UTF-8: a lone surrogate \(invalid byte 0xED at byte offset \d+\)$/);
        return true;
      }, name);
    }
  }
  // A well-formed astral character is text like any other.
  assert.match(cc.checkRaw(body('a😀b')), /^\{"result":\{"valid":true/);
  assert.equal(cc.annotations('[]', { sources: { s: 'a😀b' } }), '');
});

// A refinedBy chain of any depth gives the CLI's lines: one deeper than
// the reader's bound (64) is an error item in both, never a stack
// overflow that loses the call; the items around it are reported.
test('a deep refinedBy chain: the CLI\'s lines, whatever its depth', async () => {
  const cc = await import('../node.js');
  await cc.init();
  const chain = (n) => '{"type":"TextPositionSelector","start":0,"end":1,"refinedBy":'.repeat(n) + '{"type":"TextQuoteSelector","exact":"x"}' + '}'.repeat(n);
  const good = '{"id":"good","target":{"source":"urn:x","selector":{"type":"TextQuoteSelector","exact":"x"}}}';
  const src = join(scratch, 'x.txt');
  writeFileSync(src, 'x');
  for (const n of [64, 65, 1300, 3200, 9990]) {
    const exp = `${good}\n{"id":"rb","target":{"source":"urn:x","selector":${chain(n)}}}\n${good}\n`;
    const go = goAnnotations(['--source', `urn:x=${src}`, '-'], exp);
    assert.equal(go.stdout.split('\n').filter(Boolean).length, 3, `${n}: ${go.stderr}`);
    assert.equal(cc.annotations(exp, { sources: { 'urn:x': 'x' } }), go.stdout, `depth ${n}`);
  }
});

// One U+FEFF at the start of a source's text is not text, as a byte order
// mark at the start of a source file is not to the CLI: the same file
// read with readFileSync(…, 'utf8') gives the CLI's verdicts.
test('a source that starts with a byte order mark: the CLI\'s lines', async () => {
  const cc = await import('../node.js');
  await cc.init();
  const src = join(scratch, 'bom.txt');
  writeFileSync(src, '\ufeffThe quick brown fox');
  const exp = '{"id":"p","target":{"source":"urn:b","selector":[{"type":"TextPositionSelector","start":0,"end":3},{"type":"TextQuoteSelector","exact":"The"}]}}\n';
  const go = goAnnotations(['--source', `urn:b=${src}`, '-'], exp);
  assert.equal(go.status, 0, go.stdout);
  assert.equal(cc.annotations(exp, { sources: { 'urn:b': readFileSync(src, 'utf8') } }), go.stdout);
  // Only one: a second U+FEFF is text.
  writeFileSync(src, '\ufeff\ufeffThe quick');
  assert.equal(cc.annotations(exp, { sources: { 'urn:b': readFileSync(src, 'utf8') } }), goAnnotations(['--source', `urn:b=${src}`, '-'], exp).stdout);
});

// What the CLI says on standard error beside its counts (one page of a
// collection, sources not supplied), annotations says through onNotice,
// in the same words, and its lines stay the CLI's byte for byte.
test('annotations tells onNotice what the CLI says beside its counts', async () => {
  const cc = await import('../node.js');
  await cc.init();
  const src = join(scratch, 'notice.txt');
  writeFileSync(src, 'the old pier stands');
  const a = (id, source) => ({ id, target: { source, selector: { type: 'TextQuoteSelector', exact: 'old pier' } } });
  const cases = [
    ['next', { type: 'AnnotationPage', items: [a('p', 'urn:p')], next: { id: 'https://e.org/p2' } }, [{ kind: 'one_page', next: 'https://e.org/p2' }]],
    ['total', { total: 50, rows: [a('p', 'urn:p')] }, [{ kind: 'one_page', total: 50, here: 1 }]],
    ['missing', [a('p', 'urn:p'), a('m', 'urn:m'), a('m2', 'urn:m'), a('n', 'urn:n')],
      [{ kind: 'sources_not_supplied', sources: [{ iri: 'urn:m', targets: 2 }, { iri: 'urn:n', targets: 1 }] }]],
    ['whole', [a('p', 'urn:p')], []],
  ];
  for (const [name, value, want] of cases) {
    const exp = JSON.stringify(value);
    const go = goAnnotations(['--source', `urn:p=${src}`, '-'], exp);
    const notices = [];
    assert.equal(cc.annotations(exp, { sources: { 'urn:p': 'the old pier stands' }, onNotice: (n) => notices.push(n) }), go.stdout, name);
    assert.equal(notices.length, want.length, name);
    const said = go.stderr.split('\n').slice(1).map((l) => l.trim()).filter(Boolean);
    notices.forEach((n, i) => {
      assert.deepEqual({ ...n, message: undefined }, { ...want[i], message: undefined }, name);
      assert.ok(said.includes(n.message), `${name}: ${n.message} not in ${go.stderr}`);
    });
  }
  // Targets that name no source: their count, and sources[''] gives their
  // text as --source =FILE does.
  const bare = JSON.stringify({ id: 'b', target: { selector: { type: 'TextQuoteSelector', exact: 'old pier' } } });
  const notices = [];
  assert.equal(cc.annotations(bare, { onNotice: (n) => notices.push(n) }), goAnnotations(['-'], bare).stdout);
  assert.deepEqual(notices.map((n) => [n.kind, n.targets, n.message]), [['targets_name_no_source', 1, '1 targets name no source: sources[""] gives their text']]);
  assert.equal(cc.annotations(bare, { sources: { '': 'the old pier stands' } }), goAnnotations(['--source', `=${src}`, '-'], bare).stdout);
  assert.throws(() => cc.annotations('[]', { onNotice: 5 }), TypeError);
});

// An argument of the wrong type is a TypeError whose code is
// 'invalid_input', naming the member that is wrong; sources may be a
// plain object or a Map, and anything else is refused, never ignored.
test('annotations: a wrong argument is a TypeError naming the member, code invalid_input', async () => {
  const cc = await import('../node.js');
  await cc.init();
  const src = join(scratch, 'args.txt');
  writeFileSync(src, 'the old pier stands');
  const exp = JSON.stringify({ id: 'a', target: { source: 'u', selector: { type: 'TextQuoteSelector', exact: 'old pier' } } });
  const go = goAnnotations(['--source', `u=${src}`, '-'], exp).stdout;
  assert.equal(cc.annotations(exp, { sources: new Map([['u', 'the old pier stands']]) }), go);
  assert.equal(cc.annotations(exp, { sources: new Map([['u', { text: 'the old pier stands' }]]) }), go);
  for (const [name, options, says] of [
    ['a version that is not a string', { sources: { u: { text: 'x', version: 5 } } }, 'source "u": its version is a string, not a number'],
    ['a text that is not a string', { sources: { u: { text: 5 } } }, 'source "u": its text is a string, not a number'],
    ['a source that is a number', { sources: { u: 42 } }, 'source "u": a source is its text (a string) or {text, version}, not a number'],
    ['sources as an array', { sources: [['u', 'x']] }, 'sources is an object {IRI: text} or a Map, not an array'],
    ['sources as a Set', { sources: new Set(['u']) }, 'sources is an object {IRI: text} or a Map, not a Set'],
    ['a Map key that is not a string', { sources: new Map([[5, 'x']]) }, "a source's IRI is a string, not a number"],
    ['onNotice', { onNotice: 'x' }, 'onNotice is a function, not a string'],
    ['options', null, 'the options are an object {sources, onNotice}, not null'],
  ]) {
    assert.throws(() => cc.annotations(exp, options), (e) => {
      assert.ok(e instanceof TypeError, name);
      assert.equal(e.code, 'invalid_input', name);
      assert.equal(e.message, 'citecheck: ' + says, name);
      return true;
    });
  }
  assert.throws(() => cc.annotations(42), (e) => e instanceof TypeError && e.code === 'invalid_input' && /not a number$/.test(e.message));
  assert.throws(() => cc.checkRaw(undefined), (e) => e instanceof TypeError && e.code === 'invalid_input');
});
