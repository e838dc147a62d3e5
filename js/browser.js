// The package in browsers and Web Workers: init fetches citecheck.wasm
// relative to this module (so a bundler or a static server that keeps the
// package's files together needs no setting).
import { initFrom } from './core.js';

export {
  MAX_INPUT_BYTES, CitecheckError, checkRaw, check, checkAllRaw, checkAll,
  explainRaw, explain, annotations, quotes, verbatimQuote, warm,
} from './core.js';

/**
 * init loads the engine: fetched from citecheck.wasm beside this module,
 * or from what it is given (a URL or string to fetch, a Response or its
 * promise, bytes, or a WebAssembly.Module). Every other function is
 * synchronous once it has resolved.
 */
export async function init(source) {
  if (source === undefined) source = new URL('./citecheck.wasm', import.meta.url);
  if (source instanceof URL || typeof source === 'string') source = fetch(source);
  await initFrom(source, crypto);
}
