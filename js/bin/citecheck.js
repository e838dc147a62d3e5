#!/usr/bin/env node
// citecheck run citation-batch-check 1.0.0 --input FILE|- [--all] [--explain] [--base-url URL]
//
// The Go CLI's `run`, in-process on the package's engine or over HTTP
// with --base-url: the same standard output bytes, the same line on
// standard error and the same exit status (docs/spec.md, "The JavaScript
// package"). Every other command and flag is the Go binary's.
import { fstatSync, openSync, readSync, closeSync } from 'node:fs';
import { init, checkRaw, checkAllRaw, explainRaw, MAX_INPUT_BYTES } from '../node.js';
import { lookupTool, errorEnvelope } from '../core.js';

const EXIT_VALID = 0;
const EXIT_FAILED = 1;
const EXIT_ERROR = 2;

const USAGE = `usage: citecheck run citation-batch-check 1.0.0 --input FILE|- [flags]

Checks the request in FILE (- for standard input) and prints one line, {"result": …} or {"error": …}.
Exit status: 0 every citation holds, 1 a citation failed, 2 the request was refused or the command line is wrong.
This is the npm package's bin; --jsonl, --fix, --format and the other commands are the Go binary's.

flags:
  -all
    	check every citation and report each one's outcome ({"all": …})
  -base-url URL
    	send the call to the service at this URL instead of running it in-process
  -explain
    	as --all, with each failing citation's findings and fix
  -input FILE
    	the request body: a FILE, or - for standard input (required)
`;

const out = (s) => process.stdout.write(s);
const err = (s) => process.stderr.write(s);

function misuse(msg) {
  err(`citecheck: ${msg}\n\n${USAGE}`);
  return EXIT_ERROR;
}

// The flags as Go's flag package reads them (one or two dashes, -f=v or
// -f v, booleans only as -f or -f=BOOL), between the positional arguments.
const BOOLS = new Set(['all', 'explain']);
const STRINGS = new Set(['input', 'base-url']);
const GO_ONLY = new Set(['jsonl', 'fix', 'format', 'color']);
const GO_BOOL = { '1': true, t: true, T: true, TRUE: true, true: true, True: true, '0': false, f: false, F: false, FALSE: false, false: false, False: false };

function parse(args) {
  const o = { input: '', baseURL: '', all: false, explain: false, help: false };
  const pos = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') { pos.push(...args.slice(i + 1)); break; }
    if (a.length < 2 || a[0] !== '-') { pos.push(a); continue; }
    let name = a.slice(a[1] === '-' ? 2 : 1);
    if (name.length === 0 || name[0] === '-' || name[0] === '=') return { error: `run: bad flag syntax: ${a}` };
    let value;
    const eq = name.indexOf('=');
    if (eq >= 0) { value = name.slice(eq + 1); name = name.slice(0, eq); }
    if (name === 'help' || name === 'h') { o.help = true; return { o, pos }; }
    if (GO_ONLY.has(name)) return { error: `--${name} is the Go binary's (go install github.com/citecheck/citecheck/cmd/citecheck@latest); this bin runs --input, --all, --explain and --base-url` };
    if (BOOLS.has(name)) {
      if (value === undefined) value = 'true';
      if (!(value in GO_BOOL)) return { error: `run: invalid boolean value "${value}" for -${name}: parse error` };
      o[name] = GO_BOOL[value];
    } else if (STRINGS.has(name)) {
      if (value === undefined) {
        if (i + 1 >= args.length) return { error: `run: flag needs an argument: -${name}` };
        value = args[++i];
      }
      if (name === 'input') o.input = value; else o.baseURL = value;
    } else {
      return { error: `run: flag provided but not defined: -${name}` };
    }
  }
  return { o, pos };
}

function isServiceURL(u) {
  try {
    const p = new URL(u);
    return (p.protocol === 'http:' || p.protocol === 'https:') && p.host !== '' && p.search === '' && p.hash === '' && !u.includes('#') && !u.includes('?');
  } catch {
    return false;
  }
}

// Go's words for the errors opening a file can meet (syscall.Errno).
const ERRNO_TEXT = {
  ENOENT: 'no such file or directory', EACCES: 'permission denied', ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links', ENAMETOOLONG: 'file name too long', EPERM: 'operation not permitted',
  EMFILE: 'too many open files', ENXIO: 'no such device or address', EIO: 'input/output error',
};

function usageError(message) {
  return { error: { code: 'usage', message } };
}

