// The bin beside the Go CLI: on every examples/ file (and the bodies and
// mistakes around them), the same standard output bytes, the same
// standard-error line and the same exit status, in-process and with
// --base-url against the Go service.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { goCLI, repoDir, jsDir, needWasm } from './helpers.js';

needWasm();
const bin = join(jsDir, 'bin', 'citecheck.js');
const cli = goCLI();
const examples = readdirSync(join(repoDir, 'examples')).filter((f) => f.endsWith('.json')).map((f) => join(repoDir, 'examples', f));
const scratch = mkdtempSync(join(tmpdir(), 'citecheck-bin-'));

function runBoth(args, input) {
  const opts = { cwd: repoDir, input, maxBuffer: 1 << 28 };
  const js = spawnSync(process.execPath, [bin, ...args], opts);
  const go = spawnSync(cli, args, opts);
  return { js, go };
}

// same asserts that both wrote the same stdout and stderr and exited alike.
function same(args, input) {
  const { js, go } = runBoth(args, input);
  const what = args.join(' ');
  assert.equal(js.status, go.status, `${what}: exit ${js.status}, Go ${go.status}; stderr ${js.stderr}`);
  assert.ok(js.stdout.equals(go.stdout), `${what}: stdout\n  js: ${js.stdout}\n  go: ${go.stdout}`);
  assert.ok(js.stderr.equals(go.stderr), `${what}: stderr\n  js: ${js.stderr}\n  go: ${go.stderr}`);
}

const run = ['run', 'citation-batch-check', '1.0.0'];

test('the examples are there', () => assert.ok(examples.length >= 2));

test('every example, in-process, as the Go CLI', () => {
  for (const f of examples) {
    for (const flags of [[], ['--all'], ['--explain'], ['-all'], ['--explain=true', '--all']]) {
      same([...run, ...flags, '--input', f]);
      same([...run, ...flags, '--input=-'], readFileBytes(f));
    }
  }
});

test('a failing citation\'s id on standard error: escaped as the Go CLI escapes it', () => {
  const req = JSON.parse(readFileSync(join(repoDir, 'examples', 'explain.json'), 'utf8'));
  for (const id of ['\u001b]0;title\u0007\u001b[31mred', '\u202eevil\u2066', '\u009b2J\u007f', 'line\u2028two', 'é"\\']) {
    req.citations[0].citation_id = id;
    const f = join(scratch, 'id.json');
    writeFileSync(f, JSON.stringify(req));
    same([...run, '--all', '--input', f]);
  }
});

function readFileBytes(f) {
  return spawnSync('cat', [f]).stdout;
}

test('refusals before and around the engine, as the Go CLI', () => {
  const big = join(scratch, 'big.json');
  writeFileSync(big, ' '.repeat(2 << 20));
  const notJSON = join(scratch, 'not.json');
  writeFileSync(notJSON, '{"sources": [');
  const dir = join(scratch, 'dir');
  mkdirSync(dir);
  for (const args of [
    [...run, '--input', join(scratch, 'missing.json')],
    [...run, '--input', dir],
    [...run, '--input', big],
    [...run, '--all', '--input', big],
    [...run, '--input', notJSON],
    [...run, '--explain', '--input', notJSON],
    ['run', 'other-tool', '1.0.0', '--input', examples[0]],
    ['run', 'citation-batch-check', '9.9.9', '--input', examples[0]],
  ]) same(args);
  same([...run, '--input', '-'], Buffer.alloc(3 << 20, 0x20)); // a stream over the limit
  same([...run, '--input', '-'], Buffer.alloc(0));
});

test('command-line mistakes: the same first line and exit status', () => {
  for (const args of [
    ['run', 'citation-batch-check', '1.0.0'],
    ['run', 'citation-batch-check'],
    [...run, 'extra', '--input', examples[0]],
    [...run, '--input'],
    [...run, '--nope', '--input', examples[0]],
    [...run, '--all=maybe', '--input', examples[0]],
    [...run, '--base-url', 'http://127.0.0.1:1', '--all', '--input', examples[0]],
    [...run, '--base-url', 'ftp://example.org', '--input', examples[0]],
    [],
  ]) {
    const { js, go } = runBoth(args);
    const first = (b) => b.toString('utf8').split('\n')[0];
    assert.equal(js.status, go.status, `${args.join(' ')}: exit`);
    assert.equal(js.stdout.length, 0, `${args.join(' ')}: stdout`);
    assert.equal(first(js.stderr), first(go.stderr), `${args.join(' ')}: stderr`);
  }
});

test('--help prints the usage and exits 0', () => {
  const r = spawnSync(process.execPath, [bin, 'run', '--help']);
  assert.equal(r.status, 0);
  assert.match(r.stdout.toString(), /^usage: citecheck run citation-batch-check 1\.0\.0 --input FILE\|- \[flags\]/);
});

test('--base-url: the Go service\'s answers, as the Go CLI prints them', async () => {
  const serve = spawn(cli, ['serve', '--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  after(() => serve.kill());
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    serve.stdout.on('data', (d) => {
      seen += d;
      const m = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (m) resolve(m[1]);
    });
    serve.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    setTimeout(() => reject(new Error('serve did not start in 20 s')), 20000);
  });
  for (const f of examples) {
    await sameAsync([...run, '--base-url', url, '--input', f]);
    await sameAsync([...run, '--base-url', url + '/', '--input', f]);
  }
  await sameAsync([...run, '--base-url', url, '--input', '-'], Buffer.from('{"sources":'));
  // Nothing listens at /nothing: the Go service's 404 is an envelope.
  await sameAsync([...run, '--base-url', url + '/nothing', '--input', examples[0]]);
  // A refused connection: the same code and exit status; the transport's
  // words after the URL are Go's or Node's own.
  const closed = await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
  const { js, go } = await bothAsync([...run, '--base-url', `http://127.0.0.1:${closed}`, '--input', examples[0]]);
  assert.equal(js.status, 2);
  assert.equal(go.status, 2);
  const head = (b) => b.toString().split('": ')[0];
  assert.equal(head(js.stderr), head(go.stderr));
  assert.match(js.stderr.toString(), /ECONNREFUSED/);
});

// The service runs in this process's children, so the bins are run
// without blocking the event loop.
function spawnAsync(cmd, args, input) {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd: repoDir, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    p.stdout.on('data', (d) => out.push(d));
    p.stderr.on('data', (d) => err.push(d));
    p.on('close', (status) => resolve({ status, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
    if (input !== undefined) {
      // A run that does not read its standard input may exit before the
      // write lands: EPIPE then says nothing about the run.
      p.stdin.on('error', (e) => { if (e.code !== 'EPIPE') throw e; });
      p.stdin.end(input);
    }
  });
}

async function bothAsync(args, input) {
  const [js, go] = await Promise.all([spawnAsync(process.execPath, [bin, ...args], input), spawnAsync(cli, args, input)]);
  return { js, go };
}

async function sameAsync(args, input) {
  const { js, go } = await bothAsync(args, input);
  const what = args.join(' ');
  assert.equal(js.status, go.status, `${what}: exit ${js.status}, Go ${go.status}; ${js.stderr}`);
  assert.ok(js.stdout.equals(go.stdout), `${what}: stdout\n  js: ${js.stdout}\n  go: ${go.stdout}`);
  assert.ok(js.stderr.equals(go.stderr), `${what}: stderr\n  js: ${js.stderr}\n  go: ${go.stderr}`);
}
