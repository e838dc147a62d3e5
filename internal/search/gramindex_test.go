package search

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/citecheck/citecheck/internal/testkit"
)

// indexUnderTest is a text's indexes, and its byte ranks for the scans.
type indexUnderTest struct {
	*gramIndex
	short *shortIndex
	ranks *byteRanks
}

func newIndexUnderTest(text string) indexUnderTest {
	return indexUnderTest{newGramIndex(text), newShortIndex(text), textRanks(text)}
}

// unguarded is text's index with its guards off, so that it answers every
// question a pattern's length allows, however slowly: the index itself
// under test.
func unguarded(text string) indexUnderTest {
	g := newIndexUnderTest(text)
	g.maxCandidates, g.maxCompared = math.MaxInt, math.MaxInt
	return g
}

// bruteFrom is bruteOccurrences of text[from:], offsets from the start,
// all kept, and only the first limit of them when limit > 0.
func bruteFrom(text, pattern string, from, limit int) []int {
	var at []int
	for i := from; i+len(pattern) <= len(text) && (limit == 0 || len(at) < limit); i++ {
		if text[i:i+len(pattern)] == pattern {
			at = append(at, i)
		}
	}
	return at
}

// checkIndexAgainstBrute fails t unless g's answer (when it gives one) and
// the searcher's (with and without an index) are the brute force's.
func checkIndexAgainstBrute(t *testing.T, g indexUnderTest, text, pattern string, from int) {
	for _, limit := range []int{0, 1, 2} {
		want := bruteFrom(text, pattern, from, limit)
		o, ok := g.find(text, pattern, from, make([]int, 0, len(want)+1), limit, new(int))
		if ok != (len(pattern) >= indexMinPattern && len(pattern) <= len(text)) && g.maxCandidates == math.MaxInt {
			t.Fatalf("index of %q, %q from %d: answered %v", text, pattern, from, ok)
		}
		if ok && (o.Count != len(want) || !equalInts(o.Kept, want)) {
			t.Fatalf("index of %q, %q from %d limit %d: %d at %v, want %v", text, pattern, from, limit, o.Count, o.Kept, want)
		}
	}
	want := bruteFrom(text, pattern, from, 0)
	for indexed := range 3 { // not, by grams, and by grams and short keys
		s := &Searcher{text: text, own: g.ranks}
		if indexed > 0 {
			s.index = g.gramIndex
		}
		if indexed > 1 {
			if !ShortPattern(pattern) {
				continue // the same questions as with the gram index alone
			}
			s.short = g.short
		}
		if o := s.Find(pattern, from, make([]int, 0, len(want)+1)); o.Count != len(want) || !equalInts(o.Kept, want) {
			t.Fatalf("searcher (indexed %v) of %q, %q from %d: %d at %v, want %v", indexed, text, pattern, from, o.Count, o.Kept, want)
		}
		if indexed > 1 { // what the short index counts, the first kept by a scan
			if o := s.Find(pattern, from, make([]int, 0, 1)); o.Count != len(want) || !equalInts(o.Kept, want[:min(1, len(want))]) {
				t.Fatalf("searcher of %q, %q from %d keeping 1: %d at %v, want %d at %v", text, pattern, from, o.Count, o.Kept, len(want), want)
			}
		}
		for _, n := range []int{1, 2} {
			want := bruteFrom(text, pattern, from, n)
			o := s.First(pattern, from, n)
			if o.Count != len(want) || !equalInts(o.First[:o.Count], want) {
				t.Fatalf("searcher (indexed %v) of %q, first %d of %q from %d: %v, want %v", indexed, text, n, pattern, from, o.First[:o.Count], want)
			}
		}
	}
}

// bruteLongestPrefix is the longest leading part of pattern, ending at a
// code point boundary, that text holds, in bytes, and its first offset
// (0 and -1 for none).
func bruteLongestPrefix(text, pattern string) (length, first int) {
	for l := len(pattern); l > 0; l-- {
		if l < len(pattern) && !utf8.RuneStart(pattern[l]) {
			continue
		}
		if b := strings.Index(text, pattern[:l]); b >= 0 {
			return l, b
		}
	}
	return 0, -1
}

