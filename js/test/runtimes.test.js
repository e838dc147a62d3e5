// Deno, Bun and Node 18 (from npm, test/runtimes/: .ci/run installs them;
// the test skips where they are not installed): the packed package,
// installed into an empty folder and imported as 'citecheck' by each
// runtime's own resolution of the exports map, answers every golden byte
// for byte, with nothing on standard error (no experimental warning).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, copyFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldens, goCLI, jsDir, repoDir, needWasm } from './helpers.js';

const bin = (name) => join(jsDir, 'test', 'runtimes', 'node_modules', '.bin', name);
const runtimes = {
  deno: (script, arg) => [bin('deno'), ['run', '--allow-read', script, arg]],
  bun: (script, arg) => [bin('bun'), [script, arg]],
  'node 18': (script, arg) => [bin('node'), [script, arg]],
};

let app = null;
function installed() {
  if (app !== null) return app;
  needWasm();
  const dir = mkdtempSync(join(tmpdir(), 'citecheck-runtimes-'));
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: jsDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"app","private":true,"type":"module"}\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, packed[0].filename)], { cwd: app, stdio: 'inherit' });
  copyFileSync(join(jsDir, 'test', 'runtimes', 'goldens.mjs'), join(app, 'goldens.mjs'));
  const lines = goldens().map((g) => JSON.stringify({
    name: g.name, body: g.body.toString('base64'), execute: g.execute.toString('base64'),
    all: g.all.toString('base64'), explain: g.explain.toString('base64'),
  }));
  writeFileSync(join(app, 'goldens.jsonl'), lines.join('\n') + '\n');
  return app;
}

for (const [name, argv] of Object.entries(runtimes)) {
  const skip = existsSync(argv('', '')[0]) ? false : `${name} is not installed (npm ci in js/test/runtimes)`;
  test(`${name}: every golden byte for byte, through the exports map`, { skip, timeout: 300000 }, () => {
    const dir = installed();
    const [cmd, args] = argv('goldens.mjs', 'goldens.jsonl');
    const r = spawnSync(cmd, args, { cwd: dir, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' } });
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(r.stderr.length, 0, `${name} warned: ${r.stderr}`);
    const out = JSON.parse(r.stdout.toString());
    assert.ok(out.checked > 400, `only ${out.checked}`);
    assert.deepEqual(out.differ, []);
  });
}

test('Node 18: the installed bin as the Go CLI', { skip: existsSync(bin('node')) ? false : 'Node 18 is not installed (npm ci in js/test/runtimes)' }, () => {
  const dir = installed();
  const args = ['run', 'citation-batch-check', '1.0.0', '--input', join(repoDir, 'examples', 'version-mismatch.json')];
  const js = spawnSync(bin('node'), [join(dir, 'node_modules', 'citecheck', 'bin', 'citecheck.js'), ...args]);
  const go = spawnSync(goCLI(), args);
  assert.equal(js.status, go.status);
  assert.ok(js.stdout.equals(go.stdout));
  assert.equal(js.stderr.toString(), go.stderr.toString());
});
