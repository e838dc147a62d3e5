package search

import (
	"slices"
	"sort"
)

// shortIndex answers how often a pattern too short for the gram index
// occurs (1 to gramLen bytes: "e", "th", "the"), which a scan can only
// count by stopping at every occurrence, tens of thousands in a 512 KiB
// source: the 4-byte keys at every offset of the text (big-endian, zero
// past its end), sorted, so that the offsets where a pattern occurs are
// the keys of one range, found by two binary searches. Built by a radix
// sort (a pass for the keys and their histograms, then four of 256
// buckets: linear, 8 bytes of memory per byte of text while it runs, 4
// after), once a text's short questions have cost shortIndexScans scans of
// it (see Searcher.shortIndexed). The short questions known beforehand (a
// request's short quotes) are answered by one pass instead (countShort),
// which costs less than the sort; the index is for those that come up
// while explaining (the parts and contexts tried).
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

// countShort counts each of patterns (1 to 4 bytes; one may repeat) in text,
// overlapping occurrences counted, keeping the first keep offsets of
// each: every question a request asks of its short quotes answered in one
// pass over the text, instead of a scan per pattern that stops at each of
// its occurrences (tens of thousands of a common letter) or the sort of
// shortIndex. The pass runs the patterns' Aho–Corasick automaton as a
// table of 256 transitions a state (one lookup a byte, no branch on the
// text: a pass that branched on each pattern's hits, at random offsets,
// cost as much as the sort) and counts the states it is in, in a
// histogram; a pattern occurs where the state's failure links pass its
// own, so its count is the sum over its subtree of the failure-link tree,
// and its first occurrences the first of its subtree's. Linear in the
// text, plus 256 entries a state (at most four a pattern) to build the
// table and the states times keep to merge.
func countShort(text string, patterns []string, keep int) []Occurrences {
	found := make([]Occurrences, len(patterns))
	for lo := 0; lo < len(patterns); lo += shortAutomatonMax {
		hi := min(lo+shortAutomatonMax, len(patterns))
		countShortAutomaton(text, patterns[lo:hi], keep, found[lo:hi])
	}
	return found
}

// shortAutomatonMax is how many patterns one automaton holds: its
// states, at most four a pattern and the root, are numbered in 16 bits.
const shortAutomatonMax = (1<<16 - 1) / 4

// countShortAutomaton is countShort for at most shortAutomatonMax patterns.
func countShortAutomaton(text string, patterns []string, keep int, found []Occurrences) {
	// The trie of the patterns, state 0 its root, with none for a child
	// not there; then, in breadth-first order, every missing transition
	// is the failure state's, and each child's failure state the failure
	// state's transition by the child's byte.
	const root, none = 0, 1<<16 - 1
	newRow := func(next []uint16) []uint16 {
		for range 256 {
			next = append(next, none)
		}
		return next
	}
	next := newRow(make([]uint16, 0, (1+4*len(patterns))*256))
	states := 1
	end := make([]int, len(patterns)) // the state each pattern ends in
	for id, p := range patterns {
		v := root
		for d := range len(p) {
			if next[v<<8|int(p[d])] == none {
				next[v<<8|int(p[d])] = uint16(states)
				states++
				next = newRow(next)
			}
			v = int(next[v<<8|int(p[d])])
		}
		end[id] = v
	}
	fail := make([]int, states)
	order := make([]int, 1, states) // breadth-first
	for k := 0; k < len(order); k++ {
		v := order[k]
		row, failRow := next[v<<8:(v+1)<<8], next[fail[v]<<8:(fail[v]+1)<<8]
		for b, c := range row {
			switch {
			case c != none:
				fail[c] = root
				if v != root {
					fail[c] = int(failRow[b])
				}
				order = append(order, int(c))
			case v == root:
				row[b] = root
			default:
				row[b] = failRow[b]
			}
		}
	}
	// The pass: how often each state is entered, and the first offsets
	// (of the byte read) at which it is, at least the two that
	// occurrences.first holds.
	first := max(keep, 2)
	hist := make([]int, states)
	kept := make([]int, states*first)
	v := root
	for p := range len(text) {
		v = int(next[v<<8|int(text[p])])
		if c := hist[v]; c < first { // taken at most first times a state
			kept[v*first+c] = p
		}
		hist[v]++
	}
	// Up the failure-link tree, children before parents.
	firsts := make([][]int, states)
	for v := range firsts {
		firsts[v] = kept[v*first : v*first+min(hist[v], first)]
	}
	for k := len(order) - 1; k > 0; k-- {
		v := order[k]
		u := fail[v]
		hist[u] += hist[v]
		if len(firsts[v]) > 0 && (len(firsts[u]) < first || firsts[v][0] < firsts[u][first-1]) {
			m := slices.Concat(firsts[u], firsts[v])
			slices.Sort(m)
			firsts[u] = m[:min(len(m), first)]
		}
	}
	for id, v := range end {
		// The offsets kept are of the byte an occurrence ends at.
		at := slices.Clone(firsts[v])
		for i := range at {
			at[i] -= len(patterns[id]) - 1
		}
		o := Occurrences{Count: hist[v], First: [2]int{-1, -1}}
		copy(o.First[:], at)
		o.Kept = at[:min(len(at), keep):min(len(at), keep)]
		found[id] = o
	}
}
