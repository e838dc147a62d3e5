package search

import (
	"strings"
	"sync/atomic"
)

// A text that many long anchors are searched in is read whole once per
// anchor. Where every anchor holds a byte the text has few of (a rare
// byte in periodic or repetitive text, the one '#' of a log) each scan
// looked for that byte over the whole text again; rareBytes keeps where
// it is, learnt by the first scan that looked, for the scans after it.

// rareBytes is what a text's scans learned of its rare bytes: the offsets
// of up to rareLists byte values that a pass over the whole text found at
// most rareMax(n) times, and the byte values it found more often (dense),
// which no pass looks for again. Safe for concurrent use: a list is
// written once, whole, before it is published; two scans may build the
// same one, and the first published is kept.
//
// Memory: at most rareLists × rareMax(n) offsets of 4 bytes, n/32 bytes
// for a text of n bytes (the sparse index takes n/4).
type rareBytes struct {
	lists [rareLists]atomic.Pointer[rareList]
	dense [4]atomic.Uint64 // bit b: byte value b is not rare
}

// rareList is the offsets of one byte value b in a text, increasing.
type rareList struct {
	b   byte
	pos []int32
}

const (
	rareLists = 8
	// rareListMinText is the shortest text whose rare bytes are listed:
	// in a shorter one a scan's IndexByte over the whole text takes a
	// microsecond or two, and the lists' lookups and passes cost about
	// what they save (the kit's rag_typical, 20 KB sources: 10 % slower).
	rareListMinText = 64 << 10
	// rareShare: a byte value is rare when it is at most one byte in
	// rareShare of the text (a candidate per 1 KiB: far fewer than any
	// skip search's steps).
	rareShare = 1024
	// rareSampleShare: a byte the text's sample holds more than once in
	// rareSampleShare bytes is not looked for (on prose, a rarest byte
	// such as 'q' or a capital): the pass would stop at its limit, having
	// cost a good part of a scan for nothing.
	rareSampleShare = 4096
)

// rareMax is how many times a rare byte may occur in a text of n bytes.
func rareMax(n int) int { return n/rareShare + 16 }

// rareSource gives match a text's rare-byte lists; *Text is one.
type rareSource interface{ rareBytes() *rareBytes }

// known returns a byte of pat that the text is known to have few of: its
// first offset in pat and its list; or -1 and nil. Cost: one IndexByte
// over pat per list kept (at most rareLists), skipping a list no shorter
// than the best found so far: the byte with the fewest offsets wins.
func (r *rareBytes) known(pat string) (int, *rareList) {
	var best *rareList
	off := -1
	for k := range r.lists {
		l := r.lists[k].Load()
		if l == nil {
			break
		}
		if best != nil && len(l.pos) >= len(best.pos) {
			continue
		}
		if i := strings.IndexByte(pat, l.b); i >= 0 {
			best, off = l, i
		}
	}
	return off, best
}

// list returns the offsets of b in text when b is rare there, from a pass
// over text the first time it is asked; nil when b is not rare or no list
// is left to keep it in. A byte the text's sample (ranks) holds more than
// once in rareSampleShare bytes is taken as common without a pass; the
// pass stops at the first offset too many. Either way b is then marked
// dense, and never asked about again. Cost: the first time, one IndexByte
// pass over text at most, stopping within rareMax(len(text)) hits, and the
// sample's 256 counts summed; after that, at most rareLists loads.
func (r *rareBytes) list(text string, b byte, ranks *byteRanks) *rareList {
	if r.dense[b/64].Load()&(1<<(b%64)) != 0 {
		return nil
	}
	free := -1
	for k := range r.lists {
		l := r.lists[k].Load()
		if l == nil {
			free = k
			break
		}
		if l.b == b {
			return l
		}
	}
	if free < 0 {
		return nil
	}
	if ranks[b]>>8*rareSampleShare > ranks.sampled() {
		r.markDense(b)
		return nil
	}
	most := rareMax(len(text))
	l := &rareList{b: b}
	for at := 0; ; {
		i := strings.IndexByte(text[at:], b)
		if i < 0 {
			break
		}
		if len(l.pos) == most {
			r.markDense(b)
			return nil
		}
		l.pos = append(l.pos, int32(at+i))
		at += i + 1
	}
	for k := free; k < len(r.lists); k++ {
		if r.lists[k].CompareAndSwap(nil, l) {
			return l
		}
		if o := r.lists[k].Load(); o.b == b { // another scan listed b first
			return o
		}
	}
	return l // no room left to keep it: this scan uses it alone
}

// markDense records that b is not rare in the text.
func (r *rareBytes) markDense(b byte) { r.dense[b/64].Or(1 << (b % 64)) }
