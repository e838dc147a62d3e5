// A headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: fd 3 in, fd 4 out, messages ending in NUL),
// so the browser tests need no WebSocket client and no npm package.
import { spawn } from 'node:child_process';
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const haveChromium = () => existsSync(chromiumPath);

export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'citecheck-chromium-'));
  const proc = spawn(chromiumPath, [
    '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
    '--disable-dev-shm-usage', '--disable-extensions', '--disable-sync', '--disable-background-networking',
    '--disable-component-update', '--disable-quic', `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true }); // its own process group: close ends its helpers too
  const toBrowser = proc.stdio[3];
  const fromBrowser = proc.stdio[4];
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-8192); });
  let nextId = 1;
  const pending = new Map();
  const listeners = [];
  let buf = Buffer.alloc(0);
  fromBrowser.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (let i; (i = buf.indexOf(0)) >= 0;) {
      const msg = JSON.parse(buf.subarray(0, i).toString('utf8'));
      buf = buf.subarray(i + 1);
      if (msg.id !== undefined && pending.has(msg.id)) {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
        else p.resolve(msg.result);
      } else {
        for (const l of listeners) l(msg);
      }
    }
  });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  exited.then(() => { for (const p of pending.values()) p.reject(new Error(`chromium exited: ${stderr}`)); });

  function send(method, params = {}, sessionId) {
    const id = nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, method });
      toBrowser.write(JSON.stringify(msg) + '\0');
    });
  }

  return {
    send,
    on(fn) { listeners.push(fn); },
    /** A new tab at url; evaluate runs an expression in it and returns its value. */
    async open(url) {
      const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
      await send('Runtime.enable', {}, sessionId);
      await send('Page.enable', {}, sessionId);
      const loaded = new Promise((resolve) => listeners.push((m) => { if (m.sessionId === sessionId && m.method === 'Page.loadEventFired') resolve(); }));
      await send('Page.navigate', { url }, sessionId);
      await loaded;
      return {
        async evaluate(expression) {
          const r = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId);
          if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
          return r.result.value;
        },
      };
    },
    async close() {
      try { await Promise.race([send('Browser.close'), new Promise((r) => setTimeout(r, 2000))]); } catch { /* gone already */ }
      proc.kill();
      await exited;
      // Chromium's helper processes can outlive the browser and go on
      // writing the profile: end the whole group, and wait until none is
      // left (at most 5 s), before the profile is removed.
      for (let i = 0; i < 50 && groupAlive(proc.pid); i++) {
        try { process.kill(-proc.pid, 'SIGKILL'); } catch { /* gone meanwhile */ }
        await new Promise((r) => setTimeout(r, 100));
      }
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/** groupAlive reports whether any process of the group led by pid is left. */
function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
