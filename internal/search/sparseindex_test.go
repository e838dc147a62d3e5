package search

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// checkSparseAgainstBrute fails t unless the index's answers for pattern,
// unbounded and bounded (when it gives one), are the brute force's: every
// occurrence, overlapping ones, in order, as many kept as keep holds.
func checkSparseAgainstBrute(t testing.TB, x *sparseIndex, text, pattern string) {
	t.Helper()
	want := bruteFrom(text, pattern, 0, 0)
	answers := len(pattern) >= sparseMinPattern && len(pattern) <= len(text)
	for _, keep := range []int{0, 1, len(want) + 1} {
		o, ok := x.lookup(text, pattern, make([]int, 0, keep), math.MaxInt, math.MaxInt, nil)
		if ok != answers {
			t.Fatalf("index of %.40q (len %d), %.40q (len %d): answered %v", text, len(text), pattern, len(pattern), ok)
		}
		if ok && !sameAsBrute(o, want, keep) {
			t.Fatalf("index of %.40q (len %d), %.40q (len %d), keeping %d: %d at %v %v, want %v",
				text, len(text), pattern, len(pattern), keep, o.Count, o.First, o.Kept, want)
		}
		if o, ok := x.find(text, pattern, make([]int, 0, keep)); ok && !sameAsBrute(o, want, keep) {
			t.Fatalf("bounded index of %.40q, %.40q, keeping %d: %d at %v %v, want %v", text, pattern, keep, o.Count, o.First, o.Kept, want)
		}
	}
}

// sameAsBrute reports whether o is what a scan gives for the Occurrences
// want, keeping up to keep of them.
func sameAsBrute(o Occurrences, want []int, keep int) bool {
	first := [2]int{-1, -1}
	copy(first[:], want)
	return o.Count == len(want) && o.First == first && equalInts(o.Kept, want[:min(keep, len(want))])
}

// sparseTestTexts are texts where the sampled grams repeat in every way:
// random over two and three letters, periodic with short and long
// periods, a run of one letter with a stray one, prose and many-script
// text, each cut to lengths around a multiple of sparseStep.
func sparseTestTexts(rng *rand.Rand) []string {
	p := testkit.NewCorpus(rng.Uint64())
	var texts []string
	for _, n := range []int{sparseMinPattern, 2*sparseStep + 3, 160, 257} {
		texts = append(texts,
			testkit.RandomText(rng, "ab", n, 0),
			testkit.RandomText(rng, "abc", n, 0),
			strings.Repeat("ab", n)[:n],
			strings.Repeat("abcabd", n)[:n],
			strings.Repeat("a", n/2)+"b"+strings.Repeat("a", n-n/2-1),
			testkit.TrimToBytes(p.Prose(n+64), n),
			testkit.TrimToBytes(p.Unicode(n+64), n))
	}
	return texts
}

// TestSparseIndexFindsEveryOccurrence: for every offset of each text and
// lengths from one byte shorter than the index answers to several
// steps, the pattern there (found, in periodic text many times) and the
// same with a byte changed (mostly not found) are found by the index,
// unbounded and bounded, exactly where the brute force finds them:
// whatever the residue of an occurrence's start, one of its sampled grams
// is in the bucket read.
func TestSparseIndexFindsEveryOccurrence(t *testing.T) {
	t.Parallel()
	rng := testkit.NewRand(77)
	for _, text := range sparseTestTexts(rng) {
		x := newSparseIndex(text)
		for _, m := range []int{sparseMinPattern - 1, sparseMinPattern, sparseMinPattern + 1, 2 * sparseStep, 3*sparseStep + 5, 100} {
			for at := 0; at+m <= len(text); at++ {
				pattern := text[at : at+m]
				checkSparseAgainstBrute(t, x, text, pattern)
				b := []byte(pattern)
				b[rng.IntN(m)] ^= 1
				checkSparseAgainstBrute(t, x, text, string(b))
			}
		}
	}
}

// TestSparseIndexLeavesRepeatsToTheScan: where the grams repeat (a run of
// one letter, a short period), the bounded index declines rather than go
// through buckets holding most of the text, and where the text is near
// copies of the pattern rather than compare most of it at the candidates;
// on prose it answers.
func TestSparseIndexLeavesRepeatsToTheScan(t *testing.T) {
	t.Parallel()
	nearCopy := testkit.NewCorpus(6).Prose(2100)[:2041] // not a multiple of sparseStep: the copies start at every residue
	for _, c := range []struct {
		name, text string
		answers    bool
	}{
		{"one letter", strings.Repeat("a", 64<<10), false},
		{"period 2", strings.Repeat("ab", 32<<10), false},
		{"prose", testkit.NewCorpus(5).Prose(64 << 10), true},
		// Copies of the pattern but its last byte: every candidate
		// compares the whole pattern and differs at its end.
		{"near copies", strings.Repeat(nearCopy[:len(nearCopy)-1]+"x", 32), false},
	} {
		pattern := c.text[1000:1100]
		if c.name == "near copies" {
			pattern = nearCopy
		}
		_, ok := newSparseIndex(c.text).find(c.text, pattern, nil)
		if ok != c.answers {
			t.Errorf("%s: answered %v, want %v", c.name, ok, c.answers)
		}
	}
}

