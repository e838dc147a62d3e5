// The package's API over one instance of the engine's WebAssembly module
// (wasm/, docs/javascript.md). node.js and browser.js differ only in how
// init finds the module's bytes and random numbers.
import { wasiImports } from './wasi.js';

/** The contract's max_input_bytes: a body over it is refused, as by the CLI. */
export const MAX_INPUT_BYTES = 1048576;

// The answers citecheck_check gives, by mode (wasm/adapter.go).
const MODE_EXECUTE = 0;
const MODE_ALL = 1;
const MODE_EXPLAIN = 2;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

let engine = null;

/** An error of the package itself (not a refusal, which is an answer). */
export class CitecheckError extends Error {
  constructor(message, lines) {
    super(message);
    this.name = 'CitecheckError';
    if (lines !== undefined) this.lines = lines;
  }
}

// instantiate makes the engine from a WebAssembly.Module, or bytes.
async function instantiate(source, crypto) {
  const wasi = wasiImports(crypto);
  const imports = { wasi_snapshot_preview1: wasi.imports };
  let instance;
  if (source instanceof WebAssembly.Module) {
    instance = await WebAssembly.instantiate(source, imports);
  } else {
    ({ instance } = await WebAssembly.instantiate(source, imports));
  }
  const x = instance.exports;
  wasi.bind(x.memory);
  x._initialize();
  return { x, memory: x.memory };
}

/**
 * initFrom sets the package's engine from what init was given (resolved
 * by the entry point to bytes, a Response or a WebAssembly.Module).
 */
export async function initFrom(source, crypto) {
  if (source && typeof source.then === 'function') source = await source;
  if (isResponse(source)) {
    if (!source.ok) throw new CitecheckError(`citecheck: fetching the engine: ${source.status} ${source.statusText}`);
    if (typeof WebAssembly.instantiateStreaming === 'function' &&
        (source.headers.get('Content-Type') || '').split(';')[0].trim() === 'application/wasm') {
      const wasi = wasiImports(crypto);
      const { instance } = await WebAssembly.instantiateStreaming(source, { wasi_snapshot_preview1: wasi.imports });
      wasi.bind(instance.exports.memory);
      instance.exports._initialize();
      engine = { x: instance.exports, memory: instance.exports.memory };
      return;
    }
    source = new Uint8Array(await source.arrayBuffer());
  }
  if (!(source instanceof WebAssembly.Module) && !ArrayBuffer.isView(source) && !(source instanceof ArrayBuffer)) {
    throw new TypeError('citecheck: init takes the module as bytes, a Response, a URL or a WebAssembly.Module');
  }
  engine = await instantiate(source, crypto);
}

// isResponse tells a fetch Response by its shape, without touching the
// global Response (which Node 18 marks experimental, with a warning).
function isResponse(x) {
  return x !== null && typeof x === 'object' && typeof x.arrayBuffer === 'function' &&
    typeof x.ok === 'boolean' && typeof x.headers?.get === 'function';
}

function need() {
  if (engine === null) throw new CitecheckError('citecheck: call and await init() first');
  return engine;
}

// put writes bytes into input buffer slot and returns how many it wrote.
function putBytes(slot, b) {
  const { x, memory } = need();
  const ptr = x.citecheck_buffer(slot, b.length);
  new Uint8Array(memory.buffer, ptr, b.length).set(b);
  return b.length;
}

// putString writes s as UTF-8, at most limit bytes and whole characters
// (a string over the limit is written to just past it, so that the engine
// refuses it as it refuses any such body).
function putString(slot, s, limit = Infinity) {
  const { x, memory } = need();
  const room = Math.min(s.length * 3, limit + 4);
  const ptr = x.citecheck_buffer(slot, room);
  return encoder.encodeInto(s, new Uint8Array(memory.buffer, ptr, room)).written;
}

// putBody writes a body (string, bytes or an object as JSON) into buffer 0.
function putBody(body) {
  if (typeof body === 'string') return putString(0, body, MAX_INPUT_BYTES);
  if (body instanceof ArrayBuffer) body = new Uint8Array(body);
  if (ArrayBuffer.isView(body)) {
    const b = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    // The engine reads no more than one byte past the limit (ReadBody).
    return putBytes(0, b.length > MAX_INPUT_BYTES ? b.subarray(0, MAX_INPUT_BYTES + 1) : b);
  }
  if (body !== null && typeof body === 'object') return putString(0, JSON.stringify(body), MAX_INPUT_BYTES);
  throw new TypeError('citecheck: a body is a string, a Uint8Array or an object');
}

// output returns the engine's last answer, n bytes, as a string.
function output(n) {
  const { x, memory } = need();
  if (n === 0) return '';
  return decoder.decode(new Uint8Array(memory.buffer, x.citecheck_output(), n));
}

// guarded runs f; if the module traps or its runtime exits (a bug: the
// engine answers every input), the instance is dropped, since its memory
// may be half-written, and the next call must init again.
function guarded(f) {
  try {
    return f();
  } catch (e) {
    if (e instanceof TypeError || e instanceof CitecheckError) throw e;
    engine = null;
    throw e;
  }
}

function run(mode, body) {
  return guarded(() => {
    const n = putBody(body);
    return output(need().x.citecheck_check(mode, n));
  });
}

/** The exact body the HTTP execute route answers for body. */
export function checkRaw(body) { return run(MODE_EXECUTE, body); }
/** checkRaw's answer as an object: {result} or {error}. */
export function check(body) { return JSON.parse(checkRaw(body)); }
/** `citecheck run --all`'s line, without its newline. */
export function checkAllRaw(body) { return run(MODE_ALL, body); }
/** checkAllRaw's answer as an object: {all} or {error}. */
export function checkAll(body) { return JSON.parse(checkAllRaw(body)); }
/** `citecheck run --explain`'s line, without its newline. */
export function explainRaw(body) { return run(MODE_EXPLAIN, body); }
/** explainRaw's answer as an object: {all} (with findings and fixes) or {error}. */
export function explain(body) { return JSON.parse(explainRaw(body)); }

