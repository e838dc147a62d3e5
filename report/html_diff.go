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

// diffCells caps the LCS table: n·m cells of 2 bytes each (8 MB at the
// cap). LCS lengths fit in uint16 since min(n, m)² ≤ n·m ≤ diffCells.
const diffCells = 4 << 20

// diffClusters is the difference of a against b: runs whose diffEqual and
// diffDelete texts concatenate to a, and whose diffEqual and diffInsert
// texts concatenate to b. After trimming the common prefix and suffix, the
// middle's n and m clusters are compared by a longest common subsequence
// (the equal runs are as long as possible), O(n·m) time and 2·n·m bytes;
// when n·m exceeds diffCells the middle is marked wholly deleted and
// inserted instead (O(n+m)). Quotations are short, so the cap is met only
// by a pathological input.
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
	var ops []diffOp
	add := func(k diffKind, t string) {
		if t == "" {
			return
		}
		if n := len(ops); n > 0 && ops[n-1].kind == k {
			ops[n-1].text += t
			return
		}
		ops = append(ops, diffOp{k, t})
	}
	for _, c := range ca[:p] {
		add(diffEqual, c)
	}
	ma, mb := ca[p:len(ca)-s], cb[p:len(cb)-s]
	n, m := len(ma), len(mb)
	if n > 0 && m > 0 && n*m <= diffCells {
		// l[i*(m+1)+j] is the LCS length of ma[i:] and mb[j:].
		l := make([]uint16, (n+1)*(m+1))
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				switch {
				case ma[i] == mb[j]:
					l[i*(m+1)+j] = l[(i+1)*(m+1)+j+1] + 1
				case l[(i+1)*(m+1)+j] >= l[i*(m+1)+j+1]:
					l[i*(m+1)+j] = l[(i+1)*(m+1)+j]
				default:
					l[i*(m+1)+j] = l[i*(m+1)+j+1]
				}
			}
		}
		// Walk it; deletions before insertions where both are optimal,
		// so that a changed run reads as <del>old</del><ins>new</ins>.
		i, j := 0, 0
		for i < n && j < m {
			switch {
			case ma[i] == mb[j]:
				add(diffEqual, ma[i])
				i, j = i+1, j+1
			case l[(i+1)*(m+1)+j] >= l[i*(m+1)+j+1]:
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
