// The JavaScript package's figures (bench/js.sh runs it): steady-state
// checkRaw per kit workload, the first call after init on a 1 MB body,
// and the .wasm's compressed sizes. Prints one JSON object.
//
//   node bench/js_wasm.mjs WORKLOAD_DIR NAME...
//   node bench/js_wasm.mjs --first-call [warm]   (one fresh init, warm() if asked, and two calls)
import { readFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cc = await import(join(root, 'js', 'node.js'));

// megabyteBody is a valid request of about 1 MB: two sources of the
// README's paragraphs repeated to about 500 000 bytes, each copy after a
// marker of its own, and 128 citations on them that hold: positions with
// their quotes, and quotes of a marker with the words after it.
function megabyteBody() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const sources = [];
  const citations = [];
  for (const id of ['a', 'b']) {
    let text = '';
    for (let k = 0; text.length < 490000; k++) text += ` [${id}${k}] ` + readme.slice((k * 997) % 4000, (k * 997) % 4000 + 3000);
    sources.push({ source_id: id, version: 'v1', text });
    const cps = Array.from(text);
    for (let i = 0; i < 64; i++) {
      if (i % 4) {
        const start = Math.floor((i * 7919) % (cps.length - 64));
        citations.push({ citation_id: `${id}p${i}`, source_id: id, version: 'v1', selector: { type: 'TextPositionSelector', start, end: start + 40 }, quote: cps.slice(start, start + 40).join('') });
      } else {
        const marker = ` [${id}${i * 2}] `;
        const at = text.indexOf(marker);
        citations.push({ citation_id: `${id}q${i}`, source_id: id, version: 'v1', selector: { type: 'TextQuoteSelector', exact: text.slice(at, at + marker.length + 30) } });
      }
    }
  }
  return JSON.stringify({ sources, citations });
}

if (process.argv[2] === '--first-call') {
  // With "warm" after it, init is followed by the package's warm(), a
  // warm-up, before the timed first call.
  const warm = process.argv[3] === 'warm';
  const body = new TextEncoder().encode(megabyteBody());
  const t0 = performance.now();
  await cc.init();
  if (warm) await cc.warm();
  const t1 = performance.now();
  const answer = cc.checkRaw(body);
  const t2 = performance.now();
  cc.checkRaw(body);
  const t3 = performance.now();
  if (!answer.startsWith('{"result":{"valid":true')) throw new Error(answer.slice(0, 300));
  console.log(JSON.stringify({ warm, bytes: body.length, init_ms: t1 - t0, first_ms: t2 - t1, second_ms: t3 - t2, head: answer.slice(0, 40) }));
  process.exit(0);
}

await cc.init();
const [dir, ...names] = process.argv.slice(2);
const out = { workloads: {} };
for (const name of names) {
  const body = readFileSync(join(dir, `${name}.json`));
  const answer = cc.checkRaw(body);
  if (!answer.startsWith('{"result":{"valid":true')) throw new Error(`${name}: ${answer.slice(0, 200)}`);
  // Warm up for at least a second, then the fastest of 60 rounds of
  // about 20 ms each: the steady state. Short rounds, many of them,
  // because on a shared machine a neighbour's burst spoils a long round.
  let t = performance.now();
  let n = 0;
  while (performance.now() - t < 1000) { cc.checkRaw(body); n++; }
  const per = Math.max(1, Math.ceil(n * 0.02));
  let best = Infinity;
  for (let r = 0; r < 60; r++) {
    t = performance.now();
    for (let i = 0; i < per; i++) cc.checkRaw(body);
    best = Math.min(best, (performance.now() - t) / per);
  }
  out.workloads[name] = { ns_per_op: best * 1e6, bytes: body.length };
}
const wasm = readFileSync(join(root, 'js', 'citecheck.wasm'));
out.wasm = {
  bytes: wasm.length,
  gzip9: gzipSync(wasm, { level: 9 }).length,
  brotli11: brotliCompressSync(wasm, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
};
console.log(JSON.stringify(out));
