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

// engine is the instance every call uses; module and crypto are what
// made it, kept so that an instance a call broke is replaced at once.
let engine = null;
let module = null;
let cryptoSource = null;

/**
 * An error of the package itself (not a refusal, which is an answer).
 * code is the contract's error code where one applies ('invalid_input'
 * for a string argument that is not Unicode text).
 */
export class CitecheckError extends Error {
  constructor(message, lines, options) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CitecheckError';
    if (lines !== undefined) this.lines = lines;
    if (options?.code !== undefined) this.code = options.code;
  }
}

// host is what the module asks of the package during an annotations
// call (wasm/exports_wasip1.go): the export, piece by piece, and the
// lines, as they come. read and write are set for the call's length.
const host = { memory: null, read: null, write: null };

function imports(crypto) {
  const wasi = wasiImports(crypto);
  return {
    wasi,
    object: {
      wasi_snapshot_preview1: wasi.imports,
      citecheck: {
        read_export: (ptr, n) => host.read(new Uint8Array(host.memory.buffer, ptr, n)),
        write_lines: (ptr, n) => host.write(new Uint8Array(host.memory.buffer, ptr, n)),
      },
    },
  };
}

// start runs a new instance's Go runtime and makes it the engine.
function start(instance, wasi) {
  const x = instance.exports;
  wasi.bind(x.memory);
  x._initialize();
  engine = { x, memory: x.memory, wasi };
  host.memory = x.memory;
}

// instantiate makes the engine from a WebAssembly.Module, or bytes.
async function instantiate(source, crypto) {
  const { wasi, object } = imports(crypto);
  let instance;
  if (source instanceof WebAssembly.Module) {
    instance = await WebAssembly.instantiate(source, object);
  } else {
    ({ module: source, instance } = await WebAssembly.instantiate(source, object));
  }
  module = source;
  cryptoSource = crypto;
  start(instance, wasi);
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
      const { wasi, object } = imports(crypto);
      const made = await WebAssembly.instantiateStreaming(source, object);
      module = made.module;
      cryptoSource = crypto;
      start(made.instance, wasi);
      return;
    }
    source = new Uint8Array(await source.arrayBuffer());
  }
  if (!(source instanceof WebAssembly.Module) && !ArrayBuffer.isView(source) && !(source instanceof ArrayBuffer)) {
    throw argError('citecheck: init takes the module as bytes, a Response, a URL or a WebAssembly.Module');
  }
  await instantiate(source, crypto);
}

// isResponse tells a fetch Response by its shape, without touching the
// global Response (which Node 18 marks experimental, with a warning).
function isResponse(x) {
  return x !== null && typeof x === 'object' && typeof x.arrayBuffer === 'function' &&
    typeof x.ok === 'boolean' && typeof x.headers?.get === 'function';
}

function need() {
  if (engine === null) {
    if (module === null) throw new CitecheckError('citecheck: call and await init() first');
    restart();
  }
  return engine;
}

