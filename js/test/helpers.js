// What the package's tests share: the repository's paths, the Go CLI
// built from this checkout, and the Go answers (internal/goldens) they
// compare the package's with.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const jsDir = dirname(dirname(fileURLToPath(import.meta.url)));
export const repoDir = dirname(jsDir);
export const wasmFile = join(jsDir, 'citecheck.wasm');

let cli = null;

/** goCLI is the path of the Go citecheck binary, built once a process. */
export function goCLI() {
  if (cli === null) {
    const dir = mkdtempSync(join(tmpdir(), 'citecheck-js-'));
    cli = join(dir, 'citecheck');
    execFileSync('go', ['build', '-o', cli, './cmd/citecheck'], { cwd: repoDir, stdio: 'inherit' });
  }
  return cli;
}

/** goldens are the Go answers for every conformance, JSON-suite and example body. */
export function goldens() {
  const out = execFileSync('go', ['run', './internal/goldens', '-cli', goCLI()], {
    cwd: jsDir, maxBuffer: 1 << 30, encoding: 'utf8',
  });
  return out.split('\n').filter((l) => l !== '').map((l) => {
    const g = JSON.parse(l);
    const b = (s) => Buffer.from(s ?? '', 'base64');
    return { name: g.name, body: b(g.body), execute: b(g.execute), all: b(g.all), explain: b(g.explain) };
  });
}

/** needWasm fails at once, saying why, when the module was not built. */
export function needWasm() {
  if (!existsSync(wasmFile)) throw new Error(`${wasmFile} is missing: run npm run build`);
}