/**
 * warm readies a loaded engine for a large first body: it checks a body
 * of its own (warmBody) twice, yielding to the event loop after each, so
 * that V8 has compiled the checking code with its optimising compiler
 * before the caller's first check, which for a 1 MB body is then several
 * times faster (docs/performance.md). It costs about 100 ms, most of it
 * the two checks, which block the thread. init does not call it: a page
 * that checks small bodies has no need of it (docs/javascript.md, "The
 * first call").
 */
export async function warm() {
  need();
  const body = warmBody();
  for (let i = 0; i < WARM_ROUNDS; i++) {
    checkRaw(body);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

const WARM_ROUNDS = 2;

/**
 * warmBody is a request of about 140 KB that holds, made the same way
 * each time: a source of words (some with accents, curly quotes, a
 * combining mark, a ligature and numbers) and 64 citations on it of 6 to
 * 15 words each, half positions with their quotes, half quotes (a
 * quarter of them with a prefix and suffix). It runs the decoder,
 * the folds and the searches a large body runs (test/api.test.js holds
 * that it holds).
 */
export function warmBody() {
  const words = ['the', 'engine', 'checks', 'citations', 'against', 'sources', 'café', 'naïve', 'straße', '“quoted”',
    'it’s', 'e\u0301', 'Ωmega', 'data', 'of', 'a', 'text', 'rank', '2024', 'ﬁle'];
  let x = 0x9e3779b9; // xorshift32: the same words on every run
  const rnd = (k) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % k;
  };
  // The text's pieces, and the code point at which each starts (every
  // character of the words is one UTF-16 unit).
  const pieces = [];
  const at = [0];
  for (let units = 0; units < 128 * 1024;) {
    const p = words[rnd(words.length)] + (rnd(4) === 0 ? ` ${rnd(100000)}` : '') + (rnd(9) === 0 ? '. ' : ' ');
    pieces.push(p);
    units += p.length;
    at.push(units);
  }
  const citations = [];
  for (let i = 0; i < 64; i++) {
    const from = 1 + rnd(pieces.length - 20);
    const to = from + 6 + rnd(10);
    const quote = pieces.slice(from, to).join('');
    const cite = { citation_id: `c${i}`, source_id: 's', version: 'v1' };
    if (i % 2) citations.push({ ...cite, selector: { type: 'TextPositionSelector', start: at[from], end: at[to] }, quote });
    else if (i % 4) citations.push({ ...cite, selector: { type: 'TextQuoteSelector', exact: quote } });
    else citations.push({ ...cite, selector: { type: 'TextQuoteSelector', exact: quote, prefix: pieces[from - 1], suffix: pieces[to] } });
  }
  return JSON.stringify({ sources: [{ source_id: 's', version: 'v1', text: pieces.join('') }], citations });
}

/** The error envelope for a tool id and version not implemented, or null. */
export function lookupTool(id, version) {
  const a = putString(1, String(id));
  const b = putString(2, String(version));
  const n = need().x.citecheck_lookup(a, b);
  return n === 0 ? null : output(n);
}

/** {"error": {code, message, path: ""}} as the engine writes it. */
export function errorEnvelope(code, message) {
  const a = putString(1, String(code));
  const b = putString(2, String(message));
  return output(need().x.citecheck_error(a, b));
}

/**
 * The JSON lines `citecheck annotations` writes for an export, checked
 * against the sources given as {IRI: text} (or {IRI: {text, version}}).
 * Throws a CitecheckError with the CLI's message when it cannot finish
 * (the export is not JSON; its .lines are the lines written before).
 */
export function annotations(exportText, options = {}) {
  const sources = options.sources ?? {};
  if (sources === null || typeof sources !== 'object') throw new TypeError('citecheck: sources is an object {IRI: text}');
  const { x, memory } = need();
  // Every argument is checked before any reaches the engine, which keeps
  // the sources it is given until the next check.
  const list = Object.entries(sources).map(([iri, v]) => {
    const text = typeof v === 'string' ? v : v?.text;
    const version = typeof v === 'string' ? '' : (v?.version ?? '');
    if (typeof text !== 'string' || typeof version !== 'string') {
      throw new TypeError(`citecheck: source ${JSON.stringify(iri)}: a text is a string (or {text, version})`);
    }
    return [iri, text, version];
  });
  let exp = exportText;
  if (exp instanceof ArrayBuffer) exp = new Uint8Array(exp);
  else if (ArrayBuffer.isView(exp)) exp = new Uint8Array(exp.buffer, exp.byteOffset, exp.byteLength);
  else if (exp !== null && typeof exp === 'object') exp = JSON.stringify(exp);
  else if (typeof exp !== 'string') throw new TypeError('citecheck: an export is a string, a Uint8Array or an object');
  const [lines, message] = guarded(() => {
    for (const [iri, text, version] of list) {
      x.citecheck_source(putString(1, iri), putString(2, text), putString(3, version));
    }
    const n = x.citecheck_annotations(typeof exp === 'string' ? putString(0, exp) : putBytes(0, exp));
    if (n === 0) return ['', null];
    const out = new Uint8Array(memory.buffer, x.citecheck_output(), n);
    const split = x.citecheck_lines_length();
    return [decoder.decode(out.subarray(0, split)), split === n ? null : decoder.decode(out.subarray(split))];
  });
  if (message === null) return lines;
  throw new CitecheckError('citecheck: ' + message, lines);
}
