package citecheck

import (
	"encoding/binary"
	"math/bits"
	"sort"
	"unicode/utf8"
	"unsafe"
)

// indexBlock is how many bytes of text one entry of textIndex.marks covers:
// a conversion walks at most this many bytes past a binary search. The
// table costs 4 bytes per 64 of text.
const indexBlock = 64

// textIndex converts between byte offsets and code point indexes of one text
// without rescanning it per citation. Building it is linear in the text and
// runs a word (8 bytes) at a time; each conversion then costs
// O(log(len/64) + 64). ASCII texts, where the two coincide, need no table.
type textIndex struct {
	text  string
	n     int        // length in code points
	marks []int32    // marks[k]: code points that start before byte k*indexBlock; nil for ASCII
	ranks *byteRanks // the text's own byte ranks for the matcher, built on first find
	many  *searcher  // for explain's and hints' many questions, made on first use
	// sparse, once built, answers find where it costs less than a scan;
	// plan, until the first scan it is for, decides whether to build it
	// (see sparsePlan). Both nil for a text scanned once.
	sparse *sparseIndex
	plan   *sparsePlan
}

// find returns the occurrences of pattern in the text (byte offsets), with
// the prefilter tuned to this text's bytes, keeping up to cap(keep) offsets
// in keep's storage. Linear in text plus pattern; from the sparse index,
// when there is one and the pattern is long enough, linear in the probes
// and the candidates of the pattern's rarest grams.
func (x *textIndex) find(pattern string, keep []int) occurrences {
	if x.sparse != nil {
		if o, ok := x.sparse.find(x.text, pattern, keep); ok {
			return o
		}
	}
	if x.plan == nil || len(pattern) < sparseMinPattern {
		return findOccurrencesRanked(x.text, pattern, x, keep, nil)
	}
	// The first scan of the plan: what it did on this text scales the
	// estimates of the scans to come.
	var tr matchTrace
	o := findOccurrencesRanked(x.text, pattern, x, keep, &tr)
	x.decide(x.plan.measured(len(x.text), len(pattern), tr.work))
	return o
}

// decide builds the sparse index if plan pays for it, and drops the plan:
// the text is decided, and find builds nothing more.
func (x *textIndex) decide(plan sparsePlan) {
	if plan.pays(x.text) {
		x.sparse = newSparseIndex(x.text)
	}
	x.plan = nil
}

// search returns the text's searcher, for explain and hints, which ask
// many questions of one text: it scans until its scans have done work
// worth a quarter of a scan of the text, then answers from an index of it.
func (x *textIndex) search() *searcher {
	if x.many == nil {
		x.many = &searcher{text: x.text, ranks: x}
	}
	x.many.sparse = x.sparse // the check's, once it has built one
	return x.many
}

// byteRanks returns the text's own byte ranks, sampled on first use (by
// search, only once a scan reaches its rare-byte phase).
func (x *textIndex) byteRanks() *byteRanks {
	if x.ranks == nil {
		x.ranks = textRanks(x.text)
	}
	return x.ranks
}

func newTextIndex(s string) *textIndex {
	b := bytesOf(s)
	if isASCII(b) {
		return &textIndex{text: s, n: len(s)}
	}
	marks := make([]int32, len(b)/indexBlock+1)
	n := markBlocks(b, marks[:len(marks)-1])
	marks[len(marks)-1] = int32(n)
	n += countLeads(b[(len(marks)-1)*indexBlock:])
	return &textIndex{text: s, n: n, marks: marks}
}

// markBlocks sets marks[k] to the code points that start in b before
// byte k*indexBlock, for the len(marks) whole blocks of b, and returns the
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
		blk := b[k*indexBlock : (k+1)*indexBlock : (k+1)*indexBlock]
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
		n += indexBlock - bits.OnesCount64(c)
	}
	return n
}

// cpAt returns the code point index of byte offset off, a character
// boundary in [0, len(text)].
func (x *textIndex) cpAt(off int) int {
	if x.marks == nil {
		return off
	}
	k := off / indexBlock
	return int(x.marks[k]) + countLeads(bytesOf(x.text[k*indexBlock:off]))
}

// byteAt returns the byte offset of code point index cp, in [0, n].
func (x *textIndex) byteAt(cp int) int {
	if x.marks == nil {
		return cp
	}
	// The last block that starts at or before code point cp.
	k := sort.Search(len(x.marks), func(k int) bool { return int(x.marks[k]) > cp }) - 1
	c := int(x.marks[k])
	for i := k * indexBlock; i < len(x.text); i++ {
		if x.text[i]&0xC0 != 0x80 { // a lead byte starts code point c
			if c == cp {
				return i
			}
			c++
		}
	}
	return len(x.text)
}

// slice returns text[from:to] in code points, clamped to the text.
func (x *textIndex) slice(from, to int) string {
	from, to = max(0, min(from, x.n)), max(0, min(to, x.n))
	return x.text[x.byteAt(from):x.byteAt(to)]
}

// runeCount is the length of s in code points.
func runeCount(s string) int { return countLeads(bytesOf(s)) }

// firstRune returns the first code point of s as a string.
func firstRune(s string) string {
	_, size := utf8.DecodeRuneInString(s)
	return s[:size]
}

// countLeads counts the bytes of valid UTF-8 b that start a code point (all
// but the continuation bytes 10xxxxxx), eight at a time.
func countLeads(b []byte) int {
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

// isASCII reports whether b holds only ASCII bytes: 32 bytes a step in
// four independent words (one chain of ORs would run at its latency), then
// 8, then single bytes.
func isASCII(b []byte) bool {
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

// bytesOf views s as bytes without copying, for word-at-a-time reads. The
// slice must never be written.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Text is a source text indexed for code point positions, for callers that
// show or cut a text where the engine reports positions (the text report
// does). Building it is linear in the text; each conversion costs
// O(log(len/64) + 64).
type Text struct{ x *textIndex }

// NewText indexes s, which must be valid UTF-8 (as every decoded text is).
func NewText(s string) *Text { return &Text{newTextIndex(s)} }

// String returns the text.
func (t *Text) String() string { return t.x.text }

// Len returns the text's length in code points.
func (t *Text) Len() int { return t.x.n }

// ByteOffset returns the byte offset of code point index cp, clamped to
// [0, Len()].
func (t *Text) ByteOffset(cp int) int { return t.x.byteAt(max(0, min(cp, t.x.n))) }
