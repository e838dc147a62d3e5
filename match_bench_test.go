package citecheck

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// proseMatchWords is the vocabulary of proseMatchText, most frequent first: common
// English words, then rarer and longer ones as in cited prose.
var proseMatchWords = strings.Fields(`
the of and to a in is that for it as was with be by on not he this are or
his from at which but have an they you were her she there would their we him
been has when who will more no if out so said what up its about into than
them can only other new some could time these two may then do first any my
now such like our over man me even most made after also did many before must
through back years where much your way well down should because each just
those people how too little state good very make world still own see men work
long get here between both life being under never day same another know while
last might us great old year off come since against go came right used take
three however evidence analysis reported significant quickly journal quartz
citation quoted zone examined jury exact knowledge subject approximately
frequency vertical extract maximum equivalent development university results`)

// proseMatchText returns n bytes of deterministic English-like ASCII prose:
// sentences of words drawn Zipf-distributed from proseMatchWords (so, as in
// English, "the" is common and "quartz" rare), capitalised, with commas and
// full stops.
func proseMatchText(n int) string {
	r := rand.New(rand.NewPCG(2024, 5))
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(proseMatchWords)-1))
	var b strings.Builder
	b.Grow(n + 64)
	for b.Len() < n {
		words := 6 + r.IntN(18)
		for i := range words {
			w := proseMatchWords[zipf.Uint64()]
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(w)
			if i > 0 && i < words-1 && r.IntN(9) == 0 {
				b.WriteByte(',')
			}
		}
		b.WriteString(". ")
		if r.IntN(8) == 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()[:n]
}

// naiveIndexLoop is the find-next loop around strings.Index that
// findOccurrences replaces: quadratic on dense overlapping occurrences.
func naiveIndexLoop(text, pattern string) occurrences {
	o := occurrences{first: [2]int{-1, -1}}
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
func plainKMP(text, pattern string) occurrences {
	o := occurrences{first: [2]int{-1, -1}}
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
	for _, text := range allStringsUpTo("ab", 9) {
		for _, pat := range allStringsUpTo("ab", 4)[1:] {
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
	adv := adversarialMatchText()
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
		find func(text, pattern string) occurrences
	}{
		{"citecheck", findOccurrences},
		{"naive-index-loop", naiveIndexLoop},
		{"kmp", plainKMP},
	}
	for _, w := range workloads {
		want := findOccurrences(w.text, w.pattern)
		if w.name == "prose-512KiB" && want.count != 1 {
			b.Fatalf("prose pattern occurs %d times, want once", want.count)
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
