// The browser tests' side (test/browser.test.js evaluates these in
// headless Chromium): the package from the entry its exports map names
// for the "browser" condition, Apache Annotator from a bundle of the
// devDependency.

const enc = new TextEncoder();
const b64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const equalBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

async function entry() {
  const pkg = await (await fetch('/pkg/package.json')).json();
  return import('/pkg/' + pkg.exports['.'].browser.replace(/^\.\//, ''));
}

/** Every golden through checkRaw, checkAllRaw and explainRaw; the names of those that differ. */
window.runConformance = async (how) => {
  const cc = await entry();
  if (how === 'default') {
    await cc.init();
    await cc.warm(); // and the answers after it are the same
  }
  else if (how === 'response') await cc.init(fetch('/pkg/citecheck.wasm'));
  else if (how === 'module') await cc.init(await WebAssembly.compileStreaming(fetch('/pkg/citecheck.wasm')));
  else if (how === 'bytes') await cc.init(new Uint8Array(await (await fetch('/pkg/citecheck.wasm')).arrayBuffer()));
  const goldens = await (await fetch('/goldens.json')).json();
  const differ = [];
  for (const g of goldens) {
    const body = b64(g.body);
    if (!equalBytes(enc.encode(cc.checkRaw(body)), b64(g.execute))) differ.push('execute ' + g.name);
    if (!equalBytes(enc.encode(cc.checkAllRaw(body) + '\n'), b64(g.all))) differ.push('all ' + g.name);
    if (!equalBytes(enc.encode(cc.explainRaw(body) + '\n'), b64(g.explain))) differ.push('explain ' + g.name);
  }
  return { checked: goldens.length, differ };
};

/** The worker example's answers for the first n goldens, against the route's. */
window.runWorker = async (n) => {
  const { checkInWorker } = await import('/pkg/examples/worker/main.js');
  const goldens = (await (await fetch('/goldens.json')).json()).slice(0, n);
  const answers = await Promise.all(goldens.map((g) => checkInWorker(b64(g.body))));
  const dec = new TextDecoder();
  return goldens.filter((g, i) => answers[i] !== dec.decode(b64(g.execute))).map((g) => g.name);
};

// A small deterministic generator, so a failure names a selector that
// the next run makes again.
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}

/**
 * Selectors on the page's text: spans at random code points (1–40 long),
 * half with a prefix and suffix of up to 24 code points, and a tenth
 * changed so that they are nowhere. Each is matched by Annotator in the
 * page and by citecheck's annotations on document.body.textContent.
 */
window.runAnnotator = async (count, seed) => {
  const cc = await entry();
  await cc.init();
  const { createTextQuoteSelectorMatcher } = await import('/annotator.js');
  const text = document.body.textContent;
  const cps = Array.from(text); // code points
  const u16At = []; // UTF-16 offset of each code point
  for (let i = 0, u = 0; i <= cps.length; i++) { u16At.push(u); if (i < cps.length) u += cps[i].length; }
  const cpOf = new Map(u16At.map((u, i) => [u, i]));
  const next = rng(seed);
  const pick = (n) => Math.floor(next() * n);
  const iri = location.href;
  const cases = [];
  for (let i = 0; i < count; i++) {
    const len = 1 + pick(40);
    const start = pick(cps.length - len);
    let exact = cps.slice(start, start + len).join('');
    if (exact.trim() === '') { i--; continue; }
    const sel = { type: 'TextQuoteSelector', exact };
    if (next() < 0.5) {
      sel.prefix = cps.slice(Math.max(0, start - pick(25)), start).join('');
      sel.suffix = cps.slice(start + len, start + len + pick(25)).join('');
    }
    if (next() < 0.1) sel.exact = exact + '\u2042'; // an asterism: on no page
    const ranges = [];
    for await (const r of createTextQuoteSelectorMatcher(sel)(document.body)) {
      const pre = document.createRange();
      pre.setStart(document.body, 0);
      pre.setEnd(r.startContainer, r.startOffset);
      const u = pre.toString().length;
      ranges.push({ start: cpOf.get(u), end: cpOf.get(u + r.toString().length) });
    }
    cases.push({ sel, ranges });
  }
  // Two annotations a selector: the quote alone, and the quote with the
  // position Annotator found, when it found one.
  const anns = [];
  cases.forEach((c, i) => {
    anns.push({ id: `q${i}`, target: { source: iri, selector: c.sel } });
    if (c.ranges.length === 1) {
      anns.push({ id: `p${i}`, target: { source: iri, selector: [c.sel, { type: 'TextPositionSelector', ...c.ranges[0] }] } });
    }
  });
  const lines = cc.annotations(JSON.stringify(anns), { sources: { [iri]: text } }).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const byId = new Map(lines.map((l) => [l.id, l]));
  const tally = { single: 0, multiple: 0, none: 0 };
  const unexplained = [];
  const explained = [];
  cases.forEach((c, i) => {
    const q = byId.get(`q${i}`)?.outcome;
    const p = byId.get(`p${i}`)?.outcome;
    const what = { sel: c.sel, annotator: c.ranges, citecheck: { quote: q, position: p } };
    if (c.ranges.length === 1) {
      tally.single++;
      // Both anchor it once, at the same code points.
      if (q !== 'anchored' || p !== 'anchored') unexplained.push(what);
    } else if (c.ranges.length > 1) {
      tally.multiple++;
      // Annotator yields every match; citecheck says the quote does not say which.
      if (q === 'ambiguous') explained.push({ why: 'Annotator\'s multiple matches: citecheck reports ambiguous', ...what });
      else unexplained.push(what);
    } else {
      tally.none++;
      if (q !== 'orphaned') unexplained.push(what);
    }
  });
  return { tally, unexplained, explained: explained.length, chars: cps.length };
};