// restart replaces the instance a failed call left (its memory may be
// half-written) with a new one of the same module: synchronous, so that
// the call after a failure works as any other. It costs what init's
// instantiation does (5 ms under Node; docs/javascript.md). Where the
// host refuses to instantiate synchronously (a browser's main thread
// may, for a module over its size limit), every call says so until init
// is awaited again.
function restart() {
  const { wasi, object } = imports(cryptoSource);
  let instance;
  try {
    instance = new WebAssembly.Instance(module, object);
  } catch (e) {
    throw new CitecheckError('citecheck: the engine failed on an earlier call and cannot be remade synchronously here; await init() again', undefined, { cause: e });
  }
  start(instance, wasi);
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
// refuses it as it refuses any such body). A string that is not Unicode
// text (a lone surrogate) is written as the bytes it stands for
// (encodeText), which are not UTF-8, so the engine refuses them as it
// refuses any such bytes.
function putString(slot, s, limit = Infinity) {
  const { x, memory } = need();
  const room = Math.min(s.length * 3, limit + 4);
  const ptr = x.citecheck_buffer(slot, room);
  return encodeText(s, new Uint8Array(memory.buffer, ptr, room));
}

// wellFormed tells whether s has no lone surrogate: the runtime's own
// String.prototype.isWellFormed where the runtime has it (Node 20), else a
// regular expression that, in Unicode mode, sees a pair as one code
// point and so matches only a surrogate on its own. Linear in s.
const loneSurrogate = /[\uD800-\uDFFF]/u;
const wellFormed = typeof String.prototype.isWellFormed === 'function'
  ? (s) => s.isWellFormed()
  : (s) => !loneSurrogate.test(s);

/**
 * encodeText writes s into dst as UTF-8, whole characters only, and
 * returns how many bytes it wrote. A lone surrogate, which TextEncoder
 * would silently make U+FFFD, is written as its three-byte form (ED A0
 * 80–ED BF BF: generalized UTF-8), which no UTF-8 reader accepts: the
 * engine then refuses the text as invalid UTF-8 at that byte, as the Go
 * side refuses those bytes. Cost: linear in s.
 */
export function encodeText(s, dst) {
  if (wellFormed(s)) return encoder.encodeInto(s, dst).written;
  let w = 0;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      i++;
      continue;
    }
    const r = encoder.encodeInto(s.substring(from, i), dst.subarray(w));
    w += r.written;
    if (r.read < i - from || w + 3 > dst.length) return w;
    dst[w++] = 0xe0 | (c >> 12);
    dst[w++] = 0x80 | ((c >> 6) & 0x3f);
    dst[w++] = 0x80 | (c & 0x3f);
    from = i + 1;
  }
  return w + encoder.encodeInto(s.substring(from), dst.subarray(w)).written;
}

// bodyArg is a body as it is written into the module: a string (an
// object as JSON, jsonText) or bytes. It throws, before anything reaches
// the module, for a body of another kind.
function bodyArg(body) {
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) body = new Uint8Array(body);
  if (ArrayBuffer.isView(body)) {
    const b = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    // The engine reads no more than one byte past the limit (ReadBody).
    return b.length > MAX_INPUT_BYTES ? b.subarray(0, MAX_INPUT_BYTES + 1) : b;
  }
  if (body !== null && typeof body === 'object') return jsonText(body, 'body');
  throw argError('citecheck: a body is a string, a Uint8Array or an object');
}

// putBody writes a body (bodyArg's) into buffer 0.
function putBody(b) {
  return typeof b === 'string' ? putString(0, b, MAX_INPUT_BYTES) : putBytes(0, b);
}

/**
 * jsonText is v as JSON.stringify writes it, or a CitecheckError
 * ('invalid_input') in plain words where JSON.stringify would throw a
 * TypeError or RangeError, silently write null, or give no text: a
 * number that is not finite (NaN, ±Infinity) or a BigInt, named by its
 * JSON Pointer in v; v holding itself (a cycle); objects and arrays
 * nested more than MAX_JSON_DEPTH deep (where the runtime's stack would
 * overflow); v (its toJSON) being no JSON value. An error
 * thrown by v's own getters or toJSON methods is theirs, and propagates.
 * Everything is checked before anything is written into the module.
 * Cost: linear in v (one replacer call and O(1) of bookkeeping a value).
 */
function jsonText(v, what) {
  // The holders JSON.stringify is inside (depth-first), and the key of
  // each in its own holder: the path of the value being written, and the
  // ancestors a cycle would return to.
  const holders = [];
  const keys = [];
  const open = new Set();
  const pointer = (key) => (holders.length === 1 ? [] : keys.slice(2).concat(key)).map((k) => '/' + String(k).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
  const s = JSON.stringify(v, function (key, value) {
    if (holders.length === 0) {
      holders.push(this);
      keys.push('');
    }
    while (holders[holders.length - 1] !== this) {
      open.delete(holders.pop());
      keys.pop();
    }
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw invalid(`citecheck: the ${what}: ${pointer(key) || 'the value'} is ${value}, which is not a finite number; JSON has no such number`);
    }
    if (typeof value === 'bigint') {
      throw invalid(`citecheck: the ${what}: ${pointer(key) || 'the value'} is a BigInt, which JSON has no number for; give it as a number or a string`);
    }
    if (value !== null && typeof value === 'object') {
      if (holders.length > MAX_JSON_DEPTH) throw invalid(`citecheck: the ${what} is nested more than ${MAX_JSON_DEPTH} deep, which the package does not write as JSON`);
      if (open.has(value)) throw invalid(`citecheck: the ${what}: ${pointer(key) || 'the value'} holds itself (a cycle), which JSON cannot write`);
      holders.push(value);
      keys.push(key);
      open.add(value);
    }
    return value;
  });
  if (typeof s !== 'string') throw invalid(`citecheck: the ${what} is not a JSON value: ${typeof v?.toJSON === 'function' ? 'its toJSON gives' : 'it is'} no object, array, string, number, boolean or null`);
  return s;
}

