// The package under Node (and Deno and Bun, which read the "node"
// condition): init reads the packaged citecheck.wasm beside this file.
import { readFile } from 'node:fs/promises';
import { webcrypto } from 'node:crypto';
import { initFrom } from './core.js';

export {
  MAX_INPUT_BYTES, CitecheckError, checkRaw, check, checkAllRaw, checkAll,
  explainRaw, explain, annotations, quotes, verbatimQuote, warm,
} from './core.js';

/**
 * init loads the engine: from the package's citecheck.wasm, or from what
 * it is given (bytes, a Response, a WebAssembly.Module, a file: URL, or a
 * path). Every other function is synchronous once it has resolved.
 */
export async function init(source) {
  if (source === undefined) source = new URL('./citecheck.wasm', import.meta.url);
  if (source instanceof URL || typeof source === 'string') source = await readFile(source);
  await initFrom(source, webcrypto);
}
