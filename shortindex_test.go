package citecheck

import (
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// The short index counts every pattern of one to four bytes as the brute
// force does, over every text of a tiny alphabet that has a zero byte
// (the padding past the end) and on prose.
func TestShortIndexCountsLikeBruteForce(t *testing.T) {
	t.Parallel()
	texts := allStringsUpTo("a\x00b", 7)
	texts = append(texts, testkit.NewCorpus(18).Prose(4<<10))
	patterns := allStringsUpTo("a\x00b", 4)[1:]
	patterns = append(patterns, "e", "th", "the", "the ", " of", "\n")
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
	s := &searcher{text: text}
	s.index = newGramIndex(text)
	for asked := 1; asked <= shortIndexScans+1; asked++ {
		if o := s.find("e", 0, nil); o.count != strings.Count(text, "e") {
			t.Fatalf("%d of \"e\", want %d", o.count, strings.Count(text, "e"))
		}
		if got := s.short != nil; got != (asked > shortIndexScans) {
			t.Fatalf("after %d questions of a short pattern, short index %v", asked, got)
		}
	}
}

// BenchmarkShortIndex: sorting the keys of a maximum-size source of prose.
func BenchmarkShortIndex(b *testing.B) {
	text := testkit.NewCorpus(15).Prose(MaxTextBytes)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		newShortIndex(text)
	}
}