// checkLongestPrefixAgainstBrute fails t unless g's longest leading part,
// when it answers, says what the brute force finds: the longest part at
// its first offset when it is sure, else a part that does occur where it
// says, with no part of sure bytes anywhere.
func checkLongestPrefixAgainstBrute(t *testing.T, g indexUnderTest, text, pattern string) {
	t.Helper()
	length, first, sure, ok := g.longestPrefix(text, pattern, new(int))
	if !ok {
		return
	}
	l, b := bruteLongestPrefix(text, pattern)
	switch {
	case length >= sure && (length != l || first != b):
		t.Fatalf("longestPrefix(%q) in %.60q = %d at %d (sure %d), want %d at %d", pattern, text, length, first, sure, l, b)
	case length < sure && (l >= sure || length > 0 && !strings.HasPrefix(text[first:], pattern[:length]) || length == 0 && first != -1):
		t.Fatalf("longestPrefix(%q) in %.60q = %d at %d (sure %d); the longest is %d at %d", pattern, text, length, first, sure, l, b)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGramIndexFindsEveryOccurrenceOverTinyAlphabets: over two and three
// letters, every text up to 9 and 6 bytes and every pattern from one byte
// shorter than the index answers to two bytes longer, from the start and
// the next offset, the index (guards off), and the searcher with and
// without it, give every occurrence, overlapping ones, in order: the
// sampled grams miss none whatever the residue of where an occurrence
// starts.
func TestGramIndexFindsEveryOccurrenceOverTinyAlphabets(t *testing.T) {
	t.Parallel()
	for _, alphabet := range []string{"ab", "abc"} {
		max := 9
		if len(alphabet) == 3 {
			max = 6
		}
		if testing.Short() {
			max -= 2
		}
		texts := testkit.AllStrings(alphabet, max)
		for _, text := range texts {
			if len(text) < indexMinPattern {
				continue
			}
			g := unguarded(text)
			for _, pattern := range texts {
				if len(pattern) > len(text) || len(pattern) < indexMinPattern-1 || len(pattern) > indexMinPattern+2 {
					continue
				}
				for _, from := range []int{0, 1} {
					checkIndexAgainstBrute(t, g, text, pattern, from)
				}
				checkLongestPrefixAgainstBrute(t, g, text, pattern)
			}
		}
	}
}

// TestGramIndexOnProseAndRepeats: on prose, patterns cut from it (found)
// and altered (mostly not), and on periodic text, the guarded index
// answers as the brute force does when it answers, and leaves periodic
// text to the scan.
func TestGramIndexOnProseAndRepeats(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	prose := testkit.NewCorpus(13).Prose(64 << 10)
	g := newIndexUnderTest(prose)
	answered := 0
	for range 300 {
		i := r.IntN(len(prose) - 200)
		p := prose[i : i+1+r.IntN(200)]
		if r.IntN(2) == 0 {
			b := []byte(p)
			b[r.IntN(len(b))] ^= 0x20
			p = string(b)
		}
		if _, ok := g.find(prose, p, 0, nil, 0, new(int)); ok {
			answered++
		}
		checkIndexAgainstBrute(t, g, prose, p, r.IntN(len(prose)))
	}
	if answered < 200 {
		t.Errorf("the index answered %d of 300 questions of prose", answered)
	}
	periodic := strings.Repeat("abcab", 4<<10)
	if _, ok := newGramIndex(periodic).find(periodic, "abcababcababcab", 0, nil, 0, new(int)); ok {
		t.Errorf("the index answered a question of periodic text, which a scan answers faster")
	}
}

// TestSearcherIndexesOnceScansCostTheIndex: a searcher indexes its text
// once its scans have done 1/indexWorkShare of a step per byte of work: soon for short
// questions, which a scan answers at a few bytes a step, and never for
// long ones that it skips through.
func TestSearcherIndexesOnceScansCostTheIndex(t *testing.T) {
	t.Parallel()
	text := testkit.NewCorpus(14).Prose(indexMinText * 16)
	long := &Searcher{text: text}
	absent := text[5000:5300] + "\x00"
	for range 50 {
		long.Find(absent, 0, nil)
	}
	if long.index != nil || long.spent > len(text)/2 {
		t.Errorf("50 scans for a 300-byte pattern: indexed %v, work %d on %d bytes", long.index != nil, long.spent, len(text))
	}
	short := &Searcher{text: text}
	asked := 0
	for ; short.index == nil && asked < 100; asked++ {
		before := short.spent
		short.Find("absent from the text", 0, nil)
		if short.index == nil && before*indexWorkShare >= len(text) {
			t.Fatalf("work %d on %d bytes and not indexed", before, len(text))
		}
	}
	if asked < 2 || short.index == nil {
		t.Errorf("a short pattern's scans indexed the text after %d questions (index %v)", asked, short.index != nil)
	}
	small := &Searcher{text: text[:indexMinText-1]}
	for range 400 {
		small.Find("absent", 0, nil)
	}
	if small.index != nil {
		t.Errorf("a text shorter than indexMinText was indexed")
	}
}

// indexAtRare finds what strings.Index finds, whichever byte of the
// pattern it looks for First: every text and pattern over tiny alphabets,
// and texts where the byte is common, so that it gives up on it.
func TestIndexAtRareIsStringsIndex(t *testing.T) {
	t.Parallel()
	texts, patterns := testkit.AllStrings("abc", 7), testkit.AllStrings("abc", 4)
	prose := testkit.NewCorpus(16).Prose(8 << 10)
	texts = append(texts, prose)
	patterns = append(patterns, "e th", "xyzzy", "the end", prose[5000:5010], prose[8000:], "abb")
	// Where it gives up, the next alignment may be an occurrence.
	for k := range 20 {
		texts = append(texts, strings.Repeat("cb", k)+"abb")
	}
	for _, text := range texts {
		for _, pattern := range patterns {
			for rare := range len(pattern) {
				if got, want := indexAtRare(text, pattern, rare), strings.Index(text, pattern); got != want {
					t.Fatalf("indexAtRare(%.40q, %q, %d) = %d, want %d", text, pattern, rare, got, want)
				}
			}
		}
	}
}

// FuzzGramIndexAgainstBrute: the index's occurrences, the longest leading
// part read from it, and indexAtRare are the brute force's for any text
// and pattern.
func FuzzGramIndexAgainstBrute(f *testing.F) {
	f.Add("the cat sat on the mat", "at on the", uint16(0))
	f.Add("aaaaaaaaaaaa", "aaaaa", uint16(3))
	f.Add("abababababababab", "babab", uint16(1))
	f.Add("xyzzyxyzzy", "zzyxyzz", uint16(9))
	f.Fuzz(func(t *testing.T, text, pattern string, from uint16) {
		if len(text) > 1<<12 || len(pattern) > 64 {
			return
		}
		at := int(from) % (len(text) + 1)
		g := unguarded(text)
		checkIndexAgainstBrute(t, g, text, pattern, at)
		if len(text) > 0 {
			i := int(from) % len(text)
			checkIndexAgainstBrute(t, g, text, text[i:min(len(text), i+len(pattern)+indexMinPattern)], at)
		}
		for rare := range len(pattern) {
			if got, want := indexAtRare(text, pattern, rare), strings.Index(text, pattern); got != want {
				t.Fatalf("indexAtRare(%q, %q, %d) = %d, want %d", text, pattern, rare, got, want)
			}
		}
		if utf8.ValidString(text) && utf8.ValidString(pattern) { // as decoded texts and claims are
			checkLongestPrefixAgainstBrute(t, g, text, pattern)
		}
	})
}

// BenchmarkGramIndex: building the index of a maximum-size source of
// prose, which explaining a request does once per source and reading.
func BenchmarkGramIndex(b *testing.B) {
	text := testkit.NewCorpus(15).Prose(maxTextBytes)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		newGramIndex(text)
	}
}

// TestSearcherAnswersAgainWhatItWasAsked: a searcher answers a question
// asked again from its first answer, and a caller's pattern may be a view
// of a buffer it then reuses (a folder's, a skeletonizer's): the answers
// kept do not change with it. Many patterns, so that the keys of the
// answers' map collide in the bits it compares first.
func TestSearcherAnswersAgainWhatItWasAsked(t *testing.T) {
	text := string(testkit.NewCorpus(80).Runes([]rune("abc"), 3000))
	s := NewSearcher(text, NewBudget(nil, 1<<40))
	s.Budget.Begin(1)
	buf := make([]byte, 6)
	view := unsafe.String(&buf[0], len(buf))
	r := testkit.NewRand(81)
	for range 2000 {
		for i := range buf {
			buf[i] = "abcz"[r.IntN(4)]
		}
		fresh := string(buf)
		want := bruteOccurrences(text, fresh).Count
		if got := s.Find(view, 0, nil).Count; got != want {
			t.Fatalf("%q: %d occurrences, want %d", fresh, got, want)
		}
		if got := s.Find(fresh, 0, nil).Count; got != want {
			t.Fatalf("%q asked again: %d occurrences, want %d", fresh, got, want)
		}
	}
}

// BenchmarkGramLookup: answering 24-byte patterns cut from a source of
// prose from its gram index, as explain's searcher does: ns per lookup.
func BenchmarkGramLookup(b *testing.B) {
	text := testkit.NewCorpus(15).Prose(maxTextBytes)
	g := newGramIndex(text)
	r := testkit.NewRand(18)
	var patterns []string
	for range 64 {
		i := r.IntN(len(text) - 64)
		patterns = append(patterns, text[i:i+24])
	}
	keep := make([]int, 0, 8)
	var work int
	k := 0
	for b.Loop() {
		if _, ok := g.find(text, patterns[k%len(patterns)], 0, keep, 0, &work); !ok {
			b.Fatal("not answered from the index")
		}
		k++
	}
}
