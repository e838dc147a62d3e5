package report

import (
	"unicode"
	"unicode/utf8"
)

// The character-by-character difference the HTML report marks between a
// quotation and the source passage it is shown against. Its unit is the
// cluster: a code point with the combining marks, variation selectors,
// ZWJ-joined code points, skin tones and paired regional indicators that
// follow it (what a reader sees as one character), so that a diff never
// cuts an accent from its letter.

// diffKind says which side a diffOp's text is on.
type diffKind uint8

const (
	diffEqual  diffKind = iota // in both
	diffDelete                 // only in the quotation (a)
	diffInsert                 // only in the source (b)
)

// diffOp is a run of clusters on one side (or both).
type diffOp struct {
	kind diffKind
	text string
}

// The diff's bounds. A middle of n and m clusters is compared whole when
// its table, (n+1)·(n+m+1) cells, holds at most diffBandCells; a longer
// one within a band of diffBand diagonals on each side of those that join
// its two ends (a near quotation differs from its reading in a few
// places, so its best alignment stays near the diagonal), when that band
// holds at most diffBandCells cells; past that, the middle is marked
// wholly deleted and inserted. So one diff costs at most diffBandCells
// steps and 4·diffBandCells bytes (512 KiB), under a millisecond, whatever
// the quotation: a page of k compared passages at most k of them (the
// report route's 256 quotations: about a tenth of a second).
const (
	diffBand      = 32
	diffBandCells = 1 << 17
)

// diffClusters is the difference of a against b: runs whose diffEqual and
// diffDelete texts concatenate to a, and whose diffEqual and diffInsert
// texts concatenate to b. After trimming the common prefix and suffix, the
// middle's n and m clusters are aligned by a longest common subsequence
// (the equal runs as long as possible; within the band, as long as the
// band allows), deletions before insertions where both are best, so that
// a changed run reads as <del>old</del><ins>new</ins>. Cost: see
// diffFullCells.
func diffClusters(a, b string) []diffOp {
	ca, cb := clusters(a), clusters(b)
	p := 0
	for p < len(ca) && p < len(cb) && ca[p] == cb[p] {
		p++
	}
	s := 0
	for s < len(ca)-p && s < len(cb)-p && ca[len(ca)-1-s] == cb[len(cb)-1-s] {
		s++
	}
	// The runs are built in run, a kind at a time, so that a run of k
	// clusters costs O(its bytes), not O(k·its bytes).
	var ops []diffOp
	var run []byte
	kind := diffEqual
	flush := func() {
		if len(run) > 0 {
			ops = append(ops, diffOp{kind, string(run)})
			run = run[:0]
		}
	}
	add := func(k diffKind, t string) {
		if k != kind {
			flush()
			kind = k
		}
		run = append(run, t...)
	}
	for _, c := range ca[:p] {
		add(diffEqual, c)
	}
	ma, mb := ca[p:len(ca)-s], cb[p:len(cb)-s]
	n, m := len(ma), len(mb)
	// Cell (i, j) lies on diagonal j−i; the band is the diagonals lo..hi,
	// every one when the table is small.
	lo, hi := -n, m
	if (n+1)*(n+m+1) > diffBandCells {
		lo, hi = max(-n, min(0, m-n)-diffBand), min(m, max(0, m-n)+diffBand)
	}
	if w := hi - lo + 1; n > 0 && m > 0 && (n+1)*w <= diffBandCells {
		// Clusters as small integers, so that a cell compares two words.
		ids := map[string]int32{}
		id := func(cs []string) []int32 {
			out := make([]int32, len(cs))
			for k, c := range cs {
				v, ok := ids[c]
				if !ok {
					v = int32(len(ids))
					ids[c] = v
				}
				out[k] = v
			}
			return out
		}
		xa, xb := id(ma), id(mb)
		// l[i*w+d-lo] is the LCS length of ma[i:] and mb[i+d:] along
		// paths inside the band; -1 outside it or past an end.
		l := make([]int32, (n+1)*w)
		at := func(i, j int) int32 {
			d := j - i
			if i > n || j > m || d < lo || d > hi {
				return -1
			}
			return l[i*w+d-lo]
		}
		for i := n; i >= 0; i-- {
			row, below := l[i*w:(i+1)*w], l[min(i+1, n)*w:][:w]
			for k := w - 1; k >= 0; k-- { // (i, j+1) before (i, j)
				j := i + lo + k
				switch {
				case j < 0 || j > m:
					row[k] = -1
				case i == n || j == m:
					row[k] = 0
				case xa[i] == xb[j]:
					row[k] = below[k] + 1
				default:
					v := int32(-1)
					if k > 0 {
						v = below[k-1] // (i+1, j)
					}
					if k+1 < w {
						v = max(v, row[k+1]) // (i, j+1)
					}
					row[k] = v
				}
			}
		}
		i, j := 0, 0
		for i < n && j < m {
			switch {
			case ma[i] == mb[j]:
				add(diffEqual, ma[i])
				i, j = i+1, j+1
			case at(i+1, j) >= at(i, j+1):
				add(diffDelete, ma[i])
				i++
			default:
				add(diffInsert, mb[j])
				j++
			}
		}
		ma, mb = ma[i:], mb[j:]
	}
	for _, c := range ma {
		add(diffDelete, c)
	}
	for _, c := range mb {
		add(diffInsert, c)
	}
	for _, c := range ca[len(ca)-s:] {
		add(diffEqual, c)
	}
	flush()
	return ops
}