/**
 * The deepest nesting of objects and arrays jsonText writes: as deep as
 * V8's JSON.stringify goes on any stack a caller leaves it (it overflows
 * at a few thousand), as Python's recursion limit bounds the Python
 * package's, and far past any answer or request a model writes.
 */
const MAX_JSON_DEPTH = 1000;

// invalid is the refusal of an argument the package cannot send.
function invalid(message, cause) {
  return new CitecheckError(message, undefined, { code: 'invalid_input', cause });
}

// output returns the engine's last answer, n bytes, as a string.
function output(n) {
  const { x, memory } = need();
  if (n === 0) return '';
  return decoder.decode(new Uint8Array(memory.buffer, x.citecheck_output(), n));
}

// guarded runs f, which writes a call's arguments into the module and
// runs it; every argument was checked before (nothing f does can be the
// caller's mistake). Whatever f throws, the instance is dropped: its
// memory may hold half a call (sources added, a buffer half-written, a
// runtime stopped mid-function), which the next call must never see. The
// call fails with a CitecheckError, code 'internal', whose cause is what
// was thrown: out of memory, said so, when the Go runtime said so on
// standard error, else the module's failure (a trap: a bug, as the
// engine answers every input). The next call gets a new instance, so
// the package stays usable.
function guarded(f) {
  const { wasi } = need();
  try {
    return f();
  } catch (e) {
    engine = null;
    if (e instanceof CitecheckError) throw e;
    if (/out of memory/.test(wasi.stderr())) {
      throw new CitecheckError('citecheck: the engine ran out of memory on this call (the module\'s memory is at most 4 GiB, and the runtime may cap it lower) and was reset; later calls work', undefined, { cause: e, code: 'internal' });
    }
    throw new CitecheckError(`citecheck: the engine failed on this call and was reset (${e?.name ?? 'Error'}: ${e?.message ?? e}); later calls work`, undefined, { cause: e, code: 'internal' });
  }
}

function run(mode, body) {
  const b = bodyArg(body);
  return guarded(() => output(need().x.citecheck_check(mode, putBody(b))));
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
  const [i, v] = [String(id), String(version)];
  return guarded(() => {
    const n = need().x.citecheck_lookup(putString(1, i), putString(2, v));
    return n === 0 ? null : output(n);
  });
}

/** {"error": {code, message, path: ""}} as the engine writes it. */
export function errorEnvelope(code, message) {
  const [c, m] = [String(code), String(message)];
  return guarded(() => output(need().x.citecheck_error(putString(1, c), putString(2, m))));
}

/**
 * The JSON lines `citecheck annotations` writes for an export, checked
 * against the sources given as {IRI: text} (or {IRI: {text, version}}).
 * Throws a CitecheckError with the CLI's message when it cannot finish
 * (the export is not JSON; its .lines are the lines written before).
 * options.onNotice, when given, is called once the lines are written (and
 * before such an error is thrown) with each notice the CLI's summary
 * gives beside its counts: the export is one page of a collection
 * (one_page), targets name no source (targets_name_no_source), sources
 * named were not supplied (sources_not_supplied).
 *
 * The export is handed to the module in pieces of at most EXPORT_PIECE
 * bytes as its reader asks for them, and the lines come back as they are
 * written: the module holds the sources, one batch of annotations and the
 * longest JSON token of the export, never the export nor its lines whole
 * (docs/javascript.md). Cost: the CLI's, and the export's length once to
 * encode a string.
 */
