package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// shortCases are the texts and the patterns of one to four bytes that
// short counts are tested on: every text of a tiny alphabet that has a
// zero byte (the padding past the end) up to 7 bytes and every pattern of
// it, and prose with common short words.
func shortCases() (texts, patterns []string) {
	texts = append(testkit.AllStrings("a\x00b", 7), testkit.NewCorpus(18).Prose(4<<10))
	patterns = append(testkit.AllStrings("a\x00b", 4)[1:], "e", "th", "the", "the ", " of", "\n")
	return texts, patterns
}

// The short index counts every pattern of one to four bytes as the brute
// force does, over every text of a tiny alphabet that has a zero byte
// (the padding past the end) and on prose.
func TestShortIndexCountsLikeBruteForce(t *testing.T) {
	t.Parallel()
	texts, patterns := shortCases()
	for _, text := range texts {
		x := newShortIndex(text)
		for _, p := range patterns {
			if got, want := x.count(text, p), testkit.CountOverlapping(text, p); got != want {
				t.Fatalf("count of %q in %.40q: %d, want %d", p, text, got, want)
			}
		}
	}
}

// A searcher answers short patterns from its short index once their scans
// have read the text shortIndexScans times: the question after them.
func TestSearcherBuildsItsShortIndexAfterScans(t *testing.T) {
	t.Parallel()
	text := testkit.NewCorpus(19).Prose(indexMinText * 4)
	s := &Searcher{text: text}
	s.index = newGramIndex(text)
	for asked := 1; asked <= shortIndexScans+1; asked++ {
		if o := s.Find("e", 0, nil); o.Count != strings.Count(text, "e") {
			t.Fatalf("%d of \"e\", want %d", o.Count, strings.Count(text, "e"))
		}
		if got := s.short != nil; got != (asked > shortIndexScans) {
			t.Fatalf("after %d questions of a short pattern, short index %v", asked, got)
		}
	}
}

// BenchmarkShortIndex: sorting the keys of a maximum-size source of prose.
func BenchmarkShortIndex(b *testing.B) {
	text := testkit.NewCorpus(15).Prose(maxTextBytes)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		newShortIndex(text)
	}
}

// countShort counts every pattern of one to four bytes, and keeps its
// first occurrences, as the brute force does, over every text of a tiny
// alphabet that has a zero byte (the padding past the end), on prose,
// and with keep below, at and above the counts.
func TestCountShortIsTheBruteForces(t *testing.T) {
	t.Parallel()
	texts, patterns := shortCases()
	for _, text := range texts {
		for _, keep := range []int{0, 1, 3, hintStarts} {
			found := countShort(text, patterns, keep)
			for id, p := range patterns {
				want, at := bruteOccurrences(text, p), bruteFrom(text, p, 0, 0)
				if got := found[id]; got.Count != want.Count || got.First != want.First || !slices.Equal(got.Kept, at[:min(keep, len(at))]) {
					t.Fatalf("%q in %.40q, keep %d: %+v, want %+v at %v", p, text, keep, got, want, at)
				}
			}
		}
	}
}

// BenchmarkCountShort: counting a request's short quotes (1 to 4 bytes,
// drawn from the text) in one pass over a maximum-size source of prose.
func BenchmarkCountShort(b *testing.B) {
	corpus := testkit.NewCorpus(15)
	text := corpus.Prose(maxTextBytes)
	for _, n := range []int{8, maxCitations} {
		seen := map[string]bool{}
		var patterns []string
		for len(patterns) < n {
			p := corpus.Rand.IntN(len(text) - 4)
			if q := text[p : p+1+corpus.Rand.IntN(4)]; !seen[q] {
				seen[q] = true
				patterns = append(patterns, q)
			}
		}
		b.Run(fmt.Sprintf("patterns=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				countShort(text, patterns, hintStarts)
			}
		})
	}
}

// A searcher that counted its short patterns beforehand answers find and
// first for them as the brute force does, keeping as many as it is asked
// (from what it kept, or by a scan when it kept fewer than asked and not
// all).
func TestCountedShortPatternsAnswerLikeBruteForce(t *testing.T) {
	t.Parallel()
	text := testkit.NewCorpus(20).Prose(indexMinText * 2)
	patterns := []string{"e", "q", "th", "the", "the ", "zzzz", "\n", "."}
	s := &Searcher{text: text}
	s.CountAll(append(patterns, "longer than four"), hintStarts)
	if _, ok := s.counted["longer than four"]; ok {
		t.Fatal("a pattern too long for countShort was counted")
	}
	for _, p := range patterns {
		at := bruteFrom(text, p, 0, 0)
		for _, keep := range []int{0, 1, 2, hintStarts, 2 * hintStarts} {
			read := s.shortRead
			o := s.Find(p, 0, make([]int, 0, keep))
			if keep <= hintStarts && s.shortRead != read {
				t.Fatalf("find(%q) keeping %d scanned the text", p, keep)
			}
			if o.Count != len(at) || !slices.Equal(o.Kept, at[:min(keep, len(at))]) {
				t.Fatalf("find(%q) keeping %d: %d at %v, want %d at %v", p, keep, o.Count, o.Kept, len(at), at[:min(keep, len(at))])
			}
		}
		for n := 1; n <= 2; n++ {
			o := s.First(p, 0, n)
			want := at[:min(n, len(at))]
			if o.Count != len(want) || (len(want) > 0 && o.First[0] != want[0]) || (len(want) > 1 && o.First[1] != want[1]) {
				t.Fatalf("first(%q, %d): %+v, want %v", p, n, o, want)
			}
		}
	}
}

// FuzzCountShortAgainstBrute: countShort's counts and first offsets are
// the brute force's for any text and patterns: the patterns are the
// pieces of the second string between 0xFF bytes, cut to 1 to 4 bytes
// (duplicates and prefixes of each other as they come), with a piece of
// the text itself too.
func FuzzCountShortAgainstBrute(f *testing.F) {
	f.Add("the cat sat on the mat", "at\xffthe \xffe\xff\x00", uint16(3), uint8(2))
	f.Add("aaaaaaaaaaaa", "a\xffaa\xffaaa\xffaaaa\xffb", uint16(0), uint8(8))
	f.Add("ab\x00ab\x00\x00", "\x00\xff\x00\x00\xffb\x00", uint16(5), uint8(0))
	f.Fuzz(func(t *testing.T, text, list string, from uint16, keep uint8) {
		if len(text) > 1<<12 || len(list) > 1<<10 {
			return
		}
		var patterns []string
		for _, p := range strings.Split(list, "\xff") {
			if p = p[:min(len(p), gramLen)]; p != "" {
				patterns = append(patterns, p)
			}
		}
		if len(text) > 0 {
			i := int(from) % len(text)
			patterns = append(patterns, text[i:min(len(text), i+1+int(from)%gramLen)])
		}
		k := int(keep % 16)
		for id, o := range countShort(text, patterns, k) {
			p := patterns[id]
			want, at := bruteOccurrences(text, p), bruteFrom(text, p, 0, 0)
			if o.Count != want.Count || o.First != want.First || !slices.Equal(o.Kept, at[:min(k, len(at))]) {
				t.Fatalf("%q in %q, keep %d: %+v, want %+v at %v", p, text, k, o, want, at)
			}
		}
	})
}
