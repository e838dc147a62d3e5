// A Web Worker that checks bodies off the main thread: the page posts
// {id, body} and gets {id, answer} back, the execute route's answer.
// In an app, import from 'citecheck' (a bundler picks the browser entry
// from the package's exports map); here the package's file is imported
// by its path so that the example runs from a static server as it is.
import { init, checkRaw } from '../../browser.js';

const ready = init(); // fetches citecheck.wasm beside browser.js

self.onmessage = async (e) => {
  const { id, body } = e.data;
  try {
    await ready;
    self.postMessage({ id, answer: checkRaw(body) });
  } catch (err) {
    self.postMessage({ id, failure: String(err) });
  }
};
