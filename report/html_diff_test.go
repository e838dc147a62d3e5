package report

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// diffSidesOf is the two texts a diff stands for.
func diffSidesOf(ops []diffOp) (a, b string, equal int) {
	for _, op := range ops {
		switch op.kind {
		case diffEqual:
			a, b = a+op.text, b+op.text
			equal += len(clusters(op.text))
		case diffDelete:
			a += op.text
		case diffInsert:
			b += op.text
		}
	}
	return a, b, equal
}

// bruteLCS is the longest common subsequence's length of a and b by trying
// every subsequence of a: the reference for small inputs.
func bruteLCS(a, b []string) int {
	best := 0
	for mask := 0; mask < 1<<len(a); mask++ {
		var sub []string
		for i := range a {
			if mask&(1<<i) != 0 {
				sub = append(sub, a[i])
			}
		}
		if len(sub) <= best {
			continue
		}
		j := 0
		for _, c := range b {
			if j < len(sub) && sub[j] == c {
				j++
			}
		}
		if j == len(sub) {
			best = len(sub)
		}
	}
	return best
}

// TestDiffReconstructsAndIsLongest: on random small strings (with curly
// quotes, no-break spaces, combining marks, CJK and RTL letters), the
// diff's two sides are the two strings exactly, its equal runs are a
// longest common subsequence of their clusters, and no run breaks a
// cluster.
func TestDiffReconstructsAndIsLongest(t *testing.T) {
	alphabet := []string{"a", "b", " ", "\u00a0", "\"", "“", "e\u0301", "\u0301", "東", "ש", "\t", "\r\n", "👍🏽", "🇯🇵"}
	rng := rand.New(rand.NewPCG(1, 38))
	gen := func() string {
		var b strings.Builder
		for range rng.IntN(9) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 3000 {
		a, b := gen(), gen()
		ops := diffClusters(a, b)
		ga, gb, eq := diffSidesOf(ops)
		if ga != a || gb != b {
			t.Fatalf("diff(%q, %q) = %q: sides %q, %q", a, b, ops, ga, gb)
		}
		if want := bruteLCS(clusters(a), clusters(b)); eq != want {
			t.Fatalf("diff(%q, %q) keeps %d clusters, the longest common subsequence has %d", a, b, eq, want)
		}
		var ca, cb []string
		for _, op := range ops {
			if op.kind != diffInsert {
				ca = append(ca, clusters(op.text)...)
			}
			if op.kind != diffDelete {
				cb = append(cb, clusters(op.text)...)
			}
		}
		if !slices.Equal(ca, clusters(a)) || !slices.Equal(cb, clusters(b)) {
			t.Fatalf("diff(%q, %q) = %q breaks a cluster", a, b, ops)
		}
	}
}

// TestDiffKeepsCombiningMarks: a letter and its accents are one unit, in
// the diff and in a range moved to whole clusters.
func TestDiffKeepsCombiningMarks(t *testing.T) {
	ops := diffClusters("Cafe\u0301", "Cafe")
	want := []diffOp{{diffEqual, "Caf"}, {diffDelete, "e\u0301"}, {diffInsert, "e"}}
	if !slices.Equal(ops, want) {
		t.Fatalf("diff = %q, want %q", ops, want)
	}
	for _, c := range []struct {
		s          string
		cs         []string
		start, end int // of byte 5 (inside the marks after "Cafe")
	}{
		{"Cafe\u0301\u0323!", []string{"C", "a", "f", "e\u0301\u0323", "!"}, 3, 8},
		{"x👨\u200d👩\u200d👧y", []string{"x", "👨\u200d👩\u200d👧", "y"}, 1, 19},
		{"🇯🇵🇫🇷", []string{"🇯🇵", "🇫🇷"}, 0, 8},
	} {
		if got := clusters(c.s); !slices.Equal(got, c.cs) {
			t.Errorf("clusters(%q) = %q, want %q", c.s, got, c.cs)
		}
		if a, b := clusterStart(c.s, 5), clusterEnd(c.s, 5); a != c.start || b != c.end {
			t.Errorf("byte 5 of %q moves to [%d, %d), want [%d, %d)", c.s, a, b, c.start, c.end)
		}
	}
}

// dpLCS is the longest common subsequence's length of a and b by the
// whole O(n·m) table: the reference for long inputs.
func dpLCS(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// TestDiffBand: a long quotation is aligned within the band, exactly when
// its differences are few (a near quotation's: curly quotes, a no-break
// space, a missing word, each side ending differently); past the band's
// cells the middle is marked wholly. The sides are exact either way.
func TestDiffBand(t *testing.T) {
	words := strings.Repeat("the quick brown fox jumps over the lazy dog ", 120)         // 5,280 clusters
	near := "“" + words[:500] + "over\u00a0" + words[505:1000] + words[1004:1490] + "ﬁ”" // curly marks, a no-break space, a missing word, a ligature
	long := func(n int, a, b string) (string, string) { return strings.Repeat(a, n), strings.Repeat(b, n) }
	wa, wb := long(9000, "a", "b")
	for _, c := range []struct {
		name    string
		a, b    string
		longest bool // the equal runs are a longest common subsequence
		whole   bool // the middle is marked wholly
	}{
		{"few differences in 1,500 clusters", words[:1500], near, true, false},
		{"the same, the other way", near, words[:1500], true, false},
		{"a quotation against a passage 20 clusters longer", words[10:1490], words[:1500], true, false},
		{"past the band's cells", "x" + wa + "y", "x" + wb + "y", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ops := diffClusters(c.a, c.b)
			a, b, equal := diffSidesOf(ops)
			if a != c.a || b != c.b {
				t.Fatal("the diff's sides are not the two texts")
			}
			if c.longest {
				if want := dpLCS(clusters(c.a), clusters(c.b)); equal != want {
					t.Errorf("equal clusters %d, a longest common subsequence %d", equal, want)
				}
			}
			if c.whole && len(ops) != 4 {
				t.Errorf("%d ops, want prefix, middle deleted, middle inserted, suffix", len(ops))
			}
		})
	}
}

// BenchmarkDiffWorst: the dearest diff, a middle filling the band's cells
// (a quotation of 2,000 clusters, a letter in nine changed): its cost
// bounds a page's per compared passage.
func BenchmarkDiffWorst(b *testing.B) {
	a := strings.Repeat("abcdefgh ", 222)
	c := strings.ReplaceAll(a, "a", "A")
	for b.Loop() {
		diffClusters(a, c)
	}
}