export function annotations(exportText, options = {}) {
  if (options === null || typeof options !== 'object') throw argError(`citecheck: the options are an object {sources, onNotice}, not ${kindOf(options)}`);
  const sources = options.sources ?? {};
  const onNotice = options.onNotice;
  if (onNotice !== undefined && typeof onNotice !== 'function') throw argError(`citecheck: onNotice is a function, not ${kindOf(onNotice)}`);
  const entries = sourceEntries(sources, '{IRI: text}');
  // Every argument is checked before any reaches the engine, which keeps
  // the sources it is given until the next check.
  const list = entries.map(([iri, v]) => {
    if (typeof iri !== 'string') throw argError(`citecheck: a source's IRI is a string, not ${kindOf(iri)}`);
    const name = `citecheck: source ${JSON.stringify(iri)}`;
    const plain = typeof v === 'string';
    if (!plain && (v === null || typeof v !== 'object')) throw argError(`${name}: a source is its text (a string) or {text, version}, not ${kindOf(v)}`);
    const text = plain ? v : v.text;
    const version = plain ? '' : (v.version ?? '');
    if (typeof text !== 'string') throw argError(`${name}: its text is a string, not ${kindOf(text)}`);
    if (typeof version !== 'string') throw argError(`${name}: its version is a string, not ${kindOf(version)}`);
    for (const [what, str] of [['IRI', iri], ['text', text], ['version', version]]) {
      if (!wellFormed(str)) throw notUnicode(`source ${JSON.stringify(iri)}: its ${what}`, str);
    }
    // A byte order mark at the start is not text (spec §5.12): the CLI
    // drops one at the start of a source file, and readFileSync(…, 'utf8')
    // keeps it as U+FEFF, so the same file gives the same verdicts.
    return [iri, encoder.encode(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text), version];
  });
  let exp = exportText;
  if (exp instanceof ArrayBuffer) exp = new Uint8Array(exp);
  else if (ArrayBuffer.isView(exp)) exp = new Uint8Array(exp.buffer, exp.byteOffset, exp.byteLength);
  else if (exp !== null && typeof exp === 'object') exp = jsonText(exp, 'export');
  else if (typeof exp !== 'string') throw argError(`citecheck: an export is a string, a Uint8Array or an object, not ${kindOf(exp)}`);
  const { x } = need();
  const pieces = [];
  let answer;
  try {
    answer = guarded(() => {
      for (const [iri, bytes, version] of list) {
        const ptr = x.citecheck_text(bytes.length);
        new Uint8Array(engine.memory.buffer, ptr, bytes.length).set(bytes);
        x.citecheck_source(putString(1, iri), putString(3, version));
      }
      host.read = typeof exp === 'string' ? stringReader(exp) : bytesReader(exp);
      host.write = (b) => { pieces.push(decoder.decode(b)); };
      try {
        return JSON.parse(output(x.citecheck_annotations()));
      } finally {
        host.read = host.write = null;
      }
    });
  } catch (e) {
    // The lines written before the engine failed stand, as they do when
    // the export stops being JSON: the items they report were done.
    if (e instanceof CitecheckError && e.lines === undefined) e.lines = pieces.join('');
    throw e;
  }
  const lines = pieces.join('');
  // What the CLI's summary says beside the counts, whether or not the
  // run finished, as it says it then.
  if (onNotice !== undefined) for (const n of answer.notices) onNotice(n);
  if (answer.message === undefined) return lines;
  // Every run the engine cannot finish is a refusal of what it was given
  // (sources named twice, an export that stops being JSON or UTF-8, as a
  // string with a lone surrogate does).
  throw new CitecheckError('citecheck: ' + answer.message, lines, { code: 'invalid_input' });
}

/**
 * The JSON lines `citecheck quotes` prints for text (a report, a
 * structured answer {citations: [{source_id, quote}]} or an Anthropic
 * Messages response, as a string, bytes or an object sent as
 * JSON.stringify writes it), checked against options.sources ({id: text}
 * or a Map, in the order given: a Map's, or an object's with integer-like
 * keys first; an id is not empty) and, for an Anthropic response, the
 * documents of
 * options.request (the Messages request it answered: the sources "0",
 * "1", …, before options.sources); options.explain gives each failing
 * quotation its fix. Input the command refuses throws a CitecheckError
 * with its message ("citecheck: text: …", the input called "text" as the
 * Python package calls it) and code, its .lines what was written before.
 *
 * The module holds the text, the request, the sources (their UTF-8), the
 * quotations and one batch of 256 results and their lines; the lines are
 * gathered outside it into the string returned. Cost: the CLI's
 * (docs/quotes.md#cost), and each string's length once to encode it.
 */
