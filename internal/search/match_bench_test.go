package search

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// proseMatchText is n bytes of deterministic English-like ASCII prose
// (testkit's corpus, seed 2024): common words often, rare ones seldom, so
// rare bytes are rare as in English.
func proseMatchText(n int) string {
	c := testkit.NewCorpus(2024)
	c.ASCII = true
	return c.Prose(n)
}

// naiveIndexLoop is the find-next loop around strings.Index that
// findOccurrences replaces: quadratic on dense overlapping occurrences.
func naiveIndexLoop(text, pattern string) Occurrences {
	o := Occurrences{First: [2]int{-1, -1}}
	for i := 0; i <= len(text); {
		j := strings.Index(text[i:], pattern)
		if j < 0 {
			break
		}
		o.add(i + j)
		i += j + 1
	}
	return o
}

// plainKMP is textbook byte-at-a-time Knuth–Morris–Pratt with a
// Morris–Pratt border table, the linear baseline.
func plainKMP(text, pattern string) Occurrences {
	o := Occurrences{First: [2]int{-1, -1}}
	m := len(pattern)
	if m == 0 {
		return bruteOccurrences(text, pattern)
	}
	border := make([]int, m+1)
	border[0] = -1
	for i, k := 1, 0; i <= m; i++ {
		border[i] = k
		for k >= 0 && i < m && pattern[i] != pattern[k] {
			k = border[k]
		}
		k++
	}
	j := 0
	for i := 0; i < len(text); i++ {
		for j >= 0 && pattern[j] != text[i] {
			j = border[j]
		}
		j++
		if j == m {
			o.add(i + 1 - m)
			j = border[m]
		}
	}
	return o
}

func TestBenchmarkBaselinesAgreeWithBruteForce(t *testing.T) {
	t.Parallel()
	for _, text := range testkit.AllStrings("ab", 9) {
		for _, pat := range testkit.AllStrings("ab", 4)[1:] {
			want := bruteOccurrences(text, pat)
			if got := plainKMP(text, pat); !sameOccurrences(got, want) {
				t.Fatalf("plainKMP(%q, %q) = %+v, want %+v", text, pat, got, want)
			}
			if got := naiveIndexLoop(text, pat); !sameOccurrences(got, want) {
				t.Fatalf("naiveIndexLoop(%q, %q) = %+v, want %+v", text, pat, got, want)
			}
		}
	}
}

// BenchmarkFind compares implementations per workload; names are
// BenchmarkFind/work=W/impl=I, so `benchstat -col /impl` puts them side by
// side. Bytes are the text length.
func BenchmarkFind(b *testing.B) {
	prose := proseMatchText(512 << 10)
	mid := len(prose) / 2
	adv := testkit.AdversarialMatchText()
	a := strings.Repeat("a", 7999)
	r := rand.New(rand.NewPCG(9, 9))
	ab, dna := make([]byte, 512<<10), make([]byte, 512<<10)
	for i := range ab {
		ab[i] = "ab"[r.IntN(2)]
		dna[i] = "ACGT"[r.IntN(4)]
	}
	workloads := []struct{ name, text, pattern string }{
		{"prose-512KiB", prose, prose[mid : mid+200]},
		{"periodic-a7999b", adv, a + "b"},
		{"periodic-ba7999", adv, "b" + a},
		{"overlap-a8000", adv, a + "a"},
		{"none-a16383b", strings.Repeat("a", 512<<10), strings.Repeat("a", 16383) + "b"},
		// Random text over {a,b} and over ACGT (DNA): every byte is
		// common, so the rare-byte prefilter gives way to the window.
		{"random-ab", string(ab), string(ab[300000:300030])},
		{"random-ab-200", string(ab), string(ab[300000:300200])},
		{"dna-100", string(dna), string(dna[300000:300100])},
	}
	impls := []struct {
		name string
		find func(text, pattern string) Occurrences
	}{
		{"citecheck", findOccurrences},
		{"naive-index-loop", naiveIndexLoop},
		{"kmp", plainKMP},
	}
	for _, w := range workloads {
		want := findOccurrences(w.text, w.pattern)
		if w.name == "prose-512KiB" && want.Count != 1 {
			b.Fatalf("prose pattern occurs %d times, want once", want.Count)
		}
		for _, im := range impls {
			b.Run("work="+w.name+"/impl="+im.name, func(b *testing.B) {
				b.SetBytes(int64(len(w.text)))
				for b.Loop() {
					if got := im.find(w.text, w.pattern); !sameOccurrences(got, want) {
						b.Fatalf("got %+v, want %+v", got, want)
					}
				}
			})
		}
	}
}
