// npm pack gives a tarball that, installed into an empty folder with no
// registry, runs its bin and imports by its exports map, and names and
// carries the project's licence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsDir, repoDir, goCLI } from './helpers.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

test('npm pack, installed into an empty folder, runs its bin', () => {
  const dir = mkdtempSync(join(tmpdir(), 'citecheck-pack-'));
  const packed = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', dir], { cwd: jsDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  const files = packed[0].files.map((f) => f.path).sort();
  for (const want of ['citecheck.wasm', 'node.js', 'browser.js', 'core.js', 'wasi.js', 'index.d.ts', 'bin/citecheck.js', 'package.json', 'README.md', 'LICENSE']) {
    assert.ok(files.includes(want), `the tarball lacks ${want}: ${files}`);
  }
  assert.ok(!files.some((f) => f.startsWith('test/') || f.startsWith('wasm/') || f.startsWith('node_modules/')), `the tarball holds more than the package: ${files}`);
  const app = join(dir, 'app');
  execFileSync('mkdir', [app]);
  writeFileSync(join(app, 'package.json'), '{"name":"app","private":true,"type":"module"}\n');
  execFileSync(npm, ['install', '--offline', '--no-audit', '--no-fund', join(dir, packed[0].filename)], { cwd: app, stdio: 'inherit' });
  // The licence: the field npm and the registry show, and the text beside
  // it, the repository's own.
  const installed = join(app, 'node_modules', 'citecheck');
  assert.equal(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).license, 'Apache-2.0');
  assert.ok(readFileSync(join(installed, 'LICENSE')).equals(readFileSync(join(repoDir, 'LICENSE'))), 'the installed LICENSE is not the repository\'s');
  const example = join(repoDir, 'examples', 'version-mismatch.json');
  const args = ['run', 'citation-batch-check', '1.0.0', '--input', example];
  const js = spawnSync(join(app, 'node_modules', '.bin', 'citecheck'), args, { cwd: app });
  const go = spawnSync(goCLI(), args);
  assert.equal(js.status, go.status);
  assert.ok(js.stdout.equals(go.stdout), `${js.stdout} vs ${go.stdout}`);
  assert.ok(js.stderr.equals(go.stderr), `${js.stderr} vs ${go.stderr}`);
  // The exports map's node condition, from the installed package.
  writeFileSync(join(app, 'use.js'), `import { init, checkRaw } from 'citecheck';\nawait init();\nprocess.stdout.write(checkRaw(${JSON.stringify(readFileSync(example, 'utf8'))}));\n`);
  const used = spawnSync(process.execPath, ['use.js'], { cwd: app });
  assert.equal(used.status, 0, used.stderr.toString());
  assert.equal(used.stdout.toString() + '\n', go.stdout.toString());
  assert.equal(used.stderr.length, 0, `a warning: ${used.stderr}`);
});