export function quotes(text, options = {}) {
  if (options === null || typeof options !== 'object') throw argError(`citecheck: the options are an object {sources, request, explain}, not ${kindOf(options)}`);
  const explainFlag = options.explain ?? false;
  if (typeof explainFlag !== 'boolean') throw argError(`citecheck: explain is a boolean, not ${kindOf(explainFlag)}`);
  const list = quoteSources(options.sources ?? {}, false);
  const request = options.request ?? null;
  if (list.length === 0 && request === null) throw argError('citecheck: quotes needs sources, or for an Anthropic response the request');
  return runQuotes(quotesArg(text, 'text'), request === null ? null : quotesArg(request, 'request'), list, explainFlag);
}

// quoteSources is sources ({id: text} or a Map) as quotes writes them:
// [id, UTF-8 bytes] (a lone surrogate in a text as the bytes it stands
// for, so that the engine refuses it as the command refuses a source
// file that is not UTF-8, naming the byte; with strict, refused here).
// An id is a string of Unicode text, not empty, as the command's
// --source ID=FILE gives one. Cost: the texts' length, once.
function quoteSources(sources, strict) {
  return sourceEntries(sources, '{id: text}').map(([id, v]) => {
    if (typeof id !== 'string') throw argError(`citecheck: a source's id is a string, not ${kindOf(id)}`);
    if (id === '') throw invalid('citecheck: a source\'s id is empty; an id is at least one character, as the command\'s --source ID=FILE needs');
    if (!wellFormed(id)) throw notUnicode(`source ${JSON.stringify(id)}: its id`, id);
    if (typeof v !== 'string') throw argError(`citecheck: source ${JSON.stringify(id)}: its text is a string, not ${kindOf(v)}`);
    if (wellFormed(v)) return [id, encoder.encode(v)];
    if (strict) throw notUnicode(`source ${JSON.stringify(id)}: its text`, v);
    const b = new Uint8Array(v.length * 3);
    return [id, b.subarray(0, encodeText(v, b))];
  });
}

// runQuotes is quotes on arguments already checked (quotesArg's, and
// quoteSources'): the only part that writes into the module.
function runQuotes(input, req, list, explainFlag) {
  const { x } = need();
  const pieces = [];
  let answer;
  try {
    answer = guarded(() => {
      for (const [id, bytes] of list) {
        const ptr = x.citecheck_text(bytes.length);
        new Uint8Array(engine.memory.buffer, ptr, bytes.length).set(bytes);
        x.citecheck_source(putString(1, id), 0);
      }
      const n = typeof input === 'string' ? putString(0, input) : putBytes(0, input);
      const m = req === null ? 0 : typeof req === 'string' ? putString(2, req) : putBytes(2, req);
      host.write = (b) => { pieces.push(decoder.decode(b)); };
      try {
        return JSON.parse(output(x.citecheck_quotes(n, m, (req === null ? 0 : QUOTES_REQUEST) | (explainFlag ? QUOTES_EXPLAIN : 0))));
      } finally {
        host.write = null;
      }
    });
  } catch (e) {
    if (e instanceof CitecheckError && e.lines === undefined) e.lines = pieces.join('');
    throw e;
  }
  const lines = pieces.join('');
  if (answer.status !== 2) return lines;
  throw new CitecheckError('citecheck: ' + answer.message, lines, { code: answer.code });
}

/**
 * verbatimQuote returns a refinement for a Zod schema (Zod 3 and 4, as
 * `.superRefine(verbatimQuote(sources))`; the Vercel AI SDK's
 * generateObject runs it when it validates the model's object) that
 * holds quotes verbatim in sources ({id: text} or a Map). It checks a
 * value of one of four shapes: a quote (a string, checked against
 * options.source, or without it against every source); a citation
 * {source_id?, quote}; an array of citations; an answer {citations:
 * [...]} (LangChain's QuotedAnswer shape). Each quote that is not
 * verbatim gets one issue, at its path, whose message is its explain
 * line's `message` (the engine's words, docs/quotes.md): the quote, why
 * it failed and the fix, a message a model can correct itself from.
 * What it cannot check is never passed: a value of another shape, a
 * quote that is not a string or holds a lone surrogate, a source_id that
 * is neither a string of Unicode text nor a safe integer, each gets an
 * issue at its path saying so. It never rewrites or drops a quote, and
 * never throws for anything in the value. The outcomes are quotes' for
 * the structured answer {citations: [{source_id, quote}]} (explain on).
 * The sources are checked when it is made (a TypeError or CitecheckError,
 * as quotes throws; a text with a lone surrogate refused then too) and
 * copied, as UTF-8: changing them later changes nothing. A call costs
 * quotes' on those sources.
 */