// readInput reads the body as the Go CLI does: a file that cannot be
// opened or is a directory is a usage error; at most max_input_bytes+1
// bytes are read, which the engine then refuses as the CLI does.
function readInput(name) {
  let fd = 0;
  let what = 'standard input';
  if (name !== '-') {
    try {
      fd = openSync(name, 'r');
    } catch (e) {
      return usageError(`cannot read --input: open ${name}: ${ERRNO_TEXT[e.code] ?? e.message}`);
    }
    what = name;
  }
  try {
    try {
      if (fstatSync(fd).isDirectory()) return usageError(`cannot read --input: ${what} is a directory`);
    } catch { /* a stream that cannot be stat'ed is read as it comes */ }
    const chunks = [];
    let total = 0;
    const buf = Buffer.allocUnsafe(65536);
    for (;;) {
      let n;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        if (e.code === 'EAGAIN') continue;
        if (e.code === 'EOF') break;
        return { error: { code: 'invalid_input', message: `body: could not be read: read ${name === '-' ? '/dev/stdin' : name}: ${ERRNO_TEXT[e.code] ?? e.message}` } };
      }
      if (n === 0) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
      total += n;
      if (total > MAX_INPUT_BYTES) break;
    }
    return { body: Buffer.concat(chunks, total) };
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

// The line on standard error and the exit status for an answer, as the
// Go CLI's exitStatus and runExtended write them.
function status(env, extended) {
  if (env.error) {
    err(`citecheck: ${env.error.code}: ${env.error.message}\n`);
    return EXIT_ERROR;
  }
  if (extended) {
    const all = env.all;
    if (all.valid) return EXIT_VALID;
    const first = all.citations.find((c) => !c.valid);
    err(`citecheck: ${all.citations_failed} of ${all.citations.length} citations failed; the first, ${first.citation_index} (${idForTerminal(first.citation_id)}): ${first.reason}\n`);
    return EXIT_FAILED;
  }
  const r = env.result;
  if (r.valid) return EXIT_VALID;
  const d = r.first_discrepancy;
  err(`citecheck: citation ${d.citation_index} (${idForTerminal(d.citation_id)}) failed: ${r.reason}\n`);
  return EXIT_FAILED;
}

function printed(line, extended) {
  out(line + '\n');
  return status(JSON.parse(line), extended);
}

function reportError(code, message) {
  return printed(errorEnvelope(code, message), false);
}

// runRemote is the Go CLI's: POST to the execute route, print the
// service's answer, and take the exit status from it; a service that
// cannot be reached or answers no envelope is unavailable.
async function runRemote(baseURL, id, version, body) {
  const url = baseURL.replace(/\/+$/, '') + '/v1/tools/' + id + '/versions/' + version + '/execute';
  let resp;
  let raw;
  try {
    resp = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal: AbortSignal.timeout(5 * 60 * 1000) });
  } catch (e) {
    return reportError('unavailable', `cannot reach the service at --base-url: Post "${url}": ${e.cause?.message ?? e.message}`);
  }
  try {
    raw = new Uint8Array(await resp.arrayBuffer());
  } catch (e) {
    return reportError('unavailable', `reading the service's answer: ${e.cause?.message ?? e.message}`);
  }
  const text = new TextDecoder().decode(raw);
  let env;
  let why = null;
  try {
    env = JSON.parse(text);
    if (env === null || typeof env !== 'object' || (env.result == null) === (env.error == null)) why = 'neither a result nor an error';
    else if (env.result != null && !env.result.valid && (typeof env.result.reason !== 'string' || env.result.first_discrepancy == null)) {
      why = 'a failed result without a known reason and first_discrepancy';
    }
  } catch (e) {
    why = e.message;
  }
  if (why !== null) {
    return reportError('unavailable', `the service answered ${resp.status} ${resp.statusText} with something else than an envelope: ${why}`);
  }
  out(text.replace(/\n+$/, '') + '\n');
  return status(env, false);
}

async function main(argv) {
  if (argv.length === 0) return misuse('a command is needed');
  if (argv[0] === 'help' || argv[0] === '-h' || argv[0] === '--help' || argv[0] === '-help') { out(USAGE); return EXIT_VALID; }
  if (argv[0] !== 'run') {
    return misuse(`${JSON.stringify(argv[0])} is the Go binary's command; this bin runs only run`);
  }
  const p = parse(argv.slice(1));
  if (p.error) return misuse(p.error);
  const { o, pos } = p;
  if (o.help) { out(USAGE); return EXIT_VALID; }
  if (pos.length > 2) return misuse(`run takes a tool id and a version; ${JSON.stringify(pos[2])} is one argument too many`);
  if (pos.length !== 2) return misuse('run takes a tool id and a version: run citation-batch-check 1.0.0');
  if (o.input === '') return misuse('--input FILE (or - for standard input) is required');
  if (o.baseURL !== '' && (o.all || o.explain)) {
    return misuse('--base-url takes one request and prints the service\'s JSON; --jsonl, --all, --explain, --fix and --format text or html run in-process');
  }
  if (o.baseURL !== '' && !isServiceURL(o.baseURL)) {
    return misuse(`--base-url ${JSON.stringify(o.baseURL)} must be an http(s) URL like http://127.0.0.1:8080`);
  }
  await init();
  const refused = lookupTool(pos[0], pos[1]);
  if (refused !== null) return printed(refused, false);
  const input = readInput(o.input);
  if (input.error) return reportError(input.error.code, input.error.message);
  if (o.baseURL !== '') return runRemote(o.baseURL, pos[0], pos[1], input.body);
  if (o.explain) return printed(explainRaw(input.body), true);
  if (o.all) return printed(checkAllRaw(input.body), true);
  return printed(checkRaw(input.body), false);
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
}, (e) => {
  err(`citecheck: ${e.message}\n`);
  process.exitCode = EXIT_ERROR;
});

// A request's id as a message on a terminal writes it: a JSON string, and
// within it as \uXXXX every code point a terminal or a bidi algorithm would
// act on, as the Go command writes it (cmd/citecheck/run.go idForTerminal).
function idForTerminal(id) {
  return JSON.stringify(id).replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}