// TestSparsePlanPaysOnlyForScansDearerThanTheIndex: a text is indexed
// only when its quote citations' scans, estimated from their anchors and
// measured by the first, would cost more than building the index and
// querying it: many short anchors in a long text (CJK), many citations in
// text where q-grams recur (boilerplate, logs); not a few long anchors in
// prose (max_limits), one citation, or a short text.
func TestSparsePlanPaysOnlyForScansDearerThanTheIndex(t *testing.T) {
	t.Parallel()
	long := testkit.NewCorpus(8).Prose(maxTextBytes)
	var one, short, many Plan
	one.Add(len(long), 40)
	short.Add(sparseMinText-1, 40)
	short.Add(sparseMinText-1, 40)
	for range 1000 {
		many.Add(len(long), 40)
	}
	if one.pays(long) || short.pays(long[:sparseMinText-1]) {
		t.Errorf("one citation or a short text indexed")
	}
	if !many.pays(long) {
		t.Errorf("prose cited a thousand times not indexed")
	}
	for _, periodic := range []string{strings.Repeat("a", len(long)), strings.Repeat("abcdefghijklmnopqrstuvwxyz.", len(long)/27), strings.Repeat("a period of forty bytes, in the index 5.", len(long)/40)} {
		if many.pays(periodic) {
			t.Errorf("periodic text %.30q… indexed: its buckets are too full to answer", periodic)
		}
	}
}

// FuzzSparseIndexAgainstBrute: for any text, a pattern cut from it at any
// offset and length (found at least there) and the same with a byte
// changed, the index's Occurrences are the brute force's.
func FuzzSparseIndexAgainstBrute(f *testing.F) {
	f.Add(strings.Repeat("ab", 100), uint16(3), uint16(1), uint8(0))
	f.Add(strings.Repeat("a", 300), uint16(17), uint16(40), uint8(1))
	f.Add(testkit.NewCorpus(3).Prose(2000), uint16(999), uint16(9), uint8(8))
	f.Add(testkit.NewCorpus(4).Unicode(2000), uint16(15), uint16(0), uint8(64))
	f.Fuzz(func(t *testing.T, text string, at, length uint16, flip uint8) {
		if len(text) == 0 || len(text) > 1<<12 {
			return
		}
		x := newSparseIndex(text)
		i := int(at) % len(text)
		pattern := text[i:min(len(text), i+sparseMinPattern-1+int(length)%128)]
		checkSparseAgainstBrute(t, x, text, pattern)
		if flip != 0 {
			b := []byte(pattern)
			b[int(flip)%len(b)] ^= flip
			checkSparseAgainstBrute(t, x, text, string(b))
		}
	})
}

// BenchmarkSparseIndex: building the index of a source of max_text_bytes,
// prose and CJK, which a Checker does once for a source that its quote
// citations would otherwise scan for longer (sparseBuildBytes).
func BenchmarkSparseIndex(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"prose", testkit.NewCorpus(15).Prose(maxTextBytes)},
		{"cjk", testkit.CJKText(testkit.NewRand(16), maxTextBytes)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				newSparseIndex(c.text)
			}
		})
	}
}

// BenchmarkSparseLookup: answering 40-byte anchors cut from a
// maximum-size source from its sparse index, as the check does for each
// quote citation once the index pays: ns per lookup.
func BenchmarkSparseLookup(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"prose", testkit.NewCorpus(15).Prose(maxTextBytes)},
		{"cjk", testkit.CJKText(testkit.NewRand(16), maxTextBytes)},
	} {
		x := newSparseIndex(c.text)
		r := testkit.NewRand(17)
		var patterns []string
		for range 64 {
			i := r.IntN(len(c.text) - 64)
			patterns = append(patterns, c.text[i:i+40])
		}
		keep := make([]int, 0, 8)
		b.Run(c.name, func(b *testing.B) {
			k := 0
			for b.Loop() {
				if _, ok := x.find(c.text, patterns[k%len(patterns)], keep); !ok {
					b.Fatal("not answered from the index")
				}
				k++
			}
		})
	}
}
