// In headless Chromium (Debian's; the test skips where it is absent, and
// .ci/run installs it): the package's browser entry, loaded as its
// exports map says, answers every golden byte for byte however init is
// given the module; the Web Worker example checks off the main thread;
// and on real pages every TextQuoteSelector that Apache Annotator's
// matcher anchors to exactly one range, citecheck's annotations anchors
// at the same code points (the differences say why).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, extname, normalize } from 'node:path';
import { build } from 'esbuild';
import { goldens, jsDir, repoDir, needWasm } from './helpers.js';
import { launch, haveChromium, chromiumPath } from './cdp.js';

const skip = haveChromium() ? false : `${chromiumPath} is absent (apt-get install -y chromium)`;
const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.html': 'text/html; charset=utf-8' };
let server;
let base;
let browser;

// The real pages: the UDHR's first article in twelve languages (and a
// paragraph beyond the BMP), and two of the repository's own documents.
const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
function markdownPage(file) {
  const md = readFileSync(join(repoDir, file), 'utf8');
  const blocks = md.split(/\n(?=```)|\n\s*\n/).map((b) => {
    if (b.startsWith('```')) return `<pre>${escape(b.replace(/^```\w*\n?|```$/g, ''))}</pre>`;
    const h = /^(#+)\s+(.*)$/s.exec(b);
    if (h) return `<h${h[1].length}>${escape(h[2])}</h${h[1].length}>`;
    return `<p>${escape(b)}</p>`;
  });
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escape(file)}</title>${script}</head><body>${blocks.join('\n')}</body></html>`;
}
const script = '<script type="module" src="/page.js"></script>';
const pages = {
  '/pages/udhr.html': () => readFileSync(join(jsDir, 'test', 'browser', 'pages', 'udhr.html'), 'utf8').replace('</head>', script + '</head>'),
  '/pages/readme.html': () => markdownPage('README.md'),
  '/pages/annotations.html': () => markdownPage('docs/annotations.md'),
  '/blank.html': () => `<!doctype html><html><head><meta charset="utf-8">${script}</head><body></body></html>`,
};

before(async () => {
  if (skip) return;
  needWasm();
  const golden = JSON.stringify(goldens().map((g) => ({
    name: g.name, body: g.body.toString('base64'), execute: g.execute.toString('base64'),
    all: g.all.toString('base64'), explain: g.explain.toString('base64'),
  })));
  const out = mkdtempSync(join(tmpdir(), 'citecheck-annotator-'));
  await build({
    entryPoints: [join(jsDir, 'test', 'browser', 'annotator-entry.js')], bundle: true, format: 'esm',
    platform: 'browser', outfile: join(out, 'annotator.js'), logLevel: 'error',
  });
  const annotator = readFileSync(join(out, 'annotator.js'));
  server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    let body;
    let type = types[extname(path)] ?? 'application/octet-stream';
    try {
      if (pages[path]) body = pages[path]();
      else if (path === '/goldens.json') body = golden;
      else if (path === '/annotator.js') body = annotator;
      else if (path === '/page.js') body = readFileSync(join(jsDir, 'test', 'browser', 'page.js'));
      else if (path.startsWith('/pkg/')) {
        const rel = normalize(decodeURIComponent(path.slice(5)));
        if (rel.startsWith('..') || rel.startsWith('node_modules')) throw new Error('outside');
        body = readFileSync(join(jsDir, rel.endsWith('/') || rel === '.' ? join(rel, 'index.html') : rel));
      }
    } catch { body = undefined; }
    if (body === undefined) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': type });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
});

for (const how of ['default', 'response', 'module', 'bytes']) {
  test(`in Chromium, init(${how}): every golden byte for byte`, { skip, timeout: 300000 }, async () => {
    const page = await browser.open(`${base}/blank.html`);
    const r = await page.evaluate(`runConformance(${JSON.stringify(how)})`);
    assert.ok(r.checked > 400, `only ${r.checked} bodies`);
    assert.deepEqual(r.differ, []);
  });
}

test('in Chromium, the Web Worker example answers as the route', { skip, timeout: 120000 }, async () => {
  const page = await browser.open(`${base}/blank.html`);
  assert.deepEqual(await page.evaluate('runWorker(60)'), []);
});

for (const [path, count] of [['/pages/udhr.html', 400], ['/pages/readme.html', 300], ['/pages/annotations.html', 300]]) {
  test(`in Chromium, on ${path}: Annotator's single matches anchor at the same code points`, { skip, timeout: 300000 }, async () => {
    const page = await browser.open(base + path);
    const r = await page.evaluate(`runAnnotator(${count}, 25)`);
    assert.ok(r.tally.single > count / 3, `too few single matches to compare: ${JSON.stringify(r.tally)}`);
    assert.ok(r.tally.none > 0, `no selector that is nowhere: ${JSON.stringify(r.tally)}`);
    assert.deepEqual(r.unexplained, [], JSON.stringify(r.tally));
    console.log(`${path}: ${r.chars} code points; Annotator single ${r.tally.single}, multiple ${r.tally.multiple} (citecheck: ambiguous, ${r.explained}), none ${r.tally.none}`);
  });
}