export function verbatimQuote(sources, options = {}) {
  if (options === null || typeof options !== 'object') throw argError(`citecheck: the options are an object {source}, not ${kindOf(options)}`);
  const source = options.source;
  if (source !== undefined && typeof source !== 'string') throw argError(`citecheck: source is a source's id (a string), not ${kindOf(source)}`);
  if (source !== undefined && !wellFormed(source)) throw notUnicode('source', source);
  const list = quoteSources(sources ?? {}, true);
  if (list.length === 0) throw argError('citecheck: verbatimQuote needs the sources the quotes are from');
  return (value, ctx) => {
    const cites = []; // [path of the quote, {source_id, quote}]
    const issue = (path, message) => ctx.addIssue({ code: 'custom', path, message });
    const quoteAt = (path, q, c) => {
      if (typeof q !== 'string') issue(path, `a quote is a string, not ${kindOf(q)}`);
      else if (!wellFormed(q)) issue(path, `quote ${quoteName(q)} holds a lone surrogate (half of a character written alone), which no source holds: quote the source's words exactly`);
      else cites.push([path, { ...c, quote: q }]);
    };
    const cite = (path, c) => {
      if (c === null || typeof c !== 'object' || Array.isArray(c) || !('quote' in c)) {
        issue(path, `a citation is an object {source_id, quote}, not ${kindOf(c)}${c !== null && typeof c === 'object' && !Array.isArray(c) ? ' without a quote' : ''}`);
        return;
      }
      const id = c.source_id;
      const why = sourceIdProblem(id);
      if (why !== null) issue([...path, 'source_id'], why);
      else quoteAt([...path, 'quote'], c.quote, id == null ? {} : { source_id: id });
    };
    if (typeof value === 'string') quoteAt([], value, source === undefined ? {} : { source_id: source });
    else if (Array.isArray(value)) value.forEach((c, i) => cite([i], c));
    else if (value !== null && typeof value === 'object' && 'citations' in value) {
      if (Array.isArray(value.citations)) value.citations.forEach((c, i) => cite(['citations', i], c));
      else issue(['citations'], `citations is an array of citations {source_id, quote}, not ${kindOf(value.citations)}`);
    } else if (value !== null && typeof value === 'object' && 'quote' in value) cite([], value);
    else issue([], `verbatimQuote checks a quote (a string), a citation {source_id, quote}, an array of citations or an answer {citations: [...]}, not ${kindOf(value)}${value !== null && typeof value === 'object' && !Array.isArray(value) ? ' without a quote or citations' : ''}`);
    if (cites.length === 0) return;
    let lines;
    try {
      lines = runQuotes(jsonText({ citations: cites.map(([, c]) => c) }, 'text'), null, list, true);
    } catch (e) {
      // What the engine refuses in a value the checks above let through
      // is an issue too; only a failure of the module itself throws.
      if (!(e instanceof CitecheckError) || e.code !== 'invalid_input') throw e;
      issue([], e.message.replace(/^citecheck: /, ''));
      return;
    }
    let i = 0;
    for (const line of lines.split('\n')) {
      if (line === '') continue;
      const r = JSON.parse(line);
      const [path] = cites[i++];
      if (r.outcome !== 'verbatim') issue(path, r.message);
    }
  };
}

// sourceIdProblem is why a citation's source_id cannot be checked, or
// null: one is absent (null or undefined: the quote is unmarked), a
// string of Unicode text or an integer within ±(2^53−1), as the command
// reads a structured answer's.
function sourceIdProblem(id) {
  if (id === undefined || id === null) return null;
  if (typeof id === 'string') return wellFormed(id) ? null : `source_id ${quoteName(id)} holds a lone surrogate (half of a character written alone), which no source's id holds`;
  if (typeof id === 'number') {
    if (!Number.isFinite(id)) return `source_id is ${id}, which is not a finite number; a source_id is a string or an integer`;
    if (!Number.isInteger(id)) return `source_id is ${id}, which is not an integer; a source_id is a string or an integer`;
    if (!Number.isSafeInteger(id)) return `source_id is ${id}, which is outside ±(2^53−1); a source_id is a string or an integer`;
    return null;
  }
  return `a source_id is a string or an integer, not ${kindOf(id)}`;
}

