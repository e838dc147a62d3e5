#!/usr/bin/env node
// npm run build: the engine's WebAssembly module, citecheck.wasm, built
// by the go command from wasm/ (a reactor: GOOS=wasip1, c-shared), with
// -trimpath so that the same source and Go release give the same bytes,
// and its data segments joined (data-segments.js: the same module,
// smaller compressed); and LICENSE, the repository's, which npm packs
// from the package's own folder only.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { joinDataSegments } from './data-segments.js';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(here, 'citecheck.wasm');
execFileSync('go', ['build', '-buildmode=c-shared', '-trimpath', '-buildvcs=false', '-ldflags=-s -w', '-o', out, './wasm'], {
  cwd: here,
  stdio: 'inherit',
  env: { ...process.env, GOOS: 'wasip1', GOARCH: 'wasm', CGO_ENABLED: '0' },
});
writeFileSync(out, joinDataSegments(readFileSync(out)));
copyFileSync(join(dirname(here), 'LICENSE'), join(here, 'LICENSE'));
