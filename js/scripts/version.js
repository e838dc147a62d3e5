#!/usr/bin/env node
// The package's version is the Go module's: the module is released by a
// tag vX.Y.Z (build/release.sh), and the package of that commit is X.Y.Z.
// Between releases package.json says 0.0.0-dev.
//
//   node scripts/version.js v1.2.0    writes 1.2.0 into package.json
//   node scripts/version.js           writes the tag HEAD carries, if any
//   node scripts/version.js --check   (npm pack's prepack) fails when HEAD
//                                     carries a tag the version is not
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const file = fileURLToPath(new URL('../package.json', import.meta.url));
const semverTag = /^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/;

function headTag() {
  try {
    const tags = execFileSync('git', ['tag', '--points-at', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return tags.split('\n').find((t) => semverTag.test(t)) ?? null;
  } catch {
    return null; // not a git checkout (an unpacked tarball): nothing to say
  }
}

const pkg = JSON.parse(readFileSync(file, 'utf8'));
const arg = process.argv[2];
if (arg === '--check') {
  const tag = headTag();
  if (tag && pkg.version !== tag.slice(1)) {
    console.error(`version: HEAD is tagged ${tag} but package.json says ${pkg.version}; run npm run version:set`);
    process.exit(1);
  }
  process.exit(0);
}
const tag = arg ?? headTag();
if (!tag) {
  console.error('version: give the tag (v1.2.0), or run it on a tagged commit');
  process.exit(2);
}
const m = semverTag.exec(tag);
if (!m) {
  console.error(`version: ${tag} is not a semantic version tag like v1.2.0`);
  process.exit(2);
}
pkg.version = m[1];
writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
console.log(`version: package.json is ${pkg.version}`);