// quoteName is a quote as a message names it: its first 100 code points,
// as JSON writes a string (a lone surrogate as \uD800).
function quoteName(q) {
  const cps = Array.from(q);
  return JSON.stringify(cps.length > 100 ? cps.slice(0, 100).join('') + '…' : q);
}

// The flags of citecheck_quotes (wasm/exports_wasip1.go).
const QUOTES_REQUEST = 1;
const QUOTES_EXPLAIN = 2;

// quotesArg is a text or request as the module takes it: a string, or
// bytes (an object as JSON.stringify writes it).
function quotesArg(v, what) {
  if (typeof v === 'string') return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (v !== null && typeof v === 'object') return jsonText(v, what);
  throw argError(`citecheck: the ${what} is a string, a Uint8Array or an object, not ${kindOf(v)}`);
}

// sourceEntries are the entries of sources, a Map or a plain object. Any
// other object (an array, a class's instance) would be read by its own
// enumerable keys only, silently, so it is refused.
function sourceEntries(sources, shape) {
  if (sources instanceof Map) return [...sources.entries()];
  if (sources !== null && typeof sources === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(sources))) return Object.entries(sources);
  throw argError(`citecheck: sources is an object ${shape} or a Map, not ${kindOf(sources)}`);
}

/** The most bytes of an export annotations hands the module at a time. */
const EXPORT_PIECE = 64 * 1024;

// bytesReader hands on an export given as bytes, exactly.
function bytesReader(b) {
  let at = 0;
  return (dst) => {
    const n = Math.min(dst.length, EXPORT_PIECE, b.length - at);
    dst.set(b.subarray(at, at + n));
    at += n;
    return n;
  };
}

// stringReader hands on an export given as a string, encoded a piece at
// a time (encodeText: a lone surrogate as the bytes it stands for, which
// the reader refuses as not UTF-8). A piece never ends inside a pair.
function stringReader(s) {
  const stage = new Uint8Array(EXPORT_PIECE);
  let pending = stage.subarray(0, 0);
  let at = 0; // UTF-16 units of s encoded so far
  return (dst) => {
    if (pending.length === 0 && at < s.length) {
      // EXPORT_PIECE / 3 units take at most EXPORT_PIECE bytes.
      let end = Math.min(s.length, at + EXPORT_PIECE / 3 | 0);
      if (end < s.length && (s.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
      pending = stage.subarray(0, encodeText(s.substring(at, end), stage));
      at = end;
    }
    const n = Math.min(dst.length, pending.length);
    dst.set(pending.subarray(0, n));
    pending = pending.subarray(n);
    return n;
  };
}

// argError is the error of an argument of the wrong type: a TypeError, as
// JavaScript's own functions throw, carrying the code 'invalid_input' as
// every other refusal of what the caller passed does.
function argError(message) {
  const e = new TypeError(message);
  e.code = 'invalid_input';
  return e;
}

// kindOf names a value's kind in a message, in words.
function kindOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'undefined': return 'undefined';
    case 'object': {
      const proto = Object.getPrototypeOf(v);
      const made = proto === Object.prototype || proto === null ? '' : proto?.constructor?.name;
      return made ? `a ${made}` : 'an object';
    }
    case 'number': case 'bigint': return 'a number';
    case 'boolean': return 'a boolean';
    default: return `a ${typeof v}`;
  }
}

// notUnicode is the refusal of a string argument with a lone surrogate,
// in the words the CLI uses for a file that is not UTF-8, naming the
// byte the string's UTF-8 would have there.
function notUnicode(what, s) {
  let i = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c & 0xfc00) === 0xd800 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    else if ((c & 0xf800) === 0xd800) break;
  }
  const at = encoder.encode(s.substring(0, i)).length;
  return new CitecheckError(`citecheck: ${what} is not UTF-8: a lone surrogate (invalid byte 0xED at byte offset ${at})`, undefined, { code: 'invalid_input' });
}