// clusters splits s into clusters (see joinsCluster). Concatenated, they
// are s.
func clusters(s string) []string {
	var out []string
	start := 0
	var prev rune = -1
	ri := false // the cluster so far is one unpaired regional indicator
	for i, r := range s {
		if i > 0 && !joinsCluster(prev, r, ri) {
			out = append(out, s[start:i])
			start = i
			ri = false
		}
		if isRegional(r) {
			ri = !ri && (i == start)
		}
		prev = r
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func isRegional(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// joinsCluster reports whether r belongs to the cluster of the code point
// prev before it: a mark (Mn, Mc, Me), a variation selector, ZWJ or what
// follows a ZWJ, a skin tone, Hangul medial and final jamo, the second of
// a pair of regional indicators (ri: the cluster so far is one), LF after
// CR.
func joinsCluster(prev, r rune, ri bool) bool {
	switch {
	case prev == '\r':
		return r == '\n'
	case r < 0x0300:
		return false
	case prev == 0x200D && !unicode.IsSpace(r) && r >= 0x80:
		return true
	case r == 0x200D, r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF,
		r >= 0x1F3FB && r <= 0x1F3FF, r >= 0x1160 && r <= 0x11FF,
		r >= 0xE0020 && r <= 0xE007F: // tag characters of a flag sequence
		return true
	case isRegional(r):
		return ri
	}
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me)
}

// clusterStart moves byte offset i of s back to the start of its cluster
// (first to the start of its code point).
func clusterStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	if i <= 0 || i >= len(s) {
		return max(0, min(i, len(s)))
	}
	// Back up over code points that join what is before them.
	for i > 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		p, n := utf8.DecodeLastRuneInString(s[:i])
		if !joinsCluster(p, r, isRegional(p) && !isRegional(prevRune(s[:i-n]))) {
			break
		}
		i -= n
	}
	return i
}

// clusterEnd moves byte offset i of s forward to the end of its cluster.
func clusterEnd(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	if i <= 0 || i >= len(s) {
		return max(0, min(i, len(s)))
	}
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		p, pn := utf8.DecodeLastRuneInString(s[:i])
		if !joinsCluster(p, r, isRegional(p) && !isRegional(prevRune(s[:i-pn]))) {
			break
		}
		i += n
	}
	return i
}

// prevRune is the last code point of s, -1 for none.
func prevRune(s string) rune {
	if s == "" {
		return -1
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
