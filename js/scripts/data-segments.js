// Joins the data segments of the module the go command links, for
// scripts/build.js. Go's linker starts a new active data segment at every
// run of more than 8 zero bytes, which keeps the module smallest as it
// is: citecheck.wasm had about 40,000 segments, each with a header of 5
// to 8 bytes whose offset differs from every other. Compressed, those
// headers cost more than the zeros between the segments would: joined
// wherever at most maxGap zeros part them (written out as zeros), the
// module is 0.4 MB larger as it is and 65 KB smaller with gzip -9
// (docs/performance.md, "The JavaScript package"). The memory a module
// starts with is the same: a segment writes its bytes at its offset into
// memory that is zero, and the zeros written between two joined segments
// are what was there.
//
// Only the form Go writes is taken: active segments of memory 0 at an
// i32.const offset, in no DataCount section. Anything else is an error,
// not a module passed on unchanged, so that a Go release that writes
// another form is noticed.

/** @param {Uint8Array} b @param {number} at @returns {[number, number]} the value and the offset after it */
function readU32(b, at) {
  let v = 0;
  for (let shift = 0; ; shift += 7) {
    const x = b[at++];
    if (x === undefined || shift > 28) throw new Error('data-segments: a LEB128 number runs past its end');
    v += (x & 0x7f) * 2 ** shift;
    if (x < 0x80) return [v, at];
  }
}

/** @param {Uint8Array} b @param {number} at @returns {[number, number]} an i32.const's signed value and the offset after it */
function readS32(b, at) {
  let v = 0;
  let shift = 0;
  for (;;) {
    const x = b[at++];
    if (x === undefined || shift > 28) throw new Error('data-segments: a LEB128 number runs past its end');
    v += (x & 0x7f) * 2 ** shift;
    shift += 7;
    if (x < 0x80) return [x & 0x40 ? v - 2 ** shift : v, at];
  }
}

/** @param {number} v @returns {number[]} */
function u32(v) {
  const out = [];
  do {
    const x = v % 128;
    v = Math.floor(v / 128);
    out.push(v ? x | 0x80 : x);
  } while (v);
  return out;
}

/** @param {number} v a non-negative i32 @returns {number[]} */
function s32(v) {
  const out = u32(v);
  if (out[out.length - 1] & 0x40) { // the sign bit would read as negative
    out[out.length - 1] |= 0x80;
    out.push(0);
  }
  return out;
}

/**
 * The active data segments of a module's data section (section 11), in
 * memory order.
 * @param {Uint8Array} sec the section's contents
 * @returns {{offset: number, bytes: Uint8Array}[]}
 */
export function readSegments(sec) {
  let [n, at] = readU32(sec, 0);
  const segs = [];
  while (n-- > 0) {
    let flags, offset, len;
    [flags, at] = readU32(sec, at);
    if (flags !== 0 || sec[at] !== 0x41) throw new Error('data-segments: a segment not of the form Go writes (active, memory 0, i32.const)');
    [offset, at] = readS32(sec, at + 1);
    if (sec[at] !== 0x0b || offset < 0) throw new Error('data-segments: a segment offset not of the form Go writes');
    [len, at] = readU32(sec, at + 1);
    if (at + len > sec.length) throw new Error('data-segments: a segment runs past its section');
    segs.push({ offset, bytes: sec.subarray(at, at + len) });
    at += len;
  }
  if (at !== sec.length) throw new Error('data-segments: bytes after the last segment');
  return segs.sort((a, b) => a.offset - b.offset);
}

/**
 * The module with its data segments joined wherever at most maxGap bytes
 * part them, the bytes between written as zeros; every other section
 * as it was.
 * @param {Uint8Array} wasm
 * @param {number} [maxGap]
 * @returns {Uint8Array}
 */
export function joinDataSegments(wasm, maxGap = 4096) {
  const head = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (wasm.length < 8 || head.some((x, i) => wasm[i] !== x)) throw new Error('data-segments: not a WebAssembly module (version 1)');
  const parts = [wasm.subarray(0, 8)];
  let seen = false;
  for (let at = 8; at < wasm.length;) {
    const id = wasm[at];
    const [size, from] = readU32(wasm, at + 1);
    const end = from + size;
    if (end > wasm.length) throw new Error('data-segments: a section runs past the module');
    if (id === 12) throw new Error('data-segments: a DataCount section, which Go does not write');
    if (id === 11) {
      seen = true;
      const joined = [];
      for (const s of readSegments(wasm.subarray(from, end))) {
        const last = joined[joined.length - 1];
        const lastEnd = last ? last.offset + last.length : -Infinity;
        if (s.offset < lastEnd) throw new Error('data-segments: segments overlap');
        if (s.offset - lastEnd <= maxGap) {
          last.parts.push({ at: s.offset - last.offset, bytes: s.bytes });
          last.length = s.offset - last.offset + s.bytes.length;
        } else {
          joined.push({ offset: s.offset, length: s.bytes.length, parts: [{ at: 0, bytes: s.bytes }] });
        }
      }
      const body = [u32(joined.length)];
      for (const j of joined) {
        const bytes = new Uint8Array(j.length);
        for (const p of j.parts) bytes.set(p.bytes, p.at);
        body.push([0x00, 0x41, ...s32(j.offset), 0x0b, ...u32(j.length)], bytes);
      }
      const len = body.reduce((n, b) => n + b.length, 0);
      parts.push(Uint8Array.of(11, ...u32(len)), ...body.map((b) => (b instanceof Uint8Array ? b : Uint8Array.from(b))));
    } else {
      parts.push(wasm.subarray(at, end));
    }
    at = end;
  }
  if (!seen) throw new Error('data-segments: no data section');
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The memory image a module's data segments write, from the lowest
 * offset to the end of the highest segment: what joinDataSegments must
 * leave as it was.
 * @param {Uint8Array} wasm
 * @returns {{base: number, image: Uint8Array, segments: number}}
 */
export function dataImage(wasm) {
  for (let at = 8; at < wasm.length;) {
    const id = wasm[at];
    const [size, from] = readU32(wasm, at + 1);
    if (id === 11) {
      const segs = readSegments(wasm.subarray(from, from + size));
      const base = segs.length ? segs[0].offset : 0;
      const top = segs.reduce((m, s) => Math.max(m, s.offset + s.bytes.length), base);
      const image = new Uint8Array(top - base);
      for (const s of segs) image.set(s.bytes, s.offset - base);
      return { base, image, segments: segs.length };
    }
    at = from + size;
  }
  throw new Error('data-segments: no data section');
}
