package citecheck

import "sort"

// shortIndex answers how often a pattern too short for the gram index
// occurs (1 to gramLen bytes: "e", "th", "the"), which a scan can only
// count by stopping at every occurrence, tens of thousands in a 512 KiB
// source: the 4-byte keys at every offset of the text (big-endian, zero
// past its end), sorted, so that the offsets where a pattern occurs are
// the keys of one range, found by two binary searches. Built by a radix
// sort (a pass for the keys and their histograms, then four of 256
// buckets: linear, 8 bytes of memory per byte of text while it runs, 4
// after), once a text's short questions have cost shortIndexScans scans of
// it (see searcher.shortIndexed). Counting all of a request's short
// patterns in one pass over the text (an automaton of them) would cost
// less than the sort; explaining asks its questions one citation at a
// time, so that is not done.
type shortIndex struct {
	keys []uint32
}

// shortIndexScans is how many whole scans of a text for short patterns
// make a searcher build its shortIndex. The sort is slow beside them: on
// 512 KiB of prose about 40 scans counting a common letter (20 against
// 0.48 ms, fastest of 30; it moves 16 MB through memory), so this bounds
// what any number of short questions cost at eight scans and a sort
// (about 24 ms) instead of a scan each (256 of them: 120 ms), and a text
// asked fewer is never sorted.
const shortIndexScans = 8

func newShortIndex(text string) *shortIndex {
	n := len(text)
	keys, tmp := make([]uint32, n), make([]uint32, n)
	// The histograms of all four digits in the pass that makes the keys
	// (a pass of an LSD sort does not change them), then a scatter a digit.
	var count [4][256]int
	for p := range n {
		k := shortKey(text, p)
		keys[p] = k
		count[0][k&0xFF]++
		count[1][k>>8&0xFF]++
		count[2][k>>16&0xFF]++
		count[3][k>>24]++
	}
	for d := range 4 {
		shift := 8 * d
		if n == 0 || count[d][keys[0]>>shift&0xFF] == n { // one bucket: the pass changes nothing
			continue
		}
		start, at := &count[d], 0
		for b, c := range start {
			start[b], at = at, at+c
		}
		for _, k := range keys {
			b := k >> shift & 0xFF
			tmp[start[b]] = k
			start[b]++
		}
		keys, tmp = tmp, keys
	}
	return &shortIndex{keys: keys}
}

// shortKey returns the four bytes at s[p:] as a big-endian number, zero
// for those past the end.
func shortKey(s string, p int) uint32 {
	if p+4 <= len(s) {
		s = s[p : p+4]
		return uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
	}
	var k uint32
	for i := range 4 {
		k <<= 8
		if p+i < len(s) {
			k |= uint32(s[p+i])
		}
	}
	return k
}

// count returns how many times pattern, of 1 to 4 bytes, occurs in text
// (the text indexed), overlapping ones counted. O(log len(text)).
func (x *shortIndex) count(text, pattern string) int {
	lo := uint64(shortKey(pattern, 0)) // the pattern, then zeros
	hi := lo + 1<<(8*(4-len(pattern)))
	first := func(v uint64) int {
		return sort.Search(len(x.keys), func(i int) bool { return uint64(x.keys[i]) >= v })
	}
	c := first(hi) - first(lo)
	// The last offsets hold fewer bytes than the pattern: their keys, padded
	// with zeros, fall in the range when the pattern ends in zero bytes.
	for p := max(0, len(text)-len(pattern)+1); p < len(text); p++ {
		if k := uint64(shortKey(text, p)); k >= lo && k < hi {
			c--
		}
	}
	return c
}
