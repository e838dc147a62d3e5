package utext

import (
	"encoding/binary"
	"math/bits"
	"sort"
	"unicode/utf8"
	"unsafe"
)

// block is how many bytes of text one mark of an index covers: a
// conversion walks at most this many bytes past a binary search. The
// table costs 4 bytes per 64 of text.
const block = 64

// Index converts between byte offsets and code point indexes of one text
// without rescanning it. Building it is linear in the text and runs a word
// (8 bytes) at a time; each conversion then costs O(log(len/64) + 64).
// ASCII texts, where the two coincide, need no table. The zero value is
// the index of the empty text.
type Index struct {
	text  string
	n     int     // length in code points
	marks []int32 // marks[k]: code points that start before byte k*block; nil for ASCII
}

// New indexes s.
func New(s string) Index {
	b := Bytes(s)
	if IsASCII(b) {
		return Index{text: s, n: len(s)}
	}
	marks := make([]int32, len(b)/block+1)
	n := markBlocks(b, marks[:len(marks)-1])
	marks[len(marks)-1] = int32(n)
	n += CountLeads(b[(len(marks)-1)*block:])
	return Index{text: s, n: n, marks: marks}
}

// markBlocks sets marks[k] to the code points that start in b before
// byte k*block, for the len(marks) whole blocks of b, and returns the
// code points of those blocks. In each word of a block, bit 7 of a byte is
// set for a continuation byte (10xxxxxx: bit 7 set, bit 6, which w<<1
// moves to bit 7, clear); the block's eight words, their bits shifted
// apart, fill one word, which one popcount counts. Written out, with no
// call or loop a block, that is about seven operations a word (a call of
// a loop over the words took twelve).
func markBlocks(b []byte, marks []int32) int {
	const hi = 0x8080808080808080
	n := 0
	for k := range marks {
		blk := b[k*block : (k+1)*block : (k+1)*block]
		w0 := binary.LittleEndian.Uint64(blk[0:])
		w1 := binary.LittleEndian.Uint64(blk[8:])
		w2 := binary.LittleEndian.Uint64(blk[16:])
		w3 := binary.LittleEndian.Uint64(blk[24:])
		w4 := binary.LittleEndian.Uint64(blk[32:])
		w5 := binary.LittleEndian.Uint64(blk[40:])
		w6 := binary.LittleEndian.Uint64(blk[48:])
		w7 := binary.LittleEndian.Uint64(blk[56:])
		c := (w0&^(w0<<1))&hi | (w1&^(w1<<1))&hi>>1 | (w2&^(w2<<1))&hi>>2 | (w3&^(w3<<1))&hi>>3 |
			(w4&^(w4<<1))&hi>>4 | (w5&^(w5<<1))&hi>>5 | (w6&^(w6<<1))&hi>>6 | (w7&^(w7<<1))&hi>>7
		marks[k] = int32(n)
		n += block - bits.OnesCount64(c)
	}
	return n
}

// String returns the text.
func (x *Index) String() string { return x.text }

// Len returns the text's length in code points.
func (x *Index) Len() int { return x.n }

// ASCII reports whether the text is ASCII, where code point indexes are
// byte offsets.
func (x *Index) ASCII() bool { return x.marks == nil }

// CodePointAt returns the code point index of byte offset off, a character
// boundary in [0, len(text)].
func (x *Index) CodePointAt(off int) int {
	if x.marks == nil {
		return off
	}
	k := off / block
	return int(x.marks[k]) + CountLeads(Bytes(x.text[k*block:off]))
}

// ByteAt returns the byte offset of code point index cp, in [0, Len()].
func (x *Index) ByteAt(cp int) int {
	if x.marks == nil {
		return cp
	}
	// The last block that starts at or before code point cp.
	k := sort.Search(len(x.marks), func(k int) bool { return int(x.marks[k]) > cp }) - 1
	c := int(x.marks[k])
	for i := k * block; i < len(x.text); i++ {
		if x.text[i]&0xC0 != 0x80 { // a lead byte starts code point c
			if c == cp {
				return i
			}
			c++
		}
	}
	return len(x.text)
}

// Slice returns the text's code points [from, to), clamped to the text.
func (x *Index) Slice(from, to int) string {
	from, to = max(0, min(from, x.n)), max(0, min(to, x.n))
	return x.text[x.ByteAt(from):x.ByteAt(to)]
}

// RuneCount is the length of s in code points; linear, a word at a time.
func RuneCount(s string) int { return CountLeads(Bytes(s)) }

// FirstRune returns the first code point of s as a string.
func FirstRune(s string) string {
	_, size := utf8.DecodeRuneInString(s)
	return s[:size]
}

// CountLeads counts the bytes of valid UTF-8 b that start a code point (all
// but the continuation bytes 10xxxxxx), eight at a time.
func CountLeads(b []byte) int {
	n := len(b)
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		n -= bits.OnesCount64(w >> 7 &^ (w >> 6) & 0x0101010101010101)
		b = b[8:]
	}
	for _, c := range b {
		if c&0xC0 == 0x80 {
			n--
		}
	}
	return n
}

// IsASCII reports whether b holds only ASCII bytes: 32 bytes a step in
// four independent words (one chain of ORs would run at its latency), then
// 8, then single bytes.
func IsASCII(b []byte) bool {
	var acc uint64
	for len(b) >= 32 {
		acc |= binary.LittleEndian.Uint64(b) | binary.LittleEndian.Uint64(b[8:]) |
			binary.LittleEndian.Uint64(b[16:]) | binary.LittleEndian.Uint64(b[24:])
		if acc&0x8080808080808080 != 0 { // most text that is not ASCII says so early
			return false
		}
		b = b[32:]
	}
	for len(b) >= 8 {
		acc |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		acc |= uint64(c)
	}
	return acc&0x8080808080808080 == 0
}

// Bytes views s as bytes without copying, for word-at-a-time reads. The
// slice must never be written.
func Bytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// CommonPrefixLen returns the length in bytes of the longest common prefix
// of a and b. Cost is linear in the result: 8 bytes a step for the first 64
// bytes (short prefixes, as at rejected candidates, stay cheap), then chunks
// compared with == (SIMD memequal) doubling up to maxChunk; the chunk that
// differs is bisected, so at most about 2*(result+maxChunk) bytes are read.
func CommonPrefixLen(a, b string) int {
	const maxChunk = 4096
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	i := 0
	for lim := min(n, 64) - 8; i <= lim; i += 8 {
		if x := Load64(a, i) ^ Load64(b, i); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for c := 64; n-i > 16; {
		c = min(c, n-i)
		if a[i:i+c] == b[i:i+c] {
			i += c
			c = min(2*c, maxChunk)
			continue
		}
		for c > 16 {
			h := c / 2
			if a[i:i+h] == b[i:i+h] {
				i, c = i+h, c-h
			} else {
				c = h
			}
		}
		break
	}
	// At most 16 bytes are left, or a difference lies in the next 16.
	for ; i+8 <= n; i += 8 {
		if x := Load64(a, i) ^ Load64(b, i); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// Load64 returns the 8 bytes of s at offset i as a little-endian word; the
// compiler turns it into one 64-bit load.
func Load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// InvalidAt returns the offset of the first byte of b that does not start
// a valid UTF-8 sequence, or len(b). Linear in b.
func InvalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
