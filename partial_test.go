package citecheck

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/testkit"
)

// bruteLeadingPart is longestLeadingPart by brute force: the longest
// leading part of claimed, in code points, that strings.Index finds, and
// the code point where it first occurs (-1 for none).
func bruteLeadingPart(text, claimed string) (length, start int) {
	for l := len(claimed); l > 0; l-- {
		if l < len(claimed) && !utf8.RuneStart(claimed[l]) {
			continue
		}
		if b := strings.Index(text, claimed[:l]); b >= 0 {
			return utf8.RuneCountInString(claimed[:l]), utf8.RuneCountInString(text[:b])
		}
	}
	return 0, -1
}

// leadingPartChecker checks longestLeadingPart in a text, scanned and
// indexed (with the index's guards off when unguarded, so that it answers
// for tiny texts too).
func leadingPartChecker(text string, unguarded bool) func(t *testing.T, claimed string) {
	scanned, indexed := newTextIndex(text), newTextIndex(text)
	g := newGramIndex(text)
	if unguarded {
		g.maxCandidates, g.maxCompared = math.MaxInt, math.MaxInt
	}
	indexed.search().index = g
	return func(t *testing.T, claimed string) {
		t.Helper()
		l, s := bruteLeadingPart(text, claimed)
		for _, x := range []*textIndex{scanned, indexed} {
			if p := longestLeadingPart(x, claimed); p.Length != l || p.Start != s {
				t.Fatalf("%q in %.60q (indexed %v): length %d at %d, want %d at %d", claimed, text, x == indexed, p.Length, p.Start, l, s)
			}
		}
	}
}

// The longest leading part is the brute force's, and where it first
// occurs: every text and claim over tiny alphabets, one of them of two
// bytes a letter.
func TestLongestLeadingPartIsTheBruteForces(t *testing.T) {
	t.Parallel()
	texts, claims := allStringsUpTo("ab", 9), allStringsUpTo("ab", 7)
	for _, b := range []string{"b", "é"} {
		for _, text := range texts {
			check := leadingPartChecker(strings.ReplaceAll(text, "b", b), true)
			for _, claimed := range claims {
				check(t, strings.ReplaceAll(claimed, "b", b))
			}
		}
	}
}

// On prose, indexed or not, with parts that occur more often than
// longestLeadingPart extends at once: words of the text in another order,
// and passages of it with one byte changed.
func TestLongestLeadingPartOnProse(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	text := testkit.NewCorpus(23).Prose(indexMinText * 4)
	check := leadingPartChecker(text, false)
	words := strings.Fields(text)
	for range 300 {
		var claimed string
		if r.IntN(2) == 0 {
			var b strings.Builder
			for range 1 + r.IntN(8) {
				b.WriteString(words[r.IntN(len(words))] + " ")
			}
			claimed = b.String()
		} else {
			i := r.IntN(len(text) - 100)
			c := []byte(text[i : i+1+r.IntN(100)])
			c[r.IntN(len(c))] ^= 0x20
			claimed = string(c)
		}
		if !utf8.ValidString(claimed) { // a decoded claim is valid
			continue
		}
		check(t, claimed)
	}
}
