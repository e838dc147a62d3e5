// The WASI preview 1 imports the Go reactor uses, and no more: the engine
// does no I/O, so files, arguments and the environment are empty, and
// only the runtime's own needs (the clock, random seeds for its maps, a
// panic's message on standard error) are met. Node's node:wasi would do
// the same work but warns that it is experimental; browsers have none.

const ESUCCESS = 0;
const EBADF = 8;

/** Thrown when the module calls proc_exit (a Go runtime fatal error). */
export class WasiExit extends Error {
  constructor(code, stderr) {
    super(`citecheck: the WebAssembly engine stopped (exit ${code})${stderr ? ': ' + stderr.trim() : ''}`);
    this.name = 'WasiExit';
    this.code = code;
  }
}

/**
 * wasiImports returns the wasi_snapshot_preview1 import object and a bind
 * function to call with the instance's memory once it exists. What the
 * module writes to standard output or error is kept (the last 64 KiB) for
 * the message of a fatal error. random_get reads crypto, a Web Crypto
 * object (the browser's global, or node:crypto's webcrypto).
 */
export function wasiImports(crypto) {
  let memory = null;
  let stderr = '';
  const decoder = new TextDecoder();
  const view = () => new DataView(memory.buffer);
  const bytes = () => new Uint8Array(memory.buffer);
  const hasPerf = typeof performance !== 'undefined' && typeof performance.now === 'function';
  const msToNs = (ms) => BigInt(Math.round(ms * 1e6));
  const imports = {
    sched_yield: () => ESUCCESS,
    proc_exit: (code) => { throw new WasiExit(code, stderr); },
    args_sizes_get: (argc, bufSize) => { view().setUint32(argc, 0, true); view().setUint32(bufSize, 0, true); return ESUCCESS; },
    args_get: () => ESUCCESS,
    environ_sizes_get: (count, bufSize) => { view().setUint32(count, 0, true); view().setUint32(bufSize, 0, true); return ESUCCESS; },
    environ_get: () => ESUCCESS,
    clock_time_get: (id, _precision, out) => {
      // 0 is the wall clock, 1 the monotonic one; nanoseconds.
      const ms = id === 1 && hasPerf ? performance.now() : Date.now();
      view().setBigUint64(out, msToNs(ms), true);
      return ESUCCESS;
    },
    random_get: (ptr, len) => {
      // getRandomValues fills at most 65536 bytes a call.
      for (let i = ptr; i < ptr + len; i += 65536) crypto.getRandomValues(bytes().subarray(i, Math.min(i + 65536, ptr + len)));
      return ESUCCESS;
    },
    fd_write: (fd, iovs, iovsLen, nwritten) => {
      if (fd !== 1 && fd !== 2) return EBADF;
      const v = view();
      let n = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = v.getUint32(iovs + i * 8, true);
        const len = v.getUint32(iovs + i * 8 + 4, true);
        stderr = (stderr + decoder.decode(bytes().subarray(ptr, ptr + len))).slice(-65536);
        n += len;
      }
      v.setUint32(nwritten, n, true);
      return ESUCCESS;
    },
    fd_read: () => EBADF,
    fd_close: () => ESUCCESS,
    fd_fdstat_get: (fd, out) => {
      if (fd > 2) return EBADF;
      const v = view();
      for (let i = 0; i < 24; i += 4) v.setUint32(out + i, 0, true);
      v.setUint8(out, 2); // character device
      return ESUCCESS;
    },
    fd_fdstat_set_flags: () => ESUCCESS,
    fd_prestat_get: () => EBADF, // no preopened directories
    fd_prestat_dir_name: () => EBADF,
    poll_oneoff: (inPtr, outPtr, nsubs, neventsPtr) => {
      // Only the runtime's timers wait here, and nothing else runs while
      // the engine does: every subscription is answered at once.
      const v = view();
      for (let i = 0; i < nsubs; i++) {
        const sub = inPtr + i * 48;
        const ev = outPtr + i * 32;
        v.setBigUint64(ev, v.getBigUint64(sub, true), true); // userdata
        v.setUint16(ev + 8, 0, true); // error
        v.setUint8(ev + 10, v.getUint8(sub + 8)); // type
      }
      v.setUint32(neventsPtr, nsubs, true);
      return ESUCCESS;
    },
  };
  return {
    imports,
    bind(mem) { memory = mem; },
    stderr: () => stderr,
  };
}
